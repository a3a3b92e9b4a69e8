"""The answer of a test case's run as plain text (docs/test-cases.md): what
each check matched as backgrounds (fired errors and warnings strongly,
what passing checks found faintly) and the selected findings' spans bold
and underlined. The answer is never read as rich text; long lines are
wrapped for the view (reviewer.qt.text.wrap_long_lines) and positions are
mapped through the breaks."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

from reviewer.core.models import CaseCode
from reviewer.qt.cases.highlight import MatchHighlighter, merged
from reviewer.qt.text import doc_pos, doc_positions, wrap_long_lines

#: Backgrounds of matched text: (light theme, dark theme).
FIRED_ERROR = ("#F8C9C9", "#5A2222")
FIRED_WARNING = ("#FBE3B0", "#4E3A12")
PASSED_MATCH = ("#DDF0DD", "#1F3A24")


class CaseAnswer(QPlainTextEdit):
    """A read-only view of one answer with its check highlights (see module doc)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setPlaceholderText("no answer of this case selected")
        self.highlighter = MatchHighlighter(self.document())
        self._shown: tuple | None = None  # (answer, outcomes, dark) the view shows
        self._breaks: list[int] = []

    def _dark(self) -> int:
        return int(self.palette().color(QPalette.ColorRole.Base).lightness() < 128)

    def clear_answer(self) -> None:
        """Show no answer."""
        self.clear()
        self._shown, self._breaks = None, []

    def show_answer(self, raw: str, outcomes_text: str, outcomes: list[dict], selected) -> None:
        """Show ``raw`` with what the checks of ``outcomes`` (the stored
        outcomes, parsed from ``outcomes_text``) matched as backgrounds, set
        once per answer and outcomes: a refresh for a decision only moves the
        selection; ``selected`` (findings) get their spans as extra selections."""
        dark = self._dark()
        key = (raw, outcomes_text, dark)
        if key != self._shown:
            self._shown = key
            shown, self._breaks = wrap_long_lines(raw)
            self.highlighter.set_layers(self._layers(raw, outcomes, dark), rehighlight=False)
            self.setPlainText(shown)  # formats the text as it is laid out
        doc, breaks = self.document(), self._breaks
        selections, first = [], None
        for f in selected:
            color = FIRED_ERROR if (f.final_code or f.code) == CaseCode.ERROR else FIRED_WARNING
            for span in f.attrs.get("spans", []):
                sel = QTextEdit.ExtraSelection()
                sel.cursor = _cursor(doc, doc_pos(raw, span[0], breaks), doc_pos(raw, span[1], breaks))
                sel.format.setBackground(QColor(color[dark]))
                sel.format.setUnderlineStyle(QTextCharFormat.UnderlineStyle.SingleUnderline)
                sel.format.setFontWeight(700)
                selections.append(sel)
                first = first or sel.cursor
        self.setExtraSelections(selections)
        if first is not None:
            cursor = QTextCursor(first)
            cursor.clearSelection()  # the finding's own format shows, not the selection's
            self.setTextCursor(cursor)
            self.ensureCursorVisible()

    def _layers(self, raw: str, outcomes: list[dict], dark: int) -> list[tuple[str, list[tuple[int, int]]]]:
        """What passing checks found, then fired warnings, then fired errors
        over them: per colour, the matched spans merged, in document positions."""
        spans: dict[tuple, list] = {}
        for o in outcomes:
            if not o["on"] or not o.get("ran", True):
                continue
            color = (FIRED_ERROR if o["severity"] == "error" else FIRED_WARNING) if o["fired"] else PASSED_MATCH
            spans.setdefault(color, []).extend(o["spans"])
        layers = []
        for palette in (PASSED_MATCH, FIRED_WARNING, FIRED_ERROR):
            if palette in spans:
                ranges = merged(spans[palette])
                ends = doc_positions(raw, [x for r in ranges for x in r], self._breaks)
                layers.append((palette[dark], list(zip(ends[::2], ends[1::2]))))
        return layers


def _cursor(doc, start: int, end: int) -> QTextCursor:
    """A cursor selecting document positions [start, end) (clamped)."""
    last = max(0, doc.characterCount() - 1)
    cursor = QTextCursor(doc)
    cursor.setPosition(max(0, min(start, last)))
    cursor.setPosition(max(0, min(end, last)), QTextCursor.MoveMode.KeepAnchor)
    return cursor


__all__ = ["FIRED_ERROR", "FIRED_WARNING", "PASSED_MATCH", "CaseAnswer"]
