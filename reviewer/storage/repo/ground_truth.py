"""The ground truth of a project's photo items: piles and cards per annotator ('' the consensus,
which scoring uses), replaced whole in one audited transaction and read
back with the stored regions and boxes checked (reviewer.core.bounds).
"""

from __future__ import annotations

import json

from reviewer.core.bounds import drawable_box, drawable_points
from reviewer.core.models import BBox, Card, GroundTruth, Pile
from reviewer.storage.project.db import Project, inserted_id
from reviewer.storage.repo.items import dict_rows


def has_ground_truth(project: Project, item_id: int) -> bool:
    """True when the item has at least one ground-truth card."""
    return (
        project.db.execute("SELECT 1 FROM cards WHERE item_id = ? AND annotator = '' LIMIT 1", [item_id]).fetchone()
        is not None
    )


def set_ground_truth(
    project: Project, item_id: int, gt: GroundTruth, actor: str | None = None, annotator: str = ""
) -> None:
    """Replace the item's piles and cards of ``annotator`` ('' the
    consensus, which scoring uses) with ``gt`` (one transaction, audited)."""
    before = ground_truth(project, item_id, annotator).model_dump(mode="json")
    with project.transaction():
        project.db.execute("DELETE FROM cards WHERE item_id = ? AND annotator = ?", [item_id, annotator])
        project.db.execute("DELETE FROM piles WHERE item_id = ? AND annotator = ?", [item_id, annotator])
        pile_ids: dict[str, int] = {}
        for pos, pile in enumerate(gt.piles):
            cur = project.db.execute(
                "INSERT INTO piles (item_id, label, region, position, annotator) VALUES (?, ?, ?, ?, ?)",
                [item_id, pile.label, json.dumps(pile.region) if pile.region else None, pos, annotator],
            )
            pile_ids[pile.label] = inserted_id(cur)
        for pos, card in enumerate(gt.cards):
            box = card.bbox
            project.db.execute(
                "INSERT INTO cards (item_id, pile_id, text, x_min, y_min, x_max, y_max, position, annotator) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    item_id,
                    pile_ids.get(card.pile) if card.pile else None,
                    card.text,
                    box.x_min if box else None,
                    box.y_min if box else None,
                    box.x_max if box else None,
                    box.y_max if box else None,
                    pos,
                    annotator,
                ],
            )
        project.audit(
            "replace",
            "ground_truth" if not annotator else f"ground_truth:{annotator}",
            item_id,
            before,
            gt.model_dump(mode="json"),
            actor,
        )


def ground_truth(project: Project, item_id: int, annotator: str = "") -> GroundTruth:
    """The item's ground truth of ``annotator`` ('' the consensus, which
    scoring uses): piles by position, cards by position with ids."""
    name_row = project.db.execute("SELECT name FROM items WHERE id = ?", [item_id]).fetchone()
    piles = dict_rows(
        project,
        "SELECT id, label, region FROM piles WHERE item_id = ? AND annotator = ? ORDER BY position, id",
        [item_id, annotator],
    )
    labels = {p["id"]: p["label"] for p in piles}
    cards = dict_rows(
        project,
        "SELECT id, pile_id, text, x_min, y_min, x_max, y_max FROM cards "
        "WHERE item_id = ? AND annotator = ? ORDER BY position, id",
        [item_id, annotator],
    )
    return GroundTruth(
        item=name_row[0] if name_row else "",
        piles=[Pile(id=p["id"], label=p["label"], region=_stored_region(p["region"])) for p in piles],
        cards=[
            Card(
                id=c["id"],
                text=c["text"],
                pile=labels.get(c["pile_id"]),
                bbox=_stored_box(c),
            )
            for c in cards
        ],
    )


def _stored_region(text: str | None) -> list | None:
    """A stored region (JSON), or None when it is not a list of pixel
    points (NaN, infinity: a project imported before values were checked
    at the door; reviewer.core.bounds.drawable_points)."""
    if not text:
        return None
    try:
        return drawable_points(json.loads(text))
    except (ValueError, RecursionError):
        return None


def _stored_box(row) -> BBox | None:
    """A stored card box, or None (no box) when a value is missing or not a
    pixel (reviewer.core.bounds.drawable_box)."""
    box = drawable_box(row["x_min"], row["y_min"], row["x_max"], row["y_max"])
    return None if box is None else BBox(x_min=box[0], y_min=box[1], x_max=box[2], y_max=box[3])
