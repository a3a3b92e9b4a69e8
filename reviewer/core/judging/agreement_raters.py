"""The raters of the agreement table (reviewer.core.judging.agreement_table,
whose docstring defines them) and their values on one dimension: every
(judge, method) with verdicts is a rater under its display name, people
are the human raters ('gold' last), and ``ADJUDICATED`` is the rater
whose values are the adjudications; the references judges are measured
against (the annotators' majority, the adjudications, 'gold'); and how many
undecided values each judge gave. Pure; no database access.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reviewer.core.judging.calibration import own_range_value
from reviewer.core.judging.dispute_common import GOLD, rater_key, value_of
from reviewer.core.judging.disputes import is_human, latest_by_order, primary_verdicts, rater_labels
from reviewer.core.judging.pairwise_agreement import majority
from reviewer.core.judging.verdicts import Scale, Value, Verdict, normalise
from reviewer.core.text import natural_key

__all__ = [
    "ADJUDICATED",
    "DimensionRaters",
    "dimension_raters",
    "judge_references",
    "undecided_counts",
    "values_by_order",
]

#: The rater name of adjudicated values.
ADJUDICATED = "adjudicated"


@dataclass(frozen=True)
class DimensionRaters:
    """The raters' values on one dimension: {rater label: {subject: value}}.

    ``judges`` and ``humans`` hold the primary verdicts' values; ``adjudicated``
    the adjudications normalised to the scale; ``all`` every rater in display
    order (judges, humans with 'gold' last, then 'adjudicated' when there are
    adjudications); ``annotators`` the human raters other than 'gold'.
    """

    judges: dict[str, dict[str, Value]]
    humans: dict[str, dict[str, Value]]
    adjudicated: dict[str, Value]
    judge_names: list[str]
    human_names: list[str]
    annotators: list[str]
    all: dict[str, dict[str, Value]]


def dimension_raters(dim: str, scale: Scale, group: Sequence[Verdict], adj: dict, labels: dict) -> DimensionRaters:
    """Each rater's value of each subject on ``dim``: the judges' and humans' primary
    verdicts (by display label) and the adjudications of the group's subjects."""
    judges = [v for v in group if not is_human(v)]
    humans = [v for v in group if is_human(v)]
    judge_vals: dict[str, dict[str, Value]] = {}
    for (subject, rater), v in primary_verdicts(judges).items():
        judge_vals.setdefault(labels[rater], {})[subject] = value_of(v, dim)
    human_vals: dict[str, dict[str, Value]] = {}
    for (subject, rater), v in primary_verdicts(humans).items():
        human_vals.setdefault(labels[rater], {})[subject] = value_of(v, dim)
    subjects = {v.subject for v in group}
    adj_vals = {s: normalise(adj[(s, dim)], scale) for s in subjects if (s, dim) in adj}
    judge_names = sorted(judge_vals, key=natural_key)
    human_names = sorted(human_vals, key=lambda h: (h == GOLD, natural_key(h)))
    raters: dict[str, dict[str, Value]] = {
        **{j: judge_vals[j] for j in judge_names},
        **{h: human_vals[h] for h in human_names},
    }
    if adj_vals:
        raters[ADJUDICATED] = adj_vals
    annotators = [h for h in human_names if h != GOLD]
    return DimensionRaters(judge_vals, human_vals, adj_vals, judge_names, human_names, annotators, raters)


def values_by_order(judges: Sequence[Verdict], dim: str, labels: dict) -> dict[str, dict[str, dict[str, Value]]]:
    """{judge label: {answer order 'ab' or 'ba': {subject: value}}}, each order's latest verdict."""
    by_judge: dict[str, dict[str, dict[str, Value]]] = {}
    for (subject, rater, order), v in latest_by_order(judges).items():
        if order in ("ab", "ba"):
            by_judge.setdefault(labels[rater], {}).setdefault(order, {})[subject] = value_of(v, dim)
    return by_judge


def judge_references(raters: DimensionRaters) -> list[tuple[str, str, dict[str, Value], str]]:
    """The references judges are compared with, as (name, statistic, {subject: value}, note):
    the annotators' majority (a tie is no majority; the note counts them), the
    adjudications and 'gold', each when present."""
    human_majority: dict[str, Value] = {}
    tied = 0
    if raters.annotators:
        for s in sorted({s for h in raters.annotators for s in raters.humans[h]}, key=natural_key):
            labels_s = [raters.humans[h].get(s) for h in raters.annotators]
            m = majority(labels_s)
            if m is None and any(x is not None for x in labels_s):
                tied += 1
            human_majority[s] = m
    gold = raters.humans.get(GOLD, {})
    references = []
    if human_majority:
        references.append(
            (
                "human majority",
                "agreement_with_human_majority",
                human_majority,
                f"{tied} items without a human majority (annotators tied)" if tied else "",
            )
        )
    if raters.adjudicated:
        references.append((ADJUDICATED, "agreement_with_adjudicated", raters.adjudicated, ""))
    if gold:
        references.append((GOLD, "accuracy_vs_gold", gold, ""))
    return references


def undecided_counts(verdicts: Iterable[Verdict]) -> Counter:
    """{judge display name: verdict dimensions without a usable value}:
    how much garbage each judge produced (all orders and repetitions)."""
    vs = list(verdicts)
    labels = rater_labels(vs)
    c: Counter = Counter()
    for v in vs:
        for d in v.scores:
            if value_of(v, d) is None and own_range_value(v, d) is None:  # totalScore 0-25 is decided
                c[labels[rater_key(v)]] += 1
    return c
