"""Agreement statistics of judge verdicts (docs/judging.md), pure: :func:`agreement_rows`
computes the agreement statistics as rows of
(raters, dimension, statistic, value, n, note), shown by ``reviewer
agreement``, ``reviewer report`` and exported as the ``agreement`` table.

Raters. Every (judge, method) with verdicts on a dimension is a rater
(display names from :func:`reviewer.core.judging.disputes.rater_labels`); human
raters are verdicts with method 'human' (judges 'annotator1', ..., 'gold');
'adjudicated' is the rater whose values are the adjudications. A judge's
value of a subject is its primary verdict
(:func:`reviewer.core.judging.disputes.primary_verdicts`: answer order 'ab' or the
only one, latest repetition); the other order is used only for the
position-swap statistics and the per-order accuracy.

Ties and garbage. A pairwise 'tie' is a category like '1' and '2': a judge's
'tie' agrees with a human 'tie'. A value that is missing or not on the scale
(``None``: 'garbage', no parseable verdict) is *undecided*: it is never a
category. Undecided verdicts are counted and reported in the note of every
row, are left out of n for agreement and accuracy, and every accuracy
(``agreement_with_human_majority``, ``agreement_with_adjudicated``,
``accuracy_vs_gold``) has a second row ``<statistic>_undecided_wrong``
that counts them as wrong (n includes them). The human majority is
:func:`reviewer.core.judging.agreement.majority` over the human raters other than
'gold': when the annotators tie there is no majority and the item is
skipped (counted as "without a reference" in the note).

Statistics per dimension (and scale):

* every pair of raters with subjects in common: ``percent_agreement``;
  ``cohen_kappa`` (unweighted, categories in scale order); for ordinal
  scales (1-5, A-F) also ``cohen_kappa_quadratic``; ``gwet_ac1`` (Gwet's
  AC1 over the scale's categories, reviewer.core.judging.count_stats); for numeric scales also
  ``agreement_within_tolerance`` (share of pairs at most the scale's
  tolerance apart, e.g. 4 vs 5 on 1-5 agrees).
* ``krippendorff_alpha_<level>`` over all judges and humans (not
  'adjudicated', which is derived from them), at the scale's LEVEL; and over
  the humans other than 'gold' alone when there are two or more.
* per pairwise judge with both answer orders: ``position_swap_consistency``
  (share of items decided in both orders that agree; counts of flips, tie
  mismatches and undecided per order in the note),
  ``position_swap_consistency_undecided_inconsistent`` (undecided items count
  as inconsistent), and ``cohen_kappa`` between the orders (raters
  'judge [ab] vs judge [ba]').
* per judge: ``agreement_with_human_majority``, ``agreement_with_adjudicated``
  and ``accuracy_vs_gold``; the last per answer order ('judge [ab] vs gold',
  'judge [ba] vs gold') and pooled over both orders ('judge [ab+ba] vs
  gold': every verdict of either order counts once, LLMBar's average
  accuracy when both orders are decided) when the judge used both orders,
  else for its only order.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reviewer.core.judging.agreement import AgreementResult, cohen_kappa, krippendorff_alpha, percent_agreement
from reviewer.core.judging.alignment import PASS_THRESHOLD
from reviewer.core.judging.calibration import own_range_value, scale_labels
from reviewer.core.judging.count_stats import (
    CountSample,
    clustered_proportion_sample,
    pair_sample,
    proportion_sample,
    units_sample,
)
from reviewer.core.judging.dispute_common import GOLD, NUMERIC_SCALES, format_value, rater_key, value_of
from reviewer.core.judging.disputes import is_human, latest_by_order, primary_verdicts, rater_labels
from reviewer.core.judging.pairwise_agreement import agreement_with_reference, majority, position_swap_consistency
from reviewer.core.judging.verdicts import LEVEL, TOLERANCE, Adjudication, Scale, Value, Verdict, normalise
from reviewer.core.tables import csv_row
from reviewer.core.text import natural_key

__all__ = ["ADJUDICATED", "AgreementRow", "agreement_csv", "agreement_rows", "undecided_counts"]

#: The rater name of adjudicated values.
ADJUDICATED = "adjudicated"


@dataclass(frozen=True)
class AgreementRow:
    """One agreement statistic.

    ``raters``: 'A vs B' for two raters, 'judge' for one judge's own
    consistency, comma-separated names for a set; ``dimension``: the
    dimension, with the scale in brackets when one dimension is scored on
    several scales; ``statistic``: the name (module docstring); ``value``:
    the statistic, None when undefined (the note says why); ``n``: what it
    rests on (pairs, items or pairable values); ``note``: counts of skipped,
    undecided and tied items. ``ci_low``, ``ci_high``, ``ci_method``: its
    95 % bootstrap interval and how it was made ('BCa' or 'percentile'),
    ``prevalence``: {class: share} of the values it rests on; all empty
    until reviewer.core.judging.agreement_intervals.with_intervals fills
    them from ``sample`` (the subjects as pattern counts, not exported).
    """

    raters: str
    dimension: str
    statistic: str
    value: float | None
    n: int
    note: str = ""
    ci_low: float | None = None
    ci_high: float | None = None
    ci_method: str = ""
    prevalence: Mapping[str, float] = field(default_factory=dict, hash=False)
    sample: CountSample | None = field(default=None, compare=False, repr=False)

    def as_tuple(self) -> tuple:
        """(raters, dimension, statistic, value, n, note, ci_low, ci_high,
        ci_method, prevalence as 'class share; ...')."""
        return (
            self.raters,
            self.dimension,
            self.statistic,
            self.value,
            self.n,
            self.note,
            self.ci_low,
            self.ci_high,
            self.ci_method,
            self.prevalence_text(),
        )

    def as_dict(self) -> dict:
        """The row as a JSON-ready dict (prevalence as {class: share})."""
        return {
            "raters": self.raters,
            "dimension": self.dimension,
            "statistic": self.statistic,
            "value": self.value,
            "n": self.n,
            "note": self.note,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "ci_method": self.ci_method,
            "prevalence": dict(self.prevalence),
        }

    def prevalence_text(self) -> str:
        """The prevalence as 'fail 0.38; pass 0.62' ('' when none)."""
        return "; ".join(f"{k} {v:.2f}" for k, v in self.prevalence.items())

    def interval_text(self, digits: int = 3) -> str:
        """'[low, high] method'; 'too few' when there were too few subjects
        for an interval (the note says so); '-' without an interval."""
        if self.ci_low is None or self.ci_high is None:
            return "too few" if "too few" in self.note else "-"
        return f"[{self.ci_low:.{digits}f}, {self.ci_high:.{digits}f}] {self.ci_method}"

    def formatted(self, digits: int = 3) -> str:
        """The value rounded, or 'undefined'."""
        return "undefined" if self.value is None else f"{self.value:.{digits}f}"


# ---------------------------------------------------------------------------
# disputes


def _value(r: AgreementResult) -> float | None:
    return r.value if r.defined else None


def _note(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def agreement_rows(verdicts: Iterable[Verdict], adjudications: Iterable[Adjudication] = ()) -> list[AgreementRow]:
    """The agreement statistics (module docstring) of ``verdicts`` and
    ``adjudications``, grouped by dimension (sorted), then by statistic family
    in the order listed there. No database access."""
    vs = list(verdicts)
    adj = {(a.subject, a.dimension): a.value for a in adjudications}
    labels = rater_labels(vs)
    groups: dict[tuple[str, Scale], list[Verdict]] = {}
    for v in vs:
        for d in v.scores:
            groups.setdefault((d, v.scale), []).append(v)
    scales_of: dict[str, set] = {}
    for d, s in groups:
        scales_of.setdefault(d, set()).add(s)
    rows: list[AgreementRow] = []
    for (dim, scale), group in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1].value)):
        name = dim if len(scales_of[dim]) == 1 else f"{dim} [{scale.value}]"
        rows += _dimension_rows(name, dim, scale, group, adj, labels)
    return rows


@dataclass(frozen=True)
class _DimensionRaters:
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


def _dimension_rows(
    name: str, dim: str, scale: Scale, group: Sequence[Verdict], adj: dict, labels: dict
) -> list[AgreementRow]:
    """Every agreement row of one dimension (and scale), in the module docstring's order:
    pairs of raters, Krippendorff's alpha, position swap, judges against references."""
    judges = [v for v in group if not is_human(v)]
    raters = _dimension_raters(dim, scale, group, adj, labels)
    observed = [x for vals in raters.all.values() for x in vals.values()]
    cats = scale_labels(scale, observed)
    by_judge = _values_by_order(judges, dim, labels)
    rows = _rater_pair_rows(name, scale, raters.all, cats)
    rows += _alpha_rows(name, scale, raters, cats)
    rows += _position_swap_rows(name, scale, by_judge, cats)
    rows += _reference_rows(name, scale, raters, by_judge, _references(raters))
    return rows


def _dimension_raters(dim: str, scale: Scale, group: Sequence[Verdict], adj: dict, labels: dict) -> _DimensionRaters:
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
    return _DimensionRaters(judge_vals, human_vals, adj_vals, judge_names, human_names, annotators, raters)


def _rater_pair_rows(name: str, scale: Scale, raters: dict[str, dict[str, Value]], cats: list) -> list[AgreementRow]:
    """The pair statistics (``_pair_rows``) of every two raters with subjects in common."""
    rows: list[AgreementRow] = []
    for a, b in itertools.combinations(raters, 2):
        common = sorted(set(raters[a]) & set(raters[b]), key=natural_key)
        if not common:
            continue
        xa = [raters[a][s] for s in common]
        xb = [raters[b][s] for s in common]
        rows += _pair_rows(f"{a} vs {b}", name, scale, xa, xb, cats)
    return rows


def _alpha_rows(name: str, scale: Scale, raters: _DimensionRaters, cats: list) -> list[AgreementRow]:
    """Krippendorff's alpha at the scale's level over all judges and humans, and over the
    annotators (humans other than 'gold') alone when there are two or more."""
    rows: list[AgreementRow] = []
    level = LEVEL[scale]
    everyone = [*raters.judge_names, *raters.human_names]
    sets = [("all raters: " + ", ".join(everyone), everyone)]
    if len(raters.annotators) >= 2:
        sets.append(("humans: " + ", ".join(raters.annotators), raters.annotators))
    for title, names in sets:
        if len(names) < 2:
            continue
        units = sorted({s for n in names for s in raters.all[n]}, key=natural_key)
        data = [[raters.all[n].get(s) for n in names] for s in units]
        r = krippendorff_alpha(data, level, categories=cats if level != "interval" else None)
        rows.append(
            AgreementRow(
                title,
                name,
                r.statistic,
                _value(r),
                r.n,
                _note(r.note, f"{r.counts.get('pairable_units', 0)} of {len(units)} subjects have two or more values"),
                sample=_units_sample(data, level, cats, r.statistic, scale),
            )
        )
    return rows


def _values_by_order(judges: Sequence[Verdict], dim: str, labels: dict) -> dict[str, dict[str, dict[str, Value]]]:
    """{judge label: {answer order 'ab' or 'ba': {subject: value}}}, each order's latest verdict."""
    by_judge: dict[str, dict[str, dict[str, Value]]] = {}
    for (subject, rater, order), v in latest_by_order(judges).items():
        if order in ("ab", "ba"):
            by_judge.setdefault(labels[rater], {}).setdefault(order, {})[subject] = value_of(v, dim)
    return by_judge


def _position_swap_rows(
    name: str, scale: Scale, by_judge: dict[str, dict[str, dict[str, Value]]], cats: list
) -> list[AgreementRow]:
    """Per judge with both answer orders on common subjects: the position-swap consistency
    (pairwise winner scale), the percent agreement (other scales) and Cohen's kappa between the orders."""
    rows: list[AgreementRow] = []
    for judge in sorted(by_judge, key=natural_key):
        orders = by_judge[judge]
        if set(orders) != {"ab", "ba"}:
            continue
        common = sorted(set(orders["ab"]) & set(orders["ba"]), key=natural_key)
        if not common:
            continue
        ab = [orders["ab"][s] for s in common]
        ba = [orders["ba"][s] for s in common]
        if scale == Scale.WINNER:
            rows += _swap_consistency_rows(judge, name, ab, ba)
        orders_sample = _pair(ab, ba, cats, scale)
        if scale != Scale.WINNER:
            r = percent_agreement(ab, ba)
            rows.append(
                AgreementRow(
                    f"{judge} [ab] vs {judge} [ba]", name, r.statistic, _value(r), r.n, r.note, sample=orders_sample
                )
            )
        k = cohen_kappa(ab, ba, categories=cats)
        rows.append(
            AgreementRow(
                f"{judge} [ab] vs {judge} [ba]", name, k.statistic, _value(k), k.n, k.note, sample=orders_sample
            )
        )
    return rows


def _swap_consistency_rows(judge: str, name: str, ab: list, ba: list) -> list[AgreementRow]:
    """A pairwise judge's ``position_swap_consistency`` over the items decided in both
    orders (``ab``, ``ba``: its winners per common subject) and the strict variant
    that counts an item undecided in either order as inconsistent."""
    r = position_swap_consistency(ab, ba)
    c = r.counts
    counts = (
        f"total={c['total']}, consistent={c['consistent']}, flipped={c['flipped']} "
        f"(first position won both {c['first_position_won_both']}, second "
        f"{c['second_position_won_both']}), tie_mismatch={c['tie_mismatch']}, "
        f"undecided_ab={c['undecided_ab']}, undecided_ba={c['undecided_ba']}, "
        f"undecided_any={c['undecided_any']}"
    )
    decided = [(x, y) for x, y in zip(ab, ba) if x is not None and y is not None]
    total = c["total"]
    strict = "position_swap_consistency_undecided_inconsistent"
    return [
        AgreementRow(
            judge,
            name,
            r.statistic,
            _value(r),
            r.n,
            _note(counts, r.note),
            sample=proportion_sample(
                [x == y for x, y in decided], r.statistic, _prevalence([v for p in decided for v in p], Scale.WINNER)
            ),
        ),
        AgreementRow(
            judge,
            name,
            strict,
            c["consistent"] / total if total else None,
            total,
            f"{c['undecided_any']} items undecided in an order counted as inconsistent",
            sample=proportion_sample(
                [x is not None and x == y for x, y in zip(ab, ba)],
                strict,
                _prevalence([v for p in decided for v in p], Scale.WINNER),
            ),
        ),
    ]


def _references(raters: _DimensionRaters) -> list[tuple[str, str, dict[str, Value], str]]:
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


def _reference_rows(
    name: str,
    scale: Scale,
    raters: _DimensionRaters,
    by_judge: dict[str, dict[str, dict[str, Value]]],
    references: list[tuple[str, str, dict[str, Value], str]],
) -> list[AgreementRow]:
    """Each judge's accuracy against each reference (``_accuracy_rows``); against 'gold'
    per answer order and pooled over both when the judge used both orders."""
    rows: list[AgreementRow] = []
    for judge in raters.judge_names:
        for ref_name, statistic, ref, ref_note in references:
            per_order = by_judge.get(judge, {})
            if statistic == "accuracy_vs_gold" and set(per_order) == {"ab", "ba"}:
                variants = [(f"{judge} [{o}] vs {ref_name}", [per_order[o]]) for o in ("ab", "ba")]
                variants.append((f"{judge} [ab+ba] vs {ref_name}", [per_order["ab"], per_order["ba"]]))
            else:
                variants = [(f"{judge} vs {ref_name}", [raters.judges[judge]])]
            for raters_name, val_sets in variants:
                xs, refs, units = [], [], []
                for vals in val_sets:
                    common = sorted(set(vals) & set(ref), key=natural_key)
                    xs += [vals[s] for s in common]
                    refs += [ref[s] for s in common]
                    units += common
                if not xs:
                    continue
                r = agreement_with_reference(xs, refs)
                pooled = units if len(val_sets) > 1 else None  # both orders of a pair: resample pairs
                rows += _accuracy_rows(raters_name, name, scale, statistic, r, ref_note, xs, refs, pooled)
    return rows


def _pass_mark(scale: Scale) -> float | None:
    return PASS_THRESHOLD.get(scale)


def _class_label(scale: Scale) -> Callable[[Any], str]:
    """How a class of ``scale`` is named in a prevalence: the scale's own
    letters on C/I/P and A-F, else the value (format_value)."""
    return lambda value: format_value(value, scale)


def _pair(xa: Sequence[Any], xb: Sequence[Any], cats: list, scale: Scale) -> CountSample:
    tolerance = TOLERANCE[scale] if scale in NUMERIC_SCALES else None
    return pair_sample(xa, xb, cats, tolerance=tolerance, threshold=_pass_mark(scale), label=_class_label(scale))


def _units_sample(data: list, level: str, cats: list, statistic: str, scale: Scale) -> CountSample:
    categories = cats if level != "interval" else sorted({x for row in data for x in row if x is not None})
    return units_sample(data, level, categories, statistic, threshold=_pass_mark(scale), label=_class_label(scale))


def _pair_rows(raters: str, name: str, scale: Scale, xa: list, xb: list, cats: list) -> list[AgreementRow]:
    out = []
    sample = _pair(xa, xb, cats, scale)
    p = percent_agreement(xa, xb)
    out.append(AgreementRow(raters, name, p.statistic, _value(p), p.n, p.note, sample=sample))
    k = cohen_kappa(xa, xb, categories=cats)
    out.append(AgreementRow(raters, name, k.statistic, _value(k), k.n, k.note, sample=sample))
    if LEVEL[scale] == "ordinal":
        q = cohen_kappa(xa, xb, weights="quadratic", categories=cats)
        out.append(AgreementRow(raters, name, q.statistic, _value(q), q.n, q.note, sample=sample))
    ac1 = sample.value("gwet_ac1") if sample.n else float("nan")
    out.append(
        AgreementRow(
            raters,
            name,
            "gwet_ac1",
            None if ac1 != ac1 else ac1,
            sample.n,
            "" if sample.n else "undefined: no complete pairs",
            sample=sample,
        )
    )
    if scale in NUMERIC_SCALES:
        tol = TOLERANCE[scale]
        pairs = [(float(x), float(y)) for x, y in zip(xa, xb) if x is not None and y is not None]
        close = sum(1 for x, y in pairs if abs(x - y) <= tol)
        out.append(
            AgreementRow(
                raters,
                name,
                "agreement_within_tolerance",
                close / len(pairs) if pairs else None,
                len(pairs),
                _note(f"tolerance {tol:g}", "" if pairs else "undefined: no complete pairs"),
                sample=sample,
            )
        )
    return out


def _clusters(units: Sequence[str], hits: Sequence[bool | None]) -> list[tuple[int, int]]:
    """(hits, trials) per unit, in first-seen order; a None hit is no trial."""
    by: dict[str, list[int]] = {}
    for u, h in zip(units, hits):
        c = by.setdefault(u, [0, 0])
        if h is not None:
            c[0] += int(h)
            c[1] += 1
    return [(h, t) for h, t in by.values()]


def _accuracy_rows(
    raters: str,
    name: str,
    scale: Scale,
    statistic: str,
    r: AgreementResult,
    ref_note: str,
    xs: Sequence[Any],
    refs: Sequence[Any],
    pooled: Sequence[str] | None = None,
) -> list[AgreementRow]:
    """The accuracy row and its strict variant (undecided counted wrong).
    ``pooled``: the subject of each verdict when several verdicts of one
    subject are pooled (a pair's two answer orders): the interval then
    resamples subjects (a pair bootstrap), never verdicts, and is no
    Wilson interval; else each verdict is an independent subject."""
    c = r.counts
    counts = (
        f"correct={c['correct']}, incorrect={c['incorrect']}, undecided={c['undecided']}, "
        f"no_reference={c['no_reference']}"
    )
    strict_n = c["correct"] + c["incorrect"] + c["undecided"]
    with_ref = [(x, y) for x, y in zip(xs, refs) if y is not None]
    decided = [x == y for x, y in with_ref if x is not None]
    strict = f"{statistic}_undecided_wrong"
    prevalence = _prevalence([y for _, y in with_ref], scale)  # of the reference's classes
    # said first, so a table cell cut at CELL_LIMIT still names the unit resampled
    resampled = "pairs resampled" if pooled is not None else ""
    if pooled is not None:
        decided_hits = [None if y is None or x is None else x == y for x, y in zip(xs, refs)]
        strict_hits = [None if y is None else (x is not None and x == y) for x, y in zip(xs, refs)]
        sample = clustered_proportion_sample(_clusters(pooled, decided_hits), statistic, prevalence)
        strict_sample = clustered_proportion_sample(_clusters(pooled, strict_hits), strict, prevalence)
    else:
        sample = proportion_sample(decided, statistic, prevalence)
        strict_sample = proportion_sample([x is not None and x == y for x, y in with_ref], strict, prevalence)
    return [
        AgreementRow(
            raters,
            name,
            statistic,
            _value(r),
            r.n,
            _note(resampled, counts, ref_note, r.note),
            sample=sample,
        ),
        AgreementRow(
            raters,
            name,
            strict,
            c["correct"] / strict_n if strict_n else None,
            strict_n,
            _note(resampled, f"{c['undecided']} undecided verdicts counted as wrong", ref_note),
            sample=strict_sample,
        ),
    ]


def _prevalence(values: Sequence[Any], scale: Scale) -> dict[str, float]:
    """{class: share} of the values that are present, classes in the
    natural order of their values (I, P, C on C/I/P), each named as the
    scale names it (format_value: C/I/P and A-F by their letters)."""
    present = [v for v in values if v is not None]
    counts = Counter(present)
    order = sorted(counts, key=lambda v: natural_key(format_value(v)))
    return {format_value(v, scale): counts[v] / len(present) for v in order}


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


def agreement_csv(table: str, rows: Sequence[AgreementRow]) -> str:
    """Agreement rows (AgreementRow) as CSV: a first column ``table`` with
    the value ``table``, then raters, dimension, statistic, value (6
    decimals), n, note, ci_low, ci_high, ci_method, prevalence. Text cells
    are formula-safe (core.text.csv_row)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(
        [
            "table",
            "raters",
            "dimension",
            "statistic",
            "value",
            "n",
            "note",
            "ci_low",
            "ci_high",
            "ci_method",
            "prevalence",
        ]
    )
    f6 = lambda x: "" if x is None else f"{x:.6f}"  # noqa: E731
    for a in rows:
        writer.writerow(
            csv_row(
                [
                    table,
                    a.raters,
                    a.dimension,
                    a.statistic,
                    f6(a.value),
                    a.n,
                    a.note,
                    f6(a.ci_low),
                    f6(a.ci_high),
                    a.ci_method,
                    a.prevalence_text(),
                ]
            )
        )
    return buf.getvalue()
