"""Bootstrap confidence intervals of agreement statistics, resampling subjects.

Every statistic here is a function of *pattern counts*: each subject is
coded as one of P patterns (a cell of a confusion matrix, a unit's set of
ratings, correct / wrong ...), and the statistic depends only on how many
subjects fall in each pattern. :func:`bootstrap_counts` hands the subjects'
pattern codes to :func:`scipy.stats.bootstrap`, which draws the resamples
(seeded, ``n_resamples`` of them, 2,000 by default); a vectorised statistic
turns each resample into its pattern counts with one ``np.bincount``.

Method (named in every :class:`Interval`): **BCa** (bias-corrected and
accelerated; Efron & Tibshirani 1993, §14.3 and eq. 14.15; the formulas of
scipy's own ``method='BCa'``) where it is defined, else **percentile**.
scipy's BCa computes the acceleration from a jackknife that builds an
n x (n - 1) array of leave-one-out samples (800 MB at n = 10,000); a
statistic of pattern counts has only one leave-one-out value per pattern, so
the acceleration is computed here from those P values weighted by their
counts, which gives exactly scipy's number (tests/judging/storage/test_intervals.py checks
the two intervals agree). BCa is undefined, and the percentile interval is
used, when a resample's statistic is undefined (NaN: e.g. kappa when a
resample holds one category only; those resamples are left out and counted),
when every leave-one-out value is the same (acceleration 0/0), or when the
bias correction is infinite. A degenerate bootstrap gives no interval and
says 'too few': fewer than :data:`MIN_BOOTSTRAP_N` (10) subjects in a
sample, or every resample giving the same value (a proportion then takes
its exact interval, :func:`proportion_interval`).

Proportions of independent subjects are not bootstrapped:
:func:`proportion_interval` gives Wilson's interval, Clopper-Pearson's at
the boundary.

Pure numpy/scipy: no Qt, SQL or HTTP.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "Interval",
    "MIN_BOOTSTRAP_N",
    "MIN_STRENGTH_N",
    "bootstrap_counts",
    "landis_koch",
    "proportion_interval",
    "row_counts",
]

#: Resamples per interval unless asked otherwise.
DEFAULT_RESAMPLES = 2000
#: Seed of the resampling unless asked otherwise (intervals are reproducible).
DEFAULT_SEED = 0
#: Resamples turned into counts at once (memory: batch x subjects codes).
_BATCH = 250
#: Fewest subjects a bootstrap interval is given on; below, 'too few'.
MIN_BOOTSTRAP_N = 10
#: Fewest subjects Landis & Koch's strength words are given on.
MIN_STRENGTH_N = 30
#: The note of an interval left out for too few subjects (shown as 'too few').
TOO_FEW = "too few"


def _bootstrap():
    """scipy.stats.bootstrap, its DegenerateDataWarning and the name of its
    seed keyword ('rng' in new scipy, 'random_state' before): imported at
    the first interval, since scipy.stats takes about a second to import
    and the window's start-up reaches this module."""
    from scipy.stats import DegenerateDataWarning, bootstrap

    return (
        bootstrap,
        DegenerateDataWarning,
        "rng" if "rng" in inspect.signature(bootstrap).parameters else "random_state",
    )


@dataclass(frozen=True)
class Interval:
    """A bootstrap confidence interval of one statistic.

    ``low``/``high``: the bounds (None when there is no interval);
    ``method``: 'BCa', 'percentile' or '' (none); ``level``: the confidence
    level (0.95); ``resamples``: resamples drawn; ``undefined``: resamples
    whose statistic was undefined (left out); ``note``: why there is no
    interval or why BCa was not used.
    """

    low: float | None
    high: float | None
    method: str
    level: float = 0.95
    resamples: int = 0
    undefined: int = 0
    note: str = ""

    @property
    def defined(self) -> bool:
        """True when both bounds exist."""
        return self.low is not None and self.high is not None

    def formatted(self, digits: int = 3) -> str:
        """'[low, high]' rounded to ``digits``; 'too few' when the sample
        was too small for an interval; '-' for no interval otherwise."""
        if not self.defined:
            return TOO_FEW if self.note.startswith(TOO_FEW) else "-"
        return f"[{self.low:.{digits}f}, {self.high:.{digits}f}]"


def proportion_interval(k: int, n: int, level: float = 0.95, *, exact: bool = False) -> Interval:
    """The interval of a proportion k / n of independent subjects: Wilson's
    score interval (Wilson 1927), or Clopper-Pearson's exact interval
    (Clopper & Pearson 1934) when ``exact`` or at the boundary (k = 0 or
    k = n), where Wilson's is too narrow. Both from
    ``scipy.stats.binomtest(k, n).proportion_ci`` (methods 'wilson' and
    'exact'). Two-sided at ``level``; no interval when n = 0. Method named
    'Wilson' or 'Clopper-Pearson'; ``resamples`` 0 (nothing resampled)."""
    if n <= 0:
        return Interval(None, None, "", level, 0, 0, "no interval: no subjects")
    from scipy.stats import binomtest  # at first use: scipy.stats takes a second to import

    use_exact = exact or k in (0, n)
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="exact" if use_exact else "wilson")
    note = "exact at the boundary" if use_exact and not exact else ""
    return Interval(float(ci.low), float(ci.high), "Clopper-Pearson" if use_exact else "Wilson", level, 0, 0, note)


def landis_koch(value: float | None, n: int | None = None) -> str:
    """The strength of agreement of a chance-corrected coefficient (kappa,
    alpha, AC1) in Landis & Koch's (1977) words: < 0 'poor', 0-0.20
    'slight', 0.21-0.40 'fair', 0.41-0.60 'moderate', 0.61-0.80
    'substantial', 0.81-1 'almost perfect'; '' for None or NaN, and ''
    when ``n`` is given and below :data:`MIN_STRENGTH_N` (30): on a few
    subjects the word would claim more than the figure holds."""
    if value is None or math.isnan(value) or (n is not None and n < MIN_STRENGTH_N):
        return ""
    if value < 0:
        return "poor"
    for bound, word in ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial")):
        if value <= bound:
            return word
    return "almost perfect"


def row_counts(codes: np.ndarray, size: int) -> np.ndarray:
    """Pattern counts along the last axis: ``codes`` (..., n) of integers in
    [0, size) -> float counts (..., size), one ``np.bincount`` for all rows."""
    codes = np.asarray(codes)
    lead = codes.shape[:-1]
    flat = codes.reshape(-1, codes.shape[-1]).astype(np.intp, copy=False)
    m = flat.shape[0]
    offsets = flat + (np.arange(m, dtype=np.intp) * size)[:, None]
    counts = np.bincount(offsets.ravel(), minlength=m * size).reshape(m, size)
    return counts.reshape(lead + (size,)).astype(float)


def _jackknife_acceleration(counts: Sequence[np.ndarray], statistic: Callable[..., np.ndarray], k: int) -> np.ndarray:
    """Acceleration a of BCa per output (k,), from the leave-one-out values
    of each pattern, as scipy's ``_bca_interval`` sums them over samples:
    a = sum_j sum_i U_ji^3 / n_j^3 / (6 (sum_j sum_i U_ji^2 / n_j^2)^1.5)
    with U_ji = (n_j - 1)(mean_i theta_ji - theta_ji)."""
    nums = np.zeros(k)
    dens = np.zeros(k)
    for j, c in enumerate(counts):
        present = np.flatnonzero(c)
        n = float(c.sum())
        left_out = np.repeat(c[None, :], present.size, axis=0)
        left_out[np.arange(present.size), present] -= 1.0
        args = [np.broadcast_to(o, (present.size, o.size)) for o in counts]
        args[j] = left_out
        with np.errstate(all="ignore"):
            theta = np.asarray(statistic(*args), dtype=float).reshape(k, present.size)
        weight = c[present]
        theta_dot = (theta * weight).sum(axis=1, keepdims=True) / n
        u = (n - 1.0) * (theta_dot - theta)
        nums += (weight * u**3).sum(axis=1) / n**3
        dens += (weight * u**2).sum(axis=1) / n**2
    with np.errstate(all="ignore"):
        return nums / (6.0 * dens**1.5)


def bootstrap_counts(
    codes: Sequence[np.ndarray],
    sizes: Sequence[int],
    statistic: Callable[..., np.ndarray],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence_level: float = 0.95,
) -> list[Interval]:
    """Bootstrap intervals of ``k`` statistics of pattern counts (module doc).

    Args:
        codes: one integer array per sample (a sample is a set of subjects
            resampled on its own, e.g. labelled and unlabelled runs): each
            subject's pattern code in [0, ``sizes[j]``).
        sizes: the number of patterns of each sample.
        statistic: ``statistic(*counts)`` with ``counts[j]`` of shape
            (..., sizes[j]) (float) returns an array (k, ...) of the k
            statistics; it must be vectorised over the leading axes and may
            return NaN where a statistic is undefined.
        n_resamples: resamples drawn by scipy.stats.bootstrap.
        seed: seed of ``np.random.default_rng`` handed to scipy.
        confidence_level: e.g. 0.95 (two-sided).

    Returns:
        One :class:`Interval` per statistic, in order. A statistic undefined
        on the full data gets none ('undefined on the data').

    Raises:
        ValueError: codes out of range, or lengths of ``codes`` and ``sizes`` differ.
    """
    if len(codes) != len(sizes):
        raise ValueError(f"{len(codes)} samples of codes for {len(sizes)} sizes")
    data = [np.asarray(c, dtype=np.int32).ravel() for c in codes]
    for c, size in zip(data, sizes):
        if c.size and (c.min() < 0 or c.max() >= size):
            raise ValueError(f"pattern codes must lie in [0, {size})")
    counts = [row_counts(c, size) for c, size in zip(data, sizes)]
    with np.errstate(all="ignore"):
        theta_hat = np.atleast_1d(np.asarray(statistic(*counts), dtype=float))
    k = theta_hat.shape[0]
    if any(c.size < MIN_BOOTSTRAP_N for c in data):
        n_min = min(c.size for c in data)
        note = f"{TOO_FEW} subjects for a bootstrap (n = {n_min} < {MIN_BOOTSTRAP_N})"
        return [Interval(None, None, "", confidence_level, 0, 0, note)] * k

    def vectorised(*xs: np.ndarray, axis: int = -1) -> np.ndarray:
        cs = [row_counts(x, size) for x, size in zip(xs, sizes)]
        with np.errstate(all="ignore"):
            return np.asarray(statistic(*cs), dtype=float).reshape((k,) + cs[0].shape[:-1])

    rng = np.random.default_rng(seed)
    bootstrap, DegenerateDataWarning, _RNG_KEYWORD = _bootstrap()
    with warnings.catch_warnings():  # undefined resamples (NaN) are handled below
        warnings.simplefilter("ignore", DegenerateDataWarning)
        result = bootstrap(
            tuple(data),
            vectorised,
            n_resamples=n_resamples,
            vectorized=True,
            paired=False,
            method="percentile",
            confidence_level=confidence_level,
            batch=_BATCH,
            **{_RNG_KEYWORD: rng},
        )
    theta_b = np.asarray(result.bootstrap_distribution, dtype=float).reshape(k, -1)
    accel = _jackknife_acceleration(counts, statistic, k)
    alpha = (1.0 - confidence_level) / 2.0
    return [_interval(theta_hat[i], theta_b[i], accel[i], alpha, confidence_level) for i in range(k)]


def _interval(theta_hat: float, theta_b: np.ndarray, accel: float, alpha: float, level: float) -> Interval:
    b = theta_b.size
    if math.isnan(theta_hat):
        return Interval(None, None, "", level, b, 0, "no interval: undefined on the data")
    finite = theta_b[np.isfinite(theta_b)]
    undefined = b - finite.size
    if finite.size == 0:
        return Interval(None, None, "", level, b, undefined, "no interval: undefined in every resample")
    if np.ptp(finite) <= 1e-12 * max(1.0, abs(float(finite[0]))):  # degenerate: every resample the same
        return Interval(None, None, "", level, b, undefined, f"{TOO_FEW}: every resample gives the same value")
    notes = []
    if undefined:
        notes.append(f"{undefined} of {b} resamples undefined, left out; BCa needs all")
    else:
        share = (np.count_nonzero(theta_b < theta_hat) + np.count_nonzero(theta_b <= theta_hat)) / (2.0 * b)
        z0 = float(ndtri(share))
        if not math.isfinite(accel):
            notes.append("BCa undefined (every leave-one-out value equal)")
        elif not math.isfinite(z0):
            notes.append("BCa undefined (the estimate lies outside the resampled values)")
        else:
            z = float(ndtri(alpha))
            a1 = float(ndtr(z0 + (z0 + z) / (1.0 - accel * (z0 + z))))
            a2 = float(ndtr(z0 + (z0 - z) / (1.0 - accel * (z0 - z))))
            if math.isfinite(a1) and math.isfinite(a2):
                low, high = np.quantile(theta_b, [a1, a2])
                return Interval(float(low), float(high), "BCa", level, b, 0, "")
            notes.append("BCa undefined (its quantiles are not finite)")
    low, high = np.quantile(finite, [alpha, 1.0 - alpha])
    return Interval(float(low), float(high), "percentile", level, b, undefined, "; ".join(notes))
