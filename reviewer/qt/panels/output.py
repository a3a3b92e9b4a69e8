"""The current run's raw model output (plain text, read-only) with the
extracted JSON highlighted and a parse error marked where it happened, the
extracted JSON pretty-printed below it, and the switch of the coordinate
convention the predicted boxes are drawn in.

Outputs of megabytes stay responsive: each text is set once, lines longer
than reviewer.qt.text.LONG_LINE are broken for display (Qt lays out a line
whole), and the JSON is coloured only up to HIGHLIGHT_CHARS."""

from __future__ import annotations

import json

from PySide6.QtCore import QRegularExpression, Qt
from PySide6.QtGui import QColor, QFontDatabase, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.models import AnswerSchema, BoxConvention
from reviewer.qt import registry
from reviewer.qt.session import Session
from reviewer.qt.text import block, doc_pos, wrap_long_lines

__all__ = ["CONVENTIONS", "HIGHLIGHT_CHARS", "JsonHighlighter", "OutputPanel", "doc_pos", "pretty_json"]


def _readable(output: str) -> str | None:
    """``output`` as the first registered workflow that knows its kind shows
    it (reviewer.qt.registry, ``output_text``: a span run's text and
    numbered spans), or None: shown as it is, its JSON beside."""
    for parts in registry.registered():
        shown = parts.output_text(output) if parts.output_text else None
        if shown is not None:
            return shown
    return None


#: The extracted JSON is coloured only up to this size (characters): the
#: highlighter runs over every line at once, so a huge answer is shown plain.
HIGHLIGHT_CHARS = 200_000

#: The convention combo: (label, convention); None = as detected.
CONVENTIONS: list[tuple[str, BoxConvention | None]] = [
    ("detected", None),
    ("0-1", BoxConvention.UNIT),
    ("0-1000", BoxConvention.GRID1000),
    ("pixels", BoxConvention.PIXELS),
]


def pretty_json(raw: str, span: tuple[int, int] | None) -> str:
    """The extracted JSON pretty-printed, or the raw span when it does not
    parse ('' without a span)."""
    if not span:
        return ""
    text = raw[span[0] : span[1]]
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


class JsonHighlighter(QSyntaxHighlighter):
    """Colours JSON: keys, strings, numbers, literals and braces."""

    def __init__(self, document, dark: bool = False):
        super().__init__(document)
        colors = (
            ("#7FB4FF", "#8FD694", "#F5B971", "#E98AC9", "#BBBBBB")
            if dark
            else ("#0B4F9C", "#1A7A3A", "#A34F00", "#8E2C74", "#555555")
        )
        fmts = []
        for color, bold in zip(colors, (True, False, False, False, True)):
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(color))
            if bold:
                fmt.setFontWeight(700)
            fmts.append(fmt)
        key, string, number, literal, brace = fmts
        self.rules = [
            (QRegularExpression(r"[{}\[\],:]"), brace),
            (QRegularExpression(r"-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b"), number),
            (QRegularExpression(r"\b(?:true|false|null)\b"), literal),
            (QRegularExpression(r'"(?:[^"\\]|\\.)*"'), string),
            (QRegularExpression(r'"(?:[^"\\]|\\.)*"(?=\s*:)'), key),
        ]

        self.enabled = True

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt API
        """Format every match of each rule in ``text``, in rule order (later
        rules win: keys last); nothing while ``enabled`` is False."""
        if not self.enabled:
            return
        for pattern, fmt in self.rules:
            it = pattern.globalMatch(text)
            while it.hasNext():
                m = it.next()
                self.setFormat(m.capturedStart(), m.capturedLength(), fmt)


def _caption(text: str) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


class OutputPanel(QWidget):
    """Raw output + extracted JSON of the current run (see module doc)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)

        self.convention_combo = QComboBox()
        for label, convention in CONVENTIONS:
            self.convention_combo.addItem(label, convention)
        self.convention_combo.setToolTip("coordinate convention the predicted boxes are drawn in")
        self.detected_label = QLabel()
        self.detected_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label = QLabel()
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setWordWrap(True)
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label.setStyleSheet(
            "QLabel { background: #FDE2E1; color: #7A1010; padding: 3px; "
            "border: 1px solid #E0A0A0; border-radius: 3px; }"
        )
        self.error_label.hide()

        self.raw_view = QPlainTextEdit()
        self.raw_view.setReadOnly(True)
        self.raw_view.setFont(mono)
        self.raw_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.raw_view.setPlaceholderText("no run selected")
        self.raw_view.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.json_view = QPlainTextEdit()
        self.json_view.setReadOnly(True)
        self.json_view.setFont(mono)
        self.json_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
        self.highlighter = JsonHighlighter(self.json_view.document(), dark)

        self.boxes_row = QWidget()  # the box convention: only for answers with boxes
        top = QHBoxLayout(self.boxes_row)
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(QLabel("boxes:"))
        top.addWidget(self.convention_combo)
        top.addWidget(self.detected_label, 1)
        raw_box, self.json_box = QWidget(), QWidget()
        for box, caption, view in (
            (raw_box, "model output", self.raw_view),
            (self.json_box, "extracted JSON", self.json_view),
        ):
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.setSpacing(2)
            lay.addWidget(_caption(caption))
            lay.addWidget(view, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(raw_box)
        self.splitter.addWidget(self.json_box)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.boxes_row)
        lay.addWidget(self.error_label)
        lay.addWidget(self.splitter, 1)

        self.convention_combo.currentIndexChanged.connect(self._convention_picked)
        session.runChanged.connect(self.refresh)
        session.projectChanged.connect(self.refresh)
        session.conventionChanged.connect(self._follow_convention)
        self.refresh()

    # -- session -> view ----------------------------------------------------------------
    def refresh(self) -> None:
        """Show the session's current run."""
        run = self.session.run()
        raw = run.run["output"] if run else ""
        facts = run.facts if run else None
        readable = _readable(raw) if run else None
        if readable is not None:  # a span run: its text and numbered spans, not JSON with \n escapes
            raw, facts = readable, None
        shown, breaks = wrap_long_lines(raw)
        self.raw_view.setPlainText(shown)
        error = facts.parse_error if facts else None
        self.error_label.setText(f"⚠ {block(error, 600)}" if error else "")
        self.error_label.setVisible(bool(error))
        free = run is not None and run.run["schema"] == AnswerSchema.FREE.value
        self.json_view.setPlaceholderText(
            "free-text answer: no JSON expected" if free else "no JSON found in this answer" if run else ""
        )
        pretty = pretty_json(raw, facts.span if facts else None)
        card = registry.shown_for(self.session.workflow()).card_tools
        self.json_box.setVisible(card or bool(pretty))  # no empty JSON pane beside a span answer or a text
        self.highlighter.enabled = len(pretty) <= HIGHLIGHT_CHARS
        self.json_view.setPlainText(wrap_long_lines(pretty)[0])
        self._mark(raw, facts, breaks)
        self._follow_convention()

    def _mark(self, raw: str, facts, breaks: list[int]) -> None:
        selections = []
        doc = self.raw_view.document()
        span_cursor = None
        if facts and facts.span:
            sel = QTextEdit.ExtraSelection()
            sel.cursor = QTextCursor(doc)
            sel.cursor.setPosition(doc_pos(raw, facts.span[0], breaks))
            sel.cursor.setPosition(doc_pos(raw, facts.span[1], breaks), QTextCursor.MoveMode.KeepAnchor)
            dark = self.palette().color(QPalette.ColorRole.Base).lightness() < 128
            sel.format.setBackground(QColor("#3A3A1C" if dark else "#FFF4C2"))
            selections.append(sel)
            span_cursor = QTextCursor(doc)
            span_cursor.setPosition(doc_pos(raw, facts.span[0], breaks))
        error_cursor = None
        if facts and facts.parse_error and facts.error_offset is not None and raw:
            offset = min(facts.error_offset, len(raw) - 1)  # past the end: mark the last character
            sel = QTextEdit.ExtraSelection()
            sel.cursor = QTextCursor(doc)
            sel.cursor.setPosition(doc_pos(raw, offset, breaks))
            sel.cursor.setPosition(doc_pos(raw, offset + 1, breaks), QTextCursor.MoveMode.KeepAnchor)
            sel.format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.WaveUnderline)
            sel.format.setUnderlineColor(QColor("#D00000"))
            sel.format.setBackground(QColor("#F8C9C9"))
            sel.format.setForeground(QColor("#000000"))
            selections.append(sel)
            error_cursor = QTextCursor(doc)
            error_cursor.setPosition(doc_pos(raw, facts.error_offset, breaks))
        self.raw_view.setExtraSelections(selections)
        if error_cursor is not None:
            self.raw_view.setTextCursor(error_cursor)
            self.raw_view.centerCursor()
        elif span_cursor is not None:
            end = QTextCursor(doc)
            end.movePosition(QTextCursor.MoveOperation.End)
            self.raw_view.setTextCursor(end)  # scroll past, then back: the span lands at the top
            self.raw_view.ensureCursorVisible()
            self.raw_view.setTextCursor(span_cursor)
            self.raw_view.ensureCursorVisible()
        else:
            self.raw_view.moveCursor(QTextCursor.MoveOperation.Start)

    def _follow_convention(self) -> None:
        run = self.session.run()
        detected = run.facts.box_convention if run else None
        self.convention_combo.setItemText(0, f"detected ({detected.value})" if detected else "detected")
        has_boxes = run is not None and (detected is not None or run.run["schema"] == AnswerSchema.CARDS.value)
        self.convention_combo.setEnabled(has_boxes)
        self.boxes_row.setVisible(has_boxes)
        override = self.session.convention_override
        index = next((i for i, (_, c) in enumerate(CONVENTIONS) if c == override), 0)
        self.convention_combo.blockSignals(True)
        self.convention_combo.setCurrentIndex(index)
        self.convention_combo.blockSignals(False)
        shown = self.session.convention()
        self.detected_label.setText(
            "" if not has_boxes else f"drawn as {shown.value}" if shown else "no boxes detected"
        )

    # -- view -> session ----------------------------------------------------------------
    def _convention_picked(self, index: int) -> None:
        convention = CONVENTIONS[index][1] if 0 <= index < len(CONVENTIONS) else None
        if convention != self.session.convention_override:
            self.session.set_convention(convention)
