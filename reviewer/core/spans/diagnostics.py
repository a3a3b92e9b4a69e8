"""The debugging sections of a span-labeling report, as the snapshots' own
report (``baseline-report.txt``) has them and span-labeling-evaluation-
design.md's reporting layer describes: latency per model (and per tier
where the results record tier latencies), missed elements by severity,
missed elements by category and the worst performers.

Figures follow the code that wrote the snapshots where the design is
silent: latency in ms, the average rounded to a whole ms, percentile p of n
sorted values the value at index floor(n x p / 100); three worst performers,
the lowest totalScore first (ties in the order of the results); up to five
example missed elements per severity, as 'text (category)'.

Works on snapshots loaded by reviewer.core.spans.summary.load_snapshot.
Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

#: The severities of a missed element (design: Severity), most severe first.
SEVERITIES = ("critical", "important", "minor")
#: Latency stages read from each result: (stage, where: 'result' key or 'meta' key).
LATENCY_STAGES: tuple[tuple[str, str, str], ...] = (
    ("total", "result", "latencyMs"),  # the whole evaluation of the prompt (design: EvaluationResult.latencyMs)
    ("labeler", "meta", "latency"),  # the span labeler's own time (SpanLabelingMeta.latency)
    ("tier 1", "meta", "tier1Latency"),
    ("tier 2", "meta", "tier2Latency"),
)
PERCENTILES = (50, 95, 99)
WORST_COUNT = 3
SEVERITY_EXAMPLES = 5


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _whole(x: float | None) -> float | None:
    return int(x) if x is not None and float(x).is_integer() else x


def latency_stats(values: Iterable[float]) -> dict:
    """{n, avg, p50, p95, p99} of latencies in ms (module doc: avg rounded to
    a whole ms, pN the sorted value at floor(n x N / 100), whole numbers as
    int); n 0 and zeros when there are none."""
    xs = sorted(values)
    n = len(xs)
    out: dict[str, Any] = {"n": n, "avg": round(sum(xs) / n) if n else 0}
    for p in PERCENTILES:
        out[f"p{p}"] = _whole(xs[min(n - 1, math.floor(n * p / 100))]) if n else 0
    return out


def model_of(result: Mapping, snapshot: Mapping) -> str:
    """The model that labelled a result, as the span-snapshot importer names
    its run: the snapshot's extractionModel, else the result's meta.version,
    else 'unknown'."""
    meta = result.get("meta")
    if not isinstance(meta, Mapping):
        meta = {}
    return str(snapshot.get("extractionModel") or meta.get("version") or "unknown")


def latency_by_model(snapshot: Mapping, file_stats: Mapping | None = None) -> list[dict]:
    """Latency rows of a loaded snapshot: per model (:func:`model_of`) and
    stage (LATENCY_STAGES, only stages some result records) {model, stage,
    source: 'results', n, avg, p50, p95, p99}. When no result records a
    latency, the file's own ``latencyStats`` (``file_stats``; a Gemini
    snapshot's {extraction: {avg, p50, p95}, judge: {...}}) give the rows,
    source 'file', a figure it lacks None."""
    values: dict[tuple[str, str], list[float]] = {}
    for result in snapshot.get("results") or []:
        model = model_of(result, snapshot)
        meta = result.get("meta")
        if not isinstance(meta, Mapping):
            meta = {}
        for stage, where, key in LATENCY_STAGES:
            x = _num((result if where == "result" else meta).get(key))
            if x is not None:
                values.setdefault((model, stage), []).append(x)
    rows = [
        {"model": model, "stage": stage, "source": "results", **latency_stats(xs)}
        for (model, stage), xs in values.items()
    ]
    if rows or not isinstance(file_stats, Mapping):
        return rows
    model = str(snapshot.get("extractionModel") or "unknown")
    flat = {"": file_stats} if any(k in file_stats for k in ("avg", "p50")) else file_stats
    for stage, stats in flat.items():
        if isinstance(stats, Mapping):
            rows.append(
                {
                    "model": model,
                    "stage": stage or "total",
                    "source": "file",
                    "n": None,
                    "avg": _whole(_num(stats.get("avg"))),
                    **{f"p{p}": _whole(_num(stats.get(f"p{p}"))) for p in PERCENTILES},
                }
            )
    return rows


def missed_by_severity(judges: Iterable[Mapping]) -> dict[str, dict]:
    """{severity: {count, examples}} over normalised judge results, for the
    three severities (an unknown severity is not counted); examples: the
    first five as 'text (category)'."""
    out: dict[str, dict[str, Any]] = {s: {"count": 0, "examples": []} for s in SEVERITIES}
    for judge in judges:
        for m in judge.get("missedElements") or []:
            entry = out.get(m.get("severity"))
            if entry is None:
                continue
            entry["count"] += 1
            if len(entry["examples"]) < SEVERITY_EXAMPLES:
                entry["examples"].append(f"{m.get('text', '')} ({m.get('category')})")
    return out


def categories_by_count(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """Missed-element counts per category, most first (ties in the order
    given), as the snapshots' report lists them."""
    return sorted(counts.items(), key=lambda kv: -kv[1])


def worst_performers(results: Iterable[Mapping], count: int = WORST_COUNT) -> list[dict]:
    """The ``count`` judged results with the lowest totalScore (ties in the
    order of the results): [{prompt, input, score, notes}]. ``results``: the
    results that count (with a judge result)."""
    judged = [r for r in results if isinstance(r.get("judgeResult"), Mapping)]
    ranked = sorted(judged, key=lambda r: _num(r["judgeResult"].get("totalScore")) or 0.0)
    return [
        {
            "prompt": str(r.get("promptId") or ""),
            "input": str(r.get("input") or ""),
            "score": _num(r["judgeResult"].get("totalScore")) or 0.0,
            "notes": str(r["judgeResult"].get("notes") or ""),
        }
        for r in ranked[:count]
    ]


__all__ = [
    "LATENCY_STAGES",
    "SEVERITIES",
    "WORST_COUNT",
    "categories_by_count",
    "latency_by_model",
    "latency_stats",
    "missed_by_severity",
    "model_of",
    "worst_performers",
]
