"""The debugging sections of the span report as tables (latency per model
and stage, missed elements by severity and by category, worst performers;
reviewer.core.spans.diagnostics), keyed by snapshot: tables of the export;
and the span tables of ``reviewer report`` in CSV and JSON (these and the
export's span summaries). The Markdown report
(reviewer.storage.spans.spans.report_markdown) shows the same figures; the
span registration names the three as the span section of the report."""

from __future__ import annotations

import csv
import io

from reviewer.core.spans.diagnostics import SEVERITIES, categories_by_count
from reviewer.core.tables import csv_row
from reviewer.storage.project.db import Project
from reviewer.storage.spans.spans import (
    export_tables,
    has_span_data,
    report_markdown,
    snapshot,
    snapshot_names,
    summary_and_notes,
)

LATENCY_COLUMNS = {
    "snapshot": str,
    "model": str,
    "stage": str,
    "source": str,
    "results": int,
    "avg_ms": float,
    "p50_ms": float,
    "p95_ms": float,
    "p99_ms": float,
}
SEVERITY_COLUMNS = {"snapshot": str, "severity": str, "count": int, "examples": str}
CATEGORY_COLUMNS = {"snapshot": str, "category": str, "count": int}
WORST_COLUMNS = {"snapshot": str, "rank": int, "prompt": str, "input": str, "score": float, "notes": str}


def debug_tables(project: Project) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The export's span_latency (per snapshot, model and stage: source
    'results' or 'file', results, avg and percentiles in ms),
    span_missed_severity (count and examples joined by '; '),
    span_missed_categories (most first) and span_worst_performers (rank 1
    the lowest score), as (name, columns, primary key, rows); empty tables
    without snapshots."""
    latency, severity, categories, worst = [], [], [], []
    for name in snapshot_names(project):
        _, loaded = snapshot(project, name)
        s, _ = summary_and_notes(loaded)
        latency += [
            (name, r["model"], r["stage"], r["source"], r["n"], r["avg"], r["p50"], r["p95"], r["p99"])
            for r in s["latencyByModel"]
        ]
        severity += [
            (name, k, s["missedSeverity"][k]["count"], "; ".join(s["missedSeverity"][k]["examples"]))
            for k in SEVERITIES
        ]
        categories += [(name, c, n) for c, n in categories_by_count(s["missedCountsByCategory"])]
        worst += [
            (name, rank, w["prompt"], w["input"], w["score"], w["notes"])
            for rank, w in enumerate(s["worstPerformers"], 1)
        ]
    return [
        ("span_latency", LATENCY_COLUMNS, None, latency),
        ("span_missed_severity", SEVERITY_COLUMNS, None, severity),
        ("span_missed_categories", CATEGORY_COLUMNS, None, categories),
        ("span_worst_performers", WORST_COLUMNS, None, worst),
    ]


#: Tables of the export that are the span workflow's input, not report figures.
INPUT_TABLES = ("golden_spans",)


def report_tables(project: Project) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The span tables of ``reviewer report`` in CSV and JSON, the figures
    the Markdown's span section shows: the export's span summaries
    (reviewer.storage.spans.spans.export_tables: span_summary,
    span_category_scores, span_fp_reasons, span_taxonomy_confusions,
    span_sections, span_confidence, span_f1; not golden_spans, the input)
    then :func:`debug_tables`, as (name, columns, primary key, rows); []
    without span data."""
    if not has_span_data(project):
        return []
    return [t for t in export_tables(project) if t[0] not in INPUT_TABLES] + debug_tables(project)


def report_csv(project: Project) -> str:
    """The span part of ``reviewer report --format csv``: each table of
    :func:`report_tables` that has rows, a first column ``table`` naming
    it, tables separated by a blank line ('' without rows). Text cells are
    made visible and formula-safe (core.text.csv_row)."""
    parts = []
    for name, columns, _, rows in report_tables(project):
        if not rows:
            continue
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["table", *columns])
        for row in rows:
            writer.writerow(csv_row([name, *("" if v is None else v for v in row)]))
        parts.append(buf.getvalue())
    return "\n".join(parts)


def report_json(project: Project) -> dict[str, list[dict]] | None:
    """The span part of the JSON report: {table: [row as an object...]}
    for every table of :func:`report_tables` (empty lists kept), or None
    without span data."""
    tables = report_tables(project)
    if not tables:
        return None
    return {name: [dict(zip(columns, row)) for row in rows] for name, columns, _, rows in tables}


def report_section_markdown(project: Project) -> str:
    """The span section of the Markdown report
    (reviewer.storage.spans.spans.report_markdown), '' without span data."""
    return report_markdown(project) if has_span_data(project) else ""


__all__ = [
    "INPUT_TABLES",
    "debug_tables",
    "report_csv",
    "report_json",
    "report_section_markdown",
    "report_tables",
]
