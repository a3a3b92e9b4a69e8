"""Calibration maps fitted on the dev split's people-labelled verdicts: a
judge's confidence c (the probability it is right) becomes a calibrated
confidence. The map is fitted on (confidence, right) pairs and reported on
the test split (reviewer.core.judging.confidence: ECE, adaptive ECE, Brier).

* ``temperature`` (Guo et al. 2017, "On Calibration of Modern Neural
  Networks", for a binary outcome): c' = sigmoid(logit(c) / T), T > 0
  minimising the negative log-likelihood of right/wrong
  (``scipy.optimize.minimize_scalar``, bounded on log T in [-5, 5]).
* ``platt`` (Platt 1999): c' = sigmoid(a logit(c) + b), fitted by
  scikit-learn's ``LogisticRegression`` on logit(c), unpenalised (C = inf).
* ``isotonic`` (Zadrozny & Elkan 2002): the monotone step function of
  scikit-learn's ``IsotonicRegression`` (out of bounds clipped, values in
  [0, 1]), applied by linear interpolation between its thresholds as its
  ``predict`` does.

Confidences are clipped to [1e-6, 1 - 1e-6] before the logit. Fitting
Platt or isotonic needs scikit-learn (``pip install reviewer[calibration]``);
applying a stored map needs only numpy. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["METHODS", "CalibrationMap", "NeedsScikitLearn", "fit_map"]

METHODS = ("temperature", "platt", "isotonic")
_EPS = 1e-6


class NeedsScikitLearn(ImportError):
    """Platt and isotonic fits need scikit-learn (the message says what to install)."""


def _logit(c: np.ndarray) -> np.ndarray:
    c = np.clip(np.asarray(c, float), _EPS, 1 - _EPS)
    return np.log(c / (1 - c))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


@dataclass(frozen=True)
class CalibrationMap:
    """A fitted map: ``method`` and its ``params`` (temperature: {'T'};
    platt: {'a', 'b'}; isotonic: {'x', 'y'} thresholds and values), fitted
    on ``n`` verdicts."""

    method: str
    params: dict[str, Any]
    n: int

    def apply(self, confidence: Sequence[float] | np.ndarray) -> np.ndarray:
        """The calibrated confidences, shape as ``confidence``, in [0, 1]."""
        c = np.asarray(confidence, float)
        if self.method == "temperature":
            return _sigmoid(_logit(c) / float(self.params["T"]))
        if self.method == "platt":
            return _sigmoid(float(self.params["a"]) * _logit(c) + float(self.params["b"]))
        if self.method == "isotonic":
            return np.interp(c, np.asarray(self.params["x"], float), np.asarray(self.params["y"], float))
        raise ValueError(f"unknown calibration method {self.method!r} (one of {', '.join(METHODS)})")

    def text(self) -> str:
        """The map in words."""
        if self.method == "temperature":
            return f"temperature T = {self.params['T']:.3f}"
        if self.method == "platt":
            return f"Platt a = {self.params['a']:.3f}, b = {self.params['b']:.3f}"
        return f"isotonic, {len(self.params['x'])} thresholds"

    def as_dict(self) -> dict:
        """JSON-ready."""
        return {"method": self.method, "params": self.params, "n": self.n}


def _sklearn():
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise NeedsScikitLearn(
            "Platt and isotonic calibration need scikit-learn: pip install 'reviewer[calibration]' "
            "(temperature needs only scipy)"
        ) from None


def fit_map(method: str, confidence: Sequence[float], correct: Sequence[bool]) -> CalibrationMap:
    """Fit a map (module doc) on dev pairs of confidence and right/wrong.

    Raises:
        ValueError: an unknown method, no pairs, lengths differ, or only
            right or only wrong verdicts (nothing to fit; isotonic and Platt
            need both).
        NeedsScikitLearn: Platt or isotonic without scikit-learn.
    """
    if method not in METHODS:
        raise ValueError(f"unknown calibration method {method!r} (one of {', '.join(METHODS)})")
    c = np.asarray(confidence, float)
    y = np.asarray(correct, bool)
    if c.shape != y.shape or c.size == 0:
        raise ValueError(f"need as many confidences as right/wrong flags, at least one ({c.size}, {y.size})")
    if y.all() or not y.any():
        raise ValueError(f"nothing to fit: all {c.size} dev verdicts are {'right' if y.all() else 'wrong'}")
    z = _logit(c)
    if method == "temperature":
        from scipy.optimize import minimize_scalar

        def nll(log_t: float) -> float:
            p = np.clip(_sigmoid(z / np.exp(log_t)), 1e-12, 1 - 1e-12)
            return float(-np.sum(y * np.log(p) + (~y) * np.log(1 - p)))

        found = minimize_scalar(nll, bounds=(-5.0, 5.0), method="bounded", options={"xatol": 1e-8})
        return CalibrationMap("temperature", {"T": float(np.exp(found.x))}, int(c.size))
    _sklearn()
    if method == "platt":
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=np.inf, solver="lbfgs").fit(z.reshape(-1, 1), y.astype(int))
        return CalibrationMap("platt", {"a": float(model.coef_[0][0]), "b": float(model.intercept_[0])}, int(c.size))
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(c, y.astype(float))
    return CalibrationMap(
        "isotonic",
        {"x": [float(v) for v in iso.X_thresholds_], "y": [float(v) for v in iso.y_thresholds_]},
        int(c.size),
    )
