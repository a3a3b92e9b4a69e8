"""The verdict table of the judge report (reviewer.storage.judging.report
places it; docs/judging.md;
ground-truth-judge-proposal.md §3.2, §4.2), and the --weights it takes.

Verdict table (one row per model x prompt x scale x judge family), in the form
the ground-truth-judge proposal describes:

* ``Avg_Score``: the mean over the group's runs of each run's score. A run's
  score from one verdict is :func:`verdict_score`. For the *dual judges*
  (methods 'rules-based' and 'ground-truth', Failter Path B) a run judged by
  both scores ``w_rules x Rules + w_gt x GT`` with the ``--weights rules:gt``
  normalised to sum 1 (default 0.5:0.5); a run judged by one of them scores
  that judge's value (Path A, and Path B without a ground-truth file).
  Several verdicts of one method on a run (repetitions, judges) are averaged
  first.
* ``Rules_Score`` / ``GT_Score``: the mean rules-based / ground-truth score
  over the runs that have one ('-' when none).
* ``Eval_Method``: which methods the row's scores come from:
  'rules-based', 'ground-truth', 'rules-based+ground-truth' (both on every
  run), 'mixed: ...' with run counts per combination (scores of different
  methods are not directly comparable, proposal §3.2), or the method of other
  judges (e.g. 'rubric'), which get one row per judge.
* Human and pairwise verdicts and verdicts without a numeric score are not in
  this table (pairwise judges are in the agreement table).

Model and prompt come from the verdict's run (``run_id``); a verdict without
a known run is listed under model '-' and its subject.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from reviewer.core.judging.dispute_common import NUMERIC_SCALES, is_human, rater_key, rater_labels, value_of
from reviewer.core.judging.verdicts import Method, Scale, Verdict, path_b_score, points
from reviewer.core.text import natural_key

#: Default --weights (rules:gt).
DEFAULT_WEIGHTS = (0.5, 0.5)
#: The dimension that is a verdict's score, first present wins.
SCORE_DIMENSIONS = ("overall", "score", "grade")
_DUAL = (Method.RULES, Method.GROUND_TRUTH)
VERDICT_HEADER = ["Model", "Prompt", "Judge", "Eval_Method", "Scale", "Runs", "Avg_Score", "Rules_Score", "GT_Score"]


def parse_weights(text: str) -> tuple[float, float]:
    """``'0.4:0.6'`` -> (0.4, 0.6): the rules:gt weights normalised to sum 1.

    Raises:
        ValueError: not two numbers separated by ':', a negative, NaN or
            infinite number, or both zero.
    """
    parts = str(text).strip().split(":")
    if len(parts) != 2:
        raise ValueError(f"weights must be RULES:GT, two numbers such as 0.4:0.6, got '{text}'")
    try:
        rules, gt = (float(p) for p in parts)
    except ValueError:
        raise ValueError(f"weights must be two numbers such as 0.4:0.6, got '{text}'") from None
    if not (math.isfinite(rules) and math.isfinite(gt)) or rules < 0 or gt < 0:
        raise ValueError(f"weights must be non-negative numbers, got '{text}'")
    total = rules + gt
    if total == 0:
        raise ValueError("weights must not both be 0")
    return rules / total, gt / total


def verdict_score(v: Verdict) -> float | None:
    """The one number that stands for a verdict in the verdict table: the
    first of :data:`SCORE_DIMENSIONS` ('overall', 'score', 'grade') with a
    value, else the mean of its numeric dimensions; None for scales without
    numbers (pass/fail, winner) or when every value is missing. Grades are in
    points (A=100 ... F=20), 1-5 and 0-100 as they are."""
    if v.scale not in NUMERIC_SCALES:
        return None
    for dim in SCORE_DIMENSIONS:
        x = value_of(v, dim)
        if x is not None:
            return float(x)
    values = [value_of(v, d) for d in v.scores]
    nums = [float(x) for x in values if x is not None]
    return sum(nums) / len(nums) if nums else None


def verdict_points(v: Verdict) -> float | None:
    """The verdict's number in points 0-100 by the one map per scale
    (reviewer.core.judging.verdicts.POINTS_MAP): :func:`verdict_score` for
    the numeric scales, the first decided value for pass/fail (pass 100,
    fail 0); None for a winner or when every value is missing. The Failter
    table and the verdict table read verdicts through it."""
    if v.scale == Scale.PASS_FAIL:
        decided = [value_of(v, d) for d in v.scores]
        return next((points(x, v.scale) for x in decided if x is not None), None)
    return points(verdict_score(v), v.scale)


@dataclass(frozen=True)
class VerdictRow:
    """One row of the verdict table (module docstring); scores None = '-'."""

    model: str
    prompt: str
    judge: str
    eval_method: str
    scale: str
    runs: int
    avg_score: float | None
    rules_score: float | None = None
    gt_score: float | None = None

    def cells(self, digits: int = 2) -> list[str]:
        """The row as text cells in VERDICT_HEADER order."""
        f = lambda x: "-" if x is None else f"{x:.{digits}f}"  # noqa: E731
        return [
            self.model,
            self.prompt,
            self.judge,
            self.eval_method,
            self.scale,
            str(self.runs),
            f(self.avg_score),
            f(self.rules_score),
            f(self.gt_score),
        ]


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _run_mean(by: Mapping[Method, list[float]]) -> float:
    """The mean of a run's scores over all its methods (every run grouped has one)."""
    scores = [x for xs in by.values() for x in xs]
    return sum(scores) / len(scores)


def verdict_table(
    verdicts: Iterable[Verdict],
    runs: Mapping[int, Mapping[str, str]],
    weights: tuple[float, float] = DEFAULT_WEIGHTS,
) -> list[VerdictRow]:
    """The verdict table (module docstring) of ``verdicts``.

    Args:
        verdicts: any verdicts (human, pairwise and non-numeric ones are
            left out).
        runs: {run id: {'model': ..., 'prompt': ...}}.
        weights: (rules, gt), non-negative; normalised here to sum 1.

    Returns:
        Rows sorted by model, prompt, scale and judge.
    """
    total = sum(weights) or 1.0
    w_rules, w_gt = weights[0] / total, weights[1] / total
    vs = [v for v in verdicts if not is_human(v) and v.method != Method.PAIRWISE and v.other_run_id is None]
    labels = rater_labels(vs)
    # group -> run key -> method -> scores
    groups: dict[tuple, dict[object, dict[Method, list[float]]]] = {}
    judges: dict[tuple, dict[Method, set]] = {}
    for v in vs:
        score = verdict_points(v)
        if score is None:
            continue
        run = runs.get(v.run_id) if v.run_id is not None else None
        model, prompt = (run["model"], run["prompt"]) if run else ("-", v.subject)
        family = "" if v.method in _DUAL else labels[rater_key(v)]
        key = (model, prompt, v.scale.value, family)
        run_key = v.run_id if run else v.subject
        groups.setdefault(key, {}).setdefault(run_key, {}).setdefault(v.method, []).append(score)
        judges.setdefault(key, {}).setdefault(v.method, set()).add(labels[rater_key(v)])
    rows = []
    for key in sorted(groups, key=lambda k: (natural_key(k[0]), natural_key(k[1]), k[2], k[3])):
        model, prompt, scale, family = key
        per_run = groups[key]
        if family:
            method = next(iter(judges[key]))
            finals = [_run_mean(by) for by in per_run.values()]
            rows.append(VerdictRow(model, prompt, family, method.value, scale, len(per_run), _mean(finals)))
            continue
        finals = []
        rules_scores: list[float] = []
        gt_scores: list[float] = []
        combos: Counter = Counter()
        for by in per_run.values():
            r, g = _mean(by.get(Method.RULES, [])), _mean(by.get(Method.GROUND_TRUTH, []))
            if r is not None:
                rules_scores.append(r)
            if g is not None:
                gt_scores.append(g)
            final = path_b_score(r, g, w_rules, w_gt)
            assert final is not None  # r or g: every run grouped has a score
            finals.append(final)
            if r is not None and g is not None:
                combos["rules-based+ground-truth"] += 1
            else:
                combos["rules-based" if r is not None else "ground-truth"] += 1
        if len(combos) == 1:
            eval_method = next(iter(combos))
        else:
            order = ["rules-based+ground-truth", "rules-based", "ground-truth"]
            eval_method = "mixed: " + ", ".join(f"{m} {combos[m]}" for m in order if combos[m])
        names = [n for m in _DUAL for n in sorted(judges[key].get(m, ()), key=natural_key)]
        rows.append(
            VerdictRow(
                model,
                prompt,
                "+".join(dict.fromkeys(names)),
                eval_method,
                scale,
                len(per_run),
                _mean(finals),
                _mean(rules_scores),
                _mean(gt_scores),
            )
        )
    return rows
