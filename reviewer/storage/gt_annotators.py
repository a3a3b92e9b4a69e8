"""Ground truth of several annotators in a project (docs/cards.md#several-annotators): reading each
annotator's ground truth, the agreement rows and ground-truth disputes of
reviewer.core.annotators, and adjudicating a ground-truth dispute (which
edits the consensus, the ground truth scoring uses, and re-scores the
item's runs)."""

from __future__ import annotations

from typing import Optional

from reviewer.core.annotators import (
    GT_KINDS, adjudicate_difference, agreement_rows, comparisons, find_difference, ground_truth_disputes,
)
from reviewer.core.cards.gt_agreement import CONSENSUS, CONSENSUS_NAME, SUBJECT_PREFIX, ItemAgreement
from reviewer.core.commands import Command, Effect, UndoStack
from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.verdicts import Dispute
from reviewer.core.models import GroundTruth
from reviewer.storage import judging, repo
from reviewer.storage.db import Project, ProjectError, default_actor
from reviewer.storage.gt_formats import annotators
from reviewer.storage.store import ProjectStore

__all__ = ["GT_KINDS", "adjudicate", "adjudication_command", "annotated", "annotators", "gt_agreement_rows",
           "gt_comparisons", "gt_disputes", "item_comparisons", "item_ground_truths"]


def annotated(project: Project, min_annotators: int = 2) -> dict[str, dict[str, GroundTruth]]:
    """{item name: {annotator: ground truth}} of the items with at least
    ``min_annotators`` named annotators (the consensus under '' too)."""
    out: dict[str, dict[str, GroundTruth]] = {}
    rows = project.db.execute(
        "SELECT i.id, i.name, a.annotator FROM items i JOIN (SELECT DISTINCT item_id, annotator FROM cards "
        "UNION SELECT DISTINCT item_id, annotator FROM piles) a ON a.item_id = i.id ORDER BY i.name, a.annotator"
    ).fetchall()
    names: dict[tuple[int, str], list[str]] = {}
    for item_id, name, annotator in rows:
        names.setdefault((item_id, name), []).append(annotator)
    for (item_id, name), who in names.items():
        if len([w for w in who if w != CONSENSUS]) >= min_annotators:
            out[name] = {w: repo.ground_truth(project, item_id, w) for w in who}
    return out


def item_ground_truths(project: Project, item_id: int) -> dict[str, GroundTruth]:
    """{annotator: ground truth} of one item's named annotators, by name
    (the consensus '' is not among them)."""
    return {name: repo.ground_truth(project, item_id, name) for name in annotators(project, item_id)}


def item_comparisons(project: Project, item_id: int) -> list[ItemAgreement]:
    """Every pair of the item's named annotators compared (A before B by
    name); empty with fewer than two annotators."""
    found = item_ground_truths(project, item_id)
    return comparisons({str(item_id): found}) if len(found) >= 2 else []  # each compares under its own item name


def gt_comparisons(project: Project) -> list[ItemAgreement]:
    """Every pair of annotators compared on every item they both annotated."""
    return comparisons(annotated(project))


def gt_agreement_rows(project: Project) -> list[AgreementRow]:
    """The ground-truth agreement rows (reviewer.core.annotators) of the project."""
    return agreement_rows(gt_comparisons(project))


def gt_disputes(project: Project) -> list[Dispute]:
    """The ground-truth disputes of the project (not stored; judge_stats.refresh_disputes stores them)."""
    return ground_truth_disputes(gt_comparisons(project))


def adjudication_command(project: Project, dispute_id: int, annotator: str, reviewer: Optional[str] = None,
                         rationale: str = "") -> tuple[Command, int]:
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
        raise ProjectError(f"'{annotator}' is not a side of dispute {dispute_id} "
                           f"({difference.annotator_a} / {difference.annotator_b})")
    item = repo.item_by_name(project, dispute.subject[len(SUBJECT_PREFIX):])
    assert item is not None and item.id is not None
    chosen = repo.ground_truth(project, item.id, annotator)
    command = adjudicate_difference(item.id, repo.ground_truth(project, item.id), difference, annotator,
                                    reviewer or default_actor(), rationale, dispute_id,
                                    {p.label: p.region for p in chosen.piles})
    return command, item.id


def adjudicate(project: Project, dispute_id: int, annotator: str, reviewer: Optional[str] = None,
               rationale: str = "", stack: Optional[UndoStack] = None) -> Effect:
    """Side with ``annotator`` ('consensus' not allowed) on the
    ground-truth dispute ``dispute_id``: record the adjudication and make
    the consensus agree (one command, on ``stack`` when given so it can be
    undone), then re-score the item's runs. ProjectError when the dispute is
    not a ground-truth dispute or no longer found, or ``annotator`` is not
    one of its sides."""
    from reviewer.storage.scores import score_project  # scoring imports much; only needed here

    command, item_id = adjudication_command(project, dispute_id, annotator, reviewer, rationale)
    store = ProjectStore(project, reviewer)
    effect = (stack or UndoStack()).push(command, store)
    runs = [r[0] for r in project.db.execute("SELECT id FROM runs WHERE item_id = ?", [item_id])]
    if runs:
        score_project(project, run_ids=runs)
    return effect
