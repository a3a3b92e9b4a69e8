"""Plain-text renderings of verdicts: the score table, Markdown and CSV reports.

Pure functions over PromptVerdict lists (T-P1); no I/O.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Iterable, Mapping, Optional, Sequence

from reviewer.core.models import PromptVerdict
from reviewer.core.text import bounded, csv_row, display_name, visible

#: Longest name (characters) shown in a table cell; longer ones end in '…'.
CELL_LIMIT = 120

_VERDICT_FIELDS = [
    "prompt", "model", "item", "runs", "cards_visible", "cards_correct", "text_accuracy",
    "spatial_accuracy", "hallucination_runs", "json_valid_runs", "verdict",
]


def pct(value: Optional[float]) -> str:
    """A fraction as a whole percentage ('80%'), or '-' for None."""
    return "-" if value is None else f"{value:.0%}"


def verdict_cell(v: PromptVerdict) -> str:
    """One cell of the prompts x items table: 'pass 100% s40% h0 j3/3'
    (verdict, text accuracy, spatial accuracy when scored, runs with
    hallucinations, runs with valid JSON)."""
    spatial = f" s{pct(v.spatial_accuracy)}" if v.spatial_accuracy is not None else ""
    return (f"{v.verdict.value} {pct(v.text_accuracy)}{spatial} "
            f"h{v.hallucination_runs} j{v.json_signal}")


def verdict_grid(verdicts: Sequence[PromptVerdict],
                 max_items: Optional[int] = None) -> tuple[list[str], list[list[str]]]:
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


def text_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A fixed-width text table with a rule under the header; every cell
    goes through display_name (control and bidi characters made visible,
    at most CELL_LIMIT characters), so names from files cannot drive the
    terminal or stretch the table."""
    header = [display_name(h, CELL_LIMIT) for h in header]
    rows = [[display_name(c, CELL_LIMIT) for c in r] for r in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(header)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


#: Characters that start inline Markdown (code, emphasis, links, HTML,
#: entities, tables, strikethrough): always backslash-escaped.
_MD_INLINE = re.compile(r"([\\`*\[\]<>&|~])")
#: An underscore that could open or close emphasis (not between letters or digits).
_MD_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: What makes a line a heading, list item, quote or setext underline.
_MD_LINE_START = re.compile(r"^(\s*(?:[#+=-]|\d+(?=[.)])))")


def md_text(text: object, line_start: bool = True) -> str:
    """Untrusted text (model, judge or file names, judge output) made inert in
    Markdown with backslash escapes (CommonMark: a backslash-escaped
    character is literal), never HTML entities, so it reads as written in
    the Markdown source and when rendered: line breaks become spaces (it
    stays in its table cell or list item); every
    backslash, backtick, '*', '[', ']', '<', '>', '&', '|' and '~', every
    underscore not inside a word get a backslash; with ``line_start`` (the
    text may begin a line or list item: not in a table cell) so do a
    leading '#', '+', '-', '=' and the '.' or ')' after a leading number.
    Then control and bidi characters are made visible (core.text.visible:
    '<U+202E>', which CommonMark reads as neither a tag nor an autolink).
    ``a > b`` becomes ``a \\> b``."""
    s = str(text).replace("\r", " ").replace("\n", " ")
    s = _MD_INLINE.sub(r"\\\1", s)
    s = _MD_UNDERSCORE.sub(r"\\_", s)
    m = _MD_LINE_START.match(s) if line_start else None
    if m:
        at = m.end(1) if s[m.end(1) - 1].isdigit() else m.end(1) - 1
        s = s[:at] + "\\" + s[at:]
    return visible(s)


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table; every cell goes through md_text,
    cut to CELL_LIMIT characters (a cell never begins a line)."""
    cell = lambda c: md_text(bounded(c, CELL_LIMIT), line_start=False)  # noqa: E731
    out = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def verdict_rows(auto: Sequence[PromptVerdict], reviewed: Sequence[PromptVerdict]) -> tuple[list[str], list[list[str]]]:
    """Rows of the report: every (prompt, item) with automatic and reviewed
    text accuracy and verdict side by side."""
    rev = {v.key(): v for v in reviewed}
    header = ["prompt", "model", "item", "runs", "text", "spatial", "halluc runs", "valid JSON",
              "verdict", "reviewed text", "reviewed spatial", "reviewed halluc runs", "reviewed verdict"]
    rows = []
    for v in auto:
        r = rev.get(v.key())
        rows.append([v.prompt, v.model, "all" if v.item == "*" else v.item, str(v.runs), pct(v.text_accuracy),
                     pct(v.spatial_accuracy), str(v.hallucination_runs), v.json_signal,
                     v.verdict.value, pct(r.text_accuracy) if r else "-", pct(r.spatial_accuracy) if r else "-",
                     str(r.hallucination_runs) if r else "-", r.verdict.value if r else "-"])
    return header, rows


def verdicts_csv(auto: Sequence[PromptVerdict], reviewed: Sequence[PromptVerdict]) -> str:
    """CSV of every verdict, one row per (basis, prompt, item), numbers raw;
    text cells made visible and safe from spreadsheet formulas (core.text.csv_row)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["basis"] + _VERDICT_FIELDS + ["reasons"])
    for basis, vs in (("auto", auto), ("reviewed", reviewed)):
        for v in vs:
            d = v.model_dump(mode="json")
            writer.writerow(csv_row([basis] + ["" if d[f] is None else d[f] for f in _VERDICT_FIELDS]
                                    + ["; ".join(v.reasons)]))
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
