"""Adjudicating a ground-truth dispute: it spans three workflows, so it is
composed here. The dispute is read from the queue (reviewer.storage.judging.verdicts),
the two sides from the annotators' ground truth
(reviewer.storage.annotators.ground_truth); siding with one annotator edits the
consensus through the project store (one undoable command,
reviewer.core.annotators.adjudicate_difference) and re-scores the item's runs
(reviewer.storage.scoring). Decision record "dispute-queue-composed".
"""

from __future__ import annotations

from reviewer.core.annotators import GT_KINDS, adjudicate_difference, find_difference
from reviewer.core.cards.gt_agreement import CONSENSUS_NAME, SUBJECT_PREFIX
from reviewer.core.commands import Command, Effect, Store, UndoStack
from reviewer.storage.annotators.ground_truth import gt_comparisons
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project, ProjectError, default_actor
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.store import ProjectStore

__all__ = ["adjudicate", "adjudication_command"]


def adjudication_command(
    project: Project, dispute_id: int, annotator: str, reviewer: str | None = None, rationale: str = ""
) -> tuple[Command[Store], int]:
    """(the command, item id) that sides with ``annotator`` on the
    ground-truth dispute ``dispute_id`` (reviewer.core.annotators.adjudicate_difference:
    the adjudication and the consensus edit, one undo step), not done yet.
    ProjectError when the dispute is not a ground-truth dispute or no
    longer found, or ``annotator`` is not one of its sides."""
    dispute = next((d for d in judging.disputes(project) if d.id == dispute_id), None)
    if dispute is None or dispute.kind not in GT_KINDS:
        raise ProjectError(f"no ground-truth dispute {dispute_id}")
    difference = find_difference(gt_comparisons(project), dispute.subject, dispute.dimension)
    if difference is None:
        raise ProjectError(f"dispute {dispute_id} is settled already: the annotators agree now")
    if annotator == CONSENSUS_NAME or annotator not in (difference.annotator_a, difference.annotator_b):
        raise ProjectError(
            f"'{annotator}' is not a side of dispute {dispute_id} ({difference.annotator_a} / {difference.annotator_b})"
        )
    item = repo_items.item_by_name(project, dispute.subject[len(SUBJECT_PREFIX) :])
    assert item is not None and item.id is not None
    chosen = repo_ground_truth.ground_truth(project, item.id, annotator)
    command = adjudicate_difference(
        item.id,
        repo_ground_truth.ground_truth(project, item.id),
        difference,
        annotator,
        reviewer or default_actor(),
        rationale,
        dispute_id,
        {p.label: p.region for p in chosen.piles},
    )
    return command, item.id


def adjudicate(
    project: Project,
    dispute_id: int,
    annotator: str,
    reviewer: str | None = None,
    rationale: str = "",
    stack: UndoStack[Store] | None = None,
) -> Effect:
    """Side with ``annotator`` ('consensus' not allowed) on the
    ground-truth dispute ``dispute_id``: record the adjudication and make
    the consensus agree (one command, on ``stack`` when given so it can be
    undone), then re-score the item's runs. ProjectError when the dispute is
    not a ground-truth dispute or no longer found, or ``annotator`` is not
    one of its sides."""
    from reviewer.storage.scoring import score_project  # scoring imports much; only needed here

    command, item_id = adjudication_command(project, dispute_id, annotator, reviewer, rationale)
    store = ProjectStore(project, reviewer)
    effect = (stack or UndoStack()).push(command, store)
    runs = [r[0] for r in project.db.execute("SELECT id FROM runs WHERE item_id = ?", [item_id])]
    if runs:
        score_project(project, run_ids=runs)
    return effect
