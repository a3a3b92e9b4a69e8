"""95 % bootstrap intervals and class prevalence for agreement rows.

:func:`with_intervals` fills ``ci_low``, ``ci_high``, ``ci_method`` and
``prevalence`` of every :class:`~reviewer.core.judging.agreement_table.AgreementRow`
that carries its subjects (``sample``): percent agreement, Cohen's kappa
(unweighted and quadratic), Gwet's AC1, agreement within tolerance,
Krippendorff's alpha, swap consistency and the accuracies. Rows that share
a sample (the statistics of one pair of raters) are bootstrapped together,
from one set of resamples (reviewer.core.judging.intervals: subjects
resampled with scipy.stats.bootstrap, BCa where defined, else percentile,
seeded). Rows without a sample (ground-truth annotators) are returned as
they are. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, landis_koch

__all__ = ["CHANCE_CORRECTED", "strength", "with_intervals"]

#: Statistics corrected for chance, whose strength Landis & Koch name.
CHANCE_CORRECTED = ("cohen_kappa", "gwet_ac1", "krippendorff_alpha")


def strength(row: AgreementRow) -> str:
    """Landis-Koch words for a chance-corrected row's value
    (:func:`reviewer.core.judging.intervals.landis_koch`), '' for other
    statistics, undefined values and rows on fewer than 30 subjects."""
    if not row.statistic.startswith(CHANCE_CORRECTED):
        return ""
    return landis_koch(row.value, row.n)


def with_intervals(
    rows: Iterable[AgreementRow],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence_level: float = 0.95,
) -> list[AgreementRow]:
    """The rows with their bootstrap interval and prevalence filled in
    (module doc), in the same order. An undefined interval leaves the
    bounds None and names why in the note. Cost: one bootstrap per sample."""
    rows = list(rows)
    wanted: dict[int, list[str]] = {}
    samples = {}
    for r in rows:
        if r.sample is not None and r.value is not None:
            wanted.setdefault(id(r.sample), []).append(r.statistic)
            samples[id(r.sample)] = r.sample
    found = {
        key: samples[key].intervals(stats, n_resamples=n_resamples, seed=seed, confidence_level=confidence_level)
        for key, stats in wanted.items()
    }
    out = []
    for r in rows:
        if r.sample is None:
            out.append(r)
            continue
        iv = found.get(id(r.sample), {}).get(r.statistic)
        if iv is None:
            out.append(replace(r, prevalence=dict(r.sample.prevalence)))
            continue
        note = r.note
        if iv.note and not iv.defined or iv.undefined:
            note = "; ".join(p for p in (r.note, iv.note) if p)
        out.append(
            replace(
                r, ci_low=iv.low, ci_high=iv.high, ci_method=iv.method, prevalence=dict(r.sample.prevalence), note=note
            )
        )
    return out
