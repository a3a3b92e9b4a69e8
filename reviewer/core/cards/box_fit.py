"""Boxes as position evidence (card-scoring-rules.md §6): with boxes, a
model card is evidence only for the cards its box lies on. ``boxes_fit``
chooses the frame the answer's boxes were read in (upright, or the stored
pixels when the reader ignored EXIF) and whether they fit the cards at all;
``lies_on_matrix`` is "lies on" for every (model box, card box) at once.
Decision record "boxes-as-position-evidence". Nothing here knows about
storage or Qt.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from reviewer.core.cards.gt_geometry import stored_to_upright
from reviewer.core.models import ScoringConfig

__all__ = ["Frac", "boxes_fit", "lies_on_matrix", "raw_to_upright"]

#: A box as fractions of the upright image: (x_min, y_min, x_max, y_max).
Frac = tuple[float, float, float, float]


def raw_to_upright(box: Frac, orientation: int) -> Frac:
    """A box in fractions of the stored image (as a reader that ignored EXIF
    saw it) in fractions of the upright image, for EXIF ``orientation`` 1-8
    (others are treated as 1): its corners turned by gt_geometry.stored_to_upright."""
    x0, y0 = stored_to_upright((box[0], box[1]), orientation, 1.0, 1.0)
    x1, y1 = stored_to_upright((box[2], box[3]), orientation, 1.0, 1.0)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def lies_on_matrix(boxes: Sequence[Frac | None], card_boxes: Sequence[Frac | None], share: float) -> np.ndarray:
    """§6 "lies on" for every (model box, card box) at once: a boolean
    matrix, True where the two overlap by a positive area of at least
    ``share`` x the smaller box's area (``boxes.box_lies_on``); False where
    either box is None."""
    nan = (np.nan,) * 4
    a = np.array([b if b is not None else nan for b in boxes], dtype=np.float64).reshape(-1, 4)
    c = np.array([b if b is not None else nan for b in card_boxes], dtype=np.float64).reshape(-1, 4)
    w = np.minimum(a[:, None, 2], c[None, :, 2]) - np.maximum(a[:, None, 0], c[None, :, 0])
    h = np.minimum(a[:, None, 3], c[None, :, 3]) - np.maximum(a[:, None, 1], c[None, :, 1])
    area_a = np.clip(a[:, 2] - a[:, 0], 0, None) * np.clip(a[:, 3] - a[:, 1], 0, None)
    area_c = np.clip(c[:, 2] - c[:, 0], 0, None) * np.clip(c[:, 3] - c[:, 1], 0, None)
    smaller = np.minimum(area_a[:, None], area_c[None, :])
    with np.errstate(invalid="ignore"):
        return (w > 0) & (h > 0) & (w * h >= share * smaller)


def boxes_fit(reads_by_text: set[tuple[int, int]], model_boxes, gt_boxes, orientation: int, config: ScoringConfig):
    """§6 frame and fit: choose the frame in which the answer's boxes lie on
    the cards they read by text (``reads_by_text``: (model card, card)
    pairs, §1-2): the upright image, or the stored one when the reader
    ignored EXIF. A boxed model card that reads a boxed card fits when its
    box lies on one of the cards it reads (``lies_on_matrix``). Returns
    (frame name, model boxes in upright fractions, lies-on matrix) for the
    frame where more fit (on a tie, where more of the (model card, card it
    reads) pairs lie on each other; then upright), or (None, None, None)
    when fewer than ``config.box_fit`` (half) of them fit in either frame:
    the boxes use another convention and text alone decides."""
    reads: dict[int, list[int]] = {}
    for m, g in sorted(reads_by_text):
        if gt_boxes[g] is not None and model_boxes[m] is not None:
            reads.setdefault(m, []).append(g)
    frames = [("upright", 1)]
    if orientation not in (None, 1):
        frames.append(("stored", orientation))
    best: tuple = (None, None, None, (0, 0))
    for name, o in frames:
        boxes = [raw_to_upright(b, o) if b is not None else None for b in model_boxes]
        on = lies_on_matrix(boxes, gt_boxes, config.lies_on_share)
        per_card = [int(on[m, cards].sum()) for m, cards in reads.items()]
        hit = sum(1 for n in per_card if n)
        # fits better: more model cards on a card they read, then more such (model card, card) pairs
        fit = (hit, sum(per_card))
        if reads and hit >= config.box_fit * len(reads) and fit > best[3]:
            best = (name, boxes, on, fit)
    return best[0], best[1], best[2]
