"""Proposed boxes as core Commands (docs/window.md, "Proposed boxes are
confirmed, not silently taken"): a run's boxes become proposals
(``ProposeBoxes``), each is then moved edge by edge (``AdjustProposedBox``),
dropped (``DropProposedBox``) or accepted (``AcceptProposedBox``: only then
is it ground truth). Every one is undoable; redo gives the same result.

They act on a store with the proposal methods (``ProposalStore``; the
project store keeps an item's proposals apart from its ground truth, see
docs/decisions/proposed-boxes-kept-apart.md) and, to accept, the ground-truth
methods of reviewer.core.commands.Store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from reviewer.core.cards.pre_annotation import ProposedBox
from reviewer.core.commands import Command, EditCards, Effect, Store, draw_card
from reviewer.core.models import BBox, GroundTruth

#: The edges of a box.
EDGES = ("left", "top", "right", "bottom")


class ProposalStore(Protocol):
    """What proposal commands need from storage."""

    def proposed_boxes(self, item_id: int) -> list[ProposedBox]:
        """The proposed boxes of item ``item_id``, in order ([] when none)."""

    def set_proposed_boxes(self, item_id: int, boxes: Sequence[ProposedBox]) -> None:
        """Replace the proposed boxes of item ``item_id`` by ``boxes`` (one transaction)."""


class ProposalAndCardStore(ProposalStore, Store, Protocol):
    """A store with proposals and ground truth (accepting touches both)."""


def moved_edge(box: BBox, edge: str, delta: float, least: float = 1.0) -> BBox:
    """``box`` with ``edge`` ('left', 'top', 'right', 'bottom') moved by
    ``delta`` pixels (positive: right or down), rounded to 0.1 px; an edge
    never crosses the opposite one (the box keeps at least ``least`` px).
    ValueError for another edge name."""
    if edge not in EDGES:
        raise ValueError(f"no edge {edge!r}: one of {', '.join(EDGES)}")
    x0, y0, x1, y1 = box.x_min, box.y_min, box.x_max, box.y_max
    if edge == "left":
        x0 = min(x0 + delta, x1 - least)
    elif edge == "right":
        x1 = max(x1 + delta, x0 + least)
    elif edge == "top":
        y0 = min(y0 + delta, y1 - least)
    else:
        y1 = max(y1 + delta, y0 + least)
    return BBox(x_min=round(x0, 1), y_min=round(y0, 1), x_max=round(x1, 1), y_max=round(y1, 1))


class _ProposalEdit(Command[ProposalStore]):
    """An edit of an item's proposals: the list as first found is kept, so
    undo writes it back and redo computes the same list again. Its Effect is
    empty: proposals are not ground truth, so no run is re-scored (the
    window reads them again after every edit)."""

    def __init__(self, item_id: int):
        self.item_id = item_id
        self.before: list[ProposedBox] | None = None

    def change(self, boxes: list[ProposedBox]) -> list[ProposedBox]:
        """The proposals after the edit, from those before it."""
        raise NotImplementedError

    def do(self, store: ProposalStore) -> Effect:
        """Write the changed proposals (recording them as first found); an empty Effect.
        KeyError when the proposal edited is gone."""
        if self.before is None:
            self.before = store.proposed_boxes(self.item_id)
        store.set_proposed_boxes(self.item_id, self.change(list(self.before)))
        return Effect()

    def undo(self, store: ProposalStore) -> Effect:
        """Write the proposals back as they were; an empty Effect."""
        assert self.before is not None  # set by do()
        store.set_proposed_boxes(self.item_id, self.before)
        return Effect()


def _find(boxes: Sequence[ProposedBox], proposal_id: int) -> ProposedBox:
    found = next((b for b in boxes if b.id == proposal_id), None)
    if found is None:
        raise KeyError(f"no proposed box {proposal_id}")
    return found


class ProposeBoxes(_ProposalEdit):
    """Add ``boxes`` to the item's proposals (their ids made unique on the item, after the others)."""

    def __init__(self, item_id: int, boxes: Sequence[ProposedBox], text: str = ""):
        super().__init__(item_id)
        self.boxes = list(boxes)
        self.text = text or f"propose {len(self.boxes)} box(es)"

    def change(self, boxes: list[ProposedBox]) -> list[ProposedBox]:
        """The proposals there, then the new ones numbered after the highest id."""
        top = max((b.id for b in boxes), default=0)
        return boxes + [b.model_copy(update={"id": top + k}) for k, b in enumerate(self.boxes, 1)]


class AdjustProposedBox(_ProposalEdit):
    """Give proposal ``proposal_id`` the box ``box`` (an edge moved by the arrow keys)."""

    def __init__(self, item_id: int, proposal_id: int, box: BBox, text: str = "adjust proposed box"):
        super().__init__(item_id)
        self.proposal_id, self.box, self.text = proposal_id, box, text

    def change(self, boxes: list[ProposedBox]) -> list[ProposedBox]:
        """The proposals with this one's box replaced; KeyError when it is gone."""
        _find(boxes, self.proposal_id)
        return [b.model_copy(update={"box": self.box}) if b.id == self.proposal_id else b for b in boxes]


class DropProposedBox(_ProposalEdit):
    """Drop proposal ``proposal_id``: it never becomes ground truth."""

    def __init__(self, item_id: int, proposal_id: int, text: str = "drop proposed box"):
        super().__init__(item_id)
        self.proposal_id, self.text = proposal_id, text

    def change(self, boxes: list[ProposedBox]) -> list[ProposedBox]:
        """The proposals without this one; KeyError when it is gone."""
        _find(boxes, self.proposal_id)
        return [b for b in boxes if b.id != self.proposal_id]


class AcceptProposedBox(Command[ProposalAndCardStore]):
    """Accept proposal ``proposal`` of item ``item_id`` into ground truth
    ``gt``: the card it names gets its box (and its pile when it has none);
    without one, core.commands.draw_card with its text (an unplaced card of
    that text is placed, else a card is added). The proposal is gone; undo
    brings both back."""

    def __init__(self, item_id: int, proposal: ProposedBox, gt: GroundTruth):
        self.item_id, self.proposal = item_id, proposal
        self.drop = DropProposedBox(item_id, proposal.id)
        target = next((c for c in gt.cards if proposal.card_id is not None and c.id == proposal.card_id), None)
        self.card: Command
        if target is not None and target.id is not None:
            change: dict = {"bbox": proposal.box}
            if target.pile is None and proposal.pile in {p.label for p in gt.piles}:
                change["pile"] = proposal.pile
            self.card = EditCards({target.id: change}, text=f"place card '{target.text}'")
        else:
            pile = proposal.pile if proposal.pile in {p.label for p in gt.piles} else None
            self.card = draw_card(item_id, gt, proposal.text, pile, proposal.box)
        self.text = f"accept proposed box '{proposal.text[:40]}'"

    def do(self, store: ProposalAndCardStore) -> Effect:
        """Drop the proposal, then write the card; Effect with the item."""
        self.drop.do(store)
        self.card.do(store)
        return Effect(items={self.item_id})

    def undo(self, store: ProposalAndCardStore) -> Effect:
        """Undo the card, then put the proposal back; Effect with the item."""
        self.card.undo(store)
        self.drop.undo(store)
        return Effect(items={self.item_id})


__all__ = [
    "EDGES",
    "AcceptProposedBox",
    "AdjustProposedBox",
    "DropProposedBox",
    "ProposalAndCardStore",
    "ProposalStore",
    "ProposeBoxes",
    "moved_edge",
]
