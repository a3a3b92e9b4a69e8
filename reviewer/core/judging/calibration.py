"""Judge calibration: how a judge's 1-5 scores are spread, whether they are
inflated, and how its values compare with adjudicated (or human) values.

Source of the expected spread: judge-calibration-plan.md, Task 2 ("Expected
distribution: Score 5 exceptional (<10 %), 4 ~40 %, 3 ~35 %, 2 ~10 %,
1 ~5 %"), whose starting point was a judge that gave every reading 5/5.

Pure Python: no SQL, Qt or HTTP.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reviewer.core.judging.dispute_common import is_human, primary_verdicts, rater_key, rater_labels, value_of
from reviewer.core.judging.stats import is_missing
from reviewer.core.judging.verdicts import Adjudication, Scale, Value, Verdict, normalise
from reviewer.core.text import natural_key

__all__ = [
    "EXPECTED_DISTRIBUTION",
    "OWN_RANGE",
    "RUBRIC_EXPECTED",
    "expected_for",
    "own_range_value",
    "EXPECTED_MEAN",
    "INFLATION_MEAN_MARGIN",
    "INFLATION_SHARE_TOLERANCE",
    "MIN_SCORES",
    "SCORES",
    "ConfusionMatrix",
    "Distribution",
    "confusion_matrix",
    "inflation_warning",
    "judge_vs_reference",
    "scale_labels",
    "score_distribution",
]

#: The scores of the 1-5 rubric, in scale order.
SCORES: tuple[int, ...] = (1, 2, 3, 4, 5)
#: Expected share of each score (judge-calibration-plan.md, Task 2). The plan
#: gives 5 as "< 10 %" and the others as approximate shares summing to 90 %;
#: the 10 % left is the bound for 5, so the shares sum to 1.
EXPECTED_DISTRIBUTION: dict[int, float] = {1: 0.05, 2: 0.10, 3: 0.35, 4: 0.40, 5: 0.10}
#: Mean score of the expected distribution (3.4).
EXPECTED_MEAN: float = round(sum(s * p for s, p in EXPECTED_DISTRIBUTION.items()), 10)
#: Inflation rule: share of 5s above the expected share by more than this.
INFLATION_SHARE_TOLERANCE = 0.05
#: Inflation rule: mean above the expected mean by more than this.
INFLATION_MEAN_MARGIN = 0.5
#: Each rubric's own expected distribution (decision: calibration-per-rubric): the plan's
#: distribution is the tarot rubric's (judge-calibration-plan.md); the
#: span-labeling judge's dimensions have none unless one is configured.
RUBRIC_EXPECTED: dict[str, tuple[tuple[str, ...], Mapping[int, float] | None]] = {
    "tarot": (("personalization", "tarot_coherence", "tone", "safety", "overall"), EXPECTED_DISTRIBUTION),
    "span-labeling": (("coverage", "precision", "granularity", "taxonomy", "technicalSpecs"), None),
}
#: Dimensions scored on their own range rather than the verdict's scale
#: (the span judge's totalScore is the 0-25 sum of its five 1-5 scores): not
#: in the 1-5 distributions, and not undecided when within the range.
OWN_RANGE: dict[str, tuple[float, float]] = {"totalScore": (0.0, 25.0)}
#: Fewer scores than this give no inflation warning (too few to judge).
MIN_SCORES = 5


@dataclass(frozen=True)
class Distribution:
    """How often one judge gave each 1-5 score on one dimension.

    ``counts``: {1..5: count} (every score present, 0 when unused); ``n``:
    scores counted; ``missing``: verdicts of the judge with this dimension
    missing or off the scale (not in n). Non-integer scores (4.5) are counted
    at the nearest score, halves rounded up.
    """

    judge: str
    dimension: str
    counts: Mapping[int, int]
    n: int
    missing: int = 0
    total: float = 0.0  # sum of the raw scores, for the mean

    @property
    def shares(self) -> dict[int, float]:
        """{1..5: count / n} (all 0.0 when n = 0)."""
        return {s: (self.counts.get(s, 0) / self.n if self.n else 0.0) for s in SCORES}

    @property
    def mean(self) -> float | None:
        """Mean of the raw scores, None when n = 0."""
        return self.total / self.n if self.n else None


def expected_for(
    dimension: str, configured: Mapping[str, Mapping[int, float]] | None = None
) -> Mapping[int, float] | None:
    """The expected 1-5 distribution of ``dimension``: the configured one
    when given, else its rubric's own (RUBRIC_EXPECTED; None for the span
    judge's dimensions), else the plan's (EXPECTED_DISTRIBUTION) for
    dimensions of no known rubric (decision: calibration-per-rubric)."""
    if configured and dimension in configured:
        return configured[dimension]
    for dims, dist in RUBRIC_EXPECTED.values():
        if dimension in dims:
            return dist
    return EXPECTED_DISTRIBUTION


def own_range_value(v: Verdict, dimension: str) -> float | None:
    """The value of a dimension scored on its own range (OWN_RANGE, e.g.
    totalScore 0-25), None when it is not such a dimension or not a number
    within its range."""
    rng = OWN_RANGE.get(dimension)
    raw = v.scores.get(dimension)
    if rng is None or isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return None
    return float(raw) if rng[0] <= raw <= rng[1] else None


def _bucket(x: float) -> int:
    return min(5, max(1, int(x + 0.5)))


def score_distribution(verdicts: Iterable[Verdict], include_humans: bool = False) -> list[Distribution]:
    """Score distribution per judge and dimension over the 1-5 verdicts.

    Args:
        verdicts: any verdicts; only those on the 1-5 scale count. Every
            verdict counts (all subjects, repetitions and answer orders).
        include_humans: also count human raters (method 'human').

    Returns:
        One Distribution per (judge display name, dimension), sorted by judge
        then dimension. Judge names as :func:`reviewer.core.judging.dispute_common.rater_labels`.
    """
    vs = [v for v in verdicts if v.scale == Scale.ORDINAL5 and (include_humans or not is_human(v))]
    labels = rater_labels(vs)
    acc: dict[tuple[str, str], list] = {}
    for v in vs:
        label = labels[rater_key(v)]
        for dim in v.scores:
            if dim in OWN_RANGE:
                continue  # not a 1-5 score (e.g. totalScore 0-25)
            counts, stats = acc.setdefault((label, dim), [dict.fromkeys(SCORES, 0), [0, 0, 0.0]])
            x = value_of(v, dim)
            if x is None:
                stats[1] += 1
                continue
            counts[_bucket(float(x))] += 1
            stats[0] += 1
            stats[2] += float(x)
    return [
        Distribution(judge=j, dimension=d, counts=c, n=s[0], missing=s[1], total=s[2])
        for (j, d), (c, s) in sorted(acc.items(), key=lambda kv: (natural_key(kv[0][0]), kv[0][1]))
    ]


def inflation_warning(
    dist: Distribution,
    expected: Mapping[int, float] | None = EXPECTED_DISTRIBUTION,
    share_tolerance: float = INFLATION_SHARE_TOLERANCE,
    mean_margin: float = INFLATION_MEAN_MARGIN,
    min_n: int = MIN_SCORES,
) -> str | None:
    """A warning text when a judge's scores look inflated, else None.

    Rule (documented in docs/judging.md, "Calibration"): with at least ``min_n``
    scores, the judge is inflated when the share of 5s exceeds the expected
    share of 5s plus ``share_tolerance`` (0.10 + 0.05 = 15 %, the plan's
    target "Score 5 rate < 15 %"), or when its mean exceeds the expected mean
    plus ``mean_margin`` (3.4 + 0.5 = 3.9). The text names the judge,
    dimension, the share of 5s and the mean. No warning when ``expected``
    is None (the dimension's rubric has no expected distribution).
    """
    if dist.n < min_n or expected is None:
        return None
    share5 = dist.shares[5]
    exp5 = expected.get(5, 0.0)
    exp_mean = sum(s * p for s, p in expected.items()) / (sum(expected.values()) or 1.0)
    reasons = []
    if share5 > exp5 + share_tolerance:
        reasons.append(f"{share5:.0%} of scores are 5 (expected < {exp5:.0%} + {share_tolerance:.0%})")
    mean = dist.mean or 0.0
    if mean > exp_mean + mean_margin:
        reasons.append(f"mean {mean:.2f} > expected {exp_mean:.2f} + {mean_margin:g}")
    if not reasons:
        return None
    return f"{dist.judge} / {dist.dimension}: inflated: " + "; ".join(reasons) + f" (n = {dist.n})"


def scale_labels(scale: Scale, observed: Iterable[Any] = ()) -> list[Any]:
    """The labels of a scale in scale order, with any other observed values
    merged in order: 1-5 -> [1.0 .. 5.0]; A-F -> [20, 40, 60, 80, 100]
    (F..A as points); C/I/P -> [0, 50, 100] (I, P, C as points); 0-100 -> the observed values sorted; pass/fail ->
    ['fail', 'pass']; winner -> ['1', '2', 'tie']. Missing values are left
    out."""
    seen = [x for x in observed if not is_missing(x)]
    if scale == Scale.ORDINAL5:
        base: list[Any] = [1.0, 2.0, 3.0, 4.0, 5.0]
    elif scale == Scale.GRADE:
        base = [20.0, 40.0, 60.0, 80.0, 100.0]
    elif scale == Scale.CIP:
        base = [0.0, 50.0, 100.0]
    elif scale == Scale.PERCENT:
        base = []
    elif scale == Scale.PASS_FAIL:
        return ["fail", "pass"] + sorted({x for x in seen if x not in ("fail", "pass")}, key=str)
    else:
        return ["1", "2", "tie"] + sorted({x for x in seen if x not in ("1", "2", "tie")}, key=str)
    return sorted(set(base) | {float(x) for x in seen})


@dataclass(frozen=True)
class ConfusionMatrix:
    """Counts of (judge value, reference value) pairs.

    ``labels`` in scale order; ``counts[i][j]``: items the judge rated
    ``labels[i]`` and the reference ``labels[j]`` (rows judge, columns
    reference). ``skipped``: pairs with a missing value on either side.
    """

    judge: str
    dimension: str
    reference: str
    labels: list[Any]
    counts: list[list[int]]
    skipped: int = 0
    scale: Scale | None = None

    @property
    def n(self) -> int:
        """Pairs counted."""
        return sum(map(sum, self.counts))

    @property
    def agreement(self) -> float | None:
        """Share on the diagonal, None when n = 0."""
        n = self.n
        return sum(self.counts[i][i] for i in range(len(self.labels))) / n if n else None


def confusion_matrix(
    pairs: Iterable[tuple[Any, Any]],
    labels: Sequence[Any] | None = None,
    *,
    judge: str = "judge",
    dimension: str = "",
    reference: str = "adjudicated",
    scale: Scale | None = None,
) -> ConfusionMatrix:
    """Confusion matrix of (judge value, reference value) pairs.

    Args:
        pairs: the pairs; a pair with a missing value (None/NaN) is skipped
            and counted in ``skipped``.
        labels: the labels in scale order; default :func:`scale_labels` of
            ``scale`` when given, else the observed values sorted.
        judge, dimension, reference: names carried into the result.

    Raises:
        ValueError: a value not in ``labels``.
    """
    kept, skipped = [], 0
    for a, b in pairs:
        if is_missing(a) or is_missing(b):
            skipped += 1
        else:
            kept.append((a, b))
    observed = [x for p in kept for x in p]
    if labels is None:
        labels = scale_labels(scale, observed) if scale is not None else sorted(set(observed), key=_sort_key)
    labels = list(labels)
    index = {x: i for i, x in enumerate(labels)}
    counts = [[0] * len(labels) for _ in labels]
    for a, b in kept:
        if a not in index or b not in index:
            raise ValueError(f"value not in labels: {a if a not in index else b!r}")
        counts[index[a]][index[b]] += 1
    return ConfusionMatrix(
        judge=judge,
        dimension=dimension,
        reference=reference,
        labels=labels,
        counts=counts,
        skipped=skipped,
        scale=scale,
    )


def _sort_key(x: Any) -> tuple:
    return (0, float(x), "") if isinstance(x, (int, float)) else (1, 0.0, str(x))


def judge_vs_reference(
    verdicts: Iterable[Verdict],
    adjudications: Iterable[Adjudication] = (),
    reference: str = "adjudicated",
) -> list[ConfusionMatrix]:
    """Confusion matrices of every non-human judge against a reference, per
    dimension, over the subjects that have the reference.

    ``reference='adjudicated'``: the adjudicated values (normalised on the
    judge's scale). ``reference='human'``: the 'gold' human label when
    present, else the majority of the human raters
    (:func:`reviewer.core.judging.agreement.majority`; a tie is no reference).
    The judge's value is its primary verdict
    (:func:`reviewer.core.judging.dispute_common.primary_verdicts`). Rows with no pair
    at all are left out; sorted by judge and dimension.
    """
    from reviewer.core.judging.dispute_common import GOLD
    from reviewer.core.judging.pairwise_agreement import majority

    vs = list(verdicts)
    judges = [v for v in vs if not is_human(v)]
    labels = rater_labels(judges)
    refs: dict[tuple[str, str], Value] = {}
    if reference == "adjudicated":
        adj = {(a.subject, a.dimension): a.value for a in adjudications}
        scale_of = {(v.subject, d): v.scale for v in judges for d in v.scores}
        for key, value in adj.items():
            if key in scale_of:
                refs[key] = normalise(value, scale_of[key])
    elif reference == "human":
        humans = primary_verdicts(v for v in vs if is_human(v))
        by_key: dict[tuple[str, str], list[Verdict]] = {}
        for (subject, _), h in humans.items():
            for d in h.scores:
                by_key.setdefault((subject, d), []).append(h)
        for key, hs in by_key.items():
            gold = [value_of(h, key[1]) for h in hs if h.judge == GOLD and value_of(h, key[1]) is not None]
            refs[key] = gold[0] if gold else majority(value_of(h, key[1]) for h in hs)
    else:
        raise ValueError(f"reference must be 'adjudicated' or 'human', got {reference!r}")
    pairs: dict[tuple[str, str, Scale], list[tuple[Value, Value]]] = {}
    for (subject, rater), v in primary_verdicts(judges).items():
        for d in v.scores:
            if (subject, d) in refs:
                pairs.setdefault((labels[rater], d, v.scale), []).append((value_of(v, d), refs[(subject, d)]))
    out = []
    for (judge, dim, scale), ps in sorted(pairs.items(), key=lambda kv: (natural_key(kv[0][0]), kv[0][1])):
        out.append(confusion_matrix(ps, judge=judge, dimension=dim, reference=reference, scale=scale))
    return out
