"""The debugging sections of the span report as tables (latency per model
and stage, missed elements by severity and by category, worst performers;
reviewer.core.spans.diagnostics), keyed by snapshot: tables of the export
and the span part of ``reviewer report --format csv``. The Markdown report
(reviewer.storage.spans.spans.report_markdown) shows the same figures."""

from __future__ import annotations

import csv
import io
from typing import Optional

from reviewer.core.spans.diagnostics import SEVERITIES, categories_by_count
from reviewer.core.tables import csv_row
from reviewer.storage.db import Project
from reviewer.storage.spans.spans import snapshot, snapshot_names, summary_and_notes

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


def debug_tables(project: Project) -> list[tuple[str, dict, Optional[str], list[tuple]]]:
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


def report_csv(project: Project) -> str:
    """The span part of ``reviewer report --format csv``: each table of
    :func:`debug_tables` with its rows, a first column ``table`` naming it,
    tables separated by a blank line ('' without snapshots). Text cells are
    made visible and formula-safe (core.text.csv_row)."""
    if not snapshot_names(project):
        return ""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for n, (name, columns, _, rows) in enumerate(debug_tables(project)):
        if n:
            buf.write("\n")
        writer.writerow(["table", *columns])
        for row in rows:
            writer.writerow(csv_row([name, *("" if v is None else v for v in row)]))
    return buf.getvalue()


__all__ = ["debug_tables", "report_csv"]
