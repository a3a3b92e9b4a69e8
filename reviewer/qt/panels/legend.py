"""The legend of the finding codes: colour swatch and line style (so no code
is told by colour alone), name, meaning and review key (1-6).

Also the code presentation helpers the other panels share: ``CODE_MEANINGS``,
``code_pixmap`` / ``code_icon`` and ``code_label``.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QWidget

from reviewer.core.models import (
    CASE_CODE_ORDER,
    CODE_ORDER,
    SPAN_CODE_ORDER,
    AnyCode,
    CaseCode,
    Code,
    Finding,
    SpanCode,
)
from reviewer.qt import registry
from reviewer.qt.palette import CODE_STYLES, code_color

#: What each code means (T-P5 taxonomy), in words for the legend.
CODE_MEANINGS: dict[AnyCode, str] = {
    Code.OCR: "text recognition error: card found, text wrong",
    Code.MISS: "detection miss: card in the photo, not in the answer",
    Code.SPATIAL: "wrong pile: text right, pile wrong",
    Code.HALLUC: "hallucination: card in the answer, not in the photo",
    Code.FORMAT: "format error: invalid JSON or wrong schema",
    Code.PARTIAL: "partial read: only part of the card's text",
    SpanCode.MISSED: "missed: an element the spans should cover",
    SpanCode.FALSE_POSITIVE: "false positive: a span that should not be there",
    SpanCode.TAXONOMY: "taxonomy: right span, wrong role",
    SpanCode.GRANULARITY: "granularity: span too coarse or too fine",
    CaseCode.ERROR: "a check of a test case failed: the metric drops to its error score",
    CaseCode.WARNING: "a check of a test case warned: the metric loses its per-warning deduction",
}

#: The review key of each code (1-6 reclassify T-P5 codes in CODE_ORDER,
#: 1-4 span codes in SPAN_CODE_ORDER, 1-2 test-case severities in CASE_CODE_ORDER).
CODE_KEYS: dict = {
    code: str(n) for order in (CODE_ORDER, SPAN_CODE_ORDER, CASE_CODE_ORDER) for n, code in enumerate(order, 1)
}


def codes_of_run(run) -> tuple:
    """The code order that applies to a run: span codes for a span-labeling
    run (or one with span findings), ERROR / WARNING for a run with fired
    checks of a test case, else the T-P5 codes."""
    if run is not None and any(isinstance(f.code, CaseCode) for f in run.findings):
        return CASE_CODE_ORDER
    if run is not None and (
        run.run.get("prompt") == "span-labeling" or any(isinstance(f.code, SpanCode) for f in run.findings)
    ):
        return SPAN_CODE_ORDER
    return CODE_ORDER


def codes_for(workflow, run) -> tuple:
    """The code order of the shown perspective (reviewer.core.workflows
    value or Workflow), as its registration gives it (reviewer.qt.registry):
    T-P5 for cards, span codes for spans, ERROR / WARNING for a case, none
    for a judged output or a pairwise subject (they have no findings) or a
    workflow this window does not know; by the run (``codes_of_run``)
    without a perspective."""
    value = getattr(workflow, "value", workflow)
    if value is None:
        return codes_of_run(run)
    parts = registry.of(value)
    return parts.codes if parts is not None else ()


_PIXMAPS: dict[tuple[Code, int, int], QPixmap] = {}


def code_pixmap(code: Code, width: int = 36, height: int = 14) -> QPixmap:
    """A swatch of a code: a small filled square in its colour and a thick
    line sample in its colour and line style (cached)."""
    key = (code, width, height)
    if key not in _PIXMAPS:
        pix = QPixmap(width, height)
        pix.fill(Qt.GlobalColor.transparent)
        p = QPainter(pix)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        color = code_color(code)
        side = height - 2
        p.setPen(QPen(QColor("#444444"), 1))
        p.setBrush(color)
        p.drawRect(QRectF(0.5, 0.5, side, side))
        if width > height + 4:
            pen = QPen(color, 3, CODE_STYLES[code])
            pen.setCapStyle(Qt.PenCapStyle.FlatCap)
            p.setPen(pen)
            y = height / 2
            p.drawLine(QPointF(height + 2, y), QPointF(width - 1, y))
        p.end()
        _PIXMAPS[key] = pix
    return _PIXMAPS[key]


def code_icon(code: Code) -> QIcon:
    """The swatch of a code as an icon for item views (not tinted when
    the row is selected, so the colour stays true)."""
    icon = QIcon()
    for mode in (QIcon.Mode.Normal, QIcon.Mode.Selected, QIcon.Mode.Active):
        icon.addPixmap(code_pixmap(code), mode)
    return icon


def code_label(finding: Finding) -> str:
    """'OCR', or 'OCR→SPATIAL' when a reviewer reclassified it."""
    if finding.final_code and finding.final_code != finding.code:
        return f"{finding.code.value}→{finding.final_code.value}"
    return finding.code.value


def _plain(text: str, parent: QWidget | None = None) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class LegendPanel(QWidget):
    """Every code with swatch + line style, name, meaning and review key.

    ``compact=True`` gives one row (key, swatch, name; the meaning in the
    tooltip) for a status bar.
    """

    def __init__(self, session=None, parent: QWidget | None = None, compact: bool = False):
        super().__init__(parent)
        self.session = session
        self.compact = compact
        box = QHBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        self.tables = {
            order: (self._row(order) if compact else self._grid(order))
            for order in (CODE_ORDER, SPAN_CODE_ORDER, CASE_CODE_ORDER)
        }
        for table in self.tables.values():
            box.addWidget(table)
        if session is not None:
            session.runChanged.connect(self.follow)
            session.projectChanged.connect(self.follow)
        self.follow()

    def follow(self) -> None:
        """Show the codes of the shown perspective (T-P5, span or case; none beside a judged output)."""
        s = self.session
        shown = codes_for(s.workflow(), s.run()) if s is not None else CODE_ORDER
        for order, table in self.tables.items():
            table.setVisible(order == shown)

    @staticmethod
    def _row(order) -> QWidget:
        widget = QWidget()
        row = QHBoxLayout(widget)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(10)
        for code in order:
            swatch = QLabel()
            swatch.setPixmap(code_pixmap(code, 30, 12))
            name = _plain(f"{CODE_KEYS[code]} {code.value}")
            tip = f"{code.value}: {CODE_MEANINGS[code]} (key {CODE_KEYS[code]} reclassifies)"
            for w in (swatch, name):
                w.setToolTip(tip)
            pair = QHBoxLayout()
            pair.setSpacing(3)
            pair.addWidget(swatch)
            pair.addWidget(name)
            row.addLayout(pair)
        row.addStretch(1)
        return widget

    @staticmethod
    def _grid(order) -> QWidget:
        widget = QWidget()
        grid = QGridLayout(widget)
        grid.setContentsMargins(6, 6, 6, 6)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(4)
        for col, title in enumerate(("key", "", "code", "meaning")):
            head = _plain(title)
            font = head.font()
            font.setBold(True)
            head.setFont(font)
            grid.addWidget(head, 0, col)
        for n, code in enumerate(order, 1):
            key = _plain(CODE_KEYS[code])
            key.setAlignment(Qt.AlignmentFlag.AlignCenter)
            swatch = QLabel()
            swatch.setPixmap(code_pixmap(code, 44, 14))
            swatch.setToolTip(
                f"{code.value}: colour {code_color(code).name()}, "
                f"{CODE_STYLES[code].name.replace('Line', '').lower()} line"
            )
            meaning = _plain(CODE_MEANINGS[code])
            meaning.setWordWrap(True)
            grid.addWidget(key, n, 0)
            grid.addWidget(swatch, n, 1)
            grid.addWidget(_plain(code.value), n, 2)
            grid.addWidget(meaning, n, 3)
        grid.setColumnStretch(3, 1)
        grid.setRowStretch(len(order) + 1, 1)
        return widget

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        """Qt's hint, widened to at least 320 px."""
        hint = super().sizeHint()
        return QSize(max(hint.width(), 320), hint.height())
