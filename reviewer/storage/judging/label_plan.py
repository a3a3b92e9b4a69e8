"""What the window's label-first page labels next, and why: the label
budget of one judge and dimension (reviewer.storage.judging.label_budget)
and the order of its fair queue within that budget
(reviewer.core.judging.budget.labelling_order). Reads only.

* The budget: the further labelled subjects a 95 % interval of half-width
  ``half_width`` (default 0.1) on kappa, TPR and TNR needs, from the
  judge's alignment with people on the dimension (the fair sample's final
  values where there are any, as ``reviewer alignment``); the most of the
  three is the budget. None when it cannot be sized yet (no labels, one
  category only, every label agreeing).
* The order: the reviewer's unlabelled entries of the fair queue
  (labels.next_entries), stratified by the stratum stored with each entry,
  subjects where the judges disagree first, then by the judge's rising
  confidence (sources in the order of
  reviewer.core.judging.verdict_confidence.SOURCES), never more than the
  budget. While the budget cannot be sized, the whole queue in that order.

Nothing here names a verdict or a judge's value: the page shows it before
the first label (only counts and subject ids).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from reviewer.core.judging.alignment import alignments, people_values
from reviewer.core.judging.budget import HALF_WIDTH, LEVEL, Budget, labelling_order
from reviewer.core.judging.disputes import primary_verdicts, value_of
from reviewer.core.judging.label_first import LABEL_FIRST
from reviewer.core.judging.rubrics import rubric_for
from reviewer.core.judging.verdict_confidence import SOURCES
from reviewer.core.judging.verdicts import Scale, Verdict
from reviewer.storage.db import Project
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.confidences import confidences
from reviewer.storage.judging.label_budget import alignment_budget
from reviewer.storage.judging.validation import fair_sample, pass_thresholds

__all__ = ["LabelPlan", "budget_line", "first_labelled", "judge_dimensions", "label_plan", "progress_line"]

#: Bootstrap resamples of the alignment the budget is sized on (its
#: intervals are not used: the budget needs only the counts).
_RESAMPLES = 100


@dataclass(frozen=True)
class LabelPlan:
    """The label-first work of one reviewer on one judge and dimension.

    ``scale``: the dimension's scale; ``rubric_version`` and ``rubric``: of
    the judge's latest verdict ('' when no rubric file is shipped);
    ``budgets``: {'kappa', 'tpr', 'tnr': Budget} ({} without labels on the
    dimension); ``further``: the budget (None: cannot be sized yet);
    ``order``: the subjects to label, in order (module doc); ``queue_size``:
    subjects in the fair queue; ``labelled``: those with the reviewer's first
    label."""

    judge: str
    dimension: str
    reviewer: str
    scale: Scale
    rubric_version: Optional[str]
    rubric: str
    further: Optional[int]
    order: list[str]
    queue_size: int
    labelled: int
    budgets: dict[str, Budget] = field(default_factory=dict)
    half_width: float = HALF_WIDTH
    level: float = LEVEL


def judge_dimensions(project: Project) -> dict[str, list[str]]:
    """{judge display name (as labels.judge_verdicts names it): its scored
    dimensions, sorted}, judges sorted by name."""
    out = {}
    for judge, vs in sorted(labels.judge_verdicts(project).items()):
        dims = sorted({d for v in vs for d in v.scores})
        if dims:
            out[judge] = dims
    return out


def _budgets(
    project: Project, verdicts: list[Verdict], judge: str, dimension: str, half_width: float
) -> dict[str, Budget]:
    people, _ = fair_sample(project, people_values(verdicts, judging.adjudications(project)), 0)
    for a in alignments(verdicts, thresholds=pass_thresholds(project), n_resamples=_RESAMPLES, people=people):
        if a.judge == judge and a.dimension == dimension:
            return alignment_budget(a, half_width)
    return {}


def _further(budgets: dict[str, Budget]) -> Optional[int]:
    known = [b.further for b in budgets.values() if b.further is not None]
    return max(known) if known else None


def _confidence(by_verdict: dict, v: Optional[Verdict], dimension: str) -> Optional[float]:
    if v is None or v.id is None:
        return None
    by_source = by_verdict.get(v.id, {})
    return next((by_source[s][dimension] for s in SOURCES if dimension in by_source.get(s, {})), None)


def label_plan(
    project: Project, judge: str, dimension: str, reviewer: str, half_width: float = HALF_WIDTH
) -> LabelPlan:
    """The plan of ``reviewer`` on the fair queue of ``judge`` and
    ``dimension`` (module doc); the queue is brought up to date first
    (labels.refresh_queue, which writes new entries). Raises ValueError
    when the judge has no verdict on the dimension."""
    entries = labels.refresh_queue(project, judge, dimension)
    verdicts = judging.verdicts(project)
    by_judge = labels.judge_verdicts(project, verdicts)
    mine = [v for v in by_judge.get(judge, []) if dimension in v.scores]
    latest = max(mine, key=lambda v: v.id or 0)
    scale = latest.scale
    budgets = _budgets(project, verdicts, judge, dimension, half_width)
    further = _further(budgets)
    todo = labels.next_entries(project, judge, dimension, reviewer)
    values: dict[str, set[str]] = {}
    for vs in by_judge.values():
        for (subject, _), v in primary_verdicts(vs).items():
            value = value_of(v, dimension)
            if value is not None:
                values.setdefault(subject, set()).add(str(value))
    primary = {s: v for (s, _), v in primary_verdicts(mine).items()}
    conf = confidences(project)
    subjects = [e.subject for e in todo]
    order = labelling_order(
        subjects,
        [e.stratum for e in todo],
        len(subjects) if further is None else min(further, len(subjects)),
        disagreement=[len(values.get(s, ())) > 1 for s in subjects],
        confidence=[_confidence(conf, primary.get(s), dimension) for s in subjects],
        seed=labels.split_seed(project),
    )
    return LabelPlan(
        judge=judge,
        dimension=dimension,
        reviewer=reviewer,
        scale=scale,
        rubric_version=latest.prompt_version,
        rubric=rubric_for(latest.prompt_version, dimension, scale.value),
        further=further,
        order=order,
        queue_size=len(entries),
        labelled=len(entries) - len(todo),
        budgets=budgets,
        half_width=half_width,
    )


def _part(b: Budget) -> str:
    name = "kappa" if b.statistic == "kappa" else b.statistic.upper()
    return f"{name}: {b.further} more" if b.further is not None else f"{name}: {b.note or 'cannot be sized yet'}"


def budget_line(plan: LabelPlan) -> str:
    """The budget as the page shows it: the further labels each statistic
    needs and the most of them (counts only: no estimate, no verdict)."""
    head = f"Label budget ({plan.level * 100:g} % interval, half-width <= {plan.half_width:g})"
    if not plan.budgets:
        return f"{head}: cannot be sized yet (no labels on {plan.dimension}); the whole queue is in order"
    parts = "; ".join(_part(b) for b in plan.budgets.values())
    if plan.further is None:
        return f"{head}: {parts}; the whole queue is in order"
    return f"{head}: {parts}; {plan.further} more labels in all"


def progress_line(plan: LabelPlan, done: int) -> str:
    """'Progress: done / planned of the budget ...' with the queue's counts;
    ``done``: subjects of ``plan.order`` labelled since the plan was made."""
    of = "of the budget" if plan.further is not None else "of the queue"
    return (
        f"Progress: {done} / {len(plan.order)} labelled {of} · fair queue: "
        f"{plan.labelled + done} of {plan.queue_size} labelled by {plan.reviewer}"
    )


def first_labelled(project: Project, dimension: str, reviewer: str) -> set[str]:
    """Subjects with a first label of ``reviewer`` on ``dimension`` in the
    label-first queue."""
    return {
        x.subject
        for x in labels.labels(project, LABEL_FIRST)
        if x.dimension == dimension and x.reviewer == reviewer and x.first_value is not None
    }
