"""The labels (tags) of the overlay, in screen pixels: where each may go,
placed greedily by priority where it covers no other tag, and drawn on a
background of its shape's colour (painting.py calls ``_paint_labels``)."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QTransform

from reviewer.qt.canvas.model import Shape
from reviewer.qt.canvas.prepared import FINDING_GAP_PX, Prepared, _pen
from reviewer.qt.palette import SELECTED_COLOR

_LABEL_ORDER = {"finding": 0, "difference": 0, "pile": 1, "card": 2, "annotator": 2, "predicted": 3}  # priority


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
