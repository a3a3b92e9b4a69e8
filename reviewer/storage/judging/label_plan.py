"""What the window's label-first page labels next, and why: the label
budget of one judge and dimension (reviewer.storage.judging.label_budget)
and the order of its fair queue. Reads only.

* The budget: the further labelled subjects a 95 % interval of half-width
  ``half_width`` (default 0.1) on kappa, TPR and TNR needs, from the
  judge's alignment with people on the dimension (people's values as
  ``reviewer alignment`` takes them); the most of the
  three is the budget. None when it cannot be sized yet (no labels, one
  category only, every label agreeing).
* The order: the reviewer's unlabelled entries of the fair queue in the
  seeded stratified random order of labels.next_entries, the very order
  ``reviewer label`` walks; the budget says how many of them are wanted.
  Nothing about disagreements or confidence moves a subject, so the labels
  are a fair sample of what the judge scored. Subjects whose first label is
  stored without a final value (the program was killed between the two;
  labels.first_only) come first, to be asked at the reveal step.

Nothing here names a verdict or a judge's value: the page shows it before
the first label (only counts and subject ids).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reviewer.core.judging.active_order import draw_active
from reviewer.core.judging.alignment import alignments
from reviewer.core.judging.budget import HALF_WIDTH, LEVEL, Budget, labelling_order
from reviewer.core.judging.dispute_common import primary_verdicts, value_of
from reviewer.core.judging.people import human_ratings
from reviewer.core.judging.rubrics import rubric_for
from reviewer.core.judging.verdict_confidence import SOURCES
from reviewer.core.judging.verdicts import Scale, Verdict
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.confidences import confidences
from reviewer.storage.judging.label_budget import alignment_budget
from reviewer.storage.judging.validation import pass_thresholds, people_and_splits
from reviewer.storage.project.db import Project

__all__ = [
    "LabelPlan",
    "active_order",
    "budget_line",
    "labelled_by",
    "judge_dimensions",
    "label_plan",
    "progress_line",
]

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
    subjects in the fair queue; ``labelled``: those with the reviewer's final
    value (labels.final_labelled); ``covered``: (subjects, people) when
    imported human labels already cover every subject of the queue, else
    None."""

    judge: str
    dimension: str
    reviewer: str
    scale: Scale
    rubric_version: str | None
    rubric: str
    further: int | None
    order: list[str]
    queue_size: int
    labelled: int
    budgets: dict[str, Budget] = field(default_factory=dict)
    half_width: float = HALF_WIDTH
    level: float = LEVEL
    covered: tuple[int, int] | None = None


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
    people, _ = people_and_splits(project, verdicts, judging.adjudications(project), 0)
    thresholds = pass_thresholds(project, verdicts)
    for a in alignments(verdicts, thresholds=thresholds, n_resamples=_RESAMPLES, people=people):
        if a.judge == judge and a.dimension == dimension:
            return alignment_budget(a, half_width)
    return {}


def _further(budgets: dict[str, Budget]) -> int | None:
    known = [b.further for b in budgets.values() if b.further is not None]
    return max(known) if known else None


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
    todo = labels.next_entries(project, judge, dimension, reviewer)  # the command line's order too
    # first labels without a final value (a kill between the two): asked first, at the reveal
    revealing = labels.first_only(project, dimension, reviewer)
    pending = [e.subject for e in todo if e.subject in revealing]
    todo = [e for e in todo if e.subject not in revealing]
    return LabelPlan(
        judge=judge,
        dimension=dimension,
        reviewer=reviewer,
        scale=scale,
        rubric_version=latest.prompt_version,
        rubric=rubric_for(latest.prompt_version, dimension, scale.value),
        further=_further(budgets),
        order=pending + [e.subject for e in todo],
        queue_size=len(entries),
        labelled=len(entries) - len(todo) - len(pending),
        budgets=budgets,
        half_width=half_width,
        covered=_covered(verdicts, {e.subject for e in entries}, dimension),
    )


def _covered(verdicts: list[Verdict], subjects: set[str], dimension: str) -> tuple[int, int] | None:
    """(subjects, people) when people's imported labels cover every subject
    of the queue on the dimension, else None."""
    ratings = [r for r in human_ratings(verdicts) if r.dimension == dimension and r.value is not None]
    have = {r.subject for r in ratings}
    if not subjects or not subjects <= have:
        return None
    return len(subjects), len({r.rater for r in ratings if r.subject in subjects})


def active_order(
    project: Project, judge: str, dimension: str, reviewer: str, half_width: float = HALF_WIDTH
) -> list[str]:
    """The active order, an explicit choice (reviewer.core.judging.active_order):
    the queue's subjects not drawn before are drawn now with inclusion
    probabilities that favour disagreements and low confidence, summing to
    the label budget (the whole queue while it cannot be sized); the draw
    is stored. Returns the drawn subjects the reviewer has not labelled,
    disagreements first, then by rising confidence. Their labels weigh
    1 / pi in alignment (labels.active_weights)."""
    entries = labels.refresh_queue(project, judge, dimension)
    verdicts = judging.verdicts(project)
    by_judge = labels.judge_verdicts(project, verdicts)
    further = _further(_budgets(project, verdicts, judge, dimension, half_width))
    values: dict[str, set[str]] = {}
    for vs in by_judge.values():
        for (subject, _), v in primary_verdicts(vs).items():
            value = value_of(v, dimension)
            if value is not None:
                values.setdefault(subject, set()).add(str(value))
    primary = {s: v for (s, _), v in primary_verdicts(by_judge.get(judge, [])).items()}
    conf = confidences(project)
    stored = labels.inclusions(project, judge, dimension, drawn_only=False)
    new = [e.subject for e in entries if e.subject not in stored]
    disagree = {s: len(values.get(s, ())) > 1 for s in (e.subject for e in entries)}
    confidence = {s: _confidence(conf, primary.get(s), dimension) for s in (e.subject for e in entries)}
    if new:
        size = len(new) if further is None else min(further, len(new))
        drawn = draw_active(
            new, [disagree[s] for s in new], [confidence[s] for s in new], size, seed=labels.split_seed(project)
        )
        labels.store_inclusions(project, judge, dimension, drawn, labels.split_seed(project))
    done = labelled_by(project, dimension, reviewer)
    todo = [s for s in labels.inclusions(project, judge, dimension) if s not in done]
    return labelling_order(
        todo,
        [0] * len(todo),
        len(todo),
        disagreement=[disagree.get(s, False) for s in todo],
        confidence=[confidence.get(s) for s in todo],
        seed=labels.split_seed(project),
    )


def _confidence(by_verdict: dict, v: Verdict | None, dimension: str) -> float | None:
    if v is None or v.id is None:
        return None
    by_source = by_verdict.get(v.id, {})
    return next((by_source[s][dimension] for s in SOURCES if dimension in by_source.get(s, {})), None)


def _part(b: Budget) -> str:
    name = "kappa" if b.statistic == "kappa" else b.statistic.upper()
    return f"{name}: {b.further} more" if b.further is not None else f"{name}: {b.note or 'cannot be sized yet'}"


def budget_line(plan: LabelPlan) -> str:
    """The budget as the page shows it: the further labelled subjects each
    statistic needs and the most of them, and why none are needed when
    people's labels already cover the queue (counts only: no estimate, no
    verdict)."""
    head = f"Label budget ({plan.level * 100:g} % interval, half-width <= {plan.half_width:g})"
    if not plan.budgets:
        return f"{head}: cannot be sized yet (no labels on {plan.dimension}); the whole queue is in order"
    parts = "; ".join(_part(b) for b in plan.budgets.values())
    if plan.further is None:
        return f"{head}: {parts}; the whole queue is in order"
    if plan.further == 0:
        why = (
            f"every subject already has people's labels: {plan.covered[0]} by {plan.covered[1]} "
            f"{'annotator' if plan.covered[1] == 1 else 'annotators'}"
            if plan.covered is not None
            else "the labelled subjects already give that interval"
        )
        return f"{head}: {parts}; no more labels needed ({why})"
    return f"{head}: {parts}; {plan.further} more labels in all"


def progress_line(plan: LabelPlan, done: int) -> str:
    """The progress in the budget's own count: 'Progress: done of the
    budget's N more labels' (or of the queue while the budget cannot be
    sized), and the fair queue's counts; ``done``: subjects of
    ``plan.order`` labelled since the plan was made."""
    if plan.further is None:
        head = f"Progress: {done} labelled (budget not sized yet)"
    else:
        head = f"Progress: {done} of the budget's {plan.further} more labels"
        if plan.further > len(plan.order):
            head += f" (the queue has {len(plan.order) - done} left to label)"
    return f"{head} · fair queue: {plan.labelled + done} of {plan.queue_size} labelled by {plan.reviewer}"


def labelled_by(project: Project, dimension: str, reviewer: str) -> set[str]:
    """Subjects labelled by ``reviewer`` on ``dimension`` in the label-first
    queue: those with a stored final value (labels.final_labelled; a first
    label alone is asked again at the reveal step)."""
    return labels.final_labelled(project, dimension, reviewer)
