"""The labels (tags) of the overlay, in screen pixels: placed once per
overlay model and view (``place_tags``), drawn on a background of their
shape's colour (``paint_tags``; painting.py calls both through
``_paint_labels``).

Placement rule (docs/window.md): a tag never covers what is judged. Its
rectangle overlaps (with positive area) no ground-truth card's box and no
other tag, and lies whole inside the view. A tag belongs to its box: it
touches the box's edge from outside, or, where no free place touches it, it
sits further out or in the view's margin around the photo with a leader line
that ends on the box's edge (a model box's tag only when hovered). A tag with
no free place anywhere is not drawn (it shows when its box is hovered or
selected and a place frees up)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QTransform

from reviewer.qt.canvas.model import Shape
from reviewer.qt.canvas.prepared import Prepared, make_pen
from reviewer.qt.palette import SELECTED_COLOR

_LABEL_ORDER = {"finding": 0, "difference": 0, "pile": 1, "card": 2, "annotator": 2, "predicted": 3}  # priority
#: How far out (screen px) a tag with a leader line may sit from its box, nearest first.
LEADER_STEPS = (10.0, 24.0, 44.0, 72.0, 110.0, 160.0)
MARGIN_GAP = 4.0  # px between the photo and a tag in the margin
#: At most this many tags (the first by priority) look for a place away from
#: their box; the rest show only beside it (or on hover): placing stays well
#: under a frame's time however many boxes are in view.
FAR_TAGS = 24


def _text_color(background: QColor) -> QColor:
    lum = 0.299 * background.red() + 0.587 * background.green() + 0.114 * background.blue()
    return QColor("#000000") if lum > 150 else QColor("#FFFFFF")


class _Grid:
    """Rectangles in a coarse grid, for overlap tests (positive area only:
    rectangles that only touch do not overlap)."""

    CELL = 128.0

    def __init__(self, rects: Iterable[QRectF] = ()):
        self.grid: dict[tuple[int, int], list[QRectF]] = {}
        for r in rects:
            self.add(r)

    def _cells(self, r: QRectF):
        c = self.CELL
        for i in range(int(r.left() // c), int(r.right() // c) + 1):
            for j in range(int(r.top() // c), int(r.bottom() // c) + 1):
                yield i, j

    def free(self, r: QRectF) -> bool:
        """True when ``r`` overlaps no rectangle of the grid with positive area."""
        return not any(_overlap(o, r) for cell in self._cells(r) for o in self.grid.get(cell, ()))

    def add(self, r: QRectF) -> None:
        """Record ``r`` (in every grid cell it touches)."""
        for key in self._cells(r):
            self.grid.setdefault(key, []).append(r)


#: kept under its old name for callers that test free places
_Placed = _Grid


def _overlap(a: QRectF, b: QRectF, eps: float = 0.01) -> bool:
    """``a`` and ``b`` share an area (more than rounding)."""
    return min(a.right(), b.right()) - max(a.left(), b.left()) > eps and (
        min(a.bottom(), b.bottom()) - max(a.top(), b.top()) > eps
    )


def tag_candidates(
    kind: str, tl: QPointF, br: QPointF, w: float, h: float, d: float = 0.0
) -> list[tuple[float, float]]:
    """Top-left corners of the places a ``w`` x ``h`` tag may take around the
    box ``tl``-``br`` (screen px), best first, each ``d`` px out from the
    box's edge (0: touching it from outside, never over it)."""
    left, top, right, bottom = tl.x(), tl.y(), br.x(), br.y()
    cx, cy = (left + right - w) / 2, (top + bottom - h) / 2
    above, below = top - h - d, bottom + d
    before, after = left - w - d, right + d
    if kind in ("finding", "difference"):  # the corner nearest the code's ring first
        return [
            (right - w, above),
            (after, top),
            (after, bottom - h),
            (right - w, below),
            (left, above),
            (left, below),
            (before, top),
            (before, bottom - h),
            (cx, above),
            (cx, below),
            (after, cy),
            (before, cy),
        ]
    if kind == "pile":
        return [(left, above), (right - w, above), (left, below), (before, top), (after, top)]
    return [
        (left, below),
        (left, above),
        (right - w, below),
        (right - w, above),
        (after, top),
        (before, top),
        (after, bottom - h),
        (before, bottom - h),
        (cx, below),
        (cx, above),
    ]


@dataclass(frozen=True)
class PlacedTag:
    """A tag placed on the view: its shape, its rectangle (screen px), the
    text shown (elided), bold or not, and its leader line (from the tag to
    the edge of its box) when it does not touch its box."""

    shape: Shape
    box: QRectF
    text: str
    bold: bool
    leader: QLineF | None = None

    def anchor(self, transform: QTransform) -> QRectF:
        """The shape's box on the view (screen px)."""
        return _screen_rect(transform, self.shape)


def _screen_rect(transform: QTransform, s: Shape) -> QRectF:
    return transform.mapRect(QRectF(QPointF(s.rect[0], s.rect[1]), QPointF(s.rect[2], s.rect[3])))


def _clamp(p: QPointF, r: QRectF) -> QPointF:
    return QPointF(min(max(p.x(), r.left()), r.right()), min(max(p.y(), r.top()), r.bottom()))


def _leader(tag: QRectF, anchor: QRectF) -> QLineF:
    """From the tag's point nearest the box to the box's edge point nearest the tag."""
    end = _clamp(tag.center(), anchor)
    return QLineF(_clamp(end, tag), end)


def _crosses(line: QLineF, rects: Iterable[QRectF]) -> bool:
    """The segment ``line`` runs through the inside of one of ``rects``
    (Liang-Barsky clipping; touching an edge does not count)."""
    x0, y0, dx, dy = line.x1(), line.y1(), line.dx(), line.dy()
    for r in rects:
        lo, hi = 0.0, 1.0
        for p, q in ((-dx, x0 - r.left()), (dx, r.right() - x0), (-dy, y0 - r.top()), (dy, r.bottom() - y0)):
            if abs(p) < 1e-9:
                if q <= 0:
                    lo, hi = 1.0, 0.0
                    break
                continue
            t = q / p
            if p < 0:
                lo = max(lo, t)
            else:
                hi = min(hi, t)
        if hi - lo > 1e-3:
            return True
    return False


def _margin_spots(anchor: QRectF, photo: QRectF, area: QRectF, w: float, h: float) -> list[QRectF]:
    """Places in the view's margin around the photo, nearest the box first:
    beside the photo at the box's height, then above or below it."""
    spots = []
    step = h + 2
    for k in range(0, int(area.height() // step) + 1):
        for sign in (1, -1):
            y = anchor.top() + sign * k * step
            spots.append(QRectF(photo.left() - MARGIN_GAP - w, y, w, h))
            spots.append(QRectF(photo.right() + MARGIN_GAP, y, w, h))
    for k in range(0, int(area.width() // 40) + 1):
        for sign in (1, -1):
            x = anchor.left() + sign * k * 40
            spots.append(QRectF(x, photo.top() - MARGIN_GAP - h, w, h))
            spots.append(QRectF(x, photo.bottom() + MARGIN_GAP, w, h))
    spots = [r for r in spots if area.contains(r)]
    c = anchor.center()
    spots.sort(key=lambda r: (r.center() - c).manhattanLength())
    return spots


def place_tags(
    prepared: Prepared, labels: Sequence[Shape], transform: QTransform, area: QRectF, photo: QRectF
) -> list[PlacedTag]:
    """Place the tags of ``labels`` (shapes with a label) on the view.

    ``transform``: scene (upright image px) to screen px; ``area``: where
    tags may go (the view, screen px); ``photo``: the photo on the view.
    Selected shapes first, then findings, piles, cards, model boxes. Each
    tag takes the first free place (no ground-truth card's box, or, where
    the ground truth has no boxes, no model box; no other tag; inside
    ``area``) touching its box from outside; else (a selected
    tag, or one of the first FAR_TAGS) the first free place further out,
    then in the margin, with a leader line (one that crosses no other card
    when there is one); else it is left out. Returns the placed tags in drawing order (highest
    priority last, so it ends on top)."""
    card_rects = [_screen_rect(transform, s) for s in prepared.overlay.cards]
    if not card_rects:  # a ground truth without boxes: the model's boxes are where the printed text is
        card_rects = [_screen_rect(transform, s) for s in prepared.overlay.predicted]
    cards = _Grid(card_rects)
    placed = _Grid()
    out: list[PlacedTag] = []

    def ok(r: QRectF) -> bool:
        return area.contains(r) and cards.free(r) and placed.free(r)

    order = sorted(labels, key=lambda s: (not s.selected, _LABEL_ORDER.get(s.kind, 9)))
    far = FAR_TAGS
    for s in order:
        if not s.label:
            continue
        bold = s.kind in ("finding", "pile", "difference")
        text, w, h = prepared.tag(s.label, bold)
        anchor = _screen_rect(transform, s)
        if not area.intersects(anchor.adjusted(-w, -h - 8, w, h + 8)):
            continue
        box = next(
            (
                r
                for x, y in tag_candidates(s.kind, anchor.topLeft(), anchor.bottomRight(), w, h)
                if ok(r := QRectF(x, y, w, h))
            ),
            None,
        )
        leader = None
        if box is None and s.kind == "predicted" and not s.selected:
            continue  # a model box's tag shows beside it or on hover, never far off
        if box is None and far <= 0 and not s.selected:
            continue
        if box is None:
            far -= 1
            spots = (
                QRectF(x, y, w, h)
                for d in LEADER_STEPS
                for x, y in tag_candidates(s.kind, anchor.topLeft(), anchor.bottomRight(), w, h, d)
            )
            margin = _margin_spots(anchor, photo, area, w, h)
            others = [r for r in card_rects if r != anchor]
            free = (r for r in chain(spots, margin) if ok(r))
            first = next(free, None)
            if first is None:
                continue
            box = next((r for r in chain([first], free) if not _crosses(_leader(r, anchor), others)), first)
            leader = _leader(box, anchor)
        placed.add(box)
        out.append(PlacedTag(s, box, text, bold, leader))
    return out[::-1]


def paint_tags(painter: QPainter, prepared: Prepared, tags: Sequence[PlacedTag]) -> None:
    """Draw placed tags (screen px; the painter's transform reset): the
    leader line, then the tag on its shape's colour, the selected finding's
    framed."""
    for t in tags:
        s = t.shape
        bg = (
            QColor("#111111")
            if s.kind == "predicted"
            else QColor(SELECTED_COLOR if (s.selected and s.kind == "card") else s.color)
        )
        if t.leader is not None:
            painter.setPen(make_pen(bg, 1.5))
            painter.drawLine(t.leader)
            painter.drawEllipse(t.leader.p2(), 2.0, 2.0)
        bg.setAlpha(225)
        painter.fillRect(t.box, bg)
        if s.selected and s.kind == "finding":
            painter.setPen(make_pen(SELECTED_COLOR, 2.0))
            painter.drawRect(t.box)
        painter.setFont(prepared.bold if t.bold else prepared.font)
        painter.setPen(_text_color(bg))
        painter.drawText(t.box, Qt.AlignmentFlag.AlignCenter, t.text)


__all__ = ["PlacedTag", "paint_tags", "place_tags"]
