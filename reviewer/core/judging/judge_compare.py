"""Two judges compared on the same subjects: is judge B really better than
judge A against people, or is the difference noise?

On the subjects both judges decided and people labelled (people's value:
reviewer.core.judging.people.people_values), for one dimension on one scale:

* **McNemar's exact test** on their correctness (a judge is right on a
  subject when its value equals people's): with b the subjects only the
  first judge got right and c those only the second got right, the
  two-sided p = min(1, 2 P(X <= min(b, c))), X ~ Binomial(b + c, 1/2)
  (McNemar 1947; the exact form of statsmodels'
  ``mcnemar(table, exact=True)``), from ``scipy.stats.binomtest``. p = 1
  when no subject is discordant.
* **A paired bootstrap** of the difference in Cohen's kappa with people
  (second minus first; quadratic weights by value on numeric scales,
  unweighted otherwise, as reviewer.core.judging.alignment) and of the
  difference in accuracy: the *subjects* are resampled, each carrying both
  judges' values and people's, so the two judges' figures move together
  (BCa, reviewer.core.judging.intervals.bootstrap_counts).
* a plain sentence: the second judge agrees with people more (or less)
  than the first when the Δκ interval excludes 0, else "no difference
  shown".

Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from reviewer.core.judging.calibration import scale_labels
from reviewer.core.judging.count_stats import CountSample, kappa_counts, position_weights, value_weights
from reviewer.core.judging.dispute_common import NUMERIC_SCALES
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval
from reviewer.core.judging.verdicts import Scale, Value
from reviewer.core.text import natural_key

__all__ = ["JudgeComparison", "compare_judges", "mcnemar_exact"]


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Two-sided exact McNemar p of ``only_first`` (b: subjects only the
    first judge got right) against ``only_second`` (c): the binomial test
    of min(b, c) in b + c trials at 1/2 (module doc); 1.0 when b + c = 0."""
    n = int(only_first) + int(only_second)
    if n == 0:
        return 1.0
    from scipy.stats import binomtest  # at first use: scipy.stats takes a second to import

    return float(min(1.0, binomtest(min(only_first, only_second), n, 0.5).pvalue))


@dataclass(frozen=True)
class JudgeComparison:
    """Two judges on one dimension against people (module doc).

    ``n``: subjects both decided and people labelled; ``kappa_first`` /
    ``kappa_second`` and ``accuracy_first`` / ``accuracy_second``: each
    judge's figure on those subjects; ``delta_kappa`` and
    ``delta_accuracy``: second minus first, with paired bootstrap intervals
    (unit resampled: the subject); ``only_first`` / ``only_second``: the
    discordant subjects of McNemar's test and ``p`` its exact p."""

    first: str
    second: str
    dimension: str
    scale: Scale
    n: int
    kappa_statistic: str
    kappa_first: float | None
    kappa_second: float | None
    delta_kappa: float | None
    delta_kappa_ci: Interval
    accuracy_first: float | None
    accuracy_second: float | None
    delta_accuracy: float | None
    delta_accuracy_ci: Interval
    only_first: int
    only_second: int
    p: float

    def sentence(self) -> str:
        """'J2 agrees with people more than J1 (Δκ 0.06 [0.02, 0.10],
        McNemar p = 0.004, n = 412)', or '... no difference shown (...)'."""
        iv = self.delta_kappa_ci
        dk = "-" if self.delta_kappa is None else f"{self.delta_kappa:+.3f}"
        tail = f"(Δκ {dk} {iv.formatted()}, McNemar p = {self.p:.3g}, n = {self.n})"
        if iv.defined and iv.low is not None and iv.low > 0:
            return f"{self.second} agrees with people more than {self.first} {tail}"
        if iv.defined and iv.high is not None and iv.high < 0:
            return f"{self.second} agrees with people less than {self.first} {tail}"
        return f"{self.first} vs {self.second}: no difference shown {tail}"

    def as_dict(self) -> dict:
        """JSON-ready, intervals as {low, high, method, note}; each figure
        names its method and unit resampled."""

        def iv(i: Interval) -> dict:
            return {"low": i.low, "high": i.high, "method": i.method, "note": i.note}

        return {
            "first": self.first,
            "second": self.second,
            "dimension": self.dimension,
            "scale": self.scale.value,
            "n": self.n,
            "kappa_statistic": self.kappa_statistic,
            "kappa": {"first": self.kappa_first, "second": self.kappa_second},
            "delta_kappa": {"value": self.delta_kappa, "ci": iv(self.delta_kappa_ci), "resampled": "subjects"},
            "accuracy": {"first": self.accuracy_first, "second": self.accuracy_second},
            "delta_accuracy": {
                "value": self.delta_accuracy,
                "ci": iv(self.delta_accuracy_ci),
                "resampled": "subjects",
            },
            "mcnemar": {
                "method": "exact (binomial)",
                "only_first_right": self.only_first,
                "only_second_right": self.only_second,
                "p": self.p,
            },
            "sentence": self.sentence(),
        }


def _none(x: float) -> float | None:
    return None if x != x else float(x)


def compare_judges(
    first: str,
    second: str,
    dimension: str,
    scale: Scale,
    first_values: Mapping[str, Value],
    second_values: Mapping[str, Value],
    people: Mapping[str, Value],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> JudgeComparison:
    """Compare two judges on the subjects both decided and people labelled
    (module doc). Values are normalised on ``scale`` (None: undecided or
    unlabelled, left out).

    Raises:
        ValueError: no subject both judges decided and people labelled.
    """
    subjects = sorted(
        (
            s
            for s in first_values
            if first_values[s] is not None and second_values.get(s) is not None and people.get(s) is not None
        ),
        key=natural_key,
    )
    if not subjects:
        raise ValueError(f"no subject of '{dimension}' that both {first} and {second} decided and people labelled")
    a = [first_values[s] for s in subjects]
    b = [second_values[s] for s in subjects]
    p = [people[s] for s in subjects]
    labels = scale_labels(scale, a + b + p)
    index = {x: i for i, x in enumerate(labels)}
    k = len(labels)
    codes = np.asarray([(index[x] * k + index[y]) * k + index[z] for x, y, z in zip(a, b, p)], dtype=np.int64)
    numeric = scale in NUMERIC_SCALES
    weights = value_weights(labels) if numeric else position_weights(k, None)
    diag = np.eye(k).ravel()

    def cube(c: np.ndarray) -> np.ndarray:
        return c.reshape(c.shape[:-1] + (k, k, k))

    def kappas(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        o = cube(c)
        first_people = o.sum(axis=-2).reshape(c.shape[:-1] + (k * k,))
        second_people = o.sum(axis=-3).reshape(c.shape[:-1] + (k * k,))
        return kappa_counts(first_people, weights), kappa_counts(second_people, weights)

    def accuracies(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        o = cube(c)
        n = c.sum(axis=-1)
        with np.errstate(all="ignore"):
            right_first = (o.sum(axis=-2).reshape(c.shape[:-1] + (k * k,)) * diag).sum(axis=-1) / n
            right_second = (o.sum(axis=-3).reshape(c.shape[:-1] + (k * k,)) * diag).sum(axis=-1) / n
        return right_first, right_second

    def delta_kappa(c: np.ndarray) -> np.ndarray:
        x, y = kappas(c)
        return y - x

    def delta_accuracy(c: np.ndarray) -> np.ndarray:
        x, y = accuracies(c)
        return y - x

    sample = CountSample(codes, k**3, {"delta_kappa": delta_kappa, "delta_accuracy": delta_accuracy})
    found = sample.intervals(["delta_kappa", "delta_accuracy"], n_resamples=n_resamples, seed=seed)
    counts = np.bincount(codes, minlength=k**3).astype(float)
    kf, ks = kappas(counts)
    af, as_ = accuracies(counts)
    right_first = np.array([x == z for x, z in zip(a, p)])
    right_second = np.array([y == z for y, z in zip(b, p)])
    only_first = int(np.sum(right_first & ~right_second))
    only_second = int(np.sum(~right_first & right_second))
    return JudgeComparison(
        first,
        second,
        dimension,
        scale,
        len(subjects),
        "cohen_kappa_weighted" if numeric else "cohen_kappa",
        _none(float(kf)),
        _none(float(ks)),
        _none(float(ks - kf)),
        found["delta_kappa"],
        float(af),
        float(as_),
        float(as_ - af),
        found["delta_accuracy"],
        only_first,
        only_second,
        mcnemar_exact(only_first, only_second),
    )
