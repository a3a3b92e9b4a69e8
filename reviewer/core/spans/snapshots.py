"""Span-labeling judge results: normalising them, turning their error lists
into readable issues, and the statistics of a snapshot's summary block.

A *span-labeling judge result* is what an LLM judge returned for one labeled
text (span-labeling-evaluation-design.md, ``EnhancedJudgeResult``): five 1-5
``scores`` (coverage, precision, granularity, taxonomy, technicalSpecs), their
sum ``totalScore`` (0-25), the error lists ``missedElements``,
``falsePositives``, ``taxonomyErrors`` and ``granularityErrors``, 1-5
``categoryScores`` per taxonomy category and ``notes``. A *result* is one
evaluated text of a snapshot (``EvaluationResult``: promptId, input, output,
spans, judgeResult, error).

The statistics follow the design's properties 5 and 6 and, where the design
is silent, ``computeSummary`` of prompt-builder's
scripts/evaluation/span-labeling-evaluation.ts (the code that wrote the
snapshots), so that they reproduce a snapshot's own summary block:

* only *successful* results count: a judge result is present and its
  ``totalScore`` is above 0 (a failed judge call scores 0);
* a category's score pair is left out of its average when it is missing or
  a value is outside 1-5 (the design: category scores are 1-5, and "Invalid
  category in categoryScores: Skip that category"). The snapshots' own code
  leaves out only pairs where *both* values are 0, so a pair such as
  coverage 1 / precision 0 counts there and not here: on the baseline this
  changes the action and audio averages (one such pair each);
* averages are rounded half up to 2 decimals, as JavaScript's
  ``Math.round(x * 100) / 100``;
* a false positive with a reason outside the six known ones counts as
  ``other``;
* taxonomy confusions are (assigned role, expected role) pairs, most frequent
  first, ties in the order first seen, the first 10 kept, with up to 3
  example texts each.

Pure: no I/O. Every function takes the parsed JSON (lists and dicts).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: The nine taxonomy categories judged per category (design: TAXONOMY_CATEGORIES).
CATEGORIES: tuple[str, ...] = (
    "shot",
    "subject",
    "action",
    "environment",
    "lighting",
    "camera",
    "style",
    "technical",
    "audio",
)
#: Why a span should not have been extracted (design: FalsePositiveReason).
FALSE_POSITIVE_REASONS: tuple[str, ...] = (
    "section_header",
    "abstract_concept",
    "non_visual",
    "instruction_text",
    "duplicate",
    "other",
)
#: The five 1-5 dimensions of a judge result's ``scores``.
SCORE_KEYS: tuple[str, ...] = ("coverage", "precision", "granularity", "taxonomy", "technicalSpecs")
#: The sum of the five scores (0-25).
TOTAL_KEY = "totalScore"
#: Category score given to every category of a basic-format (legacy) judge
#: result (design convertBasicToEnhanced: ``{coverage: 3, precision: 3}``;
#: the snapshots' own code gives 0 / 0).
DEFAULT_CATEGORY_SCORE = 3
#: How many taxonomy confusions a summary keeps, and examples per confusion.
TOP_CONFUSIONS = 10
CONFUSION_EXAMPLES = 3


@dataclass(frozen=True)
class Confusion:
    """One taxonomy confusion: spans labeled ``assigned`` that the judge says
    should be ``expected``, ``count`` times, with up to 3 ``examples`` (span
    texts, in the order found)."""

    assigned: str
    expected: str
    count: int
    examples: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict:
        """The snapshot summary's shape: {assignedRole, expectedRole, count, examples}."""
        return {
            "assignedRole": self.assigned,
            "expectedRole": self.expected,
            "count": self.count,
            "examples": list(self.examples),
        }


def round_half_up(value: float, digits: int = 2) -> float:
    """``value`` rounded to ``digits`` decimals with halves going up, the way
    JavaScript's ``Math.round(value * 10**digits) / 10**digits`` does (Python's
    ``round`` rounds halves to even)."""
    scaled = value * 10**digits
    whole = math.floor(scaled)
    if scaled - whole >= 0.5:  # exact; floor(scaled + 0.5) would round 267.49999999999997 up
        whole += 1
    return whole / 10**digits


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _clamp_score(value: Any) -> float:
    """A 0-5 score as the judge script normalises it: not a number -> 0,
    clamped to 0..5, rounded half up to 2 decimals."""
    number = _number(value)
    if number is None:
        return 0.0
    return max(0.0, min(5.0, round_half_up(number, 2)))


def _is_enhanced(judge: Mapping) -> bool:
    if any(isinstance(judge.get(k), list) for k in ("falsePositives", "taxonomyErrors", "granularityErrors")):
        return True
    if isinstance(judge.get("categoryScores"), dict):
        return True
    missed = judge.get("missedElements")
    return bool(isinstance(missed, list) and missed and isinstance(missed[0], dict))


def normalise_judge_result(judge: Mapping) -> dict:
    """A judge result in the enhanced shape whatever its age.

    Scores and category scores are clamped to 0-5 (missing -> 0), every list is
    present (missing -> []), a legacy result (``missedElements`` as strings and
    ``incorrectExtractions``) becomes missed elements of category 'unknown'
    and false positives with reason 'other', every category scored 3 / 3
    (design property P7 and convertBasicToEnhanced). ``totalScore`` is kept as the
    judge gave it when it is a number, else the sum of the scores. Never
    raises for a mapping."""
    raw_scores = judge.get("scores")
    if not isinstance(raw_scores, Mapping):
        raw_scores = {}
    scores = {k: _clamp_score(raw_scores.get(k)) for k in SCORE_KEYS}
    total = _number(judge.get(TOTAL_KEY))
    out: dict[str, Any] = {
        "scores": scores,
        TOTAL_KEY: total if total is not None else sum(scores.values()),
        "notes": judge.get("notes") if isinstance(judge.get("notes"), str) else "",
    }
    if _is_enhanced(judge):
        for key in ("missedElements", "falsePositives", "taxonomyErrors", "granularityErrors"):
            value = judge.get(key)
            out[key] = [e for e in value if isinstance(e, Mapping)] if isinstance(value, list) else []
        raw_cats = judge.get("categoryScores")
        if not isinstance(raw_cats, Mapping):
            raw_cats = {}
        out["categoryScores"] = {
            cat: {
                "coverage": _clamp_score(raw_cats[cat].get("coverage")),
                "precision": _clamp_score(raw_cats[cat].get("precision")),
            }
            if isinstance(raw_cats.get(cat), Mapping)
            else {"coverage": 0.0, "precision": 0.0}
            for cat in CATEGORIES
        }
        return out
    missed = judge.get("missedElements")
    if not isinstance(missed, list):
        missed = []
    wrong = judge.get("incorrectExtractions")
    if not isinstance(wrong, list):
        wrong = []
    out["missedElements"] = [
        {"text": str(t), "expectedRole": "unknown", "category": "unknown", "severity": "minor"} for t in missed
    ]
    out["falsePositives"] = [{"text": str(t), "assignedRole": "unknown", "reason": "other"} for t in wrong]
    out["taxonomyErrors"] = []
    out["granularityErrors"] = []
    out["categoryScores"] = {
        cat: {"coverage": float(DEFAULT_CATEGORY_SCORE), "precision": float(DEFAULT_CATEGORY_SCORE)}
        for cat in CATEGORIES
    }
    return out


def valid_pair(pair: Mapping) -> bool:
    """A category score pair counts in averages when both values are on
    the 1-5 scale (design: CategoryScore coverage and precision 1-5; invalid
    categories are skipped)."""
    return all(1 <= (_number(pair.get(k)) or 0) <= 5 for k in ("coverage", "precision"))


def successful(results: Iterable[Mapping]) -> list[dict]:
    """The normalised judge results of the results that count in a summary:
    those with a judge result whose ``totalScore`` is above 0 (a failed judge
    call is stored with 0). In the order given."""
    out = []
    for result in results:
        judge = result.get("judgeResult") if isinstance(result, Mapping) else None
        if not isinstance(judge, Mapping):
            continue
        total = _number(judge.get(TOTAL_KEY))
        if total is None or total <= 0:
            continue
        out.append(normalise_judge_result(judge))
    return out


def category_averages(results: Iterable[Mapping], digits: int | None = 2) -> dict[str, dict[str, float]]:
    """Mean coverage and precision (1-5) per category over the successful
    results: {category: {'coverage': mean, 'precision': mean}} for all nine
    categories (0 and 0 for a category no result scored). Pairs with a
    value outside 1-5 are left out (:func:`valid_pair`). Rounded half up to ``digits`` decimals (None:
    not rounded). Property 5 of span-labeling-evaluation-design.md."""
    sums = {cat: [0.0, 0.0, 0] for cat in CATEGORIES}
    for judge in successful(results):
        for cat in CATEGORIES:
            pair = judge["categoryScores"][cat]
            if not valid_pair(pair):
                continue
            sums[cat][0] += pair["coverage"]
            sums[cat][1] += pair["precision"]
            sums[cat][2] += 1
    out: dict[str, dict[str, float]] = {}
    for cat, (coverage, precision, count) in sums.items():
        if not count:
            out[cat] = {"coverage": 0, "precision": 0}
            continue
        means: tuple[float, ...] = (coverage / count, precision / count)
        if digits is not None:
            means = tuple(round_half_up(m, digits) for m in means)
        out[cat] = {"coverage": means[0], "precision": means[1]}
    return out


def false_positive_reasons(results: Iterable[Mapping]) -> dict[str, int]:
    """How many false positives the judge gave each reason, over the
    successful results: {reason: count} for the six reasons (unknown reasons
    count as 'other'). Property 6 of span-labeling-evaluation-design.md."""
    counts = dict.fromkeys(FALSE_POSITIVE_REASONS, 0)
    for judge in successful(results):
        for fp in judge["falsePositives"]:
            reason = fp.get("reason")
            counts[reason if reason in counts else "other"] += 1
    return counts


def taxonomy_confusions(results: Iterable[Mapping], top: int | None = TOP_CONFUSIONS) -> list[Confusion]:
    """The taxonomy errors of the successful results grouped by (assigned
    role, expected role): most frequent first, ties in the order first seen,
    the first ``top`` (None: all). Property 6 of
    span-labeling-evaluation-design.md."""
    groups: dict[tuple[str, str], list] = {}
    for judge in successful(results):
        for err in judge["taxonomyErrors"]:
            key = (str(err.get("assignedRole", "")), str(err.get("expectedRole", "")))
            group = groups.setdefault(key, [0, []])
            group[0] += 1
            if len(group[1]) < CONFUSION_EXAMPLES:
                group[1].append(str(err.get("text", "")))
    ranked = sorted(groups.items(), key=lambda kv: -kv[1][0])  # stable: ties keep first-seen order
    if top is not None:
        ranked = ranked[:top]
    return [Confusion(a, e, n, tuple(ex)) for (a, e), (n, ex) in ranked]


def missed_by_category(results: Iterable[Mapping]) -> dict[str, int]:
    """How many missed elements the judge reported per category over the
    successful results, categories in the order first seen ('unknown' when a
    missed element names none)."""
    counts: dict[str, int] = {}
    for judge in successful(results):
        for missed in judge["missedElements"]:
            cat = missed.get("category") or "unknown"
            counts[cat] = counts.get(cat, 0) + 1
    return counts


def average_total(results: Iterable[Mapping], digits: int | None = 2) -> float:
    """Mean ``totalScore`` (0-25) of the successful results, 0 when there are
    none; rounded half up to ``digits`` decimals (None: not rounded)."""
    totals = [j[TOTAL_KEY] for j in successful(results)]
    mean = sum(totals) / len(totals) if totals else 0.0
    return round_half_up(mean, digits) if digits is not None else mean


def summary(results: Iterable[Mapping]) -> dict:
    """The recomputable part of a snapshot's summary block, in its keys:
    avgScore, avgCategoryScores, falsePositiveReasons, topTaxonomyErrors
    (as JSON), missedCountsByCategory."""
    results = list(results)
    return {
        "avgScore": average_total(results),
        "avgCategoryScores": category_averages(results),
        "falsePositiveReasons": false_positive_reasons(results),
        "topTaxonomyErrors": [c.to_json() for c in taxonomy_confusions(results)],
        "missedCountsByCategory": missed_by_category(results),
    }


def compare_summary(computed: Mapping, stored: Mapping, tolerance: float = 1e-9) -> dict[str, list[str]]:
    """Where ``computed`` (from :func:`summary`) and a snapshot's ``stored``
    summary block differ: {key: [differences as text]}, one entry per key of
    ``computed`` that ``stored`` has; an empty list means equal (numbers
    within ``tolerance``). Keys ``stored`` lacks are left out."""
    out: dict[str, list[str]] = {}
    for key, mine in computed.items():
        if key not in stored:
            continue
        out[key] = _diff(key, mine, stored[key], tolerance)
    return out


def _diff(path: str, mine: Any, theirs: Any, tolerance: float) -> list[str]:
    if isinstance(mine, Mapping) and isinstance(theirs, Mapping):
        diffs = []
        for k in list(mine) + [k for k in theirs if k not in mine]:
            if k not in theirs or k not in mine:
                diffs.append(f"{path}.{k}: only in {'computed' if k in mine else 'file'}")
            else:
                diffs += _diff(f"{path}.{k}", mine[k], theirs[k], tolerance)
        return diffs
    if isinstance(mine, list) and isinstance(theirs, list):
        diffs = [f"{path}: {len(mine)} entries computed, {len(theirs)} in the file"] if len(mine) != len(theirs) else []
        for i, (a, b) in enumerate(zip(mine, theirs)):
            diffs += _diff(f"{path}[{i}]", a, b, tolerance)
        return diffs
    a, b = _number(mine), _number(theirs)
    if a is not None and b is not None:
        return [] if abs(a - b) <= tolerance else [f"{path}: computed {mine}, file {theirs}"]
    return [] if mine == theirs else [f"{path}: computed {mine!r}, file {theirs!r}"]


def _span(entry: Mapping) -> str:
    index = entry.get("spanIndex")
    return f" [span {index}]" if isinstance(index, int) and not isinstance(index, bool) and index >= 0 else ""


def issue_lines(judge: Mapping) -> list[str]:
    """The judge's error lists as readable lines, missed elements first, then
    false positives, taxonomy errors and granularity errors, each in the
    judge's order:

    * ``missed: "agility" (action: action.state, important)``
    * ``false positive: "window" as subject.identity (duplicate) [span 12]``
    * ``taxonomy: "f/2.8" technical.frameRate -> camera.focus [span 24]``
    * ``granularity: "soft" too_fine (suggest: soft highlights) [span 3]``

    (assigned role -> expected role, as the snapshot's summary writes them).
    """
    j = normalise_judge_result(judge)
    lines = []
    for m in j["missedElements"]:
        detail = ", ".join(str(x) for x in (m.get("severity"),) if x)
        role = f"{m.get('category') or 'unknown'}: {m.get('expectedRole') or 'unknown'}"
        lines.append(f'missed: "{m.get("text", "")}" ({role}{", " + detail if detail else ""})')
    for fp in j["falsePositives"]:
        lines.append(
            f'false positive: "{fp.get("text", "")}" as {fp.get("assignedRole") or "unknown"} '
            f"({fp.get('reason') or 'other'}){_span(fp)}"
        )
    for te in j["taxonomyErrors"]:
        lines.append(
            f'taxonomy: "{te.get("text", "")}" {te.get("assignedRole") or "?"} -> '
            f"{te.get('expectedRole') or '?'}{_span(te)}"
        )
    for ge in j["granularityErrors"]:
        issue = ge.get("issue") or ge.get("reason") or "other"
        suggestion = f" (suggest: {ge['suggestion']})" if ge.get("suggestion") else ""
        lines.append(f'granularity: "{ge.get("text", "")}" {issue}{suggestion}{_span(ge)}')
    return lines


def score_range(judge: Mapping) -> str | None:
    """The declared scale the five scores fit: '1-5' when every given score
    is within 0-5 (0 is the judge's "not scored"), '0-100' when within 0-100,
    None when a score is outside both or no score is a number. The value is a
    :class:`reviewer.core.judging.verdicts.Scale` value."""
    raw = judge.get("scores")
    if not isinstance(raw, Mapping):
        raw = {}
    numbers = [_number(raw.get(k)) for k in SCORE_KEYS if k in raw]
    values = [v for v in numbers if v is not None]
    if not values:
        return None
    if all(0 <= v <= 5 for v in values):
        return "1-5"
    if all(0 <= v <= 100 for v in values):
        return "0-100"
    return None


__all__ = [
    "CATEGORIES",
    "FALSE_POSITIVE_REASONS",
    "SCORE_KEYS",
    "TOTAL_KEY",
    "Confusion",
    "average_total",
    "category_averages",
    "compare_summary",
    "false_positive_reasons",
    "issue_lines",
    "missed_by_category",
    "normalise_judge_result",
    "round_half_up",
    "score_range",
    "successful",
    "summary",
    "taxonomy_confusions",
    "valid_pair",
    "DEFAULT_CATEGORY_SCORE",
]


def judge_findings(judge: Mapping) -> list:
    """The judge's error lists as findings of the labeled run (docs/spans.md:
    "the judge's error lists become findings"), one per error with exactly
    one SpanCode: missedElements -> MISSED, falsePositives -> FALSE_POSITIVE,
    taxonomyErrors -> TAXONOMY, granularityErrors -> GRANULARITY. Source is
    the judge; the detail is the readable line of ``issue_lines``; the span
    text goes in model_card (gt_card for a missed element), the span index in
    model_index, and the judge's structured fields in attrs."""
    from reviewer.core.models import Finding, Source, SpanCode

    j = normalise_judge_result(judge)
    lines = iter(issue_lines(judge))
    out = []
    for key, code in (
        ("missedElements", SpanCode.MISSED),
        ("falsePositives", SpanCode.FALSE_POSITIVE),
        ("taxonomyErrors", SpanCode.TAXONOMY),
        ("granularityErrors", SpanCode.GRANULARITY),
    ):
        for entry in j[key]:
            text = str(entry.get("text", ""))
            index = entry.get("spanIndex")
            index = index if isinstance(index, int) and not isinstance(index, bool) and index >= 0 else None
            attrs = {k: v for k, v in entry.items() if k != "text" and isinstance(v, (str, int, float, bool))}
            out.append(
                Finding(
                    code=code,
                    source=Source.JUDGE,
                    detail=next(lines, ""),
                    gt_card=text if code == SpanCode.MISSED else None,
                    model_card=None if code == SpanCode.MISSED else text,
                    model_index=index,
                    attrs=attrs,
                )
            )
    return out
