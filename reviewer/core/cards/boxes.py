"""Box coordinate conventions: detect which one a model used and convert.

Qwen-VL models answer boxes on a 0-1000 grid relative to the image whatever
the prompt asks (go-wish-spike README); other models answer 0-1 fractions or
pixels. Boxes are stored as the model gave them, with the convention.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from reviewer.core.models import BBox, BoxConvention

_EPS = 1e-6


def detect_convention(
    boxes: Iterable[BBox],
    width: int | None = None,
    height: int | None = None,
    ambiguous: BoxConvention = BoxConvention.GRID1000,
) -> BoxConvention | None:
    """The coordinate convention of ``boxes`` (None when there are none).

    Rules, in order: every coordinate within [0, 1] -> 0-1; any coordinate
    above 1000, or an x above 1000 while the image is wider -> pixels; boxes
    that overflow the image in pixels but fit 0-1000 -> 0-1000; otherwise
    (fits both) -> ``ambiguous`` (ScoringConfig.ambiguous_box_convention).
    ``width``/``height``: upright image size in pixels, when known.
    """
    boxes = list(boxes)
    if not boxes:
        return None
    max_x = max(max([b.x_min for b in boxes]), max([b.x_max for b in boxes]))
    max_y = max(max([b.y_min for b in boxes]), max([b.y_max for b in boxes]))
    top = max(max_x, max_y)
    if top <= 1.0 + _EPS:
        return BoxConvention.UNIT
    if top > 1000.0 + _EPS:
        return BoxConvention.PIXELS
    if width and height:
        if max_x > width + _EPS or max_y > height + _EPS:
            return BoxConvention.GRID1000
        if width > 1000 or height > 1000:
            # Pixels on a large image would reach past 1000 somewhere unless
            # every card sits in the top-left corner: the grid is likelier.
            return BoxConvention.GRID1000
    return ambiguous


def scale_of(convention: BoxConvention, width: int, height: int) -> tuple[float, float]:
    """(sx, sy) multipliers that take ``convention`` coordinates to pixels."""
    if convention == BoxConvention.UNIT:
        return float(width), float(height)
    if convention == BoxConvention.GRID1000:
        return width / 1000.0, height / 1000.0
    return 1.0, 1.0


def to_pixels(box: BBox, convention: BoxConvention, width: int, height: int) -> BBox:
    """``box`` in ``convention`` converted to upright image pixels."""
    if convention == BoxConvention.GRID1000:  # multiply first: exact at the edges
        fx = lambda v: v * width / 1000.0  # noqa: E731
        fy = lambda v: v * height / 1000.0  # noqa: E731
    else:
        sx, sy = scale_of(convention, width, height)
        fx = lambda v: v * sx  # noqa: E731
        fy = lambda v: v * sy  # noqa: E731
    return BBox(x_min=fx(box.x_min), y_min=fy(box.y_min), x_max=fx(box.x_max), y_max=fy(box.y_max))


def iou(a: BBox, b: BBox) -> float:
    """Intersection over union of two boxes in the same frame (0-1)."""
    ix = max(0.0, min(a.x_max, b.x_max) - max(a.x_min, b.x_min))
    iy = max(0.0, min(a.y_max, b.y_max) - max(a.y_min, b.y_min))
    inter = ix * iy
    area = lambda r: max(0.0, r.x_max - r.x_min) * max(0.0, r.y_max - r.y_min)  # noqa: E731
    union = area(a) + area(b) - inter
    return inter / union if union > 0 else 0.0


def box_lies_on(a: tuple[float, ...], b: tuple[float, ...], share: float = 0.5) -> bool:
    """``lies_on`` for boxes given as (x_min, y_min, x_max, y_max) tuples in
    one frame (any unit): the overlap area is positive and at least
    ``share`` x the area of the smaller box (card-scoring-rules.md §6)."""
    ix = min(a[2], b[2]) - max(a[0], b[0])
    iy = min(a[3], b[3]) - max(a[1], b[1])
    if ix <= 0.0 or iy <= 0.0:
        return False
    smaller = min(max(0.0, a[2] - a[0]) * max(0.0, a[3] - a[1]), max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1]))
    return ix * iy >= share * smaller


def lies_on(a: BBox, b: BBox, share: float = 0.5) -> bool:
    """True when box ``a`` lies on box ``b`` (or ``b`` on ``a``: the test is
    symmetric): they overlap by at least ``share`` of the smaller box's area
    (card-scoring-rules.md §6; the default is the rule's half). Both boxes in
    the same frame and unit. A heading that grazes a note does not lie on it;
    a merged block over several notes lies on each. Boxes that only touch,
    or a box of zero area, lie on nothing. A box's min and max may come in
    either order (a box drawn from its bottom-right corner)."""
    ax0, ax1 = sorted((a.x_min, a.x_max))
    ay0, ay1 = sorted((a.y_min, a.y_max))
    bx0, bx1 = sorted((b.x_min, b.x_max))
    by0, by1 = sorted((b.y_min, b.y_max))
    return box_lies_on((ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1), share)


_GRID_WORDS = re.compile(r"0\s*(?:-|–|to)\s*1000\b", re.I)
_UNIT_WORDS = re.compile(r"0\s*(?:-|–|to)\s*1(?:\.0)?\b(?!\d)|normali[sz]ed|fraction", re.I)
_PIXEL_WORDS = re.compile(r"\bpixels?\b", re.I)


def requested_convention(prompt_text: str) -> BoxConvention | None:
    """The box convention a prompt asks for, read from its words ("0-1
    normalized", "0-1000", "pixels"); None when it does not say."""
    if _GRID_WORDS.search(prompt_text):
        return BoxConvention.GRID1000
    if _UNIT_WORDS.search(prompt_text):
        return BoxConvention.UNIT
    if _PIXEL_WORDS.search(prompt_text):
        return BoxConvention.PIXELS
    return None
