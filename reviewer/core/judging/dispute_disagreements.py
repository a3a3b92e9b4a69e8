"""The dispute families that compare raters (reviewer.core.judging.disputes,
whose module docstring gives the rules): judges-disagree, position-flip,
repeat-spread, epochs-disagree and judge-vs-human. Each adds the disputes it finds for one
subject to the finder's accumulator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reviewer.core.judging.dispute_common import (
    GOLD,
    DisputeCollector,
    RaterKey,
    beyond_tolerance,
    dimensions_of,
    format_value,
    primary_verdicts,
    rater_key,
    severity_of,
    value_of,
)
from reviewer.core.judging.pairwise_agreement import majority
from reviewer.core.judging.verdicts import DisputeKind, Scale, Value, Verdict
from reviewer.core.text import natural_key


def judges_disagree(
    acc: DisputeCollector,
    subject: str,
    primary: Mapping[tuple[str, RaterKey], Verdict],
    labels: Mapping[RaterKey, str],
    tolerance: Mapping[Scale, float],
) -> None:
    chosen = sorted(primary.values(), key=lambda v: labels[rater_key(v)])
    for dim in dimensions_of(chosen):
        for scale in dict.fromkeys(v.scale for v in chosen):
            rated = [(v, value_of(v, dim)) for v in chosen if v.scale == scale and dim in v.scores]
            rated = [(v, x) for v, x in rated if x is not None]
            values = [x for _, x in rated]
            if len(rated) < 2 or not beyond_tolerance(values, scale, tolerance):
                continue
            shown = ", ".join(f"{labels[rater_key(v)]}={format_value(x, scale)}" for v, x in rated)
            acc.add(
                DisputeKind.JUDGES,
                subject,
                dim,
                [v for v, _ in rated],
                severity_of(values, scale),
                f"judges disagree on {dim}: {shown}",
            )


def position_flips(
    acc: DisputeCollector,
    subject: str,
    latest: Mapping[tuple[str, RaterKey, str | None], Verdict],
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
        for dim in dimensions_of([ab, ba]):
            x, y = value_of(ab, dim), value_of(ba, dim)
            if x is None or y is None or not beyond_tolerance([x, y], ab.scale, tolerance):
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


def repeat_spread(
    acc: DisputeCollector,
    subject: str,
    judges: Sequence[Verdict],
    labels: Mapping[RaterKey, str],
    tolerance: Mapping[Scale, float],
) -> None:
    groups: dict[tuple[RaterKey, str | None, Scale], list[Verdict]] = {}
    for v in judges:
        groups.setdefault((rater_key(v), v.answer_order, v.scale), []).append(v)
    for (rater, order, scale), vs in sorted(groups.items(), key=lambda kv: (labels[kv[0][0]], kv[0][1] or "")):
        if len({v.repetition for v in vs}) < 2:
            continue
        vs = sorted(vs, key=lambda v: v.repetition)
        for dim in dimensions_of(vs):
            rated = [(v, value_of(v, dim)) for v in vs]
            rated = [(v, x) for v, x in rated if x is not None]
            values = [x for _, x in rated]
            if len(rated) < 2 or not beyond_tolerance(values, scale, tolerance):
                continue
            where = f" (order {order})" if order else ""
            shown = ", ".join(f"#{v.repetition}={format_value(x, scale)}" for v, x in rated)
            acc.add(
                DisputeKind.REPEAT,
                subject,
                dim,
                [v for v, _ in rated],
                severity_of(values, scale),
                f"{labels[rater]} repetitions{where} spread on {dim}: {shown}",
            )


def epochs_disagree(
    acc: DisputeCollector,
    primary: Mapping[tuple[str, RaterKey], Verdict],
    epochs: Mapping[str, tuple[str, int]],
    labels: Mapping[RaterKey, str],
    tolerance: Mapping[Scale, float],
) -> None:
    """One rater's primary verdicts on the epochs of one sample (``epochs``:
    {subject: (sample, epoch)}) that disagree beyond the tolerance: a
    dispute on every epoch's subject, naming each epoch's value."""
    groups: dict[tuple[str, RaterKey, Scale], list[tuple[int, Verdict]]] = {}
    for (subject, rater), v in primary.items():
        if subject in epochs:
            sample, epoch = epochs[subject]
            groups.setdefault((sample, rater, v.scale), []).append((epoch, v))
    for (sample, rater, scale), found in sorted(
        groups.items(), key=lambda kv: (natural_key(kv[0][0]), labels[kv[0][1]])
    ):
        if len(found) < 2:
            continue
        found.sort(key=lambda ev: ev[0])
        for dim in dimensions_of(v for _, v in found):
            rated = [(e, v, value_of(v, dim)) for e, v in found if dim in v.scores]
            rated = [(e, v, x) for e, v, x in rated if x is not None]
            values = [x for _, _, x in rated]
            if len(rated) < 2 or not beyond_tolerance(values, scale, tolerance):
                continue
            shown = ", ".join(f"epoch {e}={format_value(x, scale)}" for e, _, x in rated)
            for _, v, _ in rated:
                acc.add(
                    DisputeKind.EPOCHS,
                    v.subject,
                    dim,
                    [w for _, w, _ in rated],
                    severity_of(values, scale),
                    f"{labels[rater]} epochs of {sample} disagree on {dim}: {shown}",
                )


def judge_vs_human(
    acc: DisputeCollector,
    subject: str,
    primary: Mapping[tuple[str, RaterKey], Verdict],
    humans: Sequence[Verdict],
    labels: Mapping[RaterKey, str],
    tolerance: Mapping[Scale, float],
) -> None:
    human_latest = primary_verdicts(humans)
    hs = sorted(human_latest.values(), key=lambda v: natural_key(v.judge))
    judges = sorted(primary.values(), key=lambda v: labels[rater_key(v)])
    for dim in dimensions_of(hs):
        for scale in dict.fromkeys(h.scale for h in hs if dim in h.scores):
            rated = [(h, value_of(h, dim)) for h in hs if h.scale == scale and dim in h.scores]
            gold = [(h, x) for h, x in rated if h.judge == GOLD and x is not None]
            ref: Value
            if gold:
                refs, ref, what = [gold[0][0]], gold[0][1], f"gold {format_value(gold[0][1], scale)}"
            else:
                ref = majority(x for _, x in rated)
                if ref is None:
                    continue  # no human majority (tied or no labels): no reference
                refs = [h for h, _ in rated]
                votes = ", ".join(f"{h.judge}={format_value(x, scale)}" for h, x in rated)
                what = f"human majority {format_value(ref, scale)} ({votes})"
            for v in judges:
                if v.scale != scale or dim not in v.scores:
                    continue
                x = value_of(v, dim)
                if x is None or not beyond_tolerance([x, ref], scale, tolerance):
                    continue
                acc.add(
                    DisputeKind.HUMAN,
                    subject,
                    dim,
                    [v, *refs],
                    severity_of([x, ref], scale),
                    f"{labels[rater_key(v)]}={format_value(x, scale)} vs {what} on {dim}",
                )
