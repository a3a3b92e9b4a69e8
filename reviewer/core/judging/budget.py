"""A label budget: how many more human labels a judge's validation needs
before its agreement figures are known to within a chosen interval.

For a 95 % interval (a setting) of half-width <= 0.1 (a setting):

* kappa: the Fleiss-Cohen-Everitt (1969) large-sample variance is
  ``V / n`` for a per-subject variance V fixed by the table's shares
  (:func:`reviewer.core.judging.bounds.kappa_fce`), so the subjects needed
  are ``ceil(z² V / h²)``;
* TPR and TNR: the smallest number m of people's positives (negatives) whose
  Wilson (1927) interval around the current rate is no wider than h, and
  from the current prevalence the labels that hold m of them:
  ``ceil(m / prevalence)``, of which ``ceil((m - m_now) / prevalence)`` more.

The cross-check, :func:`simulate_budget`, draws many label sets of N subjects
from the current labels' table (a multinomial on its cells), takes the
spread of the statistic over them, and solves ``z * sd(N) = h`` for N by
rescaling (sd shrinks as 1/sqrt(N)). It tests the large-sample
variance against the real sampling spread; near rates of 0 or 1 the Wilson
interval is wider than z * sd and asks for more labels than the simulation.

Pure numpy/scipy.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from reviewer.core.judging.bounds import (
    agreement_weights,
    contingency,
    kappa_fce,
    wilson_half_width,
    z_value,
)

__all__ = [
    "HALF_WIDTH",
    "LEVEL",
    "STATISTICS",
    "Budget",
    "binary_table",
    "kappa_budget",
    "label_budget",
    "labelling_order",
    "rate_budget",
    "simulate_budget",
]

#: The half-width wanted of each interval (a setting).
HALF_WIDTH = 0.1
#: The two-sided level of the intervals (a setting).
LEVEL = 0.95
#: The statistics budgeted.
STATISTICS = ("kappa", "tpr", "tnr")
#: Largest number of labels ever asked for; more is reported as this.
_CAP = 10**9
#: Rescaling steps of the simulation; all but the first (from the current
#: size) are averaged.
_SIM_STEPS = 4

Positive = Hashable | Callable[[Any], bool]


@dataclass(frozen=True)
class Budget:
    """The labels one statistic still needs.

    ``statistic``: 'kappa', 'tpr' or 'tnr'; ``estimate``: its value now
    (NaN when undefined); ``n``: subjects labelled now; ``n_class``: people's
    positives (tpr) or negatives (tnr) among them, None for kappa;
    ``prevalence``: that class's share (None for kappa); ``half_width``: the
    current interval's half-width (NaN when undefined); ``target``: the
    half-width wanted; ``level``: the interval's level; ``needed``: subjects
    needed in all, which may be fewer than ``n`` when the interval is
    already narrow enough (None when it cannot be told yet, see ``note``);
    ``further``: ``needed - n``, at least 0 (None with ``needed``).
    """

    statistic: str
    estimate: float
    n: int
    n_class: int | None
    prevalence: float | None
    half_width: float
    target: float
    level: float
    needed: int | None
    further: int | None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict (an undefined figure, NaN, as None)."""
        return {
            k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in dataclasses.asdict(self).items()
        }


def _check(target: float, level: float) -> float:
    if not (math.isfinite(target) and target > 0):
        raise ValueError(f"half-width must be a number > 0, got {target!r}")
    return z_value((1.0 + level) / 2.0)


def kappa_budget(
    table: Any, half_width: float = HALF_WIDTH, level: float = LEVEL, weights: str | None = None
) -> Budget:
    """Subjects needed for a ``level`` interval of half-width <= ``half_width``
    on (weighted) Cohen's kappa, by the Fleiss-Cohen-Everitt variance of the
    current table: ``needed = ceil(z² V / h²)`` with V = n Var(kappa).

    Args:
        table: K x K counts, rows judge, columns people (categories in scale
            order for weighted kappa).
        half_width: h > 0, in kappa units; level: e.g. 0.95.
        weights: None, 'linear' or 'quadratic'.

    Returns:
        :class:`Budget` (statistic 'kappa'); ``needed`` None when kappa is
        undefined (no labels, or one category only) or V = 0 (every label
        agrees: the large-sample variance says nothing yet).

    Raises:
        ValueError: the table is not square or has negative counts, h <= 0,
            level not within (0, 1).
    """
    z = _check(half_width, level)
    est = kappa_fce(table, weights)
    if not math.isfinite(est.kappa):
        note = "no labels yet" if est.n == 0 else "kappa is undefined: one category only"
        return Budget("kappa", est.kappa, est.n, None, None, float("nan"), half_width, level, None, None, note)
    hw = z * est.se
    if est.unit_variance <= 0:
        return Budget(
            "kappa",
            est.kappa,
            est.n,
            None,
            None,
            hw,
            half_width,
            level,
            None,
            None,
            "every label agrees: the large-sample variance is 0 and cannot size the budget",
        )
    needed = min(_CAP, math.ceil(z * z * est.unit_variance / half_width**2 - 1e-9))
    return Budget("kappa", est.kappa, est.n, None, None, hw, half_width, level, needed, max(0, needed - est.n))


def _wilson_needed(p: float, half_width: float, level: float) -> int:
    """Smallest m >= 1 with the Wilson half-width at p on m trials <= h
    (the half-width falls as m grows)."""
    if wilson_half_width(p, 1, level) <= half_width:
        return 1
    lo, hi = 1, 2
    while wilson_half_width(p, hi, level) > half_width:
        lo, hi = hi, hi * 2
        if hi >= _CAP:
            return _CAP
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if wilson_half_width(p, mid, level) <= half_width:
            hi = mid
        else:
            lo = mid
    return hi


def rate_budget(
    k: int, n_class: int, n: int, statistic: str = "tpr", half_width: float = HALF_WIDTH, level: float = LEVEL
) -> Budget:
    """Labels needed for a Wilson interval of half-width <= ``half_width`` on
    a rate over one class of the people's labels (TPR over their positives,
    TNR over their negatives).

    ``m`` = the smallest class count whose Wilson half-width at the current
    rate k / n_class is <= h; the class's prevalence n_class / n turns it
    into subjects: ``needed = ceil(m / prevalence)`` (the labels that hold
    m class members on average; may be below n), ``further = max(0, needed
    - n)``, i.e. ``ceil((m - n_class) / prevalence)`` more.

    Args:
        k: class members the judge got right (true positives or negatives);
        n_class: class members labelled; n: subjects labelled in all.
        statistic: the name carried ('tpr' or 'tnr').

    Returns:
        :class:`Budget`; ``needed`` None when the class has no member yet
        (no rate and no prevalence to plan with).

    Raises:
        ValueError: unless 0 <= k <= n_class <= n; h <= 0; level not in (0, 1).
    """
    _check(half_width, level)
    if not 0 <= k <= n_class <= n:
        raise ValueError(f"counts must satisfy 0 <= k <= n_class <= n, got {k}, {n_class}, {n}")
    if n_class == 0:
        return Budget(
            statistic,
            float("nan"),
            n,
            0,
            0.0 if n else None,
            float("nan"),
            half_width,
            level,
            None,
            None,
            "no labels of this class yet: label more to size the budget",
        )
    p, prevalence = k / n_class, n_class / n
    hw = wilson_half_width(p, n_class, level)
    m = _wilson_needed(p, half_width, level)
    needed = min(_CAP, math.ceil(m / prevalence - 1e-9))
    return Budget(statistic, p, n, n_class, prevalence, hw, half_width, level, needed, max(0, needed - n))


def _is_positive(positive: Positive) -> Callable[[Any], bool]:
    return positive if callable(positive) else (lambda v: v == positive)


def binary_table(judge: Sequence[Any], human: Sequence[Any], positive: Positive = "pass") -> np.ndarray:
    """The 2 x 2 table ``[[TP, FP], [FN, TN]]`` (rows judge positive /
    negative, columns people positive / negative). ``positive``: the
    positive value, or a predicate (e.g. ``lambda s: s >= 4`` for a 1-5
    scale's pass threshold). Raises ValueError when the lengths differ."""
    if len(judge) != len(human):
        raise ValueError(f"judge and human values must have the same length, got {len(judge)} and {len(human)}")
    is_pos = _is_positive(positive)
    j = np.array([not is_pos(v) for v in judge], dtype=int)
    h = np.array([not is_pos(v) for v in human], dtype=int)
    return np.bincount(j * 2 + h, minlength=4).reshape(2, 2).astype(float)


def label_budget(
    judge: Sequence[Hashable],
    human: Sequence[Hashable],
    *,
    positive: Positive = "pass",
    half_width: float = HALF_WIDTH,
    level: float = LEVEL,
    weights: str | None = None,
    categories: Sequence[Hashable] | None = None,
) -> dict[str, Budget]:
    """The budget of kappa, TPR and TNR from the labels so far.

    Args:
        judge, human: the judge's and the people's values of the n subjects
            labelled so far (no missing values).
        positive: the passing value or a predicate (TPR and TNR).
        half_width, level: the interval wanted (default 95 %, 0.1).
        weights, categories: kappa's weights and scale order
            (:func:`kappa_budget`); kappa is on the values themselves.

    Returns:
        {'kappa': Budget, 'tpr': Budget, 'tnr': Budget}. The labels still
        needed overall are the largest ``further`` among them.

    Raises:
        ValueError: as :func:`kappa_budget`, :func:`rate_budget` and
            :func:`reviewer.core.judging.bounds.contingency`.
    """
    table, _ = contingency(judge, human, categories)
    b = binary_table(judge, human, positive)
    n = int(b.sum())
    return {
        "kappa": kappa_budget(table, half_width, level, weights),
        "tpr": rate_budget(int(b[0, 0]), int(b[:, 0].sum()), n, "tpr", half_width, level),
        "tnr": rate_budget(int(b[1, 1]), int(b[:, 1].sum()), n, "tnr", half_width, level),
    }


def _kappas(tables: np.ndarray, w: np.ndarray) -> np.ndarray:
    n = tables.sum(axis=(1, 2))
    p = tables / n[:, None, None]
    rows, cols = p.sum(axis=2), p.sum(axis=1)
    p_o = np.einsum("ij,sij->s", w, p)
    p_e = np.einsum("ij,si,sj->s", w, rows, cols)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(p_e < 1 - 1e-12, (p_o - p_e) / (1 - p_e), np.nan)


def _statistic(statistic: str, weights: str | None, k: int) -> Callable[[np.ndarray], np.ndarray]:
    if statistic == "kappa":
        w = agreement_weights(k, weights)
        return lambda t: _kappas(t, w)
    col = 0 if statistic == "tpr" else 1

    def rate(t: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return t[:, col, col] / t[:, :, col].sum(axis=1)

    return rate


def simulate_budget(
    judge: Sequence[Hashable],
    human: Sequence[Hashable],
    statistic: str = "kappa",
    *,
    positive: Positive = "pass",
    half_width: float = HALF_WIDTH,
    level: float = LEVEL,
    weights: str | None = None,
    categories: Sequence[Hashable] | None = None,
    n_sims: int = 4000,
    seed: int = 0,
) -> int | None:
    """Subjects needed in all, by simulation from the current labels: the
    cross-check of :func:`label_budget`.

    Label sets of N subjects are drawn as multinomials on the cells of the
    current table (K x K for kappa, the 2 x 2 of :func:`binary_table` for
    TPR and TNR); the statistic's spread over ``n_sims`` sets gives the
    half-width ``z * sd(N)``. Starting from N = n, N is rescaled by
    ``N * (z * sd(N) / h)²`` four times; the last three sizes, each from
    fresh draws near the answer, are averaged. Sets on which the statistic is undefined
    (no member of the class, one category) are left out.

    Args:
        judge, human: the labels so far (as :func:`label_budget`).
        statistic: 'kappa', 'tpr' or 'tnr'.
        positive, half_width, level, weights, categories: as :func:`label_budget`.
        n_sims: simulated label sets per step (>= 100); seed: the RNG seed.

    Returns:
        Subjects needed in all (compare with ``Budget.needed``), None when
        the statistic is undefined on the current labels or never varies.

    Raises:
        ValueError: an unknown statistic, n_sims < 100, no labels, and as
            :func:`label_budget`.
    """
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}, got {statistic!r}")
    if n_sims < 100:
        raise ValueError(f"n_sims must be >= 100, got {n_sims}")
    z = _check(half_width, level)
    if statistic == "kappa":
        table, _ = contingency(judge, human, categories)
    else:
        table = binary_table(judge, human, positive)
    n = int(table.sum())
    if n == 0:
        raise ValueError("no labels to simulate from")
    stat = _statistic(statistic, weights, table.shape[0])
    probs = (table / n).ravel()
    rng = np.random.default_rng(seed)
    size, estimates = float(n), []
    for _ in range(_SIM_STEPS):
        draws = rng.multinomial(max(2, int(round(size))), probs, size=n_sims).reshape(n_sims, *table.shape)
        values = stat(draws.astype(float))
        values = values[np.isfinite(values)]
        if values.size < n_sims // 2:
            return None
        sd = float(values.std(ddof=1))
        if sd == 0:
            return None
        size = min(float(_CAP), max(2.0, int(round(size))) * (z * sd / half_width) ** 2)
        estimates.append(size)
    return int(math.ceil(np.mean(estimates[1:])))


def labelling_order(
    subjects: Sequence[str],
    strata: Sequence[Hashable],
    budget: int,
    *,
    disagreement: Sequence[bool] | None = None,
    confidence: Sequence[float | None] | None = None,
    seed: int = 0,
) -> list[str]:
    """Which unlabelled subjects to label next, in order, never more than
    ``budget``: still stratified, disagreements and low confidence first.

    Rule: the budget is shared among the strata (e.g. the judge's verdict)
    in proportion to their sizes, by largest remainders (Hamilton), ties to
    the stratum seen first. Within a stratum, subjects where judges disagree
    come first, then by rising confidence (a subject without one after those
    with one), then in a seeded order (SHA-256 of seed and subject, stable
    as subjects are added). The strata's picks are interleaved so that
    every prefix of the order stays close to proportional: the k-th pick of
    a stratum given m places sorts at (k + 0.5) / m.

    Note: putting disagreements and low confidence first makes the labels
    no longer a simple random sample within a stratum; figures that need a
    fair sample should weigh them by stratum or use the labels of the
    whole stratum.

    Args:
        subjects: ids of the subjects left to label (unique), length n.
        strata: each subject's stratum, length n.
        budget: labels to hand out, >= 0 (from :func:`label_budget`, the
            largest ``further``).
        disagreement: length n, True where the judges disagree; default none.
        confidence: length n, the judge's confidence (None when unknown).
        seed: the seed of the order among equals.

    Returns:
        Up to ``budget`` subject ids in the order to label them.

    Raises:
        ValueError: lengths differ, duplicate subjects, budget < 0.
    """
    n = len(subjects)
    if (
        len(strata) != n
        or (disagreement is not None and len(disagreement) != n)
        or (confidence is not None and len(confidence) != n)
    ):
        raise ValueError("subjects, strata, disagreement and confidence must have the same length")
    if len(set(subjects)) != n:
        raise ValueError("subjects must be unique")
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    budget = min(budget, n)
    groups: dict[Hashable, list[int]] = {}
    for i, s in enumerate(strata):
        groups.setdefault(s, []).append(i)
    shares = {s: budget * len(idx) / n for s, idx in groups.items()} if n else {}
    places = {s: int(math.floor(v)) for s, v in shares.items()}
    by_remainder = sorted(groups, key=lambda s: -(shares[s] - places[s]))  # stable: first seen wins ties
    for s in by_remainder[: budget - sum(places.values())]:
        places[s] += 1

    def key(i: int) -> tuple:
        c = None if confidence is None else confidence[i]
        known = c is not None and math.isfinite(float(c))
        tie = hashlib.sha256(f"{seed}:{subjects[i]}".encode()).hexdigest()
        return (
            not (disagreement is not None and disagreement[i]),
            not known,
            float(c) if known and c is not None else 0.0,
            tie,
        )

    picks: list[tuple[float, int, int]] = []
    for rank, (s, idx) in enumerate(groups.items()):
        m = places[s]
        for k, i in enumerate(sorted(idx, key=key)[:m]):
            picks.append(((k + 0.5) / m, rank, i))
    return [subjects[i] for _, _, i in sorted(picks)]
