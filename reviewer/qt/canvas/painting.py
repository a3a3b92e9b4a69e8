"""Painting the overlay model (overlay.py) with a QPainter.

All overlays are painted by one QGraphicsItem (``OverlayItem``) whose paint()
calls ``paint_overlay``: thousands of boxes cost a few drawRects calls, not
thousands of items. ``prepare`` turns an overlay into pens, QRectF lists and
numpy arrays once; each paint then culls against the exposed rectangle and
applies the level of detail: labels only when boxes are big enough on screen
and not too many, thin outlines when boxes are many, outlines always. Line widths, labels and handles keep their
size on screen at any zoom.

Preparing is in prepared.py, placing and drawing labels in tags.py, and
``marked_crop`` in crop.py; their names are importable from here as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPolygonF, QTransform
from PySide6.QtWidgets import QGraphicsItem

from reviewer.qt.canvas.hittest import handle_points
from reviewer.qt.canvas.model import Overlay, Shape
from reviewer.qt.canvas.prepared import FINDING_GAP_PX, Layer, Prepared, make_pen, prepare, qrect
from reviewer.qt.canvas.tags import PlacedTag, paint_tags, place_tags
from reviewer.qt.palette import SELECTED_COLOR

__all__ = [
    "DENSE_BOXES",
    "HANDLE_PX",
    "LABEL_BUDGET",
    "LABEL_MIN_BOX_PX",
    "LABEL_MIN_WIDTH_PX",
    "LABEL_MODES",
    "TAG_MODES",
    "OverlayItem",
    "paint_overlay",
]

LABEL_MIN_BOX_PX = 12.0  # a box shorter than this on screen gets no label
LABEL_MIN_WIDTH_PX = 24.0  # ... or narrower than this
LABEL_BUDGET = 300  # labels drawn at most; a kind (cards, model boxes) that would pass it gets none
DENSE_BOXES = 400  # more boxes of a layer in view than this: 1 px outlines (2 px costs 2.4x)
HANDLE_PX = 7.0
#: How model-card (predicted box) labels show, in the order the L key cycles them.
LABEL_MODES = ("on", "hover", "off")
#: Which finding and card tags show, in the order Shift+L cycles them: 'near' the
#: selected finding (it and its NEIGHBOURS nearest; the rest when their box is
#: hovered; every one while no finding is selected), or 'all'.
TAG_MODES = ("near", "all")
NEIGHBOURS = 3
#: (labels, transform, device size) -> placed tags; OverlayItem caches it per view
Placer = Callable[[Prepared, Sequence[Shape], QTransform, QRectF, QRectF], list[PlacedTag]]


def _visible(boxes: np.ndarray, view: tuple[float, float, float, float]) -> np.ndarray:
    return (boxes[:, 0] <= view[2]) & (boxes[:, 2] >= view[0]) & (boxes[:, 1] <= view[3]) & (boxes[:, 3] >= view[1])


def _draw_layer(painter: QPainter, layer: Layer, view, scale: float, big: list, seen=None) -> int:
    """Outline the layer's boxes that meet ``view``; add those that meet
    ``seen`` (the whole view; default ``view``) and are big enough on screen
    for a label to ``big``. Returns how many were drawn."""
    mask = _visible(layer.boxes, view)
    count = int(mask.sum())
    if count:
        idx = np.flatnonzero(mask)
        rects = layer.rects if count == len(layer.rects) else [layer.rects[i] for i in idx]
        for pen in layer.thin if count > DENSE_BOXES else layer.pens:
            painter.setPen(pen)
            painter.drawRects(rects)
    idx = np.flatnonzero(_visible(layer.boxes, seen or view))
    b = layer.boxes[idx]
    ok = ((b[:, 3] - b[:, 1]) * scale >= LABEL_MIN_BOX_PX) & ((b[:, 2] - b[:, 0]) * scale >= LABEL_MIN_WIDTH_PX)
    big.extend(layer.shapes[i] for i in idx[ok])
    return count


def paint_overlay(
    painter: QPainter,
    prepared: Prepared,
    exposed: QRectF,
    scale: float,
    preview: Sequence[Shape] = (),
    model_labels: str = "on",
    hovered: Shape | None = None,
    tags: str = "all",
    hovered_card: int | None = None,
    placer: Placer | None = None,
    bounds: QRectF | None = None,
) -> int:
    """Paint ``prepared`` where it meets ``exposed`` (scene rect) at ``scale``
    (screen px per image px). Model-card labels (``model_labels``, one of
    LABEL_MODES): 'on' every one that fits outside its box, 'hover' only
    the ``hovered`` model box's, 'off' none. Finding and card tags
    (``tags``, one of TAG_MODES; ``hovered_card``: the ground-truth card
    under the mouse). Tags are placed by ``placer`` (default
    tags.place_tags, every call) inside the device and ``bounds`` (scene
    rect; None: the device only). Returns the number of boxes painted."""
    o = prepared.overlay
    m = 4.0 / max(scale, 1e-6)  # pen width; labels are culled on screen
    view = (exposed.left() - m, exposed.top() - m, exposed.right() + m, exposed.bottom() + m)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    labels: list[Shape] = []
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    for _shape, poly, pen, brush in prepared.piles:
        painter.setPen(pen)
        painter.setBrush(brush)
        painter.drawPolygon(poly)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    labels.extend(s for s, *_ in prepared.piles)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    drawn = 0
    gap = FINDING_GAP_PX / max(scale, 1e-6)
    for s, ring in prepared.findings:
        d = gap * (ring + 1) + (1.5 / scale if s.selected else 0.0)
        r = qrect(s.rect).adjusted(-d, -d, d, d)
        if s.selected:
            painter.setPen(make_pen(SELECTED_COLOR, 8.0, alpha=150))
            painter.drawRect(r)
        painter.setPen(make_pen(s.color, 1.5 if s.rejected else (3.5 if s.selected else 2.5), s.style))
        painter.drawRect(r)
        drawn += 1
    labels.extend(_shown_findings(prepared, tags, hovered_card, hovered))
    budget = LABEL_BUDGET - len(labels)
    device = painter.device()
    whole = painter.worldTransform().inverted()[0].mapRect(QRectF(0, 0, device.width(), device.height()))
    seen = (whole.left(), whole.top(), whole.right(), whole.bottom())  # tags are chosen over the whole view
    for kind in ("predicted", "cards", "annotators"):  # cards on top
        big: list[Shape] = []
        for layer in prepared.layers[kind]:
            drawn += _draw_layer(painter, layer, view, scale, big, seen)
        if kind == "predicted" and model_labels != "on":
            continue
        if kind == "cards" and tags != "all":
            big = [c for c in big if c.selected or (hovered_card is not None and c.card_id == hovered_card)]
        if len(big) <= budget:  # all of a kind or none: no arbitrary half
            labels.extend(big)
            budget -= len(big)
    if hovered is not None and hovered.kind == "predicted" and model_labels != "off":
        labels = [s for s in labels if s is not hovered] + [replace(hovered, selected=True)]
    drawn += _paint_differences(painter, o.differences, scale)
    labels.extend(s for s in o.differences if s.selected)
    _paint_preview(painter, preview)
    painter.save()
    transform = painter.worldTransform()
    painter.resetTransform()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    if o.handles:
        _paint_handles(painter, transform, o.selected_cards())
    area = QRectF(0, 0, device.width(), device.height())
    if bounds is not None:
        area = area.intersected(transform.mapRect(bounds))
    photo = transform.mapRect(QRectF(0, 0, o.width, o.height))
    paint_tags(painter, prepared, (placer or place_tags)(prepared, labels, transform, area, photo))
    painter.restore()
    return drawn


def _shown_findings(prepared: Prepared, tags: str, hovered_card: int | None, hovered: Shape | None) -> list[Shape]:
    """The finding shapes whose tags show (TAG_MODES): all, or the selected
    ones, their NEIGHBOURS nearest and those of the hovered card or model box."""
    shapes = [s for s, _ in prepared.findings]
    chosen = [s for s in shapes if s.selected]
    if tags == "all" or not chosen:
        return shapes

    def centre(s: Shape) -> tuple[float, float]:
        return ((s.rect[0] + s.rect[2]) / 2, (s.rect[1] + s.rect[3]) / 2)

    def near(s: Shape) -> float:
        x, y = centre(s)
        return min((x - cx) ** 2 + (y - cy) ** 2 for cx, cy in map(centre, chosen))

    others = sorted((s for s in shapes if not s.selected), key=near)
    shown = chosen + others[:NEIGHBOURS]
    hovered_model = hovered.model_index if hovered is not None else None
    shown += [
        s
        for s in others[NEIGHBOURS:]
        if (hovered_card is not None and s.card_id == hovered_card)
        or (hovered_model is not None and s.card_id is None and s.model_index == hovered_model)
    ]
    return shown


def _paint_differences(painter: QPainter, shapes: Sequence[Shape], scale: float) -> int:
    """Both sides of each difference between annotators, just outside their
    boxes; the highlighted difference thick on a halo. Returns how many."""
    gap = FINDING_GAP_PX / max(scale, 1e-6)
    for s in sorted(shapes, key=lambda s: s.selected):  # the highlighted one on top
        r = qrect(s.rect).adjusted(-gap, -gap, gap, gap)
        if s.selected:
            painter.setPen(make_pen(SELECTED_COLOR, 9.0, alpha=140))
            painter.drawRect(r)
        painter.setPen(make_pen(s.color, 3.5 if s.selected else 1.5, s.style, alpha=255 if s.selected else 170))
        painter.drawRect(r)
    return len(shapes)


def _paint_preview(painter: QPainter, preview: Sequence[Shape]) -> None:
    for s in preview:
        painter.setPen(make_pen(SELECTED_COLOR, 1.5, Qt.PenStyle.DashLine))
        fill = QColor(SELECTED_COLOR)
        fill.setAlpha(30)
        painter.setBrush(QBrush(fill))
        if s.polygon:
            pts = [QPointF(x, y) for x, y in s.polygon]
            painter.drawPolyline(QPolygonF(pts))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            for p in pts:
                painter.drawEllipse(
                    p, 3.0 / max(painter.worldTransform().m11(), 1e-6), 3.0 / max(painter.worldTransform().m22(), 1e-6)
                )
        else:
            painter.drawRect(qrect(s.rect))
    painter.setBrush(Qt.BrushStyle.NoBrush)


def _paint_handles(painter: QPainter, transform: QTransform, shapes: Sequence[Shape]) -> None:
    painter.setPen(make_pen("#000000", 1.0))
    painter.setBrush(QColor(SELECTED_COLOR))
    h = HANDLE_PX
    for s in shapes:
        for x, y in handle_points(s.rect):
            p = transform.map(QPointF(x, y))
            painter.drawRect(QRectF(p.x() - h / 2, p.y() - h / 2, h, h))
    painter.setBrush(Qt.BrushStyle.NoBrush)


class OverlayItem(QGraphicsItem):
    """The one scene item that paints every overlay. ``source()`` returns
    (overlay, preview shapes) at paint time."""

    def __init__(self, source: Callable[[], tuple[Overlay | None, Sequence[Shape]]]):
        super().__init__()
        self._source = source
        self._prepared: Prepared | None = None
        self._rect = QRectF()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)
        self.paints = 0
        self.model_labels = LABEL_MODES[0]  # see paint_overlay
        self.hovered: Shape | None = None  # the model box under the mouse
        self.tags = TAG_MODES[0]  # see paint_overlay
        self.hovered_card: int | None = None  # the ground-truth card under the mouse
        self.placed: list[PlacedTag] = []  # the tags of the last placement (screen px)
        self.placements = 0  # how many times tags were placed (once per overlay model and view)
        self._placed_key: tuple | None = None

    def set_rect(self, rect: QRectF) -> None:
        """The area overlays may cover (the photo, grown for labels)."""
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = QRectF(rect)

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt)
        """The area given to ``set_rect`` (scene units)."""
        return self._rect

    def prepared(self) -> Prepared:
        """The prepared current overlay (rebuilt when the model changed)."""
        overlay, _ = self._source()
        assert overlay is not None  # paint asks only once the overlay is built
        if self._prepared is None or self._prepared.overlay is not overlay:
            self._prepared = prepare(overlay)
        return self._prepared

    def paint(self, painter: QPainter, option, widget=None) -> None:
        """Paint the overlay and the tool's preview in the exposed rect; nothing until it is built."""
        if self._source()[0] is None:  # not built yet: the photo paints first
            return
        prepared = self.prepared()
        _, preview = self._source()
        scale = option.levelOfDetailFromTransform(painter.worldTransform())
        paint_overlay(
            painter,
            prepared,
            option.exposedRect,
            scale,
            preview,
            self.model_labels,
            self.hovered,
            self.tags,
            self.hovered_card,
            self._place,
            self._rect,
        )
        self.paints += 1

    def _place(
        self, prepared: Prepared, labels: Sequence[Shape], transform: QTransform, area: QRectF, photo: QRectF
    ) -> list[PlacedTag]:
        """tags.place_tags, computed again only when the overlay model, the
        tags asked for or the view (transform, size) changed."""
        key = (
            id(prepared),
            tuple(labels),
            tuple(round(v, 3) for v in (transform.m11(), transform.m22(), transform.dx(), transform.dy())),
            (area.x(), area.y(), area.width(), area.height()),
        )
        if key != self._placed_key:
            self.placed = place_tags(prepared, labels, transform, area, photo)
            self._placed_key = key
            self.placements += 1
        return self.placed
