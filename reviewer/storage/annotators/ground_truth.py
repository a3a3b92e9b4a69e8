"""Ground truth of several annotators in a project: the named annotators,
each one's ground truth, and the agreement rows and ground-truth disputes of
reviewer.core.annotators. The disputes are filed in the queue by
reviewer.storage.dispute_queue and adjudicated by
reviewer.storage.gt_adjudication (decision record "dispute-queue-composed")."""

from __future__ import annotations

from reviewer.core.annotators import agreement_rows, comparisons, ground_truth_disputes
from reviewer.core.cards.gt_agreement import CONSENSUS, ItemAgreement
from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.verdicts import Dispute
from reviewer.core.models import GroundTruth
from reviewer.storage.project.db import Project
from reviewer.storage.repo import ground_truth as repo_ground_truth

__all__ = [
    "annotated",
    "annotators",
    "gt_agreement_rows",
    "gt_comparisons",
    "gt_disputes",
    "item_comparisons",
    "item_ground_truths",
]


def annotators(project: Project, item_id: int | None = None) -> list[str]:
    """The named annotators with ground truth (of one item, or any), by
    name; the consensus ('') is not among them."""
    sql = (
        "SELECT DISTINCT annotator FROM cards WHERE annotator != ''{w} UNION "
        "SELECT DISTINCT annotator FROM piles WHERE annotator != ''{w}"
    )
    where = " AND item_id = ?" if item_id is not None else ""
    params = [item_id, item_id] if item_id is not None else []
    return sorted(r[0] for r in project.db.execute(sql.format(w=where), params))


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
            out[name] = {w: repo_ground_truth.ground_truth(project, item_id, w) for w in who}
    return out


def item_ground_truths(project: Project, item_id: int) -> dict[str, GroundTruth]:
    """{annotator: ground truth} of one item's named annotators, by name
    (the consensus '' is not among them)."""
    return {name: repo_ground_truth.ground_truth(project, item_id, name) for name in annotators(project, item_id)}


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
    """The ground-truth disputes of the project (not stored; reviewer.storage.dispute_queue.refresh_disputes stores them)."""
    return ground_truth_disputes(gt_comparisons(project))
