"""Bounds for a judge's agreement with people, from labelled data: exact and
Wilson bounds for proportions (accuracy, precision, TPR, TNR) and the
large-sample standard error of Cohen's kappa.

* Clopper-Pearson (1934): the exact binomial bound, from the beta quantile;
  a one-sided lower bound at level 1 - alpha is ``Beta.ppf(alpha, k, n-k+1)``.
* Wilson (1927): the score interval
  ``(p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)``.
* Fleiss, Cohen & Everitt (1969), "Large sample standard errors of kappa and
  weighted kappa" (Psychological Bulletin 72(5)): the non-null variance of
  (weighted) kappa, the same as statsmodels' ``cohens_kappa`` ``var_kappa``.

Shared by :mod:`reviewer.core.judging.selective` (trust thresholds) and
:mod:`reviewer.core.judging.budget` (labels still needed). Pure numpy/scipy.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "KappaEstimate",
    "agreement_weights",
    "clopper_pearson_lower",
    "contingency",
    "kappa_fce",
    "wilson_half_width",
    "wilson_interval",
    "wilson_lower",
    "z_value",
]

ArrayLike = float | int | Sequence[float] | np.ndarray


def z_value(level: float) -> float:
    """The standard normal quantile ``Phi^-1(level)`` (1.6449 for 0.95,
    1.9600 for 0.975). Raises ValueError unless 0 < level < 1."""
    from scipy import stats  # at first use: scipy.stats takes a second to import

    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be strictly between 0 and 1, got {level!r}")
    return float(stats.norm.ppf(level))


def _counts(k: ArrayLike, n: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    k_arr, n_arr = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    if np.any(n_arr < 0) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("counts must satisfy 0 <= k <= n")
    return k_arr, n_arr


def clopper_pearson_lower(k: ArrayLike, n: ArrayLike, alpha: float = 0.05) -> Any:
    """One-sided exact lower bound of a binomial proportion.

    Clopper & Pearson (1934): the p with P(Bin(n, p) >= k) = alpha, i.e.
    ``Beta.ppf(alpha, k, n - k + 1)``; 0 when k = 0. The true proportion is
    at least this with probability >= 1 - alpha. ``lower >= t`` exactly when
    the binomial test of H0: p <= t has p-value <= alpha (the test of
    "Trust or Escalate", arXiv 2407.18370).

    Args:
        k, n: successes and trials (scalars or arrays of the same shape).
        alpha: the error level, 0 < alpha < 1.

    Returns:
        A float (scalar input) or an array of the broadcast shape; NaN where
        n = 0. Raises ValueError unless 0 <= k <= n and 0 < alpha < 1.
    """
    from scipy import stats  # at first use: scipy.stats takes a second to import

    z_value(1.0 - alpha)  # validates alpha
    k_arr, n_arr = _counts(k, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = stats.beta.ppf(alpha, np.maximum(k_arr, 1e-300), n_arr - k_arr + 1.0)
    low = np.where(k_arr == 0, 0.0, low)
    low = np.where(n_arr == 0, np.nan, low)
    return float(low) if low.ndim == 0 else low


def wilson_interval(k: ArrayLike, n: ArrayLike, confidence: float = 0.95) -> tuple[Any, Any]:
    """Two-sided Wilson score interval of a binomial proportion.

    Wilson (1927), with z = Phi^-1((1 + confidence) / 2)::

        centre = (p + z²/2n) / (1 + z²/n)
        half   = z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²)

    Args:
        k, n: successes and trials (scalars or arrays).
        confidence: the two-sided level, e.g. 0.95.

    Returns:
        (low, high), floats or arrays, within [0, 1]; NaN where n = 0.
        Raises ValueError unless 0 <= k <= n and 0 < confidence < 1.
    """
    z = z_value((1.0 + confidence) / 2.0)
    k_arr, n_arr = _counts(k, n)
    centre, half = _wilson(k_arr, n_arr, z)
    low, high = np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def _wilson(k: np.ndarray, n: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z / denom * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    return centre, half


def wilson_lower(k: ArrayLike, n: ArrayLike, alpha: float = 0.05) -> Any:
    """One-sided Wilson lower bound of a binomial proportion at level
    1 - alpha: the lower end of the Wilson interval with z = Phi^-1(1 - alpha)
    (1.645 for alpha = 0.05). Floats or arrays; NaN where n = 0. Raises
    ValueError unless 0 <= k <= n and 0 < alpha < 1. Source: Wilson (1927)."""
    z = z_value(1.0 - alpha)
    k_arr, n_arr = _counts(k, n)
    centre, half = _wilson(k_arr, n_arr, z)
    low = np.clip(centre - half, 0.0, 1.0)
    return float(low) if low.ndim == 0 else low


def wilson_half_width(p: float, n: float, confidence: float = 0.95) -> float:
    """Half the width of the two-sided Wilson interval for an observed
    proportion ``p`` (0..1) on ``n`` > 0 trials (n may be fractional, an
    expected count): ``z / (1 + z²/n) * sqrt(p(1-p)/n + z²/4n²)``. Before
    clipping to [0, 1]. Raises ValueError for p outside [0, 1] or n <= 0.
    Source: Wilson (1927)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be within [0, 1], got {p!r}")
    if not n > 0:
        raise ValueError(f"n must be > 0, got {n!r}")
    z = z_value((1.0 + confidence) / 2.0)
    return float(_wilson(np.asarray(p * n, dtype=float), np.asarray(float(n)), z)[1])


def agreement_weights(k: int, weights: str | None = None) -> np.ndarray:
    """The k x k agreement weights of (weighted) kappa: ``None`` the identity
    (unweighted), ``'linear'`` ``1 - |i-j|/(k-1)``, ``'quadratic'``
    ``1 - (i-j)²/(k-1)²`` (Cicchetti-Allison and Fleiss-Cohen). Kappa with
    these equals kappa with the disagreement weights ``|i-j|`` and
    ``(i-j)²`` of :func:`reviewer.core.judging.agreement.cohen_kappa`.
    Raises ValueError for another ``weights`` or k < 1."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    pos = np.arange(k, dtype=float)
    d = np.abs(pos[:, None] - pos[None, :])
    if weights is None:
        return (d == 0).astype(float)
    if weights not in ("linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    if k == 1:
        return np.ones((1, 1))
    return 1.0 - (d / (k - 1)) ** (1 if weights == "linear" else 2)


def contingency(
    judge: Sequence[Hashable], human: Sequence[Hashable], categories: Sequence[Hashable] | None = None
) -> tuple[np.ndarray, list]:
    """The K x K table of counts, rows the judge's value, columns the
    people's, over ``categories`` (default the observed values sorted).

    Returns (table, categories). Raises ValueError when the lengths differ
    or a value is not in ``categories``.
    """
    if len(judge) != len(human):
        raise ValueError(f"judge and human values must have the same length, got {len(judge)} and {len(human)}")
    cats = list(categories) if categories is not None else sorted(set(judge) | set(human), key=_sort_key)
    index = {c: i for i, c in enumerate(cats)}
    missing = [v for v in (*judge, *human) if v not in index]
    if missing:
        raise ValueError(f"value not in categories: {missing[0]!r}")
    table = np.zeros((len(cats), len(cats)))
    np.add.at(table, ([index[v] for v in judge], [index[v] for v in human]), 1.0)
    return table, cats


def _sort_key(x: Any) -> tuple:
    return (0, float(x), "") if isinstance(x, (int, float)) else (1, 0.0, str(x))


@dataclass(frozen=True)
class KappaEstimate:
    """Kappa of a table with its Fleiss-Cohen-Everitt standard error.

    ``kappa``: the estimate (NaN when chance agreement is 1); ``se``: its
    large-sample standard error (NaN when undefined); ``n``: subjects;
    ``unit_variance``: n * Var(kappa), the variance of one subject, so that
    the standard error on m subjects is ``sqrt(unit_variance / m)``;
    ``chance``: the chance agreement p_e.
    """

    kappa: float
    se: float
    n: int
    unit_variance: float
    chance: float

    def lower(self, alpha: float = 0.05) -> float:
        """One-sided lower bound ``kappa - z_(1-alpha) * se`` (NaN when
        undefined)."""
        return self.kappa - z_value(1.0 - alpha) * self.se


def kappa_fce(table: Any, weights: str | None = None) -> KappaEstimate:
    """(Weighted) Cohen's kappa and its large-sample non-null standard error.

    Fleiss, Cohen & Everitt (1969), with p_ij the table as shares, agreement
    weights w (:func:`agreement_weights`), row and column margins p_i., p_.j::

        p_o = sum w_ij p_ij,  p_e = sum w_ij p_i. p_.j,  k = (p_o - p_e) / (1 - p_e)
        wr_i = sum_j p_.j w_ij,  wc_j = sum_i p_i. w_ij
        Var(k) = [sum_ij p_ij (w_ij - (wr_i + wc_j)(1 - k))² - (k - p_e (1 - k))²]
                 / (n (1 - p_e)²)

    For the identity weights this is the unweighted formula (statsmodels'
    ``cohens_kappa`` ``var_kappa``).

    Args:
        table: K x K counts (rows judge, columns people), non-negative.
        weights: None, 'linear' or 'quadratic' (categories in scale order).

    Returns:
        :class:`KappaEstimate`; kappa and se NaN when n = 0 or p_e = 1.
        Raises ValueError for a table that is not square or has negative cells.
    """
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError(f"table must be square, got shape {t.shape}")
    if np.any(t < 0):
        raise ValueError("table has negative counts")
    n = float(t.sum())
    if n == 0:
        return KappaEstimate(float("nan"), float("nan"), 0, float("nan"), float("nan"))
    p = t / n
    w = agreement_weights(t.shape[0], weights)
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    p_o = float((w * p).sum())
    p_e = float((w * np.outer(rows, cols)).sum())
    if np.isclose(p_e, 1.0, rtol=0.0, atol=1e-12):
        return KappaEstimate(float("nan"), float("nan"), int(round(n)), float("nan"), p_e)
    kappa = (p_o - p_e) / (1.0 - p_e)
    wr, wc = w @ cols, rows @ w
    inner = w - (wr[:, None] + wc[None, :]) * (1.0 - kappa)
    unit = (float((p * inner**2).sum()) - (kappa - p_e * (1.0 - kappa)) ** 2) / (1.0 - p_e) ** 2
    unit = max(unit, 0.0)  # rounding can leave -1e-17 for a perfect table
    return KappaEstimate(kappa, float(np.sqrt(unit / n)), int(round(n)), unit, p_e)
