"""Finding disputes among judge verdicts (CONTEXT.md: *dispute*).

:func:`find_disputes` reads verdicts (and, optionally, the structural metrics
of their subjects) and returns the disputes a person should settle, most
severe first. Five kinds (:class:`~reviewer.core.judging.verdicts.DisputeKind`):

``judges-disagree``
    Two or more non-human judges scored the same dimension of a subject
    further apart than the scale's tolerance. Each judge counts once: its
    *primary* verdict (:func:`primary_verdicts`: answer order 'ab', else the
    only order it used; its latest repetition).
``position-flip``
    A pairwise judge saw the same pair in both orders ('ab' and 'ba', latest
    repetition of each) and its two decided values differ (beyond tolerance
    for numeric scales). Winners are stored in the original order, so '1'
    then '2' is a flip.
``repeat-spread``
    One judge scored the same subject, dimension and answer order in several
    repetitions and the values spread beyond the tolerance.
``judge-vs-human``
    A judge's primary value differs from the human reference: the 'gold'
    label when a human verdict by judge 'gold' exists, else the majority of
    the human raters (:func:`reviewer.core.judging.agreement.majority`; a tie among
    them means no reference and no dispute). Nominal scales: any difference;
    numeric scales: beyond the tolerance.
``judge-vs-metrics``
    A judge's verdict breaks one or more *rubric rules* on a dimension or
    flag (:mod:`reviewer.core.judging.rubric_rules`, e.g. the tarot plan's
    "hallucinated cards require TAROT_COHERENCE <= 1 and SAFETY_FLAG true"
    and a reading's expected caps): one dispute per subject and dimension
    listing every broken rule with its evidence. On dimensions no rule
    checks for the subject: the judge gave the *top* score of its scale (5
    on 1-5, A / 100 on A-F, 100 on 0-100, 'pass') while the subject's
    structural metrics, or the judge's own ``issues_found``, report a
    problem for that dimension (:data:`METRIC_PROBLEMS`,
    :data:`ISSUE_PATTERNS`).
``low-confidence``
    Not found here: a verdict whose confidence is below its judge's trust
    threshold (:mod:`reviewer.core.judging.low_confidence`, selective
    judging), added by the storage layer that knows the confidences.

Severity, in [0, 1] (larger first in the queue): for numeric scales the
spread of the disputed values divided by the scale's range
(:data:`SCALE_RANGE`: 4 for 1-5, 100 for A-F and 0-100); for nominal scales
1.0 when the values differ, except a pairwise 'tie' against a winner, which is
half a flip (0.5). A position flip '1' vs '2' and a contradiction with the
metrics are 1.0.

The database allows one dispute per (kind, subject, dimension), so several
judges in the same situation (e.g. two judges flipping on one pair) make one
dispute naming all of them: the verdict ids are merged, the severity is the
largest, the details are joined with '; '.

Values that are missing or not on the scale (``None``: undecided, garbage)
never make a dispute: there is nothing to compare. Human verdicts (method
'human', or judge 'gold') are never judges here. Pure Python: no SQL, Qt or HTTP.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from reviewer.core.judging.agreement import majority
from reviewer.core.judging.rubric_rules import RubricRules, broken_rules, covered_dimensions
from reviewer.core.judging.verdicts import TOLERANCE, Dispute, DisputeKind, Method, Scale, Value, Verdict, normalise
from reviewer.core.text import natural_key

__all__ = [
    "GOLD",
    "ISSUE_PATTERNS",
    "METRIC_PROBLEMS",
    "MetricProblem",
    "IssuePattern",
    "NUMERIC_SCALES",
    "ORDERS",
    "SCALE_RANGE",
    "TOP_SCORE",
    "RaterKey",
    "find_disputes",
    "format_value",
    "is_human",
    "latest_by_order",
    "metric_problems",
    "issue_problems",
    "natural_key",
    "primary_verdicts",
    "rater_key",
    "rater_labels",
    "severity_of",
    "value_of",
]

#: The human judge name whose label is the reference when present (LLMBar).
GOLD = "gold"
#: Answer orders of pairwise verdicts; None for verdicts without an order.
ORDERS = ("ab", "ba")
#: Scales whose values are numbers (distance = absolute difference).
NUMERIC_SCALES = frozenset({Scale.ORDINAL5, Scale.GRADE, Scale.PERCENT})
#: Width of each numeric scale, for severity = spread / range.
SCALE_RANGE: dict[Scale, float] = {Scale.ORDINAL5: 4.0, Scale.GRADE: 100.0, Scale.PERCENT: 100.0}
#: The top score of each scale that has one (judge-vs-metrics disputes).
TOP_SCORE: dict[Scale, Value] = {
    Scale.ORDINAL5: 5.0,
    Scale.GRADE: 100.0,
    Scale.PERCENT: 100.0,
    Scale.PASS_FAIL: "pass",
}

#: A rater: (judge name, method value). The same judge name under two methods
#: (e.g. Failter's rules-based and ground-truth judges) are two raters.
RaterKey = tuple[str, str]


# ---------------------------------------------------------------------------
# structural metrics -> dimensions


def _count(value: Any) -> int:
    """How many problems a metric reports: a number as is (at least 1 when
    positive), a list by its length (hallucinatedCards is a list of card
    names in the tarot data, a number elsewhere); anything else 0."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return max(1, int(value)) if value > 0 else 0
    if isinstance(value, (list, tuple, set)):
        return len(value)
    return 0


def _names(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value[:5])) + (" ..." if len(value) > 5 else "")
    return str(value)


@dataclass(frozen=True)
class MetricProblem:
    """One row of the metric-problem -> dimensions table.

    ``metric``: the key in a subject's metrics dict; ``test(value)`` -> a
    short description of the problem, or None when the value is fine;
    ``dimensions``: the rubric dimensions (lower case) a top score on which
    contradicts the problem.
    """

    metric: str
    dimensions: tuple[str, ...]
    test: Callable[[Any], Optional[str]]


@dataclass(frozen=True)
class IssuePattern:
    """A problem named in free text (metrics ``issueFlags``/``issues``, or a
    verdict's own ``issues_found``): a case-insensitive regular expression and
    the dimensions it contradicts at the top score."""

    pattern: str
    dimensions: tuple[str, ...]
    regex: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", re.compile(self.pattern, re.IGNORECASE))


_HALLUC_DIMS = ("tarot_coherence", "overall", "accuracy", "faithfulness")

#: Metric problems and the dimensions they contradict at the top score.
#: Sources: judge-calibration-plan.md (buildStructuralMetricsSection: card
#: coverage < 70 % is LOW, hallucinated cards are CRITICAL, an incomplete
#: story spine; rubric: "1: Hallucinated cards" for TAROT_COHERENCE,
#: "deterministic language" for TONE) and the card-reading taxonomy (HALLUC
#: findings of a run: ``halluc_findings``, filled in by
#: reviewer.storage.judging.disputes from confirmed or proposed findings).
#: Extend by passing ``problems=METRIC_PROBLEMS + (...)`` to find_disputes.
METRIC_PROBLEMS: tuple[MetricProblem, ...] = (
    MetricProblem(
        "hallucinatedCards", _HALLUC_DIMS, lambda v: f"hallucinatedCards: {_names(v)}" if _count(v) > 0 else None
    ),
    MetricProblem("hallucinationCount", _HALLUC_DIMS, lambda v: f"hallucinationCount = {v}" if _count(v) > 0 else None),
    MetricProblem(
        "halluc_findings", _HALLUC_DIMS, lambda v: f"{v} HALLUC finding(s) on the run" if _count(v) > 0 else None
    ),
    MetricProblem(
        "cardCoverage",
        ("tarot_coherence", "overall"),
        lambda v: (
            f"cardCoverage = {v:.0%} (LOW, < 70 %)"
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0.7
            else None
        ),
    ),
    MetricProblem(
        "missingCards", ("tarot_coherence",), lambda v: f"missingCards: {_names(v)}" if _count(v) > 0 else None
    ),
    MetricProblem(
        "spine",
        ("overall",),
        lambda v: "story spine INCOMPLETE" if isinstance(v, Mapping) and v.get("isValid") is False else None,
    ),
    MetricProblem(
        "deterministicLanguage", ("tone",), lambda v: "deterministic language detected" if v is True else None
    ),
    MetricProblem("hasHarshTone", ("tone",), lambda v: "harsh tone detected" if v is True else None),
)

#: Problems named in text, and the dimensions they contradict at the top score.
ISSUE_PATTERNS: tuple[IssuePattern, ...] = (
    IssuePattern(r"hallucinat", _HALLUC_DIMS),
    IssuePattern(r"determinist|doom|fatalis", ("tone",)),
    IssuePattern(r"medical|financial advice|investment advice|death|harmful", ("safety",)),
)

#: Metrics keys holding free-text issue lists (tarot: ``issueFlags``).
_ISSUE_KEYS = ("issueFlags", "issues", "issues_found")


def metric_problems(
    metrics: Optional[Mapping[str, Any]],
    problems: Sequence[MetricProblem] = METRIC_PROBLEMS,
    patterns: Sequence[IssuePattern] = ISSUE_PATTERNS,
) -> list[tuple[str, tuple[str, ...]]]:
    """The problems a subject's structural metrics report.

    Args:
        metrics: {metric name: value} (as stored by set_subject_metrics), or
            None.
        problems, patterns: the mapping tables (default
            :data:`METRIC_PROBLEMS`, :data:`ISSUE_PATTERNS`).

    Returns:
        [(description, dimensions)] in table order; empty when none. Never
        raises on odd values (a test that fails on a value is skipped).
    """
    out: list[tuple[str, tuple[str, ...]]] = []
    if not metrics:
        return out
    for p in problems:
        if p.metric not in metrics:
            continue
        try:
            desc = p.test(metrics[p.metric])
        except (TypeError, ValueError, AttributeError):
            desc = None
        if desc:
            out.append((f"metrics {desc}", p.dimensions))
    for key in _ISSUE_KEYS:
        texts = metrics.get(key)
        if isinstance(texts, (list, tuple)):
            out += [(f"metrics {key} lists '{d}'", dims) for d, dims in issue_problems(texts, patterns)]
    return out


def issue_problems(
    texts: Iterable[Any], patterns: Sequence[IssuePattern] = ISSUE_PATTERNS
) -> list[tuple[str, tuple[str, ...]]]:
    """[(issue text, dimensions)] for every issue text matching a pattern
    (the first matching pattern per text)."""
    out = []
    for text in texts:
        s = str(text)
        for p in patterns:
            if p.regex.search(s):
                out.append((s, p.dimensions))
                break
    return out


# ---------------------------------------------------------------------------
# helpers shared with agreement and calibration


def is_human(v: Verdict) -> bool:
    """True for a person's label: method 'human', or the judge named
    :data:`GOLD` (hand labels are a person's whatever method the file gave
    them; they are never a judge)."""
    return v.method == Method.HUMAN or v.judge == GOLD


def rater_key(v: Verdict) -> RaterKey:
    """(judge, method) of a verdict."""
    return (v.judge, v.method.value)


def rater_labels(verdicts: Iterable[Verdict]) -> dict[RaterKey, str]:
    """A display name per rater: the judge name, or 'judge (method)' when the
    same judge name occurs under several methods."""
    keys = {rater_key(v) for v in verdicts}
    names: dict[str, int] = {}
    for judge, _ in keys:
        names[judge] = names.get(judge, 0) + 1
    return {k: (k[0] if names[k[0]] == 1 else f"{k[0]} ({k[1]})") for k in keys}


def value_of(v: Verdict, dimension: str) -> Value:
    """The normalised value of one dimension of a verdict (None: missing,
    undecided or not on the verdict's scale)."""
    return normalise(v.scores.get(dimension), v.scale)


def latest_by_order(verdicts: Iterable[Verdict]) -> dict[tuple[str, RaterKey, Optional[str]], Verdict]:
    """{(subject, rater, answer order): the verdict with the highest
    repetition} (ties: the later in the input)."""
    out: dict[tuple[str, RaterKey, Optional[str]], Verdict] = {}
    for v in verdicts:
        key = (v.subject, rater_key(v), v.answer_order)
        old = out.get(key)
        if old is None or v.repetition >= old.repetition:
            out[key] = v
    return out


def primary_verdicts(verdicts: Iterable[Verdict]) -> dict[tuple[str, RaterKey], Verdict]:
    """{(subject, rater): the verdict that speaks for the rater}: its latest
    repetition in answer order 'ab'; without 'ab', the order None; else
    'ba' (a judge seen only swapped)."""
    latest = latest_by_order(verdicts)
    rank = {"ab": 0, None: 1, "ba": 2}
    out: dict[tuple[str, RaterKey], Verdict] = {}
    for (subject, rater, order), v in latest.items():
        key = (subject, rater)
        old = out.get(key)
        if old is None or rank.get(order, 3) < rank.get(old.answer_order, 3):
            out[key] = v
    return out


def format_value(value: Value) -> str:
    """A value as shown in details: 5 not 5.0, 4.5, '1', 'tie', '-' for None."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return str(value)


def severity_of(values: Sequence[Value], scale: Scale) -> float:
    """Severity of a set of decided values on ``scale`` (module docstring):
    numeric spread / range clipped to [0, 1]; nominal 1.0 when they differ,
    0.5 for 'tie' against one winner; 0.0 when they agree."""
    vals = [x for x in values if x is not None]
    if len(set(vals)) < 2:
        return 0.0
    if scale in NUMERIC_SCALES:
        nums = [float(x) for x in vals]
        return min(1.0, (max(nums) - min(nums)) / SCALE_RANGE[scale])
    if scale == Scale.WINNER and "tie" in vals and len(set(vals) - {"tie"}) == 1:
        return 0.5
    return 1.0


def _beyond(values: Sequence[Value], scale: Scale, tolerance: Mapping[Scale, float]) -> bool:
    """True when the decided values disagree beyond the tolerance (numeric:
    spread > tolerance; nominal: any two differ)."""
    vals = [x for x in values if x is not None]
    if len(set(vals)) < 2:
        return False
    if scale in NUMERIC_SCALES:
        nums = [float(x) for x in vals]
        return max(nums) - min(nums) > tolerance.get(scale, TOLERANCE[scale])
    return True


# ---------------------------------------------------------------------------
# the finder


class _Acc:
    """Collects one dispute per (kind, subject, dimension)."""

    def __init__(self) -> None:
        self.found: dict[tuple[DisputeKind, str, str], tuple[set[int], float, list[str]]] = {}

    def add(
        self, kind: DisputeKind, subject: str, dimension: str, verdicts: Iterable[Verdict], severity: float, detail: str
    ) -> None:
        ids, sev, details = self.found.setdefault((kind, subject, dimension), (set(), 0.0, []))
        ids.update(v.id for v in verdicts if v.id is not None)
        if detail not in details:
            details.append(detail)
        self.found[(kind, subject, dimension)] = (ids, max(sev, severity), details)

    def disputes(self) -> list[Dispute]:
        kinds = list(DisputeKind)
        out = [
            Dispute(
                kind=k,
                subject=s,
                dimension=d,
                verdict_ids=sorted(ids),
                severity=round(sev, 6),
                detail="; ".join(details),
            )
            for (k, s, d), (ids, sev, details) in self.found.items()
        ]
        out.sort(key=lambda x: (-x.severity, kinds.index(x.kind), natural_key(x.subject), x.dimension))
        return out


def _dimensions(verdicts: Iterable[Verdict]) -> list[str]:
    return sorted({d for v in verdicts for d in v.scores})


def find_disputes(
    verdicts: Iterable[Verdict],
    subject_metrics: Optional[Mapping[str, Mapping[str, Any]]] = None,
    tolerance: Mapping[Scale, float] = TOLERANCE,
    *,
    problems: Sequence[MetricProblem] = METRIC_PROBLEMS,
    patterns: Sequence[IssuePattern] = ISSUE_PATTERNS,
    rules: Optional[RubricRules] = None,
) -> list[Dispute]:
    """Every dispute among ``verdicts`` (rules: module docstring).

    Args:
        verdicts: verdicts of any subjects, judges and humans (ids are copied
            into the disputes' ``verdict_ids``; verdicts without id are
            compared but not listed).
        subject_metrics: {subject: structural metrics} for judge-vs-metrics
            disputes (e.g. tarot ``hallucinatedCards``, ``cardCoverage``;
            card-reading ``halluc_findings``); None for none.
        tolerance: {scale: largest difference that is not a dispute} for
            numeric scales (default :data:`reviewer.core.judging.verdicts.TOLERANCE`:
            1 point on 1-5, 20 points on A-F and 0-100); scales left out use
            the default. Nominal scales dispute any difference.
        problems, patterns: the metric-problem tables (extensible).
        rules: the rubric rules checked for judge-vs-metrics disputes (e.g.
            resources/tarot-rules.toml as read by reviewer.storage); None:
            the top-score rule alone.

    Returns:
        Disputes with ``id=None``, one per (kind, subject, dimension), most
        severe first, then by kind (the order of DisputeKind), subject
        (natural order) and dimension: deterministic for the same input.
    """
    by_subject: dict[str, list[Verdict]] = {}
    for v in verdicts:
        by_subject.setdefault(v.subject, []).append(v)
    labels = rater_labels(v for vs in by_subject.values() for v in vs)
    metrics = subject_metrics or {}
    acc = _Acc()
    for subject, vs in by_subject.items():
        judges = [v for v in vs if not is_human(v)]
        humans = [v for v in vs if is_human(v)]
        if not judges:
            continue
        primary = primary_verdicts(judges)
        latest = latest_by_order(judges)
        _judges_disagree(acc, subject, primary, labels, tolerance)
        _position_flips(acc, subject, latest, labels, tolerance)
        _repeat_spread(acc, subject, judges, labels, tolerance)
        if humans:
            _judge_vs_human(acc, subject, primary, humans, labels, tolerance)
        _judge_vs_metrics(acc, subject, judges, metrics.get(subject), labels, problems, patterns, rules)
    return acc.disputes()


def _judges_disagree(
    acc: _Acc,
    subject: str,
    primary: Mapping[tuple[str, RaterKey], Verdict],
    labels: Mapping[RaterKey, str],
    tolerance: Mapping[Scale, float],
) -> None:
    chosen = sorted(primary.values(), key=lambda v: labels[rater_key(v)])
    for dim in _dimensions(chosen):
        for scale in dict.fromkeys(v.scale for v in chosen):
            rated = [(v, value_of(v, dim)) for v in chosen if v.scale == scale and dim in v.scores]
            rated = [(v, x) for v, x in rated if x is not None]
            values = [x for _, x in rated]
            if len(rated) < 2 or not _beyond(values, scale, tolerance):
                continue
            shown = ", ".join(f"{labels[rater_key(v)]}={format_value(x)}" for v, x in rated)
            acc.add(
                DisputeKind.JUDGES,
                subject,
                dim,
                [v for v, _ in rated],
                severity_of(values, scale),
                f"judges disagree on {dim}: {shown}",
            )


def _position_flips(
    acc: _Acc,
    subject: str,
    latest: Mapping[tuple[str, RaterKey, Optional[str]], Verdict],
    labels: Mapping[RaterKey, str],
    tolerance: Mapping[Scale, float],
) -> None:
    raters = sorted(
        {r for (_, r, o) in latest if o == "ab"} & {r for (_, r, o) in latest if o == "ba"}, key=lambda r: labels[r]
    )
    for rater in raters:
        ab, ba = latest[(subject, rater, "ab")], latest[(subject, rater, "ba")]
        if ab.scale != ba.scale:
            continue
        for dim in _dimensions([ab, ba]):
            x, y = value_of(ab, dim), value_of(ba, dim)
            if x is None or y is None or not _beyond([x, y], ab.scale, tolerance):
                continue
            kind = "flip" if {x, y} == {"1", "2"} else "disagreement"
            acc.add(
                DisputeKind.POSITION,
                subject,
                dim,
                [ab, ba],
                severity_of([x, y], ab.scale),
                f"{labels[rater]} position {kind} on {dim}: {format_value(x)} in order ab, "
                f"{format_value(y)} swapped (ba)",
            )


def _repeat_spread(
    acc: _Acc, subject: str, judges: Sequence[Verdict], labels: Mapping[RaterKey, str], tolerance: Mapping[Scale, float]
) -> None:
    groups: dict[tuple[RaterKey, Optional[str], Scale], list[Verdict]] = {}
    for v in judges:
        groups.setdefault((rater_key(v), v.answer_order, v.scale), []).append(v)
    for (rater, order, scale), vs in sorted(groups.items(), key=lambda kv: (labels[kv[0][0]], kv[0][1] or "")):
        if len({v.repetition for v in vs}) < 2:
            continue
        vs = sorted(vs, key=lambda v: v.repetition)
        for dim in _dimensions(vs):
            rated = [(v, value_of(v, dim)) for v in vs]
            rated = [(v, x) for v, x in rated if x is not None]
            values = [x for _, x in rated]
            if len(rated) < 2 or not _beyond(values, scale, tolerance):
                continue
            where = f" (order {order})" if order else ""
            shown = ", ".join(f"#{v.repetition}={format_value(x)}" for v, x in rated)
            acc.add(
                DisputeKind.REPEAT,
                subject,
                dim,
                [v for v, _ in rated],
                severity_of(values, scale),
                f"{labels[rater]} repetitions{where} spread on {dim}: {shown}",
            )


def _judge_vs_human(
    acc: _Acc,
    subject: str,
    primary: Mapping[tuple[str, RaterKey], Verdict],
    humans: Sequence[Verdict],
    labels: Mapping[RaterKey, str],
    tolerance: Mapping[Scale, float],
) -> None:
    human_latest = primary_verdicts(humans)
    hs = sorted(human_latest.values(), key=lambda v: natural_key(v.judge))
    judges = sorted(primary.values(), key=lambda v: labels[rater_key(v)])
    for dim in _dimensions(hs):
        for scale in dict.fromkeys(h.scale for h in hs if dim in h.scores):
            rated = [(h, value_of(h, dim)) for h in hs if h.scale == scale and dim in h.scores]
            gold = [(h, x) for h, x in rated if h.judge == GOLD and x is not None]
            ref: Value
            if gold:
                refs, ref, what = [gold[0][0]], gold[0][1], f"gold {format_value(gold[0][1])}"
            else:
                ref = majority(x for _, x in rated)
                if ref is None:
                    continue  # no human majority (tied or no labels): no reference
                refs = [h for h, _ in rated]
                votes = ", ".join(f"{h.judge}={format_value(x)}" for h, x in rated)
                what = f"human majority {format_value(ref)} ({votes})"
            for v in judges:
                if v.scale != scale or dim not in v.scores:
                    continue
                x = value_of(v, dim)
                if x is None or not _beyond([x, ref], scale, tolerance):
                    continue
                acc.add(
                    DisputeKind.HUMAN,
                    subject,
                    dim,
                    [v, *refs],
                    severity_of([x, ref], scale),
                    f"{labels[rater_key(v)]}={format_value(x)} vs {what} on {dim}",
                )


def _judge_vs_metrics(
    acc: _Acc,
    subject: str,
    judges: Sequence[Verdict],
    metrics: Optional[Mapping[str, Any]],
    labels: Mapping[RaterKey, str],
    problems: Sequence[MetricProblem],
    patterns: Sequence[IssuePattern],
    rules: Optional[RubricRules] = None,
) -> None:
    from_metrics = metric_problems(metrics, problems, patterns)
    for v in sorted(judges, key=lambda v: (labels[rater_key(v)], v.answer_order or "", v.repetition)):
        covered: set[str] = set()
        if rules is not None:
            broken = broken_rules(rules, v, metrics)
            covered = covered_dimensions(rules, v, metrics)
            for dim in dict.fromkeys(b.dimension for b in broken):
                texts = [b.text() for b in broken if b.dimension == dim]
                acc.add(
                    DisputeKind.METRICS,
                    subject,
                    dim,
                    [v],
                    1.0,
                    f"{labels[rater_key(v)]} broke {len(texts)} rule{'s' if len(texts) > 1 else ''} on {dim}: "
                    + "; ".join(texts),
                )
        top = TOP_SCORE.get(v.scale)
        if top is None:
            continue
        found = from_metrics + [
            (f"its own issues_found lists '{text}'", dims) for text, dims in issue_problems(v.issues_found, patterns)
        ]
        if not found:
            continue
        for dim in sorted(v.scores):
            if dim in covered or value_of(v, dim) != top:
                continue
            reasons = [desc for desc, dims in found if dim.lower() in dims]
            if reasons:
                acc.add(
                    DisputeKind.METRICS,
                    subject,
                    dim,
                    [v],
                    1.0,
                    f"{labels[rater_key(v)]} gave {dim} the top score {format_value(top)} but " + "; ".join(reasons),
                )
