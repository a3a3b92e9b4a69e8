"""Painting the overlay model (overlay.py) with a QPainter.

All overlays are painted by one QGraphicsItem (``OverlayItem``) whose paint()
calls ``paint_overlay``: thousands of boxes cost a few drawRects calls, not
thousands of items. ``prepare`` turns an overlay into pens, QRectF lists and
numpy arrays once; each paint then culls against the exposed rectangle and
applies the level of detail: labels only when boxes are big enough on screen
and not too many, thin outlines when boxes are many, outlines always. Line widths, labels and handles keep their
size on screen at any zoom.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPainter, QPen, QPixmap, QPolygonF, QTransform
from PySide6.QtWidgets import QGraphicsItem

from reviewer.qt.canvas.hittest import handle_points
from reviewer.qt.canvas.overlay import Overlay, Shape
from reviewer.qt.palette import SELECTED_COLOR
from reviewer.qt.text import cell

LABEL_MIN_BOX_PX = 12.0  # a box shorter than this on screen gets no label
LABEL_MIN_WIDTH_PX = 24.0  # ... or narrower than this
LABEL_BUDGET = 300  # labels drawn at most; a kind (cards, model boxes) that would pass it gets none
LABEL_MAX_PX = 260  # labels longer than this (screen px) are elided
DENSE_BOXES = 400  # more boxes of a layer in view than this: 1 px outlines (2 px costs 2.4x)
HANDLE_PX = 7.0
_LABEL_ORDER = {"finding": 0, "difference": 0, "pile": 1, "card": 2, "annotator": 2, "predicted": 3}  # priority
FINDING_GAP_PX = 3.0
#: How model-card (predicted box) labels show, in the order the L key cycles them.
LABEL_MODES = ("on", "hover", "off")


def _pen(color: str | QColor, width: float, style: Qt.PenStyle = Qt.SolidLine, alpha: int = 255) -> QPen:
    c = QColor(color)
    c.setAlpha(alpha)
    pen = QPen(c, width, style)
    pen.setCosmetic(True)
    pen.setJoinStyle(Qt.MiterJoin)
    return pen


def _qrect(r) -> QRectF:
    return QRectF(r[0], r[1], r[2] - r[0], r[3] - r[1])


def _array(shapes: Sequence[Shape]) -> np.ndarray:
    return np.array([s.rect for s in shapes], dtype=np.float64).reshape(-1, 4)


@dataclass
class _Layer:
    """Shapes drawn with the same pens, for one drawRects call each."""

    shapes: list[Shape]
    pens: list[QPen]
    rects: list[QRectF] = field(default_factory=list)
    boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    thin: list[QPen] = field(default_factory=list)  # 1 px pens for dense views

    def __post_init__(self):
        self.rects = [_qrect(s.rect) for s in self.shapes]
        self.boxes = _array(self.shapes)
        self.thin = [QPen(p) for p in self.pens]
        for p in self.thin:
            p.setWidthF(min(p.widthF(), 1.0))


@dataclass
class Prepared:
    """An overlay made ready to paint (built once per overlay model)."""

    overlay: Overlay
    piles: list[tuple[Shape, QPolygonF, QPen, QBrush]]
    layers: dict[str, list[_Layer]]  # 'predicted', 'cards', 'annotators' (other annotators' cards)
    findings: list[tuple[Shape, int]]  # shape, ring (0 = nearest the box)
    font: QFont
    bold: QFont
    _tags: dict = field(default_factory=dict)

    def tag(self, text: str, bold: bool) -> tuple[str, float, float]:
        """(elided text, width, height) of a label, cached."""
        key = (text, bold)
        if key not in self._tags:
            fm = QFontMetrics(self.bold if bold else self.font)
            shown = fm.elidedText(cell(text), Qt.ElideRight, LABEL_MAX_PX)
            self._tags[key] = (shown, fm.horizontalAdvance(shown) + 6.0, fm.height() + 2.0)
        return self._tags[key]


def prepare(overlay: Overlay, font: Optional[QFont] = None) -> Prepared:
    """Pens, rect lists and arrays for painting ``overlay``."""
    piles = []
    for p in [*overlay.piles, *(o for o in overlay.others if o.kind == "pile")]:
        fill = QColor(p.color)
        fill.setAlpha(40 if p.annotator is None else 20)
        piles.append(
            (p, QPolygonF([QPointF(x, y) for x, y in p.polygon]), _pen(p.color, 2.0, p.style, alpha=200), QBrush(fill))
        )
    by_style: dict[tuple[str, Qt.PenStyle], list[Shape]] = {}
    for s in overlay.others:
        if s.kind == "annotator":
            by_style.setdefault((s.color, s.style), []).append(s)
    others = [
        _Layer(shapes, [_pen("#000000", 1.0, alpha=120), _pen(color, 2.0, style)])
        for (color, style), shapes in by_style.items()
    ]
    by_color: dict[tuple[str, bool], list[Shape]] = {}
    for s in overlay.cards:
        by_color.setdefault((s.color, s.selected), []).append(s)
    cards = [
        _Layer(shapes, [_pen(SELECTED_COLOR if sel else color, 3.0 if sel else 2.0)])
        for (color, sel), shapes in by_color.items()
    ]
    predicted = (
        [
            _Layer(
                list(overlay.predicted),
                [_pen("#000000", 1.0, alpha=150), _pen(overlay.predicted[0].color, 1.0, Qt.DashLine)],
            )
        ]
        if overlay.predicted
        else []
    )
    rings: dict[tuple, int] = {}
    findings = []
    for s in overlay.findings:
        findings.append((s, rings.get(s.rect, 0)))
        rings[s.rect] = rings.get(s.rect, 0) + 1
    font = QFont(font) if font is not None else QFont()
    font.setPointSizeF(9.0)
    bold = QFont(font)
    bold.setBold(True)
    return Prepared(
        overlay, piles, {"predicted": predicted, "cards": cards, "annotators": others}, findings, font, bold
    )


def _visible(boxes: np.ndarray, view: tuple[float, float, float, float]) -> np.ndarray:
    return (boxes[:, 0] <= view[2]) & (boxes[:, 2] >= view[0]) & (boxes[:, 1] <= view[3]) & (boxes[:, 3] >= view[1])


def _draw_layer(painter: QPainter, layer: _Layer, view, scale: float, big: list) -> int:
    """Outline the layer's boxes that meet ``view``; add those big enough
    on screen for a label to ``big``. Returns how many were drawn."""
    mask = _visible(layer.boxes, view)
    count = int(mask.sum())
    if not count:
        return 0
    idx = np.flatnonzero(mask)
    rects = layer.rects if count == len(layer.rects) else [layer.rects[i] for i in idx]
    for pen in layer.thin if count > DENSE_BOXES else layer.pens:
        painter.setPen(pen)
        painter.drawRects(rects)
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
    hovered: Optional[Shape] = None,
) -> int:
    """Paint ``prepared`` where it meets ``exposed`` (scene rect) at ``scale``
    (screen px per image px). Model-card labels (``model_labels``, one of
    LABEL_MODES): 'on' every one that fits outside its box, 'hover' only
    the ``hovered`` model box's, 'off' none. Returns the number of boxes
    painted."""
    o = prepared.overlay
    m = 4.0 / max(scale, 1e-6)  # pen width; labels are culled on screen
    view = (exposed.left() - m, exposed.top() - m, exposed.right() + m, exposed.bottom() + m)
    painter.setBrush(Qt.NoBrush)
    labels: list[Shape] = []
    painter.setRenderHint(QPainter.Antialiasing, True)
    for _shape, poly, pen, brush in prepared.piles:
        painter.setPen(pen)
        painter.setBrush(brush)
        painter.drawPolygon(poly)
    painter.setBrush(Qt.NoBrush)
    labels.extend(s for s, *_ in prepared.piles)
    painter.setRenderHint(QPainter.Antialiasing, False)
    drawn = 0
    gap = FINDING_GAP_PX / max(scale, 1e-6)
    for s, ring in prepared.findings:
        d = gap * (ring + 1) + (1.5 / scale if s.selected else 0.0)
        r = _qrect(s.rect).adjusted(-d, -d, d, d)
        if s.selected:
            painter.setPen(_pen(SELECTED_COLOR, 8.0, alpha=150))
            painter.drawRect(r)
        painter.setPen(_pen(s.color, 1.5 if s.rejected else (3.5 if s.selected else 2.5), s.style))
        painter.drawRect(r)
        drawn += 1
    labels.extend(s for s, _ in prepared.findings)
    budget = LABEL_BUDGET - len(labels)
    for kind in ("predicted", "cards", "annotators"):  # cards on top
        big: list[Shape] = []
        for layer in prepared.layers[kind]:
            drawn += _draw_layer(painter, layer, view, scale, big)
        if kind == "predicted" and model_labels != "on":
            continue
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
    painter.setRenderHint(QPainter.Antialiasing, True)
    if o.handles:
        _paint_handles(painter, transform, o.selected_cards())
    _paint_labels(painter, transform, prepared, labels, scale)
    painter.restore()
    return drawn


def _paint_differences(painter: QPainter, shapes: Sequence[Shape], scale: float) -> int:
    """Both sides of each difference between annotators, just outside their
    boxes; the highlighted difference thick on a halo. Returns how many."""
    gap = FINDING_GAP_PX / max(scale, 1e-6)
    for s in sorted(shapes, key=lambda s: s.selected):  # the highlighted one on top
        r = _qrect(s.rect).adjusted(-gap, -gap, gap, gap)
        if s.selected:
            painter.setPen(_pen(SELECTED_COLOR, 9.0, alpha=140))
            painter.drawRect(r)
        painter.setPen(_pen(s.color, 3.5 if s.selected else 1.5, s.style, alpha=255 if s.selected else 170))
        painter.drawRect(r)
    return len(shapes)


def _paint_preview(painter: QPainter, preview: Sequence[Shape]) -> None:
    for s in preview:
        painter.setPen(_pen(SELECTED_COLOR, 1.5, Qt.DashLine))
        fill = QColor(SELECTED_COLOR)
        fill.setAlpha(30)
        painter.setBrush(QBrush(fill))
        if s.polygon:
            pts = [QPointF(x, y) for x, y in s.polygon]
            painter.drawPolyline(QPolygonF(pts))
            painter.setBrush(Qt.NoBrush)
            for p in pts:
                painter.drawEllipse(
                    p, 3.0 / max(painter.worldTransform().m11(), 1e-6), 3.0 / max(painter.worldTransform().m22(), 1e-6)
                )
        else:
            painter.drawRect(_qrect(s.rect))
    painter.setBrush(Qt.NoBrush)


def _paint_handles(painter: QPainter, transform: QTransform, shapes: Sequence[Shape]) -> None:
    painter.setPen(_pen("#000000", 1.0))
    painter.setBrush(QColor(SELECTED_COLOR))
    h = HANDLE_PX
    for s in shapes:
        for x, y in handle_points(s.rect):
            p = transform.map(QPointF(x, y))
            painter.drawRect(QRectF(p.x() - h / 2, p.y() - h / 2, h, h))
    painter.setBrush(Qt.NoBrush)


def _text_color(background: QColor) -> QColor:
    lum = 0.299 * background.red() + 0.587 * background.green() + 0.114 * background.blue()
    return QColor("#000000") if lum > 150 else QColor("#FFFFFF")


class _Placed:
    """Label rectangles already placed, in a coarse grid for overlap tests."""

    CELL = 128.0

    def __init__(self):
        self.grid: dict[tuple[int, int], list[QRectF]] = {}

    def _cells(self, r: QRectF):
        c = self.CELL
        for i in range(int(r.left() // c), int(r.right() // c) + 1):
            for j in range(int(r.top() // c), int(r.bottom() // c) + 1):
                yield i, j

    def free(self, r: QRectF) -> bool:
        """True when ``r`` overlaps no placed rectangle."""
        return not any(o.intersects(r) for cell in self._cells(r) for o in self.grid.get(cell, ()))

    def add(self, r: QRectF) -> None:
        """Record ``r`` as placed (in every grid cell it touches)."""
        for key in self._cells(r):
            self.grid.setdefault(key, []).append(r)


def _candidates(kind: str, tl: QPointF, br: QPointF, w: float, h: float) -> list[tuple[float, float]]:
    """Where a label may go, best first (screen pixels, top-left corners)."""
    g = FINDING_GAP_PX
    if kind in ("finding", "difference"):
        return [
            (br.x() + g - w, tl.y() - g - h),
            (br.x() + g - w, br.y() + g),
            (tl.x() - g, tl.y() - g - h),
            (br.x() - 2 - w, tl.y() + 2),
        ]
    if kind == "pile":
        return [(tl.x(), tl.y() - h - 2), (tl.x() + 2, tl.y() + 2)]
    if kind == "predicted":  # outside the box: never over the card text it names
        return [(tl.x(), br.y() + 1), (tl.x(), tl.y() - h - 1), (br.x() - w, br.y() + 1), (br.x() - w, tl.y() - h - 1)]
    return [(tl.x() + 2, tl.y() + 2), (br.x() - 2 - w, tl.y() + 2), (tl.x() + 2, br.y() - h - 2)]


def _paint_labels(
    painter: QPainter, transform: QTransform, prepared: Prepared, labels: Sequence[Shape], scale: float
) -> None:
    """Tags in screen pixels, placed greedily by priority (findings, piles,
    cards, model boxes) where they cover no other tag; a model box's tag is
    dropped when it would; the others go to their first place anyway.
    Drawn lowest priority first so finding tags end on top."""
    placed, out = _Placed(), []
    device = painter.device()
    screen = QRectF(0, 0, device.width(), device.height())
    for s in sorted(labels, key=lambda s: _LABEL_ORDER.get(s.kind, 9)):
        if not s.label:
            continue
        bold = s.kind in ("finding", "pile", "difference")
        text, w, h = prepared.tag(s.label, bold)
        tl = transform.map(QPointF(s.rect[0], s.rect[1]))
        br = transform.map(QPointF(s.rect[2], s.rect[3]))
        if not screen.intersects(QRectF(tl, br).adjusted(-w, -h - 8, w, h + 8)):
            continue
        spots = [QRectF(x, y, w, h) for x, y in _candidates(s.kind, tl, br, w, h)]
        box = next((r for r in spots if placed.free(r)), None)
        if box is None:
            if s.kind == "predicted" and not s.selected:  # a hovered one shows anyway
                continue
            box = spots[0]
        placed.add(box)
        out.append((s, box, text, bold))
    for s, box, text, bold in reversed(out):
        bg = (
            QColor("#111111")
            if s.kind == "predicted"
            else QColor(SELECTED_COLOR if (s.selected and s.kind == "card") else s.color)
        )
        bg.setAlpha(215)
        painter.fillRect(box, bg)
        if s.selected and s.kind == "finding":
            painter.setPen(_pen(SELECTED_COLOR, 2.0))
            painter.drawRect(box)
        painter.setFont(prepared.bold if bold else prepared.font)
        painter.setPen(_text_color(bg))
        painter.drawText(box, Qt.AlignCenter, text)


def marked_crop(pixmap: QPixmap, image_width: float, boxes: Sequence[tuple], margin: float = 1.0) -> QPixmap:
    """A copy of ``pixmap`` (the photo, maybe reduced from ``image_width``
    upright pixels) cut to the boxes with ``margin`` times their size around
    them, each box (rect in upright pixels, colour, line style) outlined
    with lines about 1/150 of the cut's width; the whole photo when there
    is no box."""
    if pixmap.isNull():
        return pixmap
    k = pixmap.width() / image_width if image_width else 1.0
    crop = QRectF(pixmap.rect())
    if boxes:
        x0, y0 = min(b[0][0] for b in boxes), min(b[0][1] for b in boxes)
        x1, y1 = max(b[0][2] for b in boxes), max(b[0][3] for b in boxes)
        m = margin * max(x1 - x0, y1 - y0)
        crop = QRectF((x0 - m) * k, (y0 - m) * k, (x1 - x0 + 2 * m) * k, (y1 - y0 + 2 * m) * k)
    crop = crop.toAlignedRect().intersected(pixmap.rect())
    out = pixmap.copy(crop)
    width = max(2.0, crop.width() / 150)
    painter = QPainter(out)
    painter.setRenderHint(QPainter.Antialiasing, True)
    for rect, color, style in boxes:
        r = _qrect(rect)
        r = QRectF(r.x() * k - crop.x(), r.y() * k - crop.y(), r.width() * k, r.height() * k)
        for pen in (QPen(QColor(0, 0, 0, 150), width * 1.8), QPen(QColor(color), width, style)):
            painter.setPen(pen)
            painter.drawRect(r)
    painter.end()
    return out


class OverlayItem(QGraphicsItem):
    """The one scene item that paints every overlay. ``source()`` returns
    (overlay, preview shapes) at paint time."""

    def __init__(self, source: Callable[[], tuple[Overlay, Sequence[Shape]]]):
        super().__init__()
        self._source = source
        self._prepared: Optional[Prepared] = None
        self._rect = QRectF()
        self.setFlag(QGraphicsItem.ItemUsesExtendedStyleOption, True)
        self.paints = 0
        self.model_labels = LABEL_MODES[0]  # see paint_overlay
        self.hovered: Optional[Shape] = None  # the model box under the mouse

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
        paint_overlay(painter, prepared, option.exposedRect, scale, preview, self.model_labels, self.hovered)
        self.paints += 1
