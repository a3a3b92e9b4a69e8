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

This module makes the rows (``AgreementRow``) and writes them as CSV
(``agreement_csv``); the raters' values, the references and the undecided
counts are reviewer.core.judging.agreement_raters, the subjects behind each
row's interval reviewer.core.judging.agreement_samples.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reviewer.core.judging.agreement import AgreementResult, cohen_kappa, krippendorff_alpha, percent_agreement
from reviewer.core.judging.agreement_raters import (
    DimensionRaters,
    dimension_raters,
    judge_references,
    values_by_order,
)
from reviewer.core.judging.agreement_samples import (
    alpha_units_sample,
    rater_pair_sample,
    subject_clusters,
    value_prevalence,
)
from reviewer.core.judging.calibration import scale_labels
from reviewer.core.judging.count_stats import CountSample, clustered_proportion_sample, proportion_sample
from reviewer.core.judging.dispute_common import NUMERIC_SCALES
from reviewer.core.judging.disputes import is_human, rater_labels
from reviewer.core.judging.pairwise_agreement import agreement_with_reference, position_swap_consistency
from reviewer.core.judging.verdicts import LEVEL, TOLERANCE, Adjudication, Scale, Value, Verdict
from reviewer.core.tables import csv_row
from reviewer.core.text import natural_key

__all__ = ["AgreementRow", "agreement_csv", "agreement_rows"]


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


def _dimension_rows(
    name: str, dim: str, scale: Scale, group: Sequence[Verdict], adj: dict, labels: dict
) -> list[AgreementRow]:
    """Every agreement row of one dimension (and scale), in the module docstring's order:
    pairs of raters, Krippendorff's alpha, position swap, judges against references."""
    judges = [v for v in group if not is_human(v)]
    raters = dimension_raters(dim, scale, group, adj, labels)
    observed = [x for vals in raters.all.values() for x in vals.values()]
    cats = scale_labels(scale, observed)
    by_judge = values_by_order(judges, dim, labels)
    rows = _rater_pair_rows(name, scale, raters.all, cats)
    rows += _alpha_rows(name, scale, raters, cats)
    rows += _position_swap_rows(name, scale, by_judge, cats)
    rows += _reference_rows(name, scale, raters, by_judge, judge_references(raters))
    return rows


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


def _alpha_rows(name: str, scale: Scale, raters: DimensionRaters, cats: list) -> list[AgreementRow]:
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
                sample=alpha_units_sample(data, level, cats, r.statistic, scale),
            )
        )
    return rows


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
        orders_sample = rater_pair_sample(ab, ba, cats, scale)
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
                [x == y for x, y in decided],
                r.statistic,
                value_prevalence([v for p in decided for v in p], Scale.WINNER),
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
                value_prevalence([v for p in decided for v in p], Scale.WINNER),
            ),
        ),
    ]


def _reference_rows(
    name: str,
    scale: Scale,
    raters: DimensionRaters,
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


def _pair_rows(raters: str, name: str, scale: Scale, xa: list, xb: list, cats: list) -> list[AgreementRow]:
    out = []
    sample = rater_pair_sample(xa, xb, cats, scale)
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
    prevalence = value_prevalence([y for _, y in with_ref], scale)  # of the reference's classes
    # said first, so a table cell cut at CELL_LIMIT still names the unit resampled
    resampled = "pairs resampled" if pooled is not None else ""
    if pooled is not None:
        decided_hits = [None if y is None or x is None else x == y for x, y in zip(xs, refs)]
        strict_hits = [None if y is None else (x is not None and x == y) for x, y in zip(xs, refs)]
        sample = clustered_proportion_sample(subject_clusters(pooled, decided_hits), statistic, prevalence)
        strict_sample = clustered_proportion_sample(subject_clusters(pooled, strict_hits), strict, prevalence)
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
