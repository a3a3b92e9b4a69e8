"""Anchoring, measured: per reviewer, judge and dimension, over the
fair-sample labels with both a first label and a final value, the
agreement of

* the reviewer's first label with their final value ('first vs final'),
* the judge with the first label ('judge vs first'),
* the judge with the final value ('judge vs final').

The gap between the last two (judge vs final minus judge vs first) is the
anchoring: how far seeing the judge moved people towards it (Schroeder et
al., ACL 2025, measured the same drift). Statistics: percent agreement and
Cohen's kappa (quadratic weights on the ordinal scales 1-5 and A-F, value
weights on 0-100, reviewer.core.judging.count_stats.pair_sample), as
AgreementRows whose 95 % bootstrap intervals
reviewer.core.judging.agreement_intervals.with_intervals fills in. A
judge's value is its primary verdict (dispute_common.primary_verdicts). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.alignment import PASS_THRESHOLD
from reviewer.core.judging.calibration import scale_labels
from reviewer.core.judging.count_stats import pair_sample, value_weights
from reviewer.core.judging.dispute_common import format_value
from reviewer.core.judging.label_first import HumanLabel
from reviewer.core.judging.verdicts import LEVEL, Scale, Value, normalise
from reviewer.core.text import natural_key

__all__ = ["COMPARISONS", "Anchoring", "anchoring", "anchoring_rows"]

#: The three comparisons, in report order.
COMPARISONS = ("first vs final", "judge vs first", "judge vs final")


@dataclass(frozen=True)
class Anchoring:
    """The three comparisons of one reviewer with one judge on one
    dimension: ``rows`` (AgreementRows: raters '<reviewer> first vs final',
    '<judge> vs <reviewer> first', '<judge> vs <reviewer> final'; statistics
    percent_agreement and a kappa), ``n`` labels compared."""

    reviewer: str
    judge: str
    dimension: str
    scale: Scale
    n: int
    rows: list[AgreementRow]

    def value(self, comparison: str, statistic: str = "percent_agreement") -> float | None:
        """The figure of one comparison (COMPARISONS)."""
        want = self.raters(comparison)
        return next((r.value for r in self.rows if r.raters == want and r.statistic == statistic), None)

    def gap(self, statistic: str = "percent_agreement") -> float | None:
        """judge vs final minus judge vs first (None when either is undefined)."""
        a, b = self.value("judge vs final", statistic), self.value("judge vs first", statistic)
        return None if a is None or b is None else a - b

    def raters(self, comparison: str) -> str:
        """The raters' name of one comparison (COMPARISONS) in the rows."""
        return {
            "first vs final": f"{self.reviewer} first vs final",
            "judge vs first": f"{self.judge} vs {self.reviewer} first",
            "judge vs final": f"{self.judge} vs {self.reviewer} final",
        }[comparison]

    def kappa_name(self) -> str:
        """The kappa statistic used on this scale."""
        return _kappa_name(self.scale)


def _kappa_name(scale: Scale) -> str:
    if scale == Scale.PERCENT:
        return "cohen_kappa_weighted"
    return "cohen_kappa_quadratic" if LEVEL[scale] == "ordinal" else "cohen_kappa"


def _rows(raters: str, dimension: str, a: list, b: list, labels: list, scale: Scale) -> list[AgreementRow]:
    weights = value_weights(labels) if scale == Scale.PERCENT else None
    sample = pair_sample(
        a, b, labels, weights=weights, threshold=PASS_THRESHOLD.get(scale), label=lambda x: format_value(x, scale)
    )
    out = []
    for stat in ("percent_agreement", _kappa_name(scale)):
        value = sample.value(stat) if sample.n else float("nan")
        defined = value == value
        out.append(
            AgreementRow(
                raters,
                dimension,
                stat,
                value if defined else None,
                sample.n,
                "" if defined else "undefined",
                sample=sample,
            )
        )
    return out


def anchoring(
    labels: Iterable[HumanLabel], judge_values: Mapping[tuple[str, str, str], tuple[Value, Scale]]
) -> list[Anchoring]:
    """Per (reviewer, judge, dimension) of the fair-sample labels with a
    first and a final value and a decided verdict of their judge
    (label.judge): the three comparisons (module doc), sorted.

    Args:
        labels: human labels (dispute-queue labels are left out).
        judge_values: {(judge, subject, dimension): (the judge's normalised
            value, its scale)}; labels are normalised on that scale.
    """
    groups: dict[tuple[str, str, str], list[tuple[Value, Value, Value]]] = {}
    scales: dict[tuple[str, str, str], Scale] = {}
    for lab in labels:
        if not lab.is_fair or lab.judge is None or lab.first_value is None or lab.final_value is None:
            continue
        found = judge_values.get((lab.judge, lab.subject, lab.dimension))
        if found is None or found[0] is None:
            continue
        value, scale = found
        first, final = normalise(lab.first_value, scale), normalise(lab.final_value, scale)
        if first is None or final is None:
            continue
        key = (lab.reviewer, lab.judge, lab.dimension)
        groups.setdefault(key, []).append((first, final, value))
        scales[key] = scale
    out = []
    for key in sorted(groups, key=lambda k: (natural_key(k[0]), natural_key(k[1]), k[2])):
        reviewer, judge, dim = key
        rows = groups[key]
        scale = scales[key]
        firsts = [r[0] for r in rows]
        finals = [r[1] for r in rows]
        judged = [r[2] for r in rows]
        labels_ = scale_labels(scale, firsts + finals + judged)
        out.append(
            Anchoring(
                reviewer,
                judge,
                dim,
                scale,
                len(rows),
                [
                    *_rows(f"{reviewer} first vs final", dim, firsts, finals, labels_, scale),
                    *_rows(f"{judge} vs {reviewer} first", dim, judged, firsts, labels_, scale),
                    *_rows(f"{judge} vs {reviewer} final", dim, judged, finals, labels_, scale),
                ],
            )
        )
    return out


def anchoring_rows(items: Iterable[Anchoring]) -> list[AgreementRow]:
    """Every row of every anchoring, in order."""
    return [r for a in items for r in a.rows]
