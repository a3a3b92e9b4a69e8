"""Selective judging: the lowest confidence from which a judge can be trusted,
with a guarantee from the labelled data, and the share of runs it then covers.

Rule, after "Trust or Escalate: LLM Judges with Provable Guarantees for Human
Agreement" (Jung, Brahman & Choi 2024, arXiv 2407.18370), which calibrates
the threshold by fixed-sequence testing (Learn then Test, Angelopoulos et al.
2021): the candidate thresholds are tested from the highest down; at each
threshold t the null hypothesis "the judge's agreement with people on the
verdicts with confidence >= t is below the target" is rejected when a
one-sided lower confidence bound of that agreement, at level 1 - alpha,
reaches the target. Testing stops at the first threshold not rejected; the
chosen threshold is the last one rejected. Because the tests run in a fixed
order and stop at the first failure, the chance that the chosen threshold's
true agreement is below the target is at most alpha, with no correction for
the number of thresholds tried.

Thresholds with fewer than ``min_n`` labelled verdicts at or above them are
skipped before testing starts. That depends only on the confidences, never
on whether the verdicts were right, so the guarantee still holds (given the
confidences); without it, the first thresholds, with a handful of verdicts,
would always fail and stop the sequence.

Agreement is a parameter:

* ``accuracy``: the share of verdicts at or above t that are correct
  (equal to the people's value, within a tolerance on ordinal scales);
* ``precision``: of the judge's positive verdicts at or above t, the share
  people also call positive (the trust is then a trust in the judge's
  positives);
* ``kappa``: Cohen's kappa (optionally weighted) of judge and people on the
  verdicts at or above t.

Bounds: Clopper-Pearson (exact, the default) or Wilson for the two
proportions; for kappa the normal bound ``kappa - z * se`` with the
Fleiss-Cohen-Everitt standard error (:mod:`reviewer.core.judging.bounds`).
That is a large-sample bound: verdicts in perfect agreement have se 0 and a
bound of 1, so kappa wants a larger ``min_n`` than the proportions.
Pure numpy/scipy.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reviewer.core.judging.bounds import clopper_pearson_lower, contingency, kappa_fce, wilson_lower
from reviewer.core.judging.confidence import correct_flags

__all__ = [
    "DEFAULT_THRESHOLDS",
    "METHODS",
    "METRICS",
    "MIN_N",
    "Selection",
    "ThresholdTest",
    "coverage",
    "select_threshold",
    "trusted",
]

#: What "agreement with people" means for selective judging.
METRICS = ("accuracy", "precision", "kappa")
#: One-sided lower bounds for the proportions (kappa always uses its FCE normal bound).
METHODS = ("clopper-pearson", "wilson")
#: Candidate thresholds, fixed before the data: 1.00, 0.99, ..., 0.00.
DEFAULT_THRESHOLDS: tuple[float, ...] = tuple(round(k / 100, 2) for k in range(100, -1, -1))
#: Fewest labelled verdicts at or above a threshold for it to be tested.
MIN_N = 50


@dataclass(frozen=True)
class ThresholdTest:
    """One tested threshold: ``n`` labelled verdicts the agreement rests on
    (for precision, the judge's positives) at or above ``threshold``;
    ``estimate`` and its one-sided ``lower`` bound (NaN when undefined, e.g.
    kappa with one category); ``reached``: lower >= target."""

    threshold: float
    n: int
    estimate: float
    lower: float
    reached: bool


@dataclass(frozen=True)
class Selection:
    """The outcome of :func:`select_threshold`.

    ``threshold``: the lowest trusted confidence (verdicts with confidence
    >= it are trusted, the others escalated to people), None when no
    threshold reaches the target; ``coverage``: the share of runs trusted
    (of ``population`` when given, else of the labelled verdicts; 0.0 when
    no threshold); ``estimate``, ``lower``, ``n``: at the chosen threshold
    (None when none); ``tests``: every threshold tested, in testing order
    (highest first; the last is the first failure unless all passed);
    ``metric``, ``target``, ``alpha``, ``method``: the settings.
    """

    metric: str
    target: float
    alpha: float
    method: str
    threshold: float | None
    coverage: float
    estimate: float | None
    lower: float | None
    n: int | None
    tests: tuple[ThresholdTest, ...]

    def summary(self) -> str:
        """One line, e.g. ``above 0.83, the judge is trusted on 71 % of runs
        (accuracy 0.88, 95 % lower bound 0.81 >= 0.8, n = 120)``; "above"
        means a confidence of at least the threshold."""
        level = f"{(1 - self.alpha) * 100:g} %"
        if self.threshold is None:
            why = "no threshold was tested (too few labels)" if not self.tests else "none reached it"
            return (
                f"no confidence threshold gives {self.metric} >= {self.target:g} at {level}: "
                f"{why}; every verdict goes to review"
            )
        return (
            f"above {self.threshold:.2f}, the judge is trusted on {self.coverage * 100:.0f} % of runs "
            f"({self.metric} {self.estimate:.2f}, {level} lower bound {self.lower:.2f} >= {self.target:g}, "
            f"n = {self.n})"
        )

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (an undefined figure, NaN, as None)."""
        return {
            "metric": self.metric,
            "target": self.target,
            "alpha": self.alpha,
            "method": self.method,
            "threshold": self.threshold,
            "coverage": self.coverage,
            "estimate": self.estimate,
            "lower": self.lower,
            "n": self.n,
            "summary": self.summary(),
            "tests": [
                {
                    "threshold": t.threshold,
                    "n": t.n,
                    "estimate": _finite(t.estimate),
                    "lower": _finite(t.lower),
                    "reached": t.reached,
                }
                for t in self.tests
            ],
        }


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def trusted(confidence: Sequence[float] | np.ndarray, threshold: float | None) -> np.ndarray:
    """Which verdicts are trusted at ``threshold``: confidence >= threshold
    (boolean array, shape (n,)); all False when threshold is None. The others
    go to the review queue. NaN confidences are never trusted."""
    c = np.asarray(confidence, dtype=float).reshape(-1)
    if threshold is None:
        return np.zeros(c.shape, dtype=bool)
    with np.errstate(invalid="ignore"):
        return c >= threshold


def coverage(confidence: Sequence[float] | np.ndarray, threshold: float | None) -> float:
    """Share of verdicts trusted at ``threshold`` (:func:`trusted`), in
    [0, 1]; 0.0 for no verdicts or no threshold."""
    t = trusted(confidence, threshold)
    return float(t.mean()) if t.size else 0.0


def _check_settings(metric: str, target: float, alpha: float, method: str, min_n: int) -> None:
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    if not (-1.0 <= target <= 1.0) or (metric != "kappa" and target < 0):
        raise ValueError(f"target out of range for {metric}: {target!r}")
    if min_n < 1:
        raise ValueError(f"min_n must be >= 1, got {min_n}")


def _proportion_tests(
    conf: np.ndarray, success: np.ndarray, grid: np.ndarray, alpha: float, method: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(n, k, estimate, lower) at each threshold of ``grid`` at once."""
    order = np.argsort(conf, kind="stable")
    c_sorted, s_sorted = conf[order], success[order].astype(float)
    start = np.searchsorted(c_sorted, grid, side="left")  # first index with c >= t
    tail = np.concatenate([np.cumsum(s_sorted[::-1])[::-1], [0.0]])
    n = (c_sorted.size - start).astype(float)
    k = tail[start]
    with np.errstate(invalid="ignore", divide="ignore"):
        est = np.where(n > 0, k / np.maximum(n, 1), np.nan)
    bound = clopper_pearson_lower if method == "clopper-pearson" else wilson_lower
    return n, k, est, np.asarray(bound(k, n, alpha), dtype=float)


def select_threshold(
    confidence: Sequence[float],
    judge: Sequence[Hashable],
    human: Sequence[Hashable],
    *,
    metric: str = "accuracy",
    target: float = 0.8,
    alpha: float = 0.05,
    method: str = "clopper-pearson",
    thresholds: Sequence[float] | None = None,
    min_n: int = MIN_N,
    tolerance: float = 0.0,
    positive: Hashable = "pass",
    weights: str | None = None,
    categories: Sequence[Hashable] | None = None,
    population: Sequence[float] | None = None,
) -> Selection:
    """The lowest confidence threshold whose agreement with people reaches
    ``target`` with a one-sided (1 - alpha) lower bound, by fixed-sequence
    testing from the highest threshold down (module docstring; Trust or
    Escalate, arXiv 2407.18370).

    Args:
        confidence: shape (n,), the judge's confidence in each labelled
            verdict, within [0, 1].
        judge, human: the judge's and the people's final values of the same
            n verdicts (no missing values).
        metric: 'accuracy', 'precision' or 'kappa'.
        target: the agreement to reach, e.g. 0.8 (kappa may be negative).
        alpha: error level of the one-sided bound (0.05: 95 %).
        method: 'clopper-pearson' or 'wilson' (accuracy and precision).
        thresholds: candidate thresholds, in any order (tested from the
            highest); default :data:`DEFAULT_THRESHOLDS` (steps of 0.01).
            Choose them without looking at whether verdicts were right.
        min_n: thresholds with fewer labelled verdicts (precision: judge
            positives) at or above them are skipped, not tested (default
            :data:`MIN_N`, 50).
        tolerance: for accuracy, the ordinal tolerance of
            :func:`reviewer.core.judging.confidence.correct_flags`.
        positive: for precision, the judge's positive value ('pass').
        weights: for kappa, None, 'linear' or 'quadratic'; categories: for
            kappa, the values in scale order (default the observed, sorted).
        population: the confidences of every run the judge rated, labelled
            or not, for the coverage; default ``confidence``.

    Returns:
        :class:`Selection`.

    Raises:
        ValueError: lengths differ, no verdicts, a confidence outside [0, 1],
            a missing value, or a setting out of range.
    """
    _check_settings(metric, target, alpha, method, min_n)
    conf = np.asarray(confidence, dtype=float).reshape(-1)
    if not (conf.size == len(judge) == len(human)):
        raise ValueError(
            f"confidence, judge and human must have the same length, got {conf.size}, {len(judge)} and {len(human)}"
        )
    if conf.size == 0:
        raise ValueError("no labelled verdicts with a confidence")
    if not np.all(np.isfinite(conf)) or np.any(conf < 0) or np.any(conf > 1):
        raise ValueError("confidences must be numbers within [0, 1]")
    grid = np.unique(np.asarray(DEFAULT_THRESHOLDS if thresholds is None else thresholds, dtype=float))[::-1]
    if grid.size == 0 or not np.all(np.isfinite(grid)):
        raise ValueError("thresholds must be finite numbers, at least one")

    if metric == "kappa":
        table_of = _kappa_tables(conf, judge, human, categories)
        rows = []
        for t in grid:
            table = table_of(t)
            est = kappa_fce(table, weights)
            rows.append((est.n, est.kappa, est.lower(alpha) if est.n else np.nan))
        n_arr = np.array([r[0] for r in rows], dtype=float)
        est_arr = np.array([r[1] for r in rows], dtype=float)
        low_arr = np.array([r[2] for r in rows], dtype=float)
    else:
        if metric == "accuracy":
            keep = np.ones(conf.size, dtype=bool)
            success = correct_flags(judge, human, tolerance)
        else:
            correct_flags(judge, human)  # validates: no missing values
            keep = np.array([j == positive for j in judge], dtype=bool)
            success = np.array([h == positive for h in human], dtype=bool)[keep]
        n_arr, _, est_arr, low_arr = _proportion_tests(conf[keep], success, grid, alpha, method)

    tests: list[ThresholdTest] = []
    chosen: int | None = None
    for i, t in enumerate(grid):
        if n_arr[i] < min_n:
            continue
        reached = bool(np.isfinite(low_arr[i]) and low_arr[i] >= target)
        tests.append(ThresholdTest(float(t), int(n_arr[i]), float(est_arr[i]), float(low_arr[i]), reached))
        if not reached:
            break
        chosen = i
    if chosen is None:
        return Selection(metric, target, alpha, method, None, 0.0, None, None, None, tuple(tests))
    t = float(grid[chosen])
    pop = conf if population is None else np.asarray(population, dtype=float)
    return Selection(
        metric,
        target,
        alpha,
        method,
        t,
        coverage(pop, t),
        float(est_arr[chosen]),
        float(low_arr[chosen]),
        int(n_arr[chosen]),
        tuple(tests),
    )


def _kappa_tables(
    conf: np.ndarray, judge: Sequence[Hashable], human: Sequence[Hashable], categories: Sequence[Hashable] | None
):
    """A function threshold -> K x K table of the verdicts at or above it,
    over one category order for every threshold."""
    correct_flags(judge, human)  # validates: no missing values
    _, cats = contingency(judge, human, categories)
    index = {c: i for i, c in enumerate(cats)}
    rows = np.array([index[v] for v in judge])
    cols = np.array([index[v] for v in human])
    k = len(cats)

    def table(t: float) -> np.ndarray:
        m = conf >= t
        return np.bincount(rows[m] * k + cols[m], minlength=k * k).reshape(k, k).astype(float)

    return table
