"""The pieces the dispute finders share (reviewer.core.judging.disputes), which
agreement, calibration and the validation figures use too: the scale
constants, who a rater is (rater_key, rater_labels, is_human), which of a
rater's verdicts speaks for it (latest_by_order, primary_verdicts), a
verdict's values (value_of, format_value), the severity of disputed values
(severity_of) and the accumulator that merges disputes per (kind, subject,
dimension), which reviewer.core.judging.disputes and the dispute families use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from reviewer.core.judging.verdicts import (
    TOLERANCE,
    Dispute,
    DisputeKind,
    Method,
    Scale,
    Value,
    Verdict,
    cip_letter,
    grade_letter,
    normalise,
)
from reviewer.core.text import natural_key

#: The human judge name whose label is the reference when present (LLMBar).
GOLD = "gold"
#: Answer orders of pairwise verdicts; None for verdicts without an order.
ORDERS = ("ab", "ba")
#: Scales whose values are numbers (distance = absolute difference).
NUMERIC_SCALES = frozenset({Scale.ORDINAL5, Scale.GRADE, Scale.PERCENT, Scale.CIP})
#: Width of each numeric scale, for severity = spread / range.
SCALE_RANGE: dict[Scale, float] = {Scale.ORDINAL5: 4.0, Scale.GRADE: 100.0, Scale.PERCENT: 100.0, Scale.CIP: 100.0}

#: A rater: (judge name, method value). The same judge name under two methods
#: (e.g. Failter's rules-based and ground-truth judges) are two raters.
RaterKey = tuple[str, str]


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
    keys = {(judge, method.value) for judge, method in {(v.judge, v.method) for v in verdicts}}  # as rater_key
    names: dict[str, int] = {}
    for judge, _ in keys:
        names[judge] = names.get(judge, 0) + 1
    return {k: (k[0] if names[k[0]] == 1 else f"{k[0]} ({k[1]})") for k in keys}


def value_of(v: Verdict, dimension: str) -> Value:
    """The normalised value of one dimension of a verdict (None: missing,
    undecided or not on the verdict's scale)."""
    return normalise(v.scores.get(dimension), v.scale)


def latest_by_order(verdicts: Iterable[Verdict]) -> dict[tuple[str, RaterKey, str | None], Verdict]:
    """{(subject, rater, answer order): the verdict with the highest
    repetition} (ties: the later in the input)."""
    out: dict[tuple[str, RaterKey, str | None], Verdict] = {}
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


def format_value(value: Value, scale: Scale | None = None) -> str:
    """A value as shown: 5 not 5.0, 4.5, '1', 'tie', '-' for None; a class
    of a lettered ``scale`` as the scale's own letter (decision record
    "classes-shown-as-their-letters"): on C/I/P C, P or I; on A-F the grade
    of a value that is a grade's points (80 is B), any other number as a
    number."""
    if value is None:
        return "-"
    letter = cip_letter(value) if scale == Scale.CIP else grade_letter(value) if scale == Scale.GRADE else None
    if letter is not None:
        return letter
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:g}"
    return str(value)


def severity_of(values: Sequence[Value], scale: Scale) -> float:
    """Severity of a set of decided values on ``scale`` (the disputes module's docstring):
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


def beyond_tolerance(values: Sequence[Value], scale: Scale, tolerance: Mapping[Scale, float]) -> bool:
    """True when the decided values disagree beyond the tolerance (numeric:
    spread > tolerance; nominal: any two differ)."""
    vals = [x for x in values if x is not None]
    if len(set(vals)) < 2:
        return False
    if scale in NUMERIC_SCALES:
        nums = [float(x) for x in vals]
        return max(nums) - min(nums) > tolerance.get(scale, TOLERANCE[scale])
    return True


class DisputeCollector:
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


def dimensions_of(verdicts: Iterable[Verdict]) -> list[str]:
    """The dimensions any of ``verdicts`` scores, sorted."""
    return sorted({d for v in verdicts for d in v.scores})
