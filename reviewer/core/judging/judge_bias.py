"""Bias checks of a judge against people, and the accuracy of a pairwise
judge over both answer orders. Pure.

* **Length** (pairwise): on the pairs where people chose a winner, the
  judge chose a winner and the two answers differ in length (characters),
  the share of the judge's wins that went to the longer answer beside
  people's share on the same pairs, each with its Wilson interval
  (Clopper-Pearson at 0 or all), and the difference (judge minus people)
  with a paired bootstrap interval (unit resampled: the pair). A judge
  that favours length shows a difference above 0.
* **Length** (single outputs): Spearman's rank correlation between score
  and length, the judge's beside people's, on the subjects both scored.
* **Self-preference** (pairwise): on the pairs where exactly one answer
  came from the judge's own model, the share the judge gave to its own
  model's answer beside people's share on the same pairs, and the
  difference with its paired bootstrap interval; flagged when the interval
  lies above 0.
* **Both orders** (LLMBar's statistics, Zeng et al. 2024, "Evaluating
  Large Language Models at Evaluating Instruction Following"): on the
  pairs judged in both orders (verdicts mapped back to the original
  answers) with people's winner: ``correct_both`` (right in both orders),
  ``correct_either`` (right in at least one), ``swap_accuracy`` (the mean
  of the two orders' accuracies, LLMBar's 'Acc'), and the
  ``position_consistent_accuracy`` (right among the pairs whose two orders
  agree); shares of pairs with Wilson intervals, swap accuracy with a
  bootstrap interval over pairs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from reviewer.core.judging.count_stats import CountSample
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, proportion_interval
from reviewer.core.judging.verdicts import Value

__all__ = [
    "BothOrders",
    "PairedShares",
    "ScoreLength",
    "both_orders",
    "length_bias",
    "score_length",
    "self_preference",
]

WINNERS = ("1", "2")


@dataclass(frozen=True)
class PairedShares:
    """A judge's share and people's share of the same pairs (module doc).

    ``what``: what the share counts ('longer answer wins', 'own model's
    answer wins'); ``n``: pairs; ``judge_hits`` / ``people_hits``: pairs
    counted; ``difference``: judge minus people, its interval a paired
    bootstrap over pairs."""

    what: str
    n: int
    judge_hits: int
    people_hits: int
    judge_ci: Interval
    people_ci: Interval
    difference_ci: Interval

    @property
    def judge_share(self) -> float | None:
        """The judge's share (None when n = 0)."""
        return self.judge_hits / self.n if self.n else None

    @property
    def people_share(self) -> float | None:
        """People's share (None when n = 0)."""
        return self.people_hits / self.n if self.n else None

    @property
    def difference(self) -> float | None:
        """Judge's share minus people's (None when n = 0)."""
        return None if not self.n else (self.judge_hits - self.people_hits) / self.n

    @property
    def flagged(self) -> bool:
        """True when the difference's interval lies above 0."""
        return self.difference_ci.defined and (self.difference_ci.low or 0.0) > 0

    def text(self) -> str:
        """One line: both shares with intervals, the difference with its interval."""
        if not self.n:
            return f"{self.what}: no pair to compare"

        def f(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"

        d = self.difference_ci
        return (
            f"{self.what}: judge {f(self.judge_share)} {self.judge_ci.formatted()} {self.judge_ci.method}, "
            f"people {f(self.people_share)} {self.people_ci.formatted()} {self.people_ci.method}; "
            f"difference {f(self.difference)} {d.formatted()} {d.method} (paired bootstrap over pairs), "
            f"n = {self.n} pairs" + ("; flagged" if self.flagged else "")
        )

    def as_dict(self) -> dict:
        """JSON-ready."""

        def iv(i: Interval) -> dict:
            return {"low": i.low, "high": i.high, "method": i.method, "note": i.note}

        return {
            "what": self.what,
            "n": self.n,
            "judge": {"share": self.judge_share, "hits": self.judge_hits, "ci": iv(self.judge_ci)},
            "people": {"share": self.people_share, "hits": self.people_hits, "ci": iv(self.people_ci)},
            "difference": {"value": self.difference, "ci": iv(self.difference_ci), "resampled": "pairs"},
            "flagged": self.flagged,
        }


def paired_shares(what: str, judge: list[bool], people: list[bool], n_resamples: int, seed: int) -> PairedShares:
    """:class:`PairedShares` of per-pair hits of the judge and of people
    (same length, same pairs)."""
    n = len(judge)
    codes = np.asarray([2 * int(j) + int(p) for j, p in zip(judge, people)], dtype=np.int64)
    jmask, pmask = np.array([0.0, 0.0, 1.0, 1.0]), np.array([0.0, 1.0, 0.0, 1.0])

    def diff(c: np.ndarray) -> np.ndarray:
        total = c.sum(axis=-1)
        with np.errstate(all="ignore"):
            return np.where(total > 0, ((c * jmask).sum(axis=-1) - (c * pmask).sum(axis=-1)) / total, np.nan)

    none = Interval(None, None, "", note="no pairs")
    diff_ci = (
        CountSample(codes, 4, {"d": diff}).intervals(["d"], n_resamples=n_resamples, seed=seed)["d"] if n else none
    )
    jh, ph = int(sum(judge)), int(sum(people))
    return PairedShares(what, n, jh, ph, proportion_interval(jh, n), proportion_interval(ph, n), diff_ci)


def length_bias(
    judge: Mapping[str, Value],
    people: Mapping[str, Value],
    lengths: Mapping[str, tuple[int, int]],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedShares:
    """Shares of wins for the longer answer (module doc). ``judge`` and
    ``people``: {pair subject: '1', '2', 'tie' or None}; ``lengths``:
    {pair subject: (length of answer 1, length of answer 2)} in characters."""
    js, ps = [], []
    for s in sorted(judge):
        j, p, ln = judge[s], people.get(s), lengths.get(s)
        if j not in WINNERS or p not in WINNERS or ln is None or ln[0] == ln[1]:
            continue
        longer = "1" if ln[0] > ln[1] else "2"
        js.append(j == longer)
        ps.append(p == longer)
    return paired_shares("longer answer wins", js, ps, n_resamples, seed)


def self_preference(
    judge_model: str,
    judge: Mapping[str, Value],
    people: Mapping[str, Value],
    models: Mapping[str, tuple[str, str]],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> PairedShares:
    """Shares of wins for the judge's own model's answer (module doc), on
    the pairs where exactly one answer's model equals ``judge_model``.
    ``models``: {pair subject: (model of answer 1, model of answer 2)}."""
    js, ps = [], []
    for s in sorted(judge):
        j, p, m = judge[s], people.get(s), models.get(s)
        if j not in WINNERS or p not in WINNERS or m is None or (m[0] == judge_model) == (m[1] == judge_model):
            continue
        own = "1" if m[0] == judge_model else "2"
        js.append(j == own)
        ps.append(p == own)
    return paired_shares(f"own model's ({judge_model}) answer wins", js, ps, n_resamples, seed)


@dataclass(frozen=True)
class ScoreLength:
    """Spearman's rho of score and length, the judge's and people's, on
    ``n`` subjects both scored (None when undefined: fewer than 3 or no
    spread)."""

    n: int
    judge_rho: float | None
    people_rho: float | None

    def text(self) -> str:
        """One line."""

        def f(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"

        return (
            f"score vs length (Spearman's rho, characters): judge {f(self.judge_rho)}, "
            f"people {f(self.people_rho)}, n = {self.n}"
        )


def score_length(judge: Mapping[str, Value], people: Mapping[str, Value], lengths: Mapping[str, int]) -> ScoreLength:
    """Rank correlation of score and length for single outputs (module doc)."""
    subjects = [s for s in sorted(judge) if judge[s] is not None and people.get(s) is not None and s in lengths]
    if len(subjects) < 3:
        return ScoreLength(len(subjects), None, None)
    from scipy.stats import spearmanr  # at first use: scipy.stats takes a second to import

    ln = np.asarray([lengths[s] for s in subjects], float)

    def rho(values: list) -> float | None:
        x = np.asarray(values, float)
        if x.std() == 0 or ln.std() == 0:
            return None
        return float(spearmanr(x, ln).statistic)

    return ScoreLength(
        len(subjects),
        rho([judge[s] for s in subjects]),
        rho([people[s] for s in subjects]),
    )


@dataclass(frozen=True)
class BothOrders:
    """A pairwise judge's accuracy over both answer orders (module doc)."""

    n: int
    correct_both: int
    correct_either: int
    consistent: int
    consistent_right: int
    swap_accuracy: float | None
    swap_accuracy_ci: Interval

    def rows(self) -> list[tuple[str, float | None, int, int, Interval]]:
        """(statistic, share, hits, n, interval) of each figure."""
        out = []
        for name, hits, n in (
            ("correct_both", self.correct_both, self.n),
            ("correct_either", self.correct_either, self.n),
            ("position_consistent_accuracy", self.consistent_right, self.consistent),
        ):
            out.append((name, hits / n if n else None, hits, n, proportion_interval(hits, n)))
        out.append(("swap_accuracy", self.swap_accuracy, 0, self.n, self.swap_accuracy_ci))
        return out

    def text(self) -> str:
        """One line per figure."""
        lines = []
        for name, share, hits, n, iv in self.rows():
            value = "-" if share is None else f"{share:.3f}"
            what = f"{hits}/{n}" if name != "swap_accuracy" else f"mean of both orders over {n} pairs"
            lines.append(f"{name}: {value} {iv.formatted()} {iv.method} ({what})")
        return "\n".join(lines)

    def as_dict(self) -> dict:
        """JSON-ready."""
        return {
            name: {"value": share, "hits": hits, "n": n, "ci_low": iv.low, "ci_high": iv.high, "method": iv.method}
            for name, share, hits, n, iv in self.rows()
        }


def both_orders(
    ab: Mapping[str, Value],
    ba: Mapping[str, Value],
    people: Mapping[str, Value],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> BothOrders:
    """The judge's accuracy over both orders (module doc). ``ab`` / ``ba``:
    {pair: verdict in that order, mapped back to the original answers}
    (None: undecided, which is wrong); ``people``: {pair: people's value};
    the pairs judged in both orders with a people's value count."""
    subjects = [s for s in sorted(ab) if s in ba and people.get(s) is not None]
    right = [(ab[s] == people[s], ba[s] == people[s]) for s in subjects]
    consistent = [ab[s] is not None and ab[s] == ba[s] for s in subjects]
    codes = np.asarray([int(x) + int(y) for x, y in right], dtype=np.int64)  # 0, 1 or 2 orders right

    def mean(c: np.ndarray) -> np.ndarray:
        total = c.sum(axis=-1)
        with np.errstate(all="ignore"):
            return np.where(total > 0, (c * np.array([0.0, 0.5, 1.0])).sum(axis=-1) / total, np.nan)

    n = len(subjects)
    sample = CountSample(codes, 3, {"swap_accuracy": mean})
    ci = (
        sample.intervals(["swap_accuracy"], n_resamples=n_resamples, seed=seed)["swap_accuracy"]
        if n
        else Interval(None, None, "", note="no pairs")
    )
    return BothOrders(
        n,
        sum(x and y for x, y in right),
        sum(x or y for x, y in right),
        sum(consistent),
        sum(c and x for c, (x, _) in zip(consistent, right)),
        float(sample.value("swap_accuracy")) if n else None,
        ci,
    )
