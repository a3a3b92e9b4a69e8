"""Plain-text renderings of verdicts: the score table, Markdown and CSV reports.

Pure functions over PromptVerdict lists (T-P1); no I/O.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence

from reviewer.core.models import PromptVerdict
from reviewer.core.tables import csv_row

_VERDICT_FIELDS = [
    "prompt",
    "model",
    "item",
    "runs",
    "cards_visible",
    "cards_correct",
    "text_accuracy",
    "spatial_accuracy",
    "hallucination_runs",
    "json_valid_runs",
    "verdict",
]


def pct(value: float | None) -> str:
    """A fraction as a whole percentage ('80%'), or '-' for None."""
    return "-" if value is None else f"{value:.0%}"


def verdict_cell(v: PromptVerdict) -> str:
    """One cell of the prompts x items table: 'pass 100% s40% h0 j3/3'
    (verdict, text accuracy, spatial accuracy when scored, runs with
    hallucinations, runs with valid JSON)."""
    spatial = f" s{pct(v.spatial_accuracy)}" if v.spatial_accuracy is not None else ""
    return f"{v.verdict.value} {pct(v.text_accuracy)}{spatial} h{v.hallucination_runs} j{v.json_signal}"


def verdict_grid(verdicts: Sequence[PromptVerdict], max_items: int | None = None) -> tuple[list[str], list[list[str]]]:
    """Prompts x items grid: (header, rows); the last column is all items
    ('*'). A row per prompt and model; the model is named when there are
    several. With more than ``max_items`` items only the all-items column
    is kept (a terminal cannot show hundreds of columns)."""
    items = sorted({v.item for v in verdicts if v.item != "*"})
    items = (items if max_items is None or len(items) <= max_items else []) + ["*"]
    several = len({v.model for v in verdicts}) > 1
    lines = list(dict.fromkeys((v.prompt, v.model) for v in verdicts))
    cells = {v.key(): verdict_cell(v) for v in verdicts}
    header = ["prompt (model)" if several else "prompt"] + [("all items" if i == "*" else i) for i in items]
    rows = [[f"{p} ({m})" if several else p] + [cells.get((p, m, i), "") for i in items] for p, m in lines]
    return header, rows


def verdict_rows(auto: Sequence[PromptVerdict], reviewed: Sequence[PromptVerdict]) -> tuple[list[str], list[list[str]]]:
    """Rows of the report: every (prompt, item) with automatic and reviewed
    text accuracy and verdict side by side."""
    rev = {v.key(): v for v in reviewed}
    header = [
        "prompt",
        "model",
        "item",
        "runs",
        "text",
        "spatial",
        "halluc runs",
        "valid JSON",
        "verdict",
        "reviewed text",
        "reviewed spatial",
        "reviewed halluc runs",
        "reviewed verdict",
    ]
    rows = []
    for v in auto:
        r = rev.get(v.key())
        rows.append(
            [
                v.prompt,
                v.model,
                "all" if v.item == "*" else v.item,
                str(v.runs),
                pct(v.text_accuracy),
                pct(v.spatial_accuracy),
                str(v.hallucination_runs),
                v.json_signal,
                v.verdict.value,
                pct(r.text_accuracy) if r else "-",
                pct(r.spatial_accuracy) if r else "-",
                str(r.hallucination_runs) if r else "-",
                r.verdict.value if r else "-",
            ]
        )
    return header, rows


def verdicts_csv(auto: Sequence[PromptVerdict], reviewed: Sequence[PromptVerdict]) -> str:
    """CSV of every verdict, one row per (basis, prompt, item), numbers raw,
    a first column ``table`` naming the table (``card_verdicts``, as every
    table of the CSV report has); text cells made visible and safe from
    spreadsheet formulas (core.tables.csv_row)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["table", "basis"] + _VERDICT_FIELDS + ["reasons"])
    for basis, vs in (("auto", auto), ("reviewed", reviewed)):
        for v in vs:
            d = v.model_dump(mode="json")
            writer.writerow(
                csv_row(
                    ["card_verdicts", basis]
                    + ["" if d[f] is None else d[f] for f in _VERDICT_FIELDS]
                    + ["; ".join(v.reasons)]
                )
            )
    return buf.getvalue()


def findings_per_code(findings_by_prompt: Iterable[tuple[str, Sequence]]) -> tuple[list[str], list[list[str]]]:
    """Counts of findings by final code (rejected and stale ones left out)
    per prompt: (header, rows), as code_count_table gives them."""
    from collections import Counter

    counts: dict[str, Counter] = {}
    for prompt, findings in findings_by_prompt:
        c = counts.setdefault(prompt, Counter())
        c.update(f.effective_code.value for f in findings if f.effective_code)
    return code_count_table(counts.items())


def code_count_table(counts: Iterable[tuple[str, Mapping[str, int]]]) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of finding counts per prompt and final code, from
    (prompt, {code: count}) in row order. Columns are the T-P5 codes in
    review-key order, then the span-labeling codes when any prompt has
    them."""
    from reviewer.core.models import CODE_ORDER, SPAN_CODE_ORDER

    counts = list(counts)
    seen = {code for _, c in counts for code, n in c.items() if n}
    codes = [c.value for c in CODE_ORDER]
    codes += [c.value for c in SPAN_CODE_ORDER if c.value in seen]
    return ["prompt"] + codes, [[p] + [str(c.get(k, 0)) for k in codes] for p, c in counts]


def code_counts_csv(counts: Iterable[tuple[str, Mapping[str, int]]]) -> str:
    """CSV of the findings per final code, the Markdown's "Findings per
    code" table in long form: a first column ``table`` (``card_findings``),
    then prompt, code and findings, one row per prompt and code with at
    least one finding (the JSON report's ``cards.code_counts``); '' when no
    code has a finding. Text cells are formula-safe (core.tables.csv_row)."""
    rows = [(p, code, n) for p, c in counts for code, n in c.items() if n]
    if not rows:
        return ""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["table", "prompt", "code", "findings"])
    for row in rows:
        writer.writerow(csv_row(["card_findings", *row]))
    return buf.getvalue()
