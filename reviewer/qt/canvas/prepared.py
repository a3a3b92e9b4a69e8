"""An overlay made ready to paint (painting.py): ``prepare`` turns an overlay
model into pens, QRectF lists and numpy arrays once per model, grouped in
layers of shapes drawn with the same pens; ``Prepared.tag`` measures labels.
Also the pen and rectangle helpers and the sizes painting and label placing
(tags.py) share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QPen, QPolygonF

from reviewer.qt.canvas.model import Overlay, Shape
from reviewer.qt.palette import SELECTED_COLOR
from reviewer.qt.text import cell

LABEL_MAX_PX = 260  # labels longer than this (screen px) are elided
FINDING_GAP_PX = 3.0


def make_pen(color: str | QColor, width: float, style: Qt.PenStyle = Qt.PenStyle.SolidLine, alpha: int = 255) -> QPen:
    """A cosmetic QPen of ``color`` (its ``alpha``), ``width`` px and ``style``."""
    c = QColor(color)
    c.setAlpha(alpha)
    pen = QPen(c, width, style)
    pen.setCosmetic(True)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    return pen


def qrect(r) -> QRectF:
    """A QRectF of the box ``r`` given as (x0, y0, x1, y1)."""
    return QRectF(r[0], r[1], r[2] - r[0], r[3] - r[1])


def _array(shapes: Sequence[Shape]) -> np.ndarray:
    return np.array([s.rect for s in shapes], dtype=np.float64).reshape(-1, 4)


@dataclass
class Layer:
    """Shapes drawn with the same pens, for one drawRects call each."""

    shapes: list[Shape]
    pens: list[QPen]
    rects: list[QRectF] = field(default_factory=list)
    boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    thin: list[QPen] = field(default_factory=list)  # 1 px pens for dense views

    def __post_init__(self):
        self.rects = [qrect(s.rect) for s in self.shapes]
        self.boxes = _array(self.shapes)
        self.thin = [QPen(p) for p in self.pens]
        for p in self.thin:
            p.setWidthF(min(p.widthF(), 1.0))


@dataclass
class Prepared:
    """An overlay made ready to paint (built once per overlay model)."""

    overlay: Overlay
    piles: list[tuple[Shape, QPolygonF, QPen, QBrush]]
    layers: dict[str, list[Layer]]  # 'predicted', 'cards', 'annotators' (other annotators' cards)
    findings: list[tuple[Shape, int]]  # shape, ring (0 = nearest the box)
    font: QFont
    bold: QFont
    _tags: dict = field(default_factory=dict)

    def tag(self, text: str, bold: bool) -> tuple[str, float, float]:
        """(elided text, width, height) of a label, cached."""
        key = (text, bold)
        if key not in self._tags:
            fm = QFontMetrics(self.bold if bold else self.font)
            shown = fm.elidedText(cell(text), Qt.TextElideMode.ElideRight, LABEL_MAX_PX)
            self._tags[key] = (shown, fm.horizontalAdvance(shown) + 6.0, fm.height() + 2.0)
        return self._tags[key]


def prepare(overlay: Overlay, font: QFont | None = None) -> Prepared:
    """Pens, rect lists and arrays for painting ``overlay``."""
    piles = []
    for p in [*overlay.piles, *(o for o in overlay.others if o.kind == "pile")]:
        fill = QColor(p.color)
        fill.setAlpha(40 if p.annotator is None else 20)
        piles.append(
            (
                p,
                QPolygonF([QPointF(x, y) for x, y in p.polygon]),
                make_pen(p.color, 2.0, p.style, alpha=200),
                QBrush(fill),
            )
        )
    by_style: dict[tuple[str, Qt.PenStyle], list[Shape]] = {}
    for s in overlay.others:
        if s.kind == "annotator":
            by_style.setdefault((s.color, s.style), []).append(s)
    others = [
        Layer(shapes, [make_pen("#000000", 1.0, alpha=120), make_pen(color, 2.0, style)])
        for (color, style), shapes in by_style.items()
    ]
    by_color: dict[tuple[str, bool], list[Shape]] = {}
    for s in overlay.cards:
        by_color.setdefault((s.color, s.selected), []).append(s)
    cards = [
        Layer(shapes, [make_pen(SELECTED_COLOR if sel else color, 3.0 if sel else 2.0)])
        for (color, sel), shapes in by_color.items()
    ]
    predicted = (
        [
            Layer(
                list(overlay.predicted),
                [make_pen("#000000", 1.0, alpha=150), make_pen(overlay.predicted[0].color, 1.0, Qt.PenStyle.DashLine)],
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
