"""Geometry of imported ground truth: frames, rotated rectangles, clamping.

Annotation tools write coordinates in different frames and units; reviewer
keeps ground truth in pixels of the *upright* image (EXIF orientation
applied). The rules here are pure arithmetic:

* **Frame.** A file that declares the image size it was drawn on tells
  which frame its coordinates are in: the upright size (labelme, Label
  Studio and browsers apply EXIF orientation) or, for a photo stored
  sideways (EXIF 5-8), the stored size, whose width and height are swapped
  (:func:`drawn_on_stored_frame`). A point of the stored frame is taken to
  the upright frame by :func:`stored_to_upright` (the same turns as
  reviewer.storage.files.images.UPRIGHT). Orientations 2-4 keep the size, so the
  size cannot tell: the upright frame is assumed.
* **Rotated rectangles** (Label Studio ``value.rotation``): the rectangle's
  top-left corner ``(x, y)`` is the pivot; it is turned clockwise by the
  rotation in degrees in the image's pixel frame (y down). The card's box is
  the axis-aligned bounding box of the four corners (:func:`rotated_corners`).
* **Clamping**: a box or polygon reaching outside the image is cut to
  ``[0, width] x [0, height]`` (:func:`clamp_box`, :func:`clamp_points`);
  callers report it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from reviewer.core.models import BBox

Point = tuple[float, float]

#: Digits pixel values keep after a conversion from percent or a turn
#: (0.0001 px), so that exports and imports give back the same numbers.
DIGITS = 4


def _r(v: float) -> float:
    return round(v + 0.0, DIGITS) + 0.0  # + 0.0: no -0.0


def drawn_on_stored_frame(
    declared_w: float | None,
    declared_h: float | None,
    orientation: int,
    upright_w: int | None,
    upright_h: int | None,
) -> bool:
    """True when a file's declared image size is the *stored* (sideways)
    size of a photo with EXIF orientation 5-8 rather than its upright size
    (module doc, Frame): then its coordinates need :func:`stored_to_upright`."""
    if orientation not in (5, 6, 7, 8) or not (declared_w and declared_h and upright_w and upright_h):
        return False
    if upright_w == upright_h:
        return False
    return (round(declared_w), round(declared_h)) == (upright_h, upright_w)


def stored_to_upright(point: Point, orientation: int, stored_w: float, stored_h: float) -> Point:
    """A point in pixels of the stored frame (``stored_w`` x ``stored_h``)
    in pixels of the upright frame, for EXIF ``orientation`` 1-8 (the turn
    that shows the photo upright: 6 turns it 90 degrees clockwise, so
    (x, y) -> (stored_h - y, x); 8 counter-clockwise, (x, y) -> (y, stored_w - x))."""
    x, y = point
    w, h = stored_w, stored_h
    out = {
        1: (x, y),
        2: (w - x, y),
        3: (w - x, h - y),
        4: (x, h - y),
        5: (y, x),
        6: (h - y, x),
        7: (h - y, w - x),
        8: (y, w - x),
    }.get(orientation, (x, y))
    return (_r(out[0]), _r(out[1]))


def rotated_corners(x: float, y: float, width: float, height: float, rotation: float) -> list[Point]:
    """The four corners, in order, of a rectangle with top-left corner
    ``(x, y)`` and size ``width`` x ``height`` (pixels) turned clockwise by
    ``rotation`` degrees about that corner (Label Studio's rule; y points down)."""
    t = math.radians(rotation or 0.0)
    c, s = math.cos(t), math.sin(t)
    return [
        (x, y),
        (x + width * c, y + width * s),
        (x + width * c - height * s, y + width * s + height * c),
        (x - height * s, y + height * c),
    ]


def bounds(points: Iterable[Sequence[float]]) -> BBox:
    """The axis-aligned bounding box of ``points`` (rounded to DIGITS);
    ValueError when there are none."""
    pts = [(float(p[0]), float(p[1])) for p in points]
    if not pts:
        raise ValueError("no points")
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return BBox(x_min=_r(min(xs)), y_min=_r(min(ys)), x_max=_r(max(xs)), y_max=_r(max(ys)))


def clamp_box(box: BBox, width: float, height: float) -> tuple[BBox, bool]:
    """``box`` cut to the image ``[0, width] x [0, height]``, and whether it
    changed. A box entirely outside becomes empty (zero width or height)."""
    f = lambda v, hi: min(max(v, 0.0), float(hi))  # noqa: E731
    out = BBox(
        x_min=f(box.x_min, width), y_min=f(box.y_min, height), x_max=f(box.x_max, width), y_max=f(box.y_max, height)
    )
    return out, out != box


def clamp_points(points: Sequence[Point], width: float, height: float) -> tuple[list[Point], bool]:
    """Every point cut to the image, and whether any changed."""
    out = [(min(max(x, 0.0), float(width)), min(max(y, 0.0), float(height))) for x, y in points]
    return out, out != [tuple(p) for p in points]


def is_empty(box: BBox) -> bool:
    """True when the box has no area."""
    return box.x_max <= box.x_min or box.y_max <= box.y_min


def rectangle_points(box: BBox) -> list[Point]:
    """The corners of ``box`` clockwise from the top left."""
    return [(box.x_min, box.y_min), (box.x_max, box.y_min), (box.x_max, box.y_max), (box.x_min, box.y_max)]
