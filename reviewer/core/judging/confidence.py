"""Is a judge's confidence honest? Calibration of per-verdict confidences
against people's final values.

A judge's *confidence* is its probability (0..1) that its verdict is right:
from logprobs, stated in its reply, or imported. A verdict is *correct* when
it equals the people's value (ordinal scales may allow a tolerance,
:func:`correct_flags`). From (confidence, correct) pairs:

* ECE, expected calibration error, with 15 equal-width bins (Naeini, Cooper
  & Hauskrecht 2015; Guo et al. 2017, "On Calibration of Modern Neural
  Networks"): ``sum_b |B_b|/n * |acc(B_b) - conf(B_b)|``.
* Adaptive ECE with 15 equal-mass bins (Nguyen & O'Connor 2015; Mukhoti et
  al. 2020's AdaECE; Nixon et al. 2019): the same sum over bins holding
  equally many verdicts.
* The Brier score (Brier 1950) of the confidence as a forecast of
  correctness: ``mean((confidence - correct)²)``.
* The mean confidence of right and of wrong verdicts, and the data of a
  reliability diagram (per bin: count, mean confidence, accuracy).

Pure numpy: no Qt, SQL or HTTP. The diagram itself is drawn by
:mod:`reviewer.core.judging.confidence_charts`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "N_BINS",
    "Calibration",
    "ReliabilityBin",
    "adaptive_ece",
    "brier_score",
    "calibration",
    "correct_flags",
    "ece",
    "equal_mass_bins",
    "equal_width_bins",
    "reliability_bins",
]

#: Bins of ECE and adaptive ECE (the issue's and Guo et al.'s 15).
N_BINS = 15


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def correct_flags(judge: Sequence[Any], human: Sequence[Any], tolerance: float = 0.0) -> np.ndarray:
    """Whether each judge value counts as correct against the people's value.

    A pair of numbers (an ordinal 1-5 score, grade points, 0-100) is correct
    when ``|judge - human| <= tolerance``; any other pair (pass/fail, a
    winner, a label) when the two are equal. ``tolerance`` 0 means exact
    agreement; 1 on a 1-5 scale accepts a neighbouring score.

    Args:
        judge, human: values of the same verdicts, same length n.
        tolerance: >= 0, in the scale's units; ignored for non-numbers.

    Returns:
        Boolean array of shape (n,).

    Raises:
        ValueError: the lengths differ, the tolerance is negative or not
            finite, or a value is missing (None or NaN): leave such verdicts
            out first, a missing value is neither right nor wrong.
    """
    if len(judge) != len(human):
        raise ValueError(f"judge and human values must have the same length, got {len(judge)} and {len(human)}")
    if not (math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    out = np.zeros(len(judge), dtype=bool)
    for i, (a, b) in enumerate(zip(judge, human)):
        for x in (a, b):
            if x is None or (_is_number(x) and math.isnan(float(x))):
                raise ValueError(f"verdict {i}: a missing value is neither right nor wrong; leave it out")
        if _is_number(a) and _is_number(b):
            out[i] = abs(float(a) - float(b)) <= tolerance + 1e-12
        else:
            out[i] = a == b
    return out


def _pairs(
    confidence: Sequence[float] | np.ndarray, correct: Sequence[Any] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(confidence, dtype=float).reshape(-1)
    y = np.asarray(correct).reshape(-1)
    if c.shape != y.shape:
        raise ValueError(f"confidence and correct must have the same length, got {c.size} and {y.size}")
    if c.size == 0:
        raise ValueError("no verdicts with a confidence")
    if not np.all(np.isfinite(c)) or np.any(c < 0) or np.any(c > 1):
        raise ValueError("confidences must be numbers within [0, 1]")
    if y.dtype != bool:
        if not np.all(np.isin(y, (0, 1))):
            raise ValueError("correct must be booleans (or 0/1)")
        y = y.astype(bool)
    return c, y


def equal_width_bins(confidence: Sequence[float] | np.ndarray, n_bins: int = N_BINS) -> np.ndarray:
    """The equal-width bin of each confidence: bin b holds
    ``b/n_bins <= c < (b+1)/n_bins`` and the last bin also holds 1.0 (so 0
    and 1 each fall in a bin). Array of ints in [0, n_bins), shape (n,).
    Raises ValueError for n_bins < 1."""
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    c = np.asarray(confidence, dtype=float).reshape(-1)
    edges = np.arange(n_bins + 1) / n_bins
    return np.clip(np.searchsorted(edges, c, side="right") - 1, 0, n_bins - 1)


def equal_mass_bins(
    confidence: Sequence[float] | np.ndarray, correct: Sequence[Any] | np.ndarray = (), n_bins: int = N_BINS
) -> np.ndarray:
    """The equal-mass bin of each verdict: sorted by confidence, the n
    verdicts are cut into ``n_bins`` runs whose sizes differ by at most one
    (``numpy.array_split``: the first ``n % n_bins`` bins get one more);
    fewer verdicts than bins give one verdict a bin. Tied confidences stay
    in one bin, the bin of the first of them in that order, so the bins
    never depend on the labels (``correct`` is accepted and ignored) nor on
    the input order; a bin can then be empty. Array of ints, shape (n,).
    Raises ValueError for n_bins < 1."""
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    c = np.asarray(confidence, dtype=float).reshape(-1)
    order = np.argsort(c, kind="stable")
    by_rank = np.empty(c.size, dtype=int)
    for b, idx in enumerate(np.array_split(np.arange(c.size), min(n_bins, max(c.size, 1)))):
        by_rank[idx] = b
    sorted_c = c[order]
    first = np.searchsorted(sorted_c, sorted_c, side="left")  # rank of the first equal confidence
    bins = np.empty(c.size, dtype=int)
    bins[order] = by_rank[first] if c.size else by_rank
    return bins


def _binned_gap(c: np.ndarray, y: np.ndarray, bins: np.ndarray, n_bins: int) -> float:
    conf_sum = np.bincount(bins, weights=c, minlength=n_bins)
    right = np.bincount(bins, weights=y.astype(float), minlength=n_bins)
    return float(np.abs(right - conf_sum).sum() / c.size)  # sum_b |B|/n |acc - conf|


def ece(confidence: Sequence[float] | np.ndarray, correct: Sequence[Any] | np.ndarray, n_bins: int = N_BINS) -> float:
    """Expected calibration error with ``n_bins`` equal-width bins.

    ``ECE = sum_b |B_b|/n * |acc(B_b) - conf(B_b)|`` over the non-empty bins
    of :func:`equal_width_bins` (Naeini et al. 2015; Guo et al. 2017).

    Args:
        confidence: shape (n,), each within [0, 1].
        correct: shape (n,), booleans (or 0/1): the verdict was right.
        n_bins: bins, default 15.

    Returns:
        A share in [0, 1]: 0 for a perfectly calibrated judge.

    Raises:
        ValueError: lengths differ, n = 0, a confidence outside [0, 1] or not
            finite, ``correct`` not boolean, n_bins < 1.
    """
    c, y = _pairs(confidence, correct)
    return _binned_gap(c, y, equal_width_bins(c, n_bins), n_bins)


def adaptive_ece(
    confidence: Sequence[float] | np.ndarray, correct: Sequence[Any] | np.ndarray, n_bins: int = N_BINS
) -> float:
    """Adaptive (equal-mass) ECE: the ECE sum over the ``n_bins`` bins of
    :func:`equal_mass_bins`, each holding n / n_bins verdicts (Nguyen &
    O'Connor 2015; AdaECE of Mukhoti et al. 2020). Inputs, result and
    errors as :func:`ece`."""
    c, y = _pairs(confidence, correct)
    return _binned_gap(c, y, equal_mass_bins(c, y, n_bins), n_bins)


def brier_score(confidence: Sequence[float] | np.ndarray, correct: Sequence[Any] | np.ndarray) -> float:
    """Brier score of the confidence as a forecast that the verdict is right:
    ``mean((confidence - correct)²)`` (Brier 1950), in [0, 1], lower is
    better (0.25 for a constant 0.5). Inputs and errors as :func:`ece`."""
    c, y = _pairs(confidence, correct)
    return float(np.mean((c - y) ** 2))


@dataclass(frozen=True)
class ReliabilityBin:
    """One equal-width bin of a reliability diagram: confidences in
    [low, high) (the last bin also holds 1.0); ``count`` verdicts; their
    ``mean_confidence`` and ``accuracy`` (share right), None when empty."""

    low: float
    high: float
    count: int
    mean_confidence: float | None
    accuracy: float | None

    @property
    def gap(self) -> float | None:
        """accuracy - mean confidence (negative: overconfident); None when empty."""
        return None if self.accuracy is None or self.mean_confidence is None else self.accuracy - self.mean_confidence


def reliability_bins(
    confidence: Sequence[float] | np.ndarray, correct: Sequence[Any] | np.ndarray, n_bins: int = N_BINS
) -> list[ReliabilityBin]:
    """The data of a reliability diagram: one :class:`ReliabilityBin` per
    equal-width bin (all ``n_bins``, empty ones included), lowest first.
    Inputs and errors as :func:`ece`."""
    c, y = _pairs(confidence, correct)
    bins = equal_width_bins(c, n_bins)
    count = np.bincount(bins, minlength=n_bins)
    conf_sum = np.bincount(bins, weights=c, minlength=n_bins)
    right = np.bincount(bins, weights=y.astype(float), minlength=n_bins)
    out = []
    for b in range(n_bins):
        m = int(count[b])
        out.append(
            ReliabilityBin(
                low=b / n_bins,
                high=(b + 1) / n_bins,
                count=m,
                mean_confidence=float(conf_sum[b] / m) if m else None,
                accuracy=float(right[b] / m) if m else None,
            )
        )
    return out


@dataclass(frozen=True)
class Calibration:
    """Calibration of one judge's confidences (one dimension, one source).

    ``n``: verdicts; ``accuracy``: share right; ``mean_confidence``;
    ``ece``, ``adaptive_ece``, ``brier`` (see the functions);
    ``mean_confidence_right`` / ``mean_confidence_wrong``: None when no
    verdict is right / wrong; ``bins``: the reliability diagram.
    """

    n: int
    accuracy: float
    mean_confidence: float
    ece: float
    adaptive_ece: float
    brier: float
    mean_confidence_right: float | None
    mean_confidence_wrong: float | None
    bins: tuple[ReliabilityBin, ...]

    @property
    def overconfidence(self) -> float:
        """mean confidence - accuracy (> 0: the judge claims more than it gets right)."""
        return self.mean_confidence - self.accuracy

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (bins as a list of dicts)."""
        return {
            "n": self.n,
            "accuracy": self.accuracy,
            "mean_confidence": self.mean_confidence,
            "ece": self.ece,
            "adaptive_ece": self.adaptive_ece,
            "brier": self.brier,
            "mean_confidence_right": self.mean_confidence_right,
            "mean_confidence_wrong": self.mean_confidence_wrong,
            "bins": [
                {
                    "low": b.low,
                    "high": b.high,
                    "count": b.count,
                    "mean_confidence": b.mean_confidence,
                    "accuracy": b.accuracy,
                }
                for b in self.bins
            ],
        }


def calibration(
    confidence: Sequence[float] | np.ndarray, correct: Sequence[Any] | np.ndarray, n_bins: int = N_BINS
) -> Calibration:
    """Every calibration figure of one set of verdicts at once: ECE
    (:func:`ece`), adaptive ECE (:func:`adaptive_ece`), Brier
    (:func:`brier_score`), the mean confidence of right and of wrong
    verdicts, and the reliability diagram (:func:`reliability_bins`).

    Args:
        confidence: shape (n,), within [0, 1]; correct: shape (n,), booleans
            (from :func:`correct_flags`); n_bins: default 15.

    Returns:
        :class:`Calibration`. Raises ValueError as :func:`ece`.
    """
    c, y = _pairs(confidence, correct)
    return Calibration(
        n=int(c.size),
        accuracy=float(y.mean()),
        mean_confidence=float(c.mean()),
        ece=ece(c, y, n_bins),
        adaptive_ece=adaptive_ece(c, y, n_bins),
        brier=brier_score(c, y),
        mean_confidence_right=float(c[y].mean()) if y.any() else None,
        mean_confidence_wrong=float(c[~y].mean()) if (~y).any() else None,
        bins=tuple(reliability_bins(c, y, n_bins)),
    )
