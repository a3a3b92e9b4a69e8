"""The active label-first order: an explicit choice beside the fair queue
(reviewer.core.judging.label_first), putting disagreements and low
confidence first without biasing what the labels say.

Design (Poisson sampling with unequal probabilities, weighed back by
Horvitz & Thompson 1952):

* each subject of the queue gets a *priority*: 4 where the judges disagree,
  2 where the judge's confidence is below the median of the known ones,
  else 1 (:func:`priority`);
* its *inclusion probability* pi = min(1, c x priority), with c set so the
  probabilities add up to the number of labels wanted
  (:func:`inclusion_probabilities`);
* it is drawn when a seeded uniform number of its id is below pi
  (:func:`seeded_uniform`; SHA-256 of '<seed>:inclusion:<subject>');
* the drawn subjects are labelled disagreements first, then by rising
  confidence (reviewer.core.judging.budget.labelling_order, one stratum).

pi is stored with the subject when it is drawn and never changes. A label
of a subject drawn this way weighs 1 / pi in alignment, so kappa, TPR and
TNR estimate what a fair sample would (:func:`weights`). Pure.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ACTIVE",
    "FAIR",
    "Inclusion",
    "draw_active",
    "inclusion_probabilities",
    "priority",
    "seeded_uniform",
    "weights",
]

#: The two label-first orders: the fair queue (default) and the active one.
FAIR, ACTIVE = "fair", "active"


@dataclass(frozen=True)
class Inclusion:
    """A subject of an active draw: its inclusion probability and whether
    the seeded draw took it."""

    subject: str
    inclusion: float
    drawn: bool


def priority(disagree: bool, confidence: float | None, median: float | None) -> float:
    """4 where the judges disagree, 2 where the confidence is below
    ``median`` (of the known confidences), else 1 (module doc)."""
    if disagree:
        return 4.0
    if confidence is not None and median is not None and confidence < median:
        return 2.0
    return 1.0


def inclusion_probabilities(priorities: Sequence[float], size: float) -> np.ndarray:
    """pi_i = min(1, c p_i) with sum pi = min(size, n): c found by capping
    the largest at 1 and sharing the rest in proportion (the usual
    probability-proportional-to-size rule). Raises ValueError for a
    priority <= 0 or size < 0."""
    p = np.asarray(priorities, dtype=float)
    if p.size and p.min() <= 0:
        raise ValueError("priorities must be > 0")
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    n = p.size
    target = min(float(size), float(n))
    pi = np.zeros(n)
    if not n or target == 0:
        return pi
    capped = np.zeros(n, dtype=bool)
    while True:
        free = ~capped
        left = target - capped.sum()
        pi[capped] = 1.0
        pi[free] = p[free] * left / p[free].sum() if free.any() else 0.0
        over = free & (pi >= 1.0)
        if not over.any():
            return np.minimum(pi, 1.0)
        capped |= over


def seeded_uniform(subject: str, seed: int = 0) -> float:
    """A number in [0, 1) from SHA-256 of '<seed>:inclusion:<subject>'."""
    digest = hashlib.sha256(f"{seed}:inclusion:{subject}".encode()).hexdigest()
    return int(digest[:13], 16) / float(16**13)


def draw_active(
    subjects: Sequence[str],
    disagree: Sequence[bool],
    confidence: Sequence[float | None],
    size: float,
    *,
    seed: int = 0,
) -> list[Inclusion]:
    """The active draw of ``subjects`` (module doc): each one's inclusion
    probability, and whether it is drawn, in the order given. ``size``: the
    labels wanted (the budget). Raises ValueError when lengths differ."""
    if not (len(subjects) == len(disagree) == len(confidence)):
        raise ValueError("subjects, disagree and confidence must have the same length")
    known = sorted(float(c) for c in confidence if c is not None and math.isfinite(float(c)))
    median = float(np.median(known)) if known else None
    pi = inclusion_probabilities([priority(d, c, median) for d, c in zip(disagree, confidence)], size)
    return [Inclusion(s, float(x), seeded_uniform(s, seed) < x) for s, x in zip(subjects, pi)]


def weights(inclusions: Mapping[str, float]) -> dict[str, float]:
    """{subject: 1 / pi} of subjects drawn with inclusion probability pi > 0."""
    return {s: 1.0 / x for s, x in inclusions.items() if x > 0}
