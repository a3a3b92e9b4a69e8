"""The span section of the report, shaped like the snapshots' own report
(summary, score distribution, commonly missed, incorrect extractions,
latency, missed elements by severity and by category, category scores,
false-positive reasons, top confusions, granularity, errors by section,
confidence error rates, worst performers; span-labeling-evaluation-design.md,
"Reporting Layer"), from recomputed summaries. Text from the files (span
texts, roles) is passed through ``md`` so it cannot break the Markdown.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from reviewer.core.spans.diagnostics import SEVERITIES, categories_by_count
from reviewer.core.spans.sections import SECTIONS
from reviewer.core.spans.snapshots import CATEGORIES, FALSE_POSITIVE_REASONS
from reviewer.core.tables import markdown_rows

#: Columns of a span F1 table (``f1_table``).
F1_HEADER = ["match", "category", "golden", "predicted", "matched", "precision", "recall", "F1"]


def f1_table(modes: Mapping, md: Callable[[str], str]) -> list[str]:
    """The Markdown lines of span F1 ({match mode: {category: counts with
    golden, predicted, tp, precision, recall, f1}}): a row per mode and
    category, the category made inert by ``md``."""
    rows = [
        [
            mode,
            md(k),
            str(c.golden),
            str(c.predicted),
            str(c.tp),
            f"{c.precision:.3f}",
            f"{c.recall:.3f}",
            f"{c.f1:.3f}",
        ]
        for mode, groups in modes.items()
        for k, c in groups.items()
    ]
    return markdown_rows(F1_HEADER, rows)


def ms(value) -> str:
    """A latency in ms as the snapshots' report writes it (whole ms), '-' when unknown."""
    return "-" if value is None else f"{value:.0f}"


def debug_markdown(s: Mapping, md: Callable[[str], str]) -> tuple[list[str], list[str]]:
    """Markdown lines of the report's debugging sections (reviewer.core.spans.
    diagnostics): (latency, missed by severity and by category; worst
    performers), the first placed after the incorrect extractions, the
    second at the end, as in the snapshots' own report."""
    out = ["**Latency** (ms, per model and stage; total: the whole evaluation of a prompt)", ""]
    lat = s.get("latencyByModel") or []
    out += (
        markdown_rows(
            ["model", "stage", "results", "avg", "p50", "p95", "p99"],
            [
                [
                    md(r["model"]),
                    md(r["stage"]),
                    "from the file" if r["n"] is None else str(r["n"]),
                    ms(r["avg"]),
                    ms(r["p50"]),
                    ms(r["p95"]),
                    ms(r["p99"]),
                ]
                for r in lat
            ],
        )
        if lat
        else ["none recorded"]
    )
    out += ["", "**Missed elements by severity**", ""]
    sev = s.get("missedSeverity") or {}
    out += markdown_rows(
        ["severity", "count", "examples"],
        [[k, str(sev[k]["count"]), md(", ".join(sev[k]["examples"]))] for k in SEVERITIES if k in sev],
    )
    out += ["", "**Missed elements by category**", ""]
    cats = categories_by_count(s.get("missedCountsByCategory") or {})
    out += markdown_rows(["category", "count"], [[md(c), str(n)] for c, n in cats]) if cats else ["none"]
    out.append("")
    worst = ["**Worst performers** (lowest score first)", ""]
    rows = [
        [f"{w['score']:g}/25", md(w["prompt"]), md(w["input"]), md(w["notes"])] for w in s.get("worstPerformers") or []
    ]
    worst += (markdown_rows(["score", "prompt", "input", "notes"], rows) if rows else ["none"]) + [""]
    return out, worst


def snapshot_markdown(
    name: str,
    meta: Mapping,
    s: Mapping,
    md: Callable[[str], str],
    f1: Mapping | None = None,
    block_notes: Sequence[str] = (),
) -> list[str]:
    """Markdown lines of one snapshot's span section (design report layout):
    ``s`` is a recomputed summary (reviewer.core.spans.summary.compute_summary);
    ``f1``: optional {mode: {group: Counts}} against golden spans;
    ``block_notes``: where the file's own summary block differs."""
    out = [
        f"### Snapshot {md(name)}",
        "",
        f"Judge {md(meta.get('judge_model') or '?')}"
        + (f", extraction model {md(meta['extraction_model'])}" if meta.get("extraction_model") else "")
        + (f", {md(meta['timestamp'])}" if meta.get("timestamp") else ""),
        "",
        f"**Summary** ({s['prompts']} prompts, {s['judged']} judged): average score {s['avgScore']:.2f}/25, "
        f"average span count {s['avgSpanCount']:.2f}, errors {s['errorCount']}",
        "",
    ]
    out += ["**Score distribution**", ""]
    out += markdown_rows(["band", "prompts"], [[k, str(v)] for k, v in s["scoreDistribution"].items()]) + [""]
    for title, key in (
        ("Commonly missed elements", "commonMissedElements"),
        ("Commonly incorrect extractions", "commonIncorrectExtractions"),
    ):
        out += [f"**{title}**", ""]
        out += [f"- {md(t)} ({n}x)" for t, n in s[key]] or ["- none"]
        out.append("")
    debug, worst = debug_markdown(s, md)
    out += debug
    out += ["**Category scores** (average coverage / precision, 1-5)", ""]
    out += markdown_rows(
        ["category", "coverage", "precision"],
        [
            [c, f"{s['avgCategoryScores'][c]['coverage']:.2f}", f"{s['avgCategoryScores'][c]['precision']:.2f}"]
            for c in CATEGORIES
        ],
    ) + [""]
    out += ["**False-positive reasons**", ""]
    out += markdown_rows(
        ["reason", "count"], [[r, str(s["falsePositiveReasons"][r])] for r in FALSE_POSITIVE_REASONS]
    ) + [""]
    out += ["**Top taxonomy confusions** (assigned -> expected)", ""]
    conf = s["topTaxonomyErrors"]
    out += (
        markdown_rows(
            ["assigned role", "expected role", "count", "examples"],
            [
                [md(c["assignedRole"]), md(c["expectedRole"]), str(c["count"]), md(", ".join(c.get("examples") or []))]
                for c in conf
            ],
        )
        if conf
        else ["none"]
    )
    out += ["", "**Granularity**", ""]
    gran = s["topGranularityErrors"]
    out += (
        markdown_rows(
            ["issue", "count", "examples"],
            [[md(g["reason"]), str(g["count"]), md(", ".join(g["examples"]))] for g in gran],
        )
        if gran
        else ["none"]
    )
    out += ["", "**Errors by section**", ""]
    out += markdown_rows(
        ["section", "missed", "false positives"],
        [
            [sec, str(s["errorsBySection"][sec]["missed"]), str(s["errorsBySection"][sec]["falsePositives"])]
            for sec in SECTIONS
        ],
    ) + [""]
    ca = s["confidenceAnalysis"]
    out += [
        "**Confidence error rates** (a span is an error when a false positive, taxonomy or granularity error names it)",
        "",
    ]
    out += markdown_rows(
        ["bucket", "range", "errors", "spans", "error rate", "examples"],
        [
            [
                k,
                f"{b['range'][0]:g}-{b['range'][1]:g}",
                str(b["errors"]),
                str(b["total"]),
                f"{b['errorRate']:.1%}",
                md("; ".join(b["examples"])),
            ]
            for k, b in ca["buckets"].items()
        ],
    )
    rec = ca["recommendedThreshold"]
    out += ["", f"Recommended minimum confidence: {'none' if rec is None else f'{rec:.2f}'}. {md(ca['notes'])}", ""]
    out += worst
    if f1:
        out += ["**Span F1 against golden spans**", ""] + f1_table(f1, md) + [""]
    if s.get("warnings") or block_notes:
        out += ["Notes:", ""] + [f"- {md(w)}" for w in list(s.get("warnings") or []) + list(block_notes)] + [""]
    return out


__all__ = ["debug_markdown", "ms", "snapshot_markdown"]
