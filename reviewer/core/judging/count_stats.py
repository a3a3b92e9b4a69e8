"""Agreement statistics as functions of pattern counts, for the point
estimate and every bootstrap resample alike (reviewer.core.judging.intervals).

A :class:`CountSample` is the subjects a statistic rests on, coded as
patterns, with the statistics it gives; :func:`pair_sample` (two raters:
the cells of their confusion matrix), :func:`units_sample` (Krippendorff's
alpha: each unit's count of values per category) and
:func:`proportion_sample` (a share: swap consistency, accuracy) build them.
Each statistic takes counts of shape (..., P) and returns (...), NaN where
undefined, so one call evaluates every resample.

Rules, for a confusion matrix O (K x K, n pairs, rows r, columns c):

* ``percent_agreement`` = trace(O) / n.
* ``cohen_kappa`` (Cohen 1960, 1968) = 1 - sum(w O) / sum(w E) with
  E = r c^T / n; disagreement weights by category position: unweighted
  [i != j], quadratic (i - j)^2 (the same rule as
  reviewer.core.judging.agreement.cohen_kappa); or by value, (x_i - x_j)^2
  (:func:`value_weights`, for alignment on numeric scales).
* ``gwet_ac1`` (Gwet 2008, "Computing inter-rater reliability and its
  variance in the presence of high agreement", BJMSP 61) =
  (p_a - p_e) / (1 - p_e) with p_a = trace(O) / n,
  pi_k = (r_k + c_k) / 2n, p_e = sum_k pi_k (1 - pi_k) / (K - 1), K the
  categories of the scale.
* ``agreement_within_tolerance`` = share of pairs whose values differ by
  at most the tolerance.
* Krippendorff's alpha from the coincidence matrix summed over units (the
  rule of reviewer.core.judging.agreement.krippendorff_alpha).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reviewer.core.judging.intervals import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    bootstrap_counts,
    proportion_interval,
)

__all__ = [
    "CountSample",
    "alpha_from_coincidences",
    "clustered_proportion_sample",
    "gwet_ac1_counts",
    "kappa_counts",
    "pair_sample",
    "position_weights",
    "proportion_sample",
    "units_sample",
    "value_weights",
    "weighted_sample",
]

Statistic = Callable[[np.ndarray], np.ndarray]
#: Names a class (a category value) in a prevalence: value -> text.
Label = Callable[[Any], str]


@dataclass(frozen=True, eq=False)
class CountSample:
    """Subjects coded as patterns, and the statistics of their counts.

    ``codes``: one pattern code per subject; ``size``: number of patterns;
    ``statistics``: {statistic name: f(counts (..., size)) -> (...)};
    ``prevalence``: {class: share} of the values the statistics rest on;
    ``proportions``: {statistic: (hit mask, trial mask) over the patterns}
    for the statistics that are a share of independent subjects (hits /
    trials), whose interval is Wilson's (Clopper-Pearson's at the boundary)
    rather than a bootstrap.
    """

    codes: np.ndarray
    size: int
    statistics: Mapping[str, Statistic]
    prevalence: Mapping[str, float] = field(default_factory=dict)
    proportions: Mapping[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def hits(self, statistic: str) -> tuple[int, int]:
        """(hits, trials) of a proportion statistic on the full sample."""
        hit, trial = self.proportions[statistic]
        counts = np.bincount(self.codes, minlength=self.size)
        return int(counts @ hit), int(counts @ trial)

    @property
    def n(self) -> int:
        """Subjects in the sample."""
        return int(self.codes.size)

    def value(self, statistic: str) -> float:
        """The statistic on the full sample (NaN when undefined)."""
        counts = np.bincount(self.codes, minlength=self.size).astype(float)
        with np.errstate(all="ignore"):
            return float(self.statistics[statistic](counts))

    def intervals(
        self,
        statistics: Sequence[str],
        *,
        n_resamples: int = DEFAULT_RESAMPLES,
        seed: int = DEFAULT_SEED,
        confidence_level: float = 0.95,
    ) -> dict[str, Interval]:
        """{statistic: interval} of the named statistics: a proportion's
        Wilson or Clopper-Pearson interval (intervals.proportion_interval);
        the others' bootstrap intervals from one set of resamples of the
        subjects (reviewer.core.judging.intervals.bootstrap_counts)."""
        names = list(dict.fromkeys(statistics))
        out = {s: proportion_interval(*self.hits(s), confidence_level) for s in names if s in self.proportions}
        rest = [s for s in names if s not in out]
        if rest:
            fns = [self.statistics[s] for s in rest]
            found = bootstrap_counts(
                [self.codes],
                [self.size],
                lambda c: np.stack([f(c) for f in fns]),
                n_resamples=n_resamples,
                seed=seed,
                confidence_level=confidence_level,
            )
            out.update(zip(rest, found))
        return {s: out[s] for s in names}


# ---------------------------------------------------------------------------
# two raters


def position_weights(k: int, kind: str | None) -> np.ndarray:
    """K x K disagreement weights by position: None -> [i != j],
    'linear' -> |i - j|, 'quadratic' -> (i - j)^2."""
    pos = np.arange(k)
    diff = pos[:, None] - pos[None, :]
    if kind is None:
        return (diff != 0).astype(float)
    if kind == "linear":
        return np.abs(diff).astype(float)
    if kind == "quadratic":
        return (diff**2).astype(float)
    raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {kind!r}")


def value_weights(values: Sequence[float]) -> np.ndarray:
    """K x K quadratic disagreement weights by value: (x_i - x_j)^2."""
    v = np.asarray(values, dtype=float)
    return (v[:, None] - v[None, :]) ** 2


def _square(counts: np.ndarray, k: int) -> np.ndarray:
    return counts.reshape(counts.shape[:-1] + (k, k))


def kappa_counts(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Cohen's kappa of flattened K x K confusion counts (..., K*K) with
    disagreement ``weights`` (K x K); NaN when n = 0 or chance disagreement
    is 0."""
    k = weights.shape[0]
    o = _square(counts, k)
    n = o.sum(axis=(-1, -2))
    e = o.sum(axis=-1)[..., :, None] * o.sum(axis=-2)[..., None, :]
    with np.errstate(all="ignore"):
        d_e = (weights * e).sum(axis=(-1, -2)) / n
        d_o = (weights * o).sum(axis=(-1, -2))
        return np.where((n > 0) & (d_e > 0), 1.0 - d_o / d_e, np.nan)


def gwet_ac1_counts(counts: np.ndarray, k: int) -> np.ndarray:
    """Gwet's AC1 of flattened K x K confusion counts (module doc); NaN when
    n = 0 or K < 2."""
    o = _square(counts, k)
    n = o.sum(axis=(-1, -2))
    with np.errstate(all="ignore"):
        p_a = np.trace(o, axis1=-2, axis2=-1) / n
        pi = (o.sum(axis=-1) + o.sum(axis=-2)) / (2.0 * n[..., None])
        p_e = (pi * (1.0 - pi)).sum(axis=-1) / (k - 1) if k > 1 else np.full_like(n, np.nan)
        return np.where(n > 0, (p_a - p_e) / (1.0 - p_e), np.nan)


def _share(counts: np.ndarray, mask: np.ndarray) -> np.ndarray:
    n = counts.sum(axis=-1)
    with np.errstate(all="ignore"):
        return np.where(n > 0, (counts * mask).sum(axis=-1) / n, np.nan)


def _label(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def prevalence_of(
    values: Sequence[Any],
    categories: Sequence[Hashable],
    threshold: float | None = None,
    max_classes: int = 10,
    label: Label | None = None,
) -> dict[str, float]:
    """{class: share} of ``values`` (missing ones left out), classes in
    category order, each named by ``label`` (default: 5 not 5.0; a scale's
    own letters come from reviewer.core.judging.dispute_common.format_value);
    with more than ``max_classes`` categories (0-100) and a ``threshold``,
    two classes: '< t' and '>= t'."""
    name = label or _label
    vals = [v for v in values if v is not None]
    if not vals:
        return {}
    if len(categories) > max_classes and threshold is not None:
        high = sum(1 for v in vals if float(v) >= threshold)
        return _split_at(threshold, len(vals) - high, high, name)
    out = {}
    for c in categories:
        share = sum(1 for v in vals if v == c) / len(vals)
        if share:
            out[name(c)] = share
    return out


def _split_at(threshold: float, low: float, high: float, name: Label) -> dict[str, float]:
    """{'< t': share below, '>= t': share at or above} of counts ``low`` and ``high``."""
    total = low + high
    return {f"< {name(float(threshold))}": low / total, f">= {name(float(threshold))}": high / total}


def pair_sample(
    a: Sequence[Any],
    b: Sequence[Any],
    categories: Sequence[Hashable],
    *,
    tolerance: float | None = None,
    weights: np.ndarray | None = None,
    threshold: float | None = None,
    label: Label | None = None,
) -> CountSample:
    """The complete pairs of two raters (a missing value on either side is
    left out) coded as cells of their K x K confusion matrix.

    Statistics: ``percent_agreement``, ``cohen_kappa``,
    ``cohen_kappa_quadratic`` (position weights), ``gwet_ac1``, with
    ``weights`` also ``cohen_kappa_weighted`` (those weights), and with a
    ``tolerance`` (numeric categories) ``agreement_within_tolerance``.
    Prevalence: both raters' values pooled (:func:`prevalence_of`, classes named by ``label``).

    Raises:
        ValueError: a value not in ``categories``; lengths differ.
    """
    if len(a) != len(b):
        raise ValueError(f"a and b must have the same length, got {len(a)} and {len(b)}")
    cats = list(categories)
    index = {c: i for i, c in enumerate(cats)}
    pairs = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    unknown = {v for p in pairs for v in p if v not in index}
    if unknown:
        raise ValueError(f"values not in categories: {sorted(map(repr, unknown))[:10]}")
    k = len(cats)
    codes = np.fromiter((index[x] * k + index[y] for x, y in pairs), dtype=np.int64, count=len(pairs))
    diag = np.eye(k, dtype=float).ravel()
    unweighted, quadratic = position_weights(k, None), position_weights(k, "quadratic")
    stats: dict[str, Statistic] = {
        "percent_agreement": lambda c: _share(c, diag),
        "cohen_kappa": lambda c: kappa_counts(c, unweighted),
        "cohen_kappa_quadratic": lambda c: kappa_counts(c, quadratic),
        "gwet_ac1": lambda c: gwet_ac1_counts(c, k),
    }
    if weights is not None:
        stats["cohen_kappa_weighted"] = lambda c: kappa_counts(c, weights)
    if tolerance is not None:
        v = np.asarray(cats, dtype=float)
        close = (np.abs(v[:, None] - v[None, :]) <= tolerance).astype(float).ravel()
        stats["agreement_within_tolerance"] = lambda c: _share(c, close)
    prevalence = prevalence_of([x for p in pairs for x in p], cats, threshold, label=label)
    every = np.ones(k * k)
    proportions = {"percent_agreement": (diag, every)}
    if tolerance is not None:
        proportions["agreement_within_tolerance"] = (close, every)
    return CountSample(codes, k * k, stats, prevalence, proportions)


def proportion_sample(hits: Sequence[bool], name: str, prevalence: Mapping[str, float] | None = None) -> CountSample:
    """A share (e.g. consistent pairs, correct verdicts): subjects coded 1
    (hit) or 0; statistic ``name`` = hits / n."""
    codes = np.asarray([1 if h else 0 for h in hits], dtype=np.int64)
    mask = np.array([0.0, 1.0])
    return CountSample(codes, 2, {name: lambda c: _share(c, mask)}, dict(prevalence or {}), {name: (mask, np.ones(2))})


def clustered_proportion_sample(
    clusters: Sequence[tuple[int, int]], name: str, prevalence: Mapping[str, float] | None = None
) -> CountSample:
    """A share pooled over clusters that were sampled as units (e.g. the two
    answer orders of one pair): each cluster is (hits, trials) and is
    resampled whole, so the bootstrap draws pairs, not verdicts; statistic
    ``name`` = sum hits / sum trials. Patterns are the distinct (hits,
    trials); no Wilson interval (the trials of a cluster are not
    independent)."""
    kinds = sorted(set(clusters))
    index = {c: i for i, c in enumerate(kinds)}
    codes = np.asarray([index[c] for c in clusters], dtype=np.int64)
    hit = np.asarray([h for h, _ in kinds], dtype=float)
    trial = np.asarray([t for _, t in kinds], dtype=float)

    def share(c: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            d = c @ trial
            return np.where(d > 0, (c @ hit) / d, np.nan)

    return CountSample(codes, max(len(kinds), 1), {name: share}, dict(prevalence or {}))


# ---------------------------------------------------------------------------
# Krippendorff's alpha


def _delta2(level: str, n_c: np.ndarray, values: np.ndarray) -> np.ndarray:
    """delta^2 (..., K, K) for marginals ``n_c`` (..., K)."""
    k = values.size
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "ordinal":
        midrank = np.cumsum(n_c, axis=-1) - n_c / 2.0
        return (midrank[..., :, None] - midrank[..., None, :]) ** 2
    diff = values[:, None] - values[None, :]
    if level == "interval":
        return diff**2
    total = values[:, None] + values[None, :]
    with np.errstate(all="ignore"):
        return np.where(total == 0.0, 0.0, diff / total) ** 2


def alpha_from_coincidences(o: np.ndarray, level: str, values: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha of coincidence matrices (..., K, K):
    1 - (n - 1) sum(o delta2) / sum(n_c n_k delta2); NaN when n = 0 or the
    expected disagreement is 0."""
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    d2 = _delta2(level, n_c, values)
    d_o = (o * d2).sum(axis=(-1, -2))
    d_e = (n_c[..., :, None] * n_c[..., None, :] * d2).sum(axis=(-1, -2))
    with np.errstate(all="ignore"):
        return np.where((n > 0) & (d_e > 0), 1.0 - (n - 1.0) * d_o / d_e, np.nan)


def units_sample(
    rows: Sequence[Sequence[Any]],
    level: str,
    categories: Sequence[float | str],
    statistic: str,
    threshold: float | None = None,
    label: Label | None = None,
) -> CountSample:
    """Units (subjects) x raters, ``None`` missing, coded by their count of
    values per category; every unit is a subject (units with fewer than two
    values are resampled too and add nothing). Statistic ``statistic``:
    Krippendorff's alpha at ``level`` ('nominal', 'ordinal', 'interval',
    'ratio'; numeric ``categories`` for the last two). Prevalence: all
    pairable values, classes named by ``label`` (:func:`prevalence_of`).

    Raises:
        ValueError: a value not in ``categories``.
    """
    cats = list(categories)
    index = {c: i for i, c in enumerate(cats)}
    k = len(cats)
    vectors = np.zeros((len(rows), k))
    for u, row in enumerate(rows):
        for v in row:
            if v is None:
                continue
            if v not in index:
                raise ValueError(f"value not in categories: {v!r}")
            vectors[u, index[v]] += 1
    patterns, codes = (
        np.unique(vectors, axis=0, return_inverse=True) if len(rows) else (np.zeros((0, k)), np.zeros(0, np.int64))
    )
    m = patterns.sum(axis=1)
    pairable = m >= 2
    contrib = np.einsum("pi,pj->pij", patterns, patterns)
    contrib[:, np.arange(k), np.arange(k)] -= patterns
    contrib *= (pairable / np.maximum(m - 1.0, 1.0))[:, None, None]
    flat = contrib.reshape(len(patterns), k * k)
    values = np.asarray(cats, dtype=float) if level in ("interval", "ratio") else np.arange(k, dtype=float)

    def alpha(c: np.ndarray) -> np.ndarray:
        o = (c @ flat).reshape(c.shape[:-1] + (k, k))
        return alpha_from_coincidences(o, level, values)

    pooled = vectors[(vectors.sum(axis=1) >= 2)].sum(axis=0)
    total = pooled.sum()
    name = label or _label
    if total and len(cats) > 10 and threshold is not None:
        high = float(sum(pooled[i] for i, c in enumerate(cats) if float(c) >= threshold))
        prevalence = _split_at(threshold, float(total) - high, high, name)
    else:
        prevalence = {name(c): float(pooled[i] / total) for i, c in enumerate(cats) if total and pooled[i]}
    return CountSample(np.asarray(codes, dtype=np.int64).ravel(), len(patterns), {statistic: alpha}, prevalence)


# ---------------------------------------------------------------------------
# weighted subjects


def weighted_sample(sample: CountSample, weights: Sequence[float]) -> CountSample:
    """``sample`` with each subject weighted (e.g. 1 / pi of an unequal
    probability draw, Horvitz & Thompson 1952): a subject's code becomes
    (pattern, weight class), and every statistic sees the weighted pattern
    counts, so the point estimate and every bootstrap resample (subjects
    drawn with their weights) are weighted. No Wilson interval: the
    proportions are bootstrapped. ``weights``: one per subject, > 0.
    Raises ValueError on a length mismatch or a weight <= 0."""
    w = np.asarray(weights, dtype=float)
    if w.size != sample.codes.size:
        raise ValueError(f"{w.size} weights for {sample.codes.size} subjects")
    if w.size and w.min() <= 0:
        raise ValueError("weights must be > 0")
    classes, index = np.unique(w, return_inverse=True) if w.size else (np.ones(1), np.zeros(0, dtype=np.int64))
    k = max(classes.size, 1)
    size = sample.size

    def wrap(f: Statistic) -> Statistic:
        return lambda c: f((c.reshape(c.shape[:-1] + (size, k)) * classes).sum(axis=-1))

    return CountSample(
        np.asarray(sample.codes, dtype=np.int64) * k + np.asarray(index, dtype=np.int64).ravel(),
        size * k,
        {name: wrap(f) for name, f in sample.statistics.items()},
        dict(sample.prevalence),
    )
