"""Ground truth from a run (pre-annotation, like Label Studio's predictions).

Two pure computations over a scored run; the commands that write them are
in reviewer.core.commands (``use_run_boxes``, ``accept_run_cards``):

* ``boxes_from_run``: the predicted boxes of the model cards matched to
  ground-truth cards that have no box yet, converted from the run's box
  convention to upright image pixels;
* ``draft_from_run``: a whole draft ground truth (piles and cards, boxes
  when the run gave them) for a photo that has none.
"""

from __future__ import annotations

from typing import Optional, Sequence

from reviewer.core.cards.boxes import to_pixels
from reviewer.core.cards.scoring import CardOutcome
from reviewer.core.models import BBox, BoxConvention, Card, GroundTruth, ModelCard, Pile


def _pixels(
    box: Optional[BBox], convention: Optional[BoxConvention], width: Optional[int], height: Optional[int]
) -> Optional[BBox]:
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
    convention: Optional[BoxConvention],
    width: Optional[int],
    height: Optional[int],
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
    convention: Optional[BoxConvention],
    width: Optional[int],
    height: Optional[int],
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
