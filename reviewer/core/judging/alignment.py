"""Alignment of a judge with people, per judge and dimension (and per split).

*People's value* of a subject's dimension
(reviewer.core.judging.people.people_values): the adjudicated value when
there is one, else the 'gold' human label, else the majority of every
person's final value, label-first labels included (a tie is no value and
is counted apart). A judge's value is its primary verdict
(reviewer.core.judging.dispute_common.primary_verdicts); an undecided verdict
(garbage) on a labelled subject is counted and left out.

Figures per judge x dimension x scale, over the labelled subjects of each
split ('all', then 'train', 'dev', 'test' when a split function is given):

* the confusion matrix (rows judge, columns people) and per-class
  precision, recall and F1 (a class: a value of the scale);
* Cohen's kappa with its 95 % bootstrap interval ('too few' below 10
  subjects or when every resample is the same): quadratic weights by
  value on numeric scales (1-5, A-F, 0-100), unweighted on pass/fail and
  pairwise winners;
* MAE and Spearman's rho on numeric scales;
* TPR (share of what people pass that the judge passes) and TNR (share of
  what people fail that the judge fails), with Wilson intervals
  (Clopper-Pearson at the boundary: 0 or all). Pass/fail is
  native; other numeric scales pass at a threshold (:data:`PASS_THRESHOLD`:
  >= 4 on 1-5, >= B on A-F, >= 70 on 0-100, C on C/I/P; a setting per
  dimension, read on the dimension's own scale: :func:`read_pass_threshold`).
  Pairwise winners have no pass;
* the **dangerous cells**: subjects the judge passes while people fail them
  (pass/fail), or, on numeric scales, where the judge is at or above the
  pass threshold while people are at or below the low mark
  (:data:`LOW_MARK`: 2 on 1-5, D on A-F, 40 on 0-100).

The splits: :func:`hash_split` puts each subject in train, dev or test by a
seeded hash of its id, so a subject never moves as labels arrive; any
``split_of(subject) -> name`` function plugs in instead. Pure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reviewer.core.bounds import is_number
from reviewer.core.judging.calibration import scale_labels
from reviewer.core.judging.count_stats import CountSample, pair_sample, value_weights, weighted_sample
from reviewer.core.judging.dispute_common import (
    NUMERIC_SCALES,
    format_value,
    is_human,
    primary_verdicts,
    rater_labels,
    value_of,
)
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval
from reviewer.core.judging.people import TIE, people_values
from reviewer.core.judging.splits import SPLITS
from reviewer.core.judging.verdicts import CIP_POINTS, GRADE_POINTS, Adjudication, Scale, Value, Verdict, normalise
from reviewer.core.text import natural_key

__all__ = [
    "LOW_MARK",
    "PASS_THRESHOLD",
    "Alignment",
    "ClassScores",
    "Dangerous",
    "Figures",
    "align",
    "alignments",
    "is_pass",
    "read_pass_threshold",
]

#: Default pass threshold per scored scale: a value at or above it passes.
PASS_THRESHOLD: dict[Scale, float] = {
    Scale.ORDINAL5: 4.0,
    Scale.GRADE: GRADE_POINTS["B"],
    Scale.PERCENT: 70.0,
    Scale.CIP: CIP_POINTS["C"],
}
#: People's value at or below which a judge's pass is dangerous (numeric scales).
LOW_MARK: dict[Scale, float] = {
    Scale.ORDINAL5: 2.0,
    Scale.GRADE: GRADE_POINTS["D"],
    Scale.PERCENT: 40.0,
    Scale.CIP: CIP_POINTS["I"],
}

#: The letters a pass threshold may be given in, per lettered scale, as points.
_THRESHOLD_LETTERS: dict[Scale, dict[str, float]] = {Scale.GRADE: GRADE_POINTS, Scale.CIP: CIP_POINTS}


def read_pass_threshold(setting: float | str, scale: Scale | None, dimension: str) -> float:
    """A pass threshold as set for ``dimension`` (the project's
    ``alignment.pass_threshold``) read on the dimension's own ``scale``, as
    the scale's stored values: a number as it is (points on A-F, 0-100 and
    C/I/P; 1-5 on 1-5); a letter on the scale's own letters, A-F's grades
    (GRADE_POINTS: "C" is 60) or C/I/P's C, P, I (CIP_POINTS: "C" is 100).
    With the scale unknown (None) a letter only one lettered scale has is
    read on it.

    Raises:
        ValueError: one line naming the dimension and the cause: a letter
            the scale does not have (or a scale without letters), a letter
            of both A-F and C/I/P ("C") while the scale is unknown, a
            setting that is neither a number nor a letter.
    """
    number = _finite(setting)
    if number is not None:
        return number
    if not isinstance(setting, str) or not setting.strip():
        raise ValueError(f"pass threshold of {dimension} must be a number or a letter, got {setting!r}")
    text = setting.strip()
    letter = text.upper()
    if scale is None:
        found = {s: letters[letter] for s, letters in _THRESHOLD_LETTERS.items() if letter in letters}
        if len(found) > 1:
            readings = " or ".join(f"{points:g} points on {s.value}" for s, points in found.items())
            raise ValueError(
                f"pass threshold {text!r} of {dimension} is ambiguous while its scale is unknown: {readings}"
            )
        if found:
            return next(iter(found.values()))
        raise ValueError(f"pass threshold {text!r} of {dimension} is no letter of A-F or C/I/P")
    letters = _THRESHOLD_LETTERS.get(scale)
    if letters is None:
        raise ValueError(
            f"pass threshold {text!r} of {dimension}: the scale {scale.value} has no letters, give a number"
        )
    if letter not in letters:
        raise ValueError(
            f"pass threshold {text!r} of {dimension} is no letter of its scale {scale.value} ({', '.join(letters)})"
        )
    return letters[letter]


def _finite(setting: object) -> float | None:
    """A number, or a string holding one, as a finite float; else None."""
    if not is_number(setting) and not isinstance(setting, str):
        return None
    try:
        number = float(setting)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def is_pass(value: Value, scale: Scale, threshold: float | None = None) -> bool | None:
    """Whether a value passes: 'pass' on pass/fail; >= the threshold
    (default :data:`PASS_THRESHOLD`) on numeric scales; None for a missing
    value or a pairwise winner."""
    if value is None:
        return None
    if scale == Scale.PASS_FAIL:
        return value == "pass"
    if scale in PASS_THRESHOLD:
        return float(value) >= (PASS_THRESHOLD[scale] if threshold is None else threshold)
    return None


def _is_dangerous(judge: Value, people: Value, scale: Scale, threshold: float | None) -> bool:
    if scale == Scale.PASS_FAIL:
        return judge == "pass" and people == "fail"
    if scale in LOW_MARK:
        if not is_pass(judge, scale, threshold):
            return False
        assert people is not None  # a judge and a person decided every row
        return float(people) <= LOW_MARK[scale]
    return False


@dataclass(frozen=True)
class ClassScores:
    """Precision, recall and F1 of one class (None when 0/0); ``support``:
    subjects people put in it."""

    label: str
    precision: float | None
    recall: float | None
    f1: float | None
    support: int


@dataclass(frozen=True)
class Dangerous:
    """A dangerous cell's subject: the judge's and the people's value."""

    subject: str
    judge: str
    people: str


@dataclass(frozen=True)
class Figures:
    """Alignment figures over the labelled subjects of one split (module doc)."""

    split: str
    n: int
    undecided: int
    labels: list[str]
    counts: list[list[int]]
    per_class: list[ClassScores]
    kappa_statistic: str
    kappa: float | None
    kappa_ci: Interval
    mae: float | None
    spearman: float | None
    positives: int
    negatives: int
    tpr: float | None
    tnr: float | None
    tpr_ci: Interval
    tnr_ci: Interval
    dangerous: list[Dangerous]
    true_positives: int = 0
    true_negatives: int = 0
    #: kappa's bootstrap interval at another confidence level (the gate's
    #: Bonferroni levels), from the same subjects, resamples and seed.
    kappa_at: Callable[[float], Interval] | None = field(default=None, compare=False, repr=False)
    #: labels of an active draw weigh 1 / pi: kappa, TPR and TNR are
    #: weighted, TPR and TNR bootstrapped (``rates_at``: {'tpr', 'tnr':
    #: Interval} at another level); the confusion matrix stays counts.
    weighted: bool = False
    rates_at: Callable[[float], dict[str, Interval]] | None = field(default=None, compare=False, repr=False)

    def as_dict(self) -> dict:
        """JSON-ready: intervals as {low, high, method}."""

        def iv(i: Interval) -> dict:
            return {"low": i.low, "high": i.high, "method": i.method, "note": i.note}

        return {
            "split": self.split,
            "n": self.n,
            "undecided": self.undecided,
            "confusion": {"labels": self.labels, "counts": self.counts, "rows": "judge", "columns": "people"},
            "per_class": [vars(c) for c in self.per_class],
            "kappa": {
                "statistic": self.kappa_statistic,
                "value": self.kappa,
                **{f"ci_{k}": v for k, v in iv(self.kappa_ci).items()},
            },
            "mae": self.mae,
            "spearman": self.spearman,
            "positives": self.positives,
            "negatives": self.negatives,
            "tpr": {
                "value": self.tpr,
                "n": self.positives,
                "hits": self.true_positives,
                **{f"ci_{k}": v for k, v in iv(self.tpr_ci).items()},
            },
            "tnr": {
                "value": self.tnr,
                "n": self.negatives,
                "hits": self.true_negatives,
                **{f"ci_{k}": v for k, v in iv(self.tnr_ci).items()},
            },
            "dangerous": [vars(d) for d in self.dangerous],
            "weighted": "labels of an active draw weigh 1 / pi (Horvitz-Thompson)" if self.weighted else None,
        }


@dataclass(frozen=True)
class Alignment:
    """One judge's alignment with people on one dimension (module doc).

    ``threshold``: the pass threshold used (None: pass/fail or winner);
    ``people``: {source: labelled subjects}; ``tied``: subjects the judge
    scored whose people tie (no people's value; neither labelled nor
    unlabelled); ``splits``: figures for 'all'
    then each split with labelled subjects; ``unlabelled``: the judge's
    decided values on subjects people have not labelled, as
    (subject, passes) (passes None on a winner scale); ``labelled``: the
    labelled subjects with a decided judge value, as (subject, split,
    judge passes, people pass) (split 'all' without a split function).
    """

    judge: str
    dimension: str
    scale: Scale
    threshold: float | None
    people: dict[str, int]
    splits: list[Figures]
    unlabelled: list[tuple[str, bool | None]] = field(default_factory=list)
    labelled: list[tuple[str, str, bool | None, bool | None]] = field(default_factory=list)
    tied: int = 0

    def figures(self, split: str = "all") -> Figures | None:
        """The figures of one split, None when it has no labelled subject."""
        return next((f for f in self.splits if f.split == split), None)


def _safe(num: float, den: float) -> float | None:
    return num / den if den else None


def _figures(
    split: str,
    rows: Sequence[tuple[str, Value, Value]],
    undecided: int,
    scale: Scale,
    threshold: float | None,
    labels: list,
    n_resamples: int,
    seed: int,
    weight_of: Mapping[str, float] | None = None,
) -> Figures:
    index = {x: i for i, x in enumerate(labels)}
    subject_weights = [(weight_of or {}).get(s, 1.0) for s, _, _ in rows]
    weighted = any(w != 1.0 for w in subject_weights)
    k = len(labels)
    counts = [[0] * k for _ in labels]
    for _, j, p in rows:
        counts[index[j]][index[p]] += 1
    per_class = []
    for i, lab in enumerate(labels):
        tp = counts[i][i]
        said = sum(counts[i])
        support = sum(counts[r][i] for r in range(k))
        precision, recall = _safe(tp, said), _safe(tp, support)
        f1 = (
            2 * precision * recall / (precision + recall)
            if precision and recall
            else (0.0 if precision is not None and recall is not None else None)
        )
        if said or support:
            per_class.append(ClassScores(format_value(lab, scale), precision, recall, f1, support))
    numeric = scale in NUMERIC_SCALES
    judge_vals = [j for _, j, _ in rows]
    people_vals = [p for _, _, p in rows]
    weights = value_weights(labels) if numeric else None
    sample = pair_sample(judge_vals, people_vals, labels, weights=weights)
    if weighted:  # labels of an active draw weigh 1 / pi (reviewer.core.judging.active_order)
        sample = weighted_sample(sample, subject_weights)
    kappa_name = "cohen_kappa_weighted" if numeric else "cohen_kappa"
    none = Interval(None, None, "", note="no subjects")
    kappa = sample.value(kappa_name) if rows else float("nan")
    kappa_ci = sample.intervals([kappa_name], n_resamples=n_resamples, seed=seed)[kappa_name] if rows else none
    mae = spearman = None
    if numeric and rows:
        a, b = np.asarray(judge_vals, float), np.asarray(people_vals, float)
        mae = float(np.mean(np.abs(a - b)))
        if len(rows) > 1 and a.std() > 0 and b.std() > 0:
            from scipy.stats import spearmanr  # imported when first needed: scipy.stats takes a second to load

            spearman = float(spearmanr(a, b).statistic)
    tpr = tnr = None
    tpr_ci = tnr_ci = none
    positives = negatives = true_positives = true_negatives = 0
    rates_at = None
    if scale in PASS_THRESHOLD or scale == Scale.PASS_FAIL:
        codes = np.array(
            [2 * bool(is_pass(j, scale, threshold)) + bool(is_pass(p, scale, threshold)) for _, j, p in rows],
            dtype=np.int64,
        )
        rates = CountSample(
            codes,
            4,
            {"tpr": lambda c: _rate(c[..., 3], c[..., 1]), "tnr": lambda c: _rate(c[..., 0], c[..., 2])},
            proportions={  # code 2 x judge passes + people pass; TPR over people's passes, TNR over their fails
                "tpr": (np.array([0.0, 0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0, 1.0])),
                "tnr": (np.array([1.0, 0.0, 0.0, 0.0]), np.array([1.0, 0.0, 1.0, 0.0])),
            },
        )
        if weighted:
            rates = weighted_sample(rates, subject_weights)
        positives, negatives = int(np.sum(codes % 2 == 1)), int(np.sum(codes % 2 == 0))
        true_positives, true_negatives = int(np.sum(codes == 3)), int(np.sum(codes == 0))
        tpr, tnr = _nan_none(rates.value("tpr")) if rows else None, _nan_none(rates.value("tnr")) if rows else None
        if rows:
            found = rates.intervals(["tpr", "tnr"], n_resamples=n_resamples, seed=seed)
            tpr_ci, tnr_ci = found["tpr"], found["tnr"]
            if weighted:
                weighted_rates = rates
                rates_at = lambda level: weighted_rates.intervals(  # noqa: E731
                    ["tpr", "tnr"], n_resamples=n_resamples, seed=seed, confidence_level=level
                )
    dangerous = [
        Dangerous(s, format_value(j, scale), format_value(p, scale))
        for s, j, p in rows
        if _is_dangerous(j, p, scale, threshold)
    ]
    return Figures(
        split,
        len(rows),
        undecided,
        [format_value(x, scale) for x in labels],
        counts,
        per_class,
        kappa_name,
        _nan_none(kappa),
        kappa_ci,
        mae,
        spearman,
        positives,
        negatives,
        tpr,
        tnr,
        tpr_ci,
        tnr_ci,
        dangerous,
        true_positives,
        true_negatives,
        (
            (
                lambda level: sample.intervals(
                    [kappa_name], n_resamples=n_resamples, seed=seed, confidence_level=level
                )[kappa_name]
            )
            if rows
            else None
        ),
        weighted,
        rates_at,
    )


def _rate(hit: np.ndarray, miss: np.ndarray) -> np.ndarray:
    total = hit + miss
    with np.errstate(all="ignore"):
        return np.where(total > 0, hit / total, np.nan)


def _nan_none(x: float) -> float | None:
    return None if x != x else float(x)


def align(
    judge: str,
    dimension: str,
    scale: Scale,
    judge_values: Mapping[str, Value],
    people: Mapping[str, tuple[Value, str]],
    *,
    threshold: float | None = None,
    split_of: Callable[[str], str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    weights: Mapping[str, float] | None = None,
) -> Alignment:
    """The alignment of one judge on one dimension (module doc).

    Args:
        judge_values: {subject: the judge's normalised value} (None: undecided).
        people: {subject: (people's value normalised on ``scale``, source)};
            source 'tie' (value None): people tie, counted in ``tied``.
        threshold: pass threshold (default :data:`PASS_THRESHOLD` of the scale).
        split_of: subject -> split name; None gives the figures of 'all' only.
        n_resamples, seed: of the bootstrap intervals.
        weights: {subject: weight} (1 / pi of an active draw; others 1):
            kappa, TPR and TNR are weighted and bootstrapped.
    """
    if threshold is None:
        threshold = PASS_THRESHOLD.get(scale)
    rows: list[tuple[str, Value, Value]] = []
    undecided: list[str] = []
    unlabelled: list[tuple[str, bool | None]] = []
    sources: dict[str, int] = {}
    tied = 0
    for subject in sorted(judge_values, key=natural_key):
        value = judge_values[subject]
        ref = people.get(subject)
        if ref is not None and ref[1] == TIE:
            tied += 1
            continue
        if ref is None or ref[0] is None:
            if value is not None:
                unlabelled.append((subject, is_pass(value, scale, threshold)))
            continue
        sources[ref[1]] = sources.get(ref[1], 0) + 1
        if value is None:
            undecided.append(subject)
        else:
            rows.append((subject, value, ref[0]))
    labels = scale_labels(scale, [x for _, j, p in rows for x in (j, p)])
    splits = [_figures("all", rows, len(undecided), scale, threshold, labels, n_resamples, seed, weights)]
    if split_of is not None:
        for name in SPLITS:
            part = [r for r in rows if split_of(r[0]) == name]
            lost = sum(1 for s in undecided if split_of(s) == name)
            if part or lost:
                splits.append(_figures(name, part, lost, scale, threshold, labels, n_resamples, seed, weights))
    labelled = [
        (s, split_of(s) if split_of else "all", is_pass(j, scale, threshold), is_pass(p, scale, threshold))
        for s, j, p in rows
    ]
    return Alignment(
        judge,
        dimension,
        scale,
        threshold if scale in PASS_THRESHOLD else None,
        sources,
        splits,
        unlabelled,
        labelled,
        tied,
    )


def alignments(
    verdicts: Iterable[Verdict],
    adjudications: Iterable[Adjudication] = (),
    *,
    thresholds: Mapping[str, float | str] | None = None,
    split_of: Callable[[str], str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    people: Mapping[tuple[str, str], tuple[Any, str, Scale | None]] | None = None,
    only: tuple[str, str] | None = None,
    weights: Mapping[tuple[str, str], Mapping[str, float]] | None = None,
) -> list[Alignment]:
    """The alignment (:func:`align`) of every non-human judge on every
    dimension it scored that people labelled, sorted by judge and
    dimension. ``thresholds``: {dimension: pass threshold} overriding
    :data:`PASS_THRESHOLD`, a number or a letter read on each scale the
    dimension is scored on (:func:`read_pass_threshold`, whose ValueError
    it raises; ignored on pass/fail and winner scales).
    ``people``: people's values in the form of :func:`people_values`
    (default: :func:`people_values` of the verdicts and adjudications).
    ``only``: (judge, dimension) to compute alone (each alignment's
    bootstrap has its own ``seed``, so it is the same figure as among all);
    ``weights``: {(judge, dimension): {subject: weight}} (:func:`align`)."""
    vs = list(verdicts)
    people = people_values(vs, adjudications) if people is None else people
    judges = [v for v in vs if not is_human(v)]
    labels = rater_labels(judges)
    values: dict[tuple[str, str, Scale], dict[str, Value]] = {}
    for (subject, rater), v in primary_verdicts(judges).items():
        for d in v.scores:
            values.setdefault((labels[rater], d, v.scale), {})[subject] = value_of(v, d)
    out = []
    for (judge, dim, scale), vals in sorted(
        values.items(), key=lambda kv: (natural_key(kv[0][0]), kv[0][1], kv[0][2].value)
    ):
        if only is not None and (judge, dim) != only:
            continue
        refs: dict[str, tuple[Value, str]] = {}
        for subject in vals:
            ref = people.get((subject, dim))
            if ref is not None and ref[2] in (None, scale):  # people on another scale are not comparable
                if ref[1] == TIE:
                    refs[subject] = (None, TIE)
                    continue
                value = normalise(ref[0], scale)
                if value is not None:
                    refs[subject] = (value, ref[1])
        if not any(src != TIE for _, src in refs.values()):
            continue
        setting = (thresholds or {}).get(dim) if scale in PASS_THRESHOLD else None
        threshold = None if setting is None else read_pass_threshold(setting, scale, dim)
        out.append(
            align(
                judge,
                dim,
                scale,
                vals,
                refs,
                threshold=threshold,
                split_of=split_of,
                n_resamples=n_resamples,
                seed=seed,
                weights=(weights or {}).get((judge, dim)),
            )
        )
    return out
