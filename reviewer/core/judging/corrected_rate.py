"""A judge's pass rate on unlabelled subjects, corrected for its errors.

Rogan & Gladen (1978), "Estimating prevalence from the results of a
screening test", Am. J. Epidemiol. 107: with the judge's observed pass rate
p_obs on subjects people have not labelled, and its true positive rate TPR
and true negative rate TNR measured against people on labelled subjects,

    theta = (p_obs + TNR - 1) / (TPR + TNR - 1)

clipped to [0, 1] (an estimate outside is reported clipped, and the note
says so). The rate is **undefined** when TPR + TNR <= 1: a judge no better
than chance at telling pass from fail carries no information about the true
rate. The 95 % interval resamples the labelled and the unlabelled subjects
independently (two samples of scipy.stats.bootstrap, through
reviewer.core.judging.intervals.bootstrap_counts); resamples in which the
rate is undefined are left out and counted. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, bootstrap_counts

__all__ = ["CorrectedRate", "corrected_pass_rate", "rogan_gladen"]


def rogan_gladen(p_obs: float, tpr: float, tnr: float) -> float | None:
    """theta = (p_obs + TNR - 1) / (TPR + TNR - 1) clipped to [0, 1]; None
    when TPR + TNR <= 1 (undefined)."""
    den = tpr + tnr - 1.0
    if not den > 0:
        return None
    return min(1.0, max(0.0, (p_obs + tnr - 1.0) / den))


def _vectorised(labelled: np.ndarray, unlabelled: np.ndarray) -> np.ndarray:
    """theta from counts: labelled (..., 4) by code 2*judge_pass + people_pass,
    unlabelled (..., 2) by judge_pass; NaN where undefined."""
    with np.errstate(all="ignore"):
        tpr = labelled[..., 3] / (labelled[..., 3] + labelled[..., 1])
        tnr = labelled[..., 0] / (labelled[..., 0] + labelled[..., 2])
        p_obs = unlabelled[..., 1] / unlabelled.sum(axis=-1)
        den = tpr + tnr - 1.0
        theta = np.clip((p_obs + tnr - 1.0) / den, 0.0, 1.0)
        return np.where(den > 0, theta, np.nan)[None]


@dataclass(frozen=True)
class CorrectedRate:
    """The corrected pass rate of a judge (module doc).

    ``observed``: p_obs on ``unlabelled`` subjects; ``tpr``/``tnr`` from
    ``labelled`` subjects (``positives`` passed and ``negatives`` failed by
    people); ``rate``: theta (None when undefined); ``unclipped``: theta
    before clipping; ``interval``: its bootstrap interval; ``note``: why it
    is undefined, or that it was clipped.
    """

    observed: float | None
    tpr: float | None
    tnr: float | None
    labelled: int
    positives: int
    negatives: int
    unlabelled: int
    rate: float | None
    unclipped: float | None
    interval: Interval
    note: str = ""

    def as_dict(self) -> dict:
        """JSON-ready."""
        return {
            "observed": self.observed,
            "tpr": self.tpr,
            "tnr": self.tnr,
            "labelled": self.labelled,
            "positives": self.positives,
            "negatives": self.negatives,
            "unlabelled": self.unlabelled,
            "rate": self.rate,
            "ci_low": self.interval.low,
            "ci_high": self.interval.high,
            "ci_method": self.interval.method,
            "note": self.note,
        }


def corrected_pass_rate(
    labelled: Sequence[tuple[bool, bool]],
    unlabelled: Sequence[bool],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence_level: float = 0.95,
    weights: Sequence[float] | None = None,
) -> CorrectedRate:
    """The Rogan-Gladen corrected pass rate (module doc).

    Args:
        labelled: (judge passes, people pass) per labelled subject.
        unlabelled: judge passes, per subject people have not labelled.
        weights: one per labelled subject (1 / pi of an active draw,
            reviewer.core.judging.active_order): TPR and TNR weighted, in
            the estimate and every resample.

    Returns:
        A :class:`CorrectedRate`; rate None with a plain note when there
        are no unlabelled subjects, no subject people pass or fail, or
        TPR + TNR <= 1.
    """
    codes_l = np.array([2 * bool(j) + bool(p) for j, p in labelled], dtype=np.int64)
    codes_u = np.array([int(bool(j)) for j in unlabelled], dtype=np.int64)
    w = np.ones(len(labelled)) if weights is None else np.asarray(weights, dtype=float)
    classes, w_index = np.unique(w, return_inverse=True) if w.size else (np.ones(1), np.zeros(0, dtype=np.int64))
    k = max(classes.size, 1)
    c = np.bincount(codes_l, weights=w, minlength=4) if w.size else np.zeros(4)
    raw = np.bincount(codes_l, minlength=4)
    positives, negatives = int(raw[1] + raw[3]), int(raw[0] + raw[2])
    tpr = c[3] / (c[1] + c[3]) if positives else None
    tnr = c[0] / (c[0] + c[2]) if negatives else None
    observed = float(codes_u.mean()) if codes_u.size else None
    none = Interval(None, None, "", confidence_level)

    def result(rate, unclipped, interval, note):
        return CorrectedRate(
            observed,
            None if tpr is None else float(tpr),
            None if tnr is None else float(tnr),
            len(labelled),
            positives,
            negatives,
            len(unlabelled),
            rate,
            unclipped,
            interval,
            note,
        )

    if observed is None:
        return result(None, None, none, "undefined: no unlabelled subjects to correct")
    if tpr is None or tnr is None:
        missing = "pass" if tpr is None else "fail"
        return result(
            None,
            None,
            none,
            f"undefined: no labelled subject that people {missing}, "
            f"so the judge's {'TPR' if tpr is None else 'TNR'} is unknown",
        )
    den = tpr + tnr - 1.0
    if den <= 0:
        return result(
            None,
            None,
            none,
            f"undefined: TPR + TNR = {tpr + tnr:.3f} <= 1, the judge is no better "
            "than chance at telling pass from fail, so its pass rate cannot be corrected",
        )
    unclipped = (observed + tnr - 1.0) / den
    rate = rogan_gladen(observed, tpr, tnr)
    assert rate is not None  # defined: den > 0 above

    def statistic(labelled_counts: np.ndarray, unlabelled_counts: np.ndarray) -> np.ndarray:
        weighted = (labelled_counts.reshape(labelled_counts.shape[:-1] + (4, k)) * classes).sum(axis=-1)
        return _vectorised(weighted, unlabelled_counts)

    interval = bootstrap_counts(
        [codes_l * k + np.asarray(w_index, dtype=np.int64).ravel(), codes_u],
        [4 * k, 2],
        statistic,
        n_resamples=n_resamples,
        seed=seed,
        confidence_level=confidence_level,
    )[0]
    notes = []
    if rate != unclipped:
        notes.append(f"clipped to [0, 1] from {unclipped:.3f}")
    if interval.undefined:
        notes.append(
            f"{interval.undefined} of {interval.resamples} resamples undefined (TPR + TNR <= 1 or "
            "no pass or fail among the labelled), left out"
        )
    elif interval.note:
        notes.append(interval.note)
    return result(float(rate), float(unclipped), interval, "; ".join(notes))
