"""Two judges of a project compared against people on the same subjects
(reviewer.core.judging.judge_compare), per dimension both scored on one
scale. People's values follow the rule of `reviewer alignment`
(reviewer.storage.judging.validation.people_and_splits). Reads only."""

from __future__ import annotations

from reviewer.core.judging.dispute_common import is_human, primary_verdicts, rater_labels, value_of
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from reviewer.core.judging.judge_compare import JudgeComparison, compare_judges
from reviewer.core.judging.people import TIE
from reviewer.core.judging.verdicts import Scale, Value, normalise
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.validation import people_and_splits, split_seed_of
from reviewer.storage.project.db import Project

__all__ = ["comparison_text", "project_comparisons"]


def project_comparisons(
    project: Project,
    first: str,
    second: str,
    *,
    dimension: str | None = None,
    subjects: set[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[JudgeComparison]:
    """One comparison per dimension (or ``dimension`` alone) that judges
    ``first`` and ``second`` (named as `reviewer alignment` names them) both
    scored on one scale and people labelled; ``subjects``: only these (a
    slice). Raises ValueError naming the judges there are when either is
    unknown, or when they share no labelled subject."""
    vs = judging.verdicts(project)
    adjudications = judging.adjudications(project)
    people, _ = people_and_splits(project, vs, adjudications, split_seed_of(project))
    judges = [v for v in vs if not is_human(v)]
    labels = rater_labels(judges)
    values: dict[tuple[str, str, Scale], dict[str, Value]] = {}
    for (subject, rater), v in primary_verdicts(judges).items():
        if subjects is not None and subject not in subjects:
            continue
        for d in v.scores:
            values.setdefault((labels[rater], d, v.scale), {})[subject] = value_of(v, d)
    known = sorted({j for j, _, _ in values})
    for name in (first, second):
        if name not in known:
            raise ValueError(f"no judge '{name}' (judges: {', '.join(known) or 'none'})")
    out = []
    for (judge, dim, scale), vals in sorted(values.items(), key=lambda kv: (kv[0][1], kv[0][2].value)):
        if judge != first or (dimension is not None and dim != dimension):
            continue
        other = values.get((second, dim, scale))
        if other is None:
            continue
        refs: dict[str, Value] = {}
        for s in set(vals) | set(other):
            ref = people.get((s, dim))
            if ref is not None and ref[1] != TIE and ref[2] in (None, scale):
                refs[s] = normalise(ref[0], scale)
        try:
            out.append(compare_judges(first, second, dim, scale, vals, other, refs, n_resamples=n_resamples, seed=seed))
        except ValueError:
            continue
    if not out:
        raise ValueError(f"{first} and {second} share no subject that people labelled on one dimension and scale")
    return out


def comparison_text(comparisons: list[JudgeComparison]) -> str:
    """Plain text per dimension: each judge's kappa and accuracy, the
    differences with their paired bootstrap intervals, McNemar's exact test
    and the sentence."""
    lines = []
    for c in comparisons:

        def f(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"

        ivk, iva = c.delta_kappa_ci, c.delta_accuracy_ci
        lines += [
            f"{c.first} vs {c.second} / {c.dimension} ({c.scale.value}; {c.kappa_statistic}; "
            f"n = {c.n} subjects both judged and people labelled)",
            f"  kappa with people: {c.first} {f(c.kappa_first)}, {c.second} {f(c.kappa_second)}; "
            f"Δκ {f(c.delta_kappa)} {ivk.formatted()} {ivk.method} (paired bootstrap over subjects)",
            f"  accuracy: {c.first} {f(c.accuracy_first)}, {c.second} {f(c.accuracy_second)}; "
            f"Δaccuracy {f(c.delta_accuracy)} {iva.formatted()} {iva.method} (paired bootstrap over subjects)",
            f"  McNemar exact: {c.only_first} right only by {c.first}, {c.only_second} right only by "
            f"{c.second}, p = {c.p:.3g}",
            f"  {c.sentence()}",
            "",
        ]
    return "\n".join(lines)
