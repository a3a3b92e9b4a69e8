"""The subjects behind each agreement row, as pattern counts for its
interval (reviewer.core.judging.count_stats; the intervals are made by
reviewer.core.judging.agreement_intervals): two raters' values, Krippendorff's
units, subjects that hold several verdicts, and the prevalence of the classes
a row rests on. Pure; no database access.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from reviewer.core.judging.alignment import PASS_THRESHOLD
from reviewer.core.judging.count_stats import CountSample, pair_sample, units_sample
from reviewer.core.judging.dispute_common import NUMERIC_SCALES, format_value
from reviewer.core.judging.verdicts import TOLERANCE, Scale
from reviewer.core.text import natural_key

__all__ = ["alpha_units_sample", "rater_pair_sample", "subject_clusters", "value_prevalence"]


def _pass_mark(scale: Scale) -> float | None:
    return PASS_THRESHOLD.get(scale)


def class_label(scale: Scale) -> Callable[[Any], str]:
    """How a class of ``scale`` is named in a prevalence: the scale's own
    letters on C/I/P and A-F, else the value (dispute_common.format_value)."""
    return lambda value: format_value(value, scale)


def rater_pair_sample(xa: Sequence[Any], xb: Sequence[Any], cats: list, scale: Scale) -> CountSample:
    """Two raters' values on their common subjects (``xa[i]``, ``xb[i]``: the
    same subject; None is undecided) as a pattern-count sample over the
    categories ``cats`` (count_stats.pair_sample), with the scale's
    tolerance on numeric scales (verdicts.TOLERANCE) and its pass mark
    (alignment.PASS_THRESHOLD) when it has one."""
    tolerance = TOLERANCE[scale] if scale in NUMERIC_SCALES else None
    return pair_sample(xa, xb, cats, tolerance=tolerance, threshold=_pass_mark(scale), label=class_label(scale))


def alpha_units_sample(data: list, level: str, cats: list, statistic: str, scale: Scale) -> CountSample:
    """Krippendorff's units (``data``: one row per subject, one value or None
    per rater) as a pattern-count sample for ``statistic`` at ``level``
    (count_stats.units_sample): over ``cats``, or over the values present
    at the interval level; with the scale's pass mark when it has one."""
    categories = cats if level != "interval" else sorted({x for row in data for x in row if x is not None})
    return units_sample(data, level, categories, statistic, threshold=_pass_mark(scale), label=class_label(scale))


def subject_clusters(units: Sequence[str], hits: Sequence[bool | None]) -> list[tuple[int, int]]:
    """(hits, trials) per unit (``units[i]``: the subject of ``hits[i]``),
    units in first-seen order; a None hit is no trial. The clusters a pair
    bootstrap resamples when several verdicts of one subject are pooled."""
    by: dict[str, list[int]] = {}
    for u, h in zip(units, hits):
        c = by.setdefault(u, [0, 0])
        if h is not None:
            c[0] += int(h)
            c[1] += 1
    return [(h, t) for h, t in by.values()]


def value_prevalence(values: Sequence[Any], scale: Scale) -> dict[str, float]:
    """{class: share} of the values that are present (None left out),
    classes in the natural order of their values (I, P, C on C/I/P), each
    named as the scale names it (dispute_common.format_value: C/I/P and A-F
    by their letters)."""
    present = [v for v in values if v is not None]
    counts = Counter(present)
    order = sorted(counts, key=lambda v: natural_key(format_value(v)))
    return {format_value(v, scale): counts[v] / len(present) for v in order}
