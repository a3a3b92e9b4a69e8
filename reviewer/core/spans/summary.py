"""A span-labeling snapshot loaded with defaults and its summary recomputed
from its results (span-labeling-evaluation-design.md, "Enhanced Summary
Computation", "Confidence Analysis Module", "Backward Compatibility"; design
properties P5-P9).

Summaries are always recomputed from the results; a snapshot's own summary
block is only compared against (:func:`compare_block`).

Where the design and the code that wrote the snapshots (prompt-builder's
span-labeling-evaluation.ts ``computeSummary``) disagree, the design wins:

* confidence buckets: a span is an error when a false positive, a taxonomy
  error or a granularity error names it by spanIndex (the code counts only
  false positives, matched by index or else by text);
* threshold recommendation: 0.6 when the low bucket's error rate is above
  0.5, else 0.8 when the medium bucket's is (the code recommends when one
  bucket's rate exceeds the next bucket's by 0.2 with 5 or more spans);
* category averages leave out pairs outside 1-5 (see
  :mod:`reviewer.core.spans.snapshots`);
* sections start at their header (see :mod:`reviewer.core.spans.sections`).

Where the design is silent the code is followed: only results with a judge
result whose totalScore is above 0 count; score distribution bands
(excellent 23-25, good 18-22, acceptable 13-17, poor 8-12, failing 0-7); the
ten most common missed and incorrect texts; missed elements counted in the
section where their text occurs; pipeline and span sources; latency stats.

Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from reviewer.core.spans import snapshots as base
from reviewer.core.spans.diagnostics import latency_by_model, missed_by_severity, worst_performers
from reviewer.core.spans.sections import SECTIONS, detect_sections, tag_spans, text_section

#: Score distribution bands (lowest score of each), as the snapshots write them.
SCORE_BANDS: tuple[tuple[str, float], ...] = (
    ("excellent (23-25)", 23),
    ("good (18-22)", 18),
    ("acceptable (13-17)", 13),
    ("poor (8-12)", 8),
    ("failing (0-7)", -math.inf),
)
#: Confidence buckets (design P8): name, lower bound, range.
BUCKETS: tuple[tuple[str, float, tuple[float, float]], ...] = (
    ("high", 0.8, (0.8, 1.0)),
    ("medium", 0.6, (0.6, 0.8)),
    ("low", -math.inf, (0.0, 0.6)),
)
#: A bucket with an error rate above this gets a threshold recommendation (design P9).
ERROR_RATE_LIMIT = 0.5
#: Per-prompt score change that makes a regression or improvement (the code's compare-snapshots).
COMMON_TOP = 10


def _num(value: Any, default: float = 0.0) -> float:
    if isinstance(value, bool) or value is None:
        return default
    try:
        x = float(value)
    except (TypeError, ValueError):
        return default
    return x if math.isfinite(x) else default


def _int_index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _compact_judge(result: Mapping, snapshot: Mapping, single: bool) -> dict | None:
    """A judge result for a result of the compact format (Gemini snapshots:
    results hold only ``score``; the file's ``categoryScores`` and
    ``commonErrors`` belong to its only result when there is one)."""
    score = result.get("score")
    if score is None or isinstance(score, bool):
        return None
    judge: dict[str, Any] = {
        "scores": {},
        "totalScore": _num(score),
        "notes": result.get("notes") or "",
        "missedElements": [],
        "falsePositives": [],
        "taxonomyErrors": [],
        "granularityErrors": [],
        "categoryScores": {},
    }
    if single:
        if isinstance(snapshot.get("categoryScores"), Mapping):
            judge["categoryScores"] = dict(snapshot["categoryScores"])
        common = snapshot.get("commonErrors")
        if not isinstance(common, Mapping):
            common = {}
        for key, fields in (
            ("missedElements", ("category",)),
            ("falsePositives", ("reason",)),
            ("taxonomyErrors", ("assignedRole", "expectedRole")),
        ):
            for entry in common.get(key) or []:
                if isinstance(entry, Mapping):
                    one = {"text": str(entry.get("text", "")), **{f: entry.get(f) for f in fields if f in entry}}
                    judge[key] += [dict(one) for _ in range(max(1, int(_num(entry.get("count"), 1))))]
    return judge


def load_snapshot(data: Mapping) -> dict:
    """A snapshot with every field a summary needs (design
    loadSnapshotWithDefaults; property P7): results get promptId, input,
    output, spans (sections recomputed from the output text and each span
    tagged by its start), spanCount, meta, the judge result normalised (old
    basic results: missed elements from strings, incorrectExtractions as
    false positives, category scores 3 / 3), error and latencyMs; the
    compact Gemini format (results with only ``score``) gets a judge result
    from it. ``summary`` is the file's own block (or {}), kept only to
    compare against. Never raises for a mapping."""
    raw_results = data.get("results")
    if not isinstance(raw_results, list):
        raw_results = []
    single = len(raw_results) == 1
    results = []
    for index, raw in enumerate(raw_results):
        if not isinstance(raw, Mapping):
            continue
        output = raw.get("output")
        if not isinstance(output, str):
            output = ""
        sections = detect_sections(output)
        spans = (
            [s for s in raw.get("spans") or [] if isinstance(s, Mapping)] if isinstance(raw.get("spans"), list) else []
        )
        judge = raw.get("judgeResult")
        compact = False
        if isinstance(judge, Mapping):
            judge = base.normalise_judge_result(judge)
        elif "score" in raw:
            judge, compact = _compact_judge(raw, data, single), True
            judge = base.normalise_judge_result(judge) if judge else None
            if judge is not None:
                judge["totalScore"] = _num(raw.get("score"))
        else:
            judge = None
        span_count = raw.get("spanCount")
        results.append(
            {
                "promptId": str(raw.get("promptId") or f"result-{index}"),
                "input": raw.get("input") if isinstance(raw.get("input"), str) else "",
                "output": output,
                "spans": tag_spans(spans, sections),
                "spanCount": int(_num(span_count, len(spans))) if span_count is not None else len(spans),
                "meta": raw.get("meta") if isinstance(raw.get("meta"), Mapping) else None,
                "judgeResult": judge,
                "error": raw.get("error") or None,
                "latencyMs": raw.get("latencyMs"),
                "sections": sections.to_json(),
                "compact": compact,
            }
        )
    return {
        "timestamp": data.get("timestamp") if isinstance(data.get("timestamp"), str) else None,
        "judgeModel": str(data.get("judgeModel") or ""),
        "extractionModel": data.get("extractionModel") if isinstance(data.get("extractionModel"), str) else None,
        "sourceFile": data.get("sourceFile") if isinstance(data.get("sourceFile"), str) else None,
        "promptCount": data.get("promptCount"),
        "results": results,
        "summary": dict(data["summary"]) if isinstance(data.get("summary"), Mapping) else {},
        "categoryScores": data.get("categoryScores") if isinstance(data.get("categoryScores"), Mapping) else None,
        "latencyStats": data.get("latencyStats") if isinstance(data.get("latencyStats"), Mapping) else None,
    }


def successful_results(results: Iterable[Mapping]) -> list[Mapping]:
    """Results of a loaded snapshot whose judge result counts: present with
    totalScore above 0 (a failed judge call is stored with 0)."""
    return [
        r for r in results if isinstance(r.get("judgeResult"), Mapping) and _num(r["judgeResult"].get("totalScore")) > 0
    ]


def error_span_indices(result: Mapping) -> set[int]:
    """Indices of the spans the judge named as errors: by a false positive, a
    taxonomy error or a granularity error with a spanIndex within the spans
    (design computeConfidenceAnalysis; property P8)."""
    judge = result.get("judgeResult") or {}
    n = len(result.get("spans") or [])
    out = set()
    for key in ("falsePositives", "taxonomyErrors", "granularityErrors"):
        for entry in judge.get(key) or []:
            index = _int_index(entry.get("spanIndex"))
            if index is not None and 0 <= index < n:
                out.add(index)
    return out


def _names_other_span(entry: Mapping, spans: list) -> bool:
    index = _int_index(entry.get("spanIndex"))
    if index is None or not 0 <= index < len(spans):
        return False
    norm = lambda t: " ".join(str(t or "").lower().split())  # noqa: E731
    return bool(norm(entry.get("text"))) and norm(entry.get("text")) != norm(spans[index].get("text"))


def bucket_of(confidence: Any) -> str:
    """'high' for confidence >= 0.8, 'medium' for >= 0.6, else 'low' (a
    missing or non-numeric confidence is 0). Design property P8."""
    c = _num(confidence)
    for name, low, _ in BUCKETS:
        if c >= low:
            return name
    return "low"


def recommend_threshold(buckets: Mapping[str, Mapping]) -> tuple[float | None, str]:
    """(recommended minimum confidence, note) by the design's rule (property
    P9): 0.6 when the low bucket's error rate is above 0.5, else 0.8 when the
    medium bucket's is, else None ("Current threshold is appropriate")."""
    low, medium = buckets["low"]["errorRate"], buckets["medium"]["errorRate"]
    if low > ERROR_RATE_LIMIT:
        return 0.6, (
            f"Low confidence spans (< 0.6) have {low * 100:.1f}% error rate. Consider raising threshold to 0.6."
        )
    if medium > ERROR_RATE_LIMIT:
        return 0.8, (
            f"Medium confidence spans (0.6-0.8) have {medium * 100:.1f}% error rate. Consider raising threshold to 0.8."
        )
    return None, "Confidence scores correlate well with accuracy. Current threshold is appropriate."


def confidence_analysis(results: Iterable[Mapping]) -> dict:
    """The design's ConfidenceAnalysis over results with a judge result
    (properties P8 and P9): {buckets: {high|medium|low: {range, total,
    errors, errorRate, examples}}, recommendedThreshold, notes}; errorRate is
    errors / total (0 when empty); examples are up to 3 error spans as
    '"text" (role)'."""
    buckets: dict[str, dict[str, Any]] = {
        name: {"range": list(rng), "total": 0, "errors": 0, "errorRate": 0.0, "examples": []}
        for name, _, rng in BUCKETS
    }
    for result in results:
        if not isinstance(result.get("judgeResult"), Mapping):
            continue
        errors = error_span_indices(result)
        for index, span in enumerate(result.get("spans") or []):
            b = buckets[bucket_of(span.get("confidence"))]
            b["total"] += 1
            if index in errors:
                b["errors"] += 1
                if len(b["examples"]) < 3:
                    b["examples"].append(f'"{span.get("text", "")}" ({span.get("role", "")})')
    for b in buckets.values():
        b["errorRate"] = b["errors"] / b["total"] if b["total"] else 0.0
    threshold, notes = recommend_threshold(buckets)
    return {"buckets": buckets, "recommendedThreshold": threshold, "notes": notes}


def _common(texts: list[str]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for t in texts:
        counts[t] = counts.get(t, 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])[:COMMON_TOP]


def score_band(total: float) -> str:
    """The score distribution band of a 0-25 totalScore."""
    for name, low in SCORE_BANDS:
        if total >= low:
            return name
    return SCORE_BANDS[-1][0]


def compute_summary(snapshot: Mapping) -> dict:
    """The summary of a loaded snapshot (:func:`load_snapshot`), recomputed
    from its results (design computeEnhancedSummary; properties P5, P6, P8,
    P9). Keys as the snapshots' summary block (averages not rounded):
    prompts, judged, avgScore, avgSpanCount, scoreDistribution, errorCount,
    commonMissedElements and commonIncorrectExtractions ([[text, count]]),
    avgCategoryScores, falsePositiveReasons, topTaxonomyErrors,
    topGranularityErrors, errorsBySection, confidenceAnalysis,
    missedBySeverity, missedCountsByCategory, pipelineSources, spanSources,
    latencyStats, warnings; and the report's debugging sections
    (reviewer.core.spans.diagnostics): latencyByModel, missedSeverity
    ({severity: {count, examples}}), worstPerformers."""
    results = list(snapshot.get("results") or [])
    ok = successful_results(results)
    judges = [r["judgeResult"] for r in ok]
    wrapped = [{"judgeResult": j} for j in judges]
    totals = [_num(j.get("totalScore")) for j in judges]
    distribution = {name: 0 for name, _ in SCORE_BANDS}
    for t in totals:
        distribution[score_band(t)] += 1
    tallies = _ErrorTallies()
    for r in ok:
        tallies.add(r)
    warnings = _summary_warnings(ok, tallies.invalid_pairs)
    pipeline, sources = _pipeline_sources(results)
    latency = _latency_stats(results)
    return {
        "prompts": len(results),
        "judged": len(ok),
        "avgScore": sum(totals) / len(totals) if totals else 0.0,
        "avgSpanCount": sum(r["spanCount"] for r in results) / len(results) if results else 0.0,
        "scoreDistribution": distribution,
        "errorCount": sum(1 for r in results if r.get("error")),
        "commonMissedElements": [list(x) for x in _common(tallies.missed_texts)],
        "commonIncorrectExtractions": [list(x) for x in _common(tallies.wrong_texts)],
        "avgCategoryScores": base.category_averages(wrapped, digits=None),
        "falsePositiveReasons": base.false_positive_reasons(wrapped),
        "topTaxonomyErrors": [c.to_json() for c in base.taxonomy_confusions(wrapped)],
        "topGranularityErrors": [
            {"reason": k, "count": v[0], "examples": v[1]}
            for k, v in sorted(tallies.granularity.items(), key=lambda kv: -kv[1][0])
        ],
        "errorsBySection": tallies.by_section,
        "confidenceAnalysis": confidence_analysis(ok),
        "missedBySeverity": tallies.by_severity,
        "missedCountsByCategory": base.missed_by_category(wrapped),
        "pipelineSources": pipeline,
        "spanSources": sources,
        "latencyStats": latency,
        "latencyByModel": latency_by_model(snapshot, snapshot.get("latencyStats")),
        "missedSeverity": missed_by_severity(judges),
        "worstPerformers": worst_performers(ok),
        "warnings": warnings,
    }


class _ErrorTallies:
    """The judge errors of successful results, counted for the summary: missed and
    wrongly extracted texts, errors by output section, up to 5 missed elements per
    severity, granularity errors by reason ([count, up to 3 example texts]) and the
    category score pairs outside 1-5."""

    def __init__(self) -> None:
        self.missed_texts: list[str] = []
        self.wrong_texts: list[str] = []
        self.by_section = {s: {"falsePositives": 0, "missed": 0} for s in SECTIONS}
        self.by_severity: dict[str, list[str]] = {"critical": [], "important": [], "minor": []}
        self.granularity: dict[str, list] = {}
        self.invalid_pairs = 0

    def add(self, r: Mapping) -> None:
        """Count the errors of one successful result ``r`` (its judgeResult and spans)."""
        j, spans = r["judgeResult"], r.get("spans") or []
        self._missed(j, r.get("output") or "")
        for fp in j["falsePositives"]:
            self.wrong_texts.append(str(fp.get("text", "")))
            index = _int_index(fp.get("spanIndex"))
            if index is not None and 0 <= index < len(spans):
                self.by_section[spans[index].get("section") or "main"]["falsePositives"] += 1
        for ge in j["granularityErrors"]:
            reason = str(ge.get("issue") or ge.get("reason") or "other")
            g = self.granularity.setdefault(reason, [0, []])
            g[0] += 1
            if len(g[1]) < 3:
                g[1].append(str(ge.get("text", "")))
        self.invalid_pairs += sum(
            1
            for cat in base.CATEGORIES
            if not base.valid_pair(j["categoryScores"][cat])
            and (j["categoryScores"][cat]["coverage"] or j["categoryScores"][cat]["precision"])
        )

    def _missed(self, j: Mapping, output: str) -> None:
        """The missed elements of judge result ``j``: their texts, the section of
        ``output`` each falls in, and the first 5 per severity as 'text (category)'."""
        sections = detect_sections(output)
        for m in j["missedElements"]:
            text = str(m.get("text", ""))
            self.missed_texts.append(text)
            self.by_section[text_section(text, output, sections)]["missed"] += 1
            sev = m.get("severity")
            if sev in self.by_severity and len(self.by_severity[sev]) < 5:
                self.by_severity[sev].append(f"{text} ({m.get('category')})")


def _summary_warnings(ok: list, invalid_pairs: int) -> list[str]:
    """The summary's warnings: judge errors whose spanIndex names a span with other
    text, and category score pairs left out of the averages (``invalid_pairs``)."""
    warnings: list[str] = []
    mismatched = sum(
        1
        for r in ok
        for key in ("falsePositives", "taxonomyErrors", "granularityErrors")
        for e in r["judgeResult"][key]
        if _names_other_span(e, r.get("spans") or [])
    )
    if mismatched:
        warnings.append(
            f"{mismatched} judge errors name a spanIndex whose span has other text (counted on "
            "that span in the confidence buckets, as the design says; shown on their own text)"
        )
    if invalid_pairs:
        warnings.append(f"{invalid_pairs} category score pairs with a value outside 1-5 were left out of the averages")
    return warnings


def _pipeline_sources(results: list) -> tuple[dict[str, int], dict[str, int]]:
    """(pipelineSources {nlp, llm, unknown}: results per pipeline, from their meta;
    spanSources {closedVocab, openVocab, llm}: spans per source). An NLP result
    without vocabulary counts has all its spans counted as closed vocabulary."""
    pipeline = {"nlp": 0, "llm": 0, "unknown": 0}
    sources = {"closedVocab": 0, "openVocab": 0, "llm": 0}
    for r in results:
        meta = r.get("meta")
        if not meta:
            pipeline["unknown"] += 1
            continue
        version, notes = str(meta.get("version") or ""), str(meta.get("notes") or "")
        if "nlp" in version or "neuro-symbolic" in notes or "symbolic-nlp" in notes:
            pipeline["nlp"] += 1
            if meta.get("closedVocab") is None and meta.get("openVocab") is None:
                sources["closedVocab"] += r["spanCount"]
            sources["closedVocab"] += int(_num(meta.get("closedVocab")))
            sources["openVocab"] += int(_num(meta.get("openVocab")))
        elif r["spanCount"] > 0:
            pipeline["llm"] += 1
            sources["llm"] += r["spanCount"]
        else:
            pipeline["unknown"] += 1
    return pipeline, sources


def _latency_stats(results: list) -> dict[str, Any]:
    """{avg, p50, p95, p99} of the results' latencyMs (nearest rank, floor(n p / 100)
    of the sorted values; avg rounded to an int; all 0 without latencies)."""
    latencies = sorted(_num(r.get("latencyMs")) for r in results if r.get("latencyMs") is not None)
    n_lat = len(latencies)
    return {
        "avg": round(sum(latencies) / (n_lat or 1)),
        **{f"p{p}": (latencies[math.floor(n_lat * p / 100)] if n_lat else 0) for p in (50, 95, 99)},
    }


def _band_key(name: str) -> str:
    return name.split(" ", 1)[0]


def comparable(computed: Mapping, block: Mapping) -> dict:
    """The parts of ``computed`` shaped as the file's ``block`` writes them,
    for :func:`compare_block`: averages rounded half up to 2 decimals,
    common texts as 'text (Nx)', score bands keyed as the block keys them,
    successCount for blocks that have it."""
    r = base.round_half_up
    out: dict[str, Any] = {
        "avgScore": r(computed["avgScore"]),
        "avgSpanCount": r(computed["avgSpanCount"]),
        "errorCount": computed["errorCount"],
        "successCount": computed["judged"],
        "avgCategoryScores": {
            c: {k: r(v) for k, v in pair.items()} for c, pair in computed["avgCategoryScores"].items()
        },
        "falsePositiveReasons": computed["falsePositiveReasons"],
        "topTaxonomyErrors": computed["topTaxonomyErrors"],
        "errorsBySection": computed["errorsBySection"],
        "missedCountsByCategory": computed["missedCountsByCategory"],
        "commonMissedElements": [f"{t} ({n}x)" for t, n in computed["commonMissedElements"]],
        "commonIncorrectExtractions": [f"{t} ({n}x)" for t, n in computed["commonIncorrectExtractions"]],
        "pipelineSources": computed["pipelineSources"],
        "spanSources": computed["spanSources"],
        "latencyStats": computed["latencyStats"],
    }
    bands = block.get("scoreDistribution")
    if isinstance(bands, Mapping):
        short = {_band_key(k): v for k, v in computed["scoreDistribution"].items()}
        out["scoreDistribution"] = {k: short.get(_band_key(k), 0) for k in bands}
    ca = computed["confidenceAnalysis"]
    out["confidenceAnalysis"] = {
        "buckets": {
            k: {
                "range": b["range"],
                "total": b["total"],
                "errors": b["errors"],
                "errorRate": b["errorRate"],
                "examples": b["examples"],
            }
            for k, b in ca["buckets"].items()
        },
        "recommendedThreshold": ca["recommendedThreshold"],
        "notes": ca["notes"],
    }
    return out


def compare_block(computed: Mapping, block: Mapping, extra: Mapping | None = None) -> dict[str, list[str]]:
    """{key: differences as text} between the recomputed summary and a
    snapshot's own summary block, for every key the block has that we
    recompute ([] when equal; numbers within 0.005 as the block rounds to 2
    decimals). ``extra``: further blocks of the file to compare, such as a
    Gemini snapshot's top-level categoryScores (compared with
    avgCategoryScores)."""
    mine = comparable(computed, block)
    out = base.compare_summary(mine, block, tolerance=0.005 + 1e-9)
    for key, theirs in (extra or {}).items():
        target = "avgCategoryScores" if key == "categoryScores" else key
        if target in mine:
            out[key] = base.compare_summary({target: mine[target]}, {target: theirs}, 0.005 + 1e-9)[target]
    return out


__all__ = [
    "BUCKETS",
    "ERROR_RATE_LIMIT",
    "SCORE_BANDS",
    "bucket_of",
    "compare_block",
    "comparable",
    "compute_summary",
    "confidence_analysis",
    "error_span_indices",
    "load_snapshot",
    "recommend_threshold",
    "score_band",
    "successful_results",
]
