"""Ground truth from a run (pre-annotation, like Label Studio's predictions).

Two pure computations over a scored run; the commands that write them are
in reviewer.core.commands (``use_run_boxes``, ``accept_run_cards``):

* ``boxes_from_run``: the predicted boxes of the model cards matched to
  ground-truth cards that have no box yet, converted from the run's box
  convention to upright image pixels;
* ``draft_from_run``: a whole draft ground truth (piles and cards, boxes
  when the run gave them) for a photo that has none;
* ``proposals_from_run``: the run's boxes as proposed boxes, each with the
  text the run read, to be confirmed one by one (``ProposedBox``; the
  commands are in reviewer.core.box_commands). A proposal is never ground
  truth until it is accepted.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from reviewer.core.cards.boxes import to_pixels
from reviewer.core.cards.scoring import CardOutcome
from reviewer.core.models import BBox, BoxConvention, Card, GroundTruth, ModelCard, Pile


def _pixels(box: BBox | None, convention: BoxConvention | None, width: int | None, height: int | None) -> BBox | None:
    """``box`` in upright pixels, normalised (min <= max) and rounded to
    0.1 px; None without a box, a convention or the image size."""
    if box is None or convention is None or not width or not height:
        return None
    b = to_pixels(box, convention, int(width), int(height))
    return BBox(
        x_min=round(min(b.x_min, b.x_max), 1),
        y_min=round(min(b.y_min, b.y_max), 1),
        x_max=round(max(b.x_min, b.x_max), 1),
        y_max=round(max(b.y_min, b.y_max), 1),
    )


def boxes_from_run(
    gt: GroundTruth,
    outcomes: Sequence[CardOutcome],
    cards: Sequence[ModelCard],
    convention: BoxConvention | None,
    width: int | None,
    height: int | None,
) -> dict[int, BBox]:
    """{ground-truth card id: box in pixels} for every stored card without a
    box whose matched model card (``outcomes``) has one. Empty when the run
    has no boxes, no convention or the image size is unknown."""
    boxless = {c.id for c in gt.cards if c.bbox is None and c.id is not None}
    out: dict[int, BBox] = {}
    for o in outcomes:
        if o.gt_card_id not in boxless or o.model_index is None or not 0 <= o.model_index < len(cards):
            continue
        box = _pixels(cards[o.model_index].bbox, convention, width, height)
        if box is not None:
            out[o.gt_card_id] = box
    return out


def draft_from_run(
    item: str,
    cards: Sequence[ModelCard],
    convention: BoxConvention | None,
    width: int | None,
    height: int | None,
) -> GroundTruth:
    """A draft ground truth of ``item`` from a run's model cards: one pile
    per pile label (in the order first seen), one card per model card with
    its text and pile, and its box in pixels when the run gave one (blank
    texts are skipped)."""
    labels: list[str] = []
    out: list[Card] = []
    for card in cards:
        text = card.text.strip()
        if not text:
            continue
        pile = card.pile.strip() if card.pile and card.pile.strip() else None
        if pile is not None and pile not in labels:
            labels.append(pile)
        out.append(Card(text=text, pile=pile, bbox=_pixels(card.bbox, convention, width, height)))
    return GroundTruth(item=item, piles=[Pile(label=label) for label in labels], cards=out)


class ProposedBox(BaseModel):
    """A box proposed for the ground truth of a photo, not ground truth yet:
    ``id`` (unique on its item), ``text`` as the run read it, ``box`` in
    upright image pixels, ``card_id`` the ground-truth card without a box it
    would place (None: accepting it adds a card), ``pile`` the run's pile
    label and ``source`` the run it came from."""

    model_config = ConfigDict(frozen=True)

    id: int
    text: str
    box: BBox
    card_id: int | None = None
    pile: str | None = None
    source: str = ""


def proposals_from_run(
    gt: GroundTruth,
    outcomes: Sequence[CardOutcome],
    cards: Sequence[ModelCard],
    convention: BoxConvention | None,
    width: int | None,
    height: int | None,
    source: str = "",
    first_id: int = 1,
) -> list[ProposedBox]:
    """A proposed box for every model card of a run that has a box (in
    pixels) and a text: for the ground-truth card it is matched to
    (``outcomes``) when that card has no box yet, none when that card has a
    box already (it is ground truth), else a card to add. Ids count from
    ``first_id`` in the run's order. Empty without boxes, a convention or
    the image size."""
    gt_cards = {c.id: c for c in gt.cards if c.id is not None}
    matched = {o.model_index: o.gt_card_id for o in outcomes if o.model_index is not None and o.gt_card_id is not None}
    out: list[ProposedBox] = []
    for index, card in enumerate(cards):
        box = _pixels(card.bbox, convention, width, height)
        if box is None or not card.text.strip():
            continue
        gt_id = matched.get(index)
        target = gt_cards.get(gt_id) if gt_id is not None else None
        if target is not None and target.bbox is not None:
            continue
        pile = card.pile.strip() if card.pile and card.pile.strip() else None
        out.append(
            ProposedBox(
                id=first_id + len(out),
                text=card.text.strip(),
                box=box,
                card_id=target.id if target is not None else None,
                pile=pile,
                source=source,
            )
        )
    return out
