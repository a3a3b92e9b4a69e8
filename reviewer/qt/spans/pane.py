"""The span pane (docs/spans.md): a text item's labelled text beside its
prompt, plain text only (setPlainText; the spans are character formats on
it, the rest painted lines, never HTML); the run's spans tinted by role,
golden spans as thick role-coloured lines, the judge's findings as zigzags on
their span (a MISSED element where its text occurs, else in the list below),
section stripes, and hand labelling:

* select text with the mouse or Shift+arrows, or grow the selection by a
  word (W) or a sentence (S), press L or Enter, type a role (the roles of the
  taxonomy that complete it are listed under the field, the first taken by
  Enter, Up/Down choose another), Enter: a golden span; Shift+Enter labels
  the selection with the last role used;
* drag a golden span's end to fix it; Delete removes the golden span at the
  cursor; every edit is a core command (Ctrl+Z undoes).

The review keys (J/K, Y, N, 1-4, Shift+Y/N, A) are the window's: J/K select
a finding and the pane scrolls to it; A adds a finding on the span at the
cursor. The pane keeps only view state (what is drawn), read from the
session on every change.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFontDatabase, QKeySequence, QPainter, QTextOption
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.models import SpanCode
from reviewer.core.span_commands import AddGoldenSpan, DeleteGoldenSpan, EditGoldenSpan
from reviewer.core.spans.golden import GoldenSpan, index_to_utf16, utf16_slice, utf16_to_index
from reviewer.core.spans.placement import place
from reviewer.core.spans.sections import detect_sections
from reviewer.core.spans.selection import grow
from reviewer.core.workflows import Workflow
from reviewer.qt.session import Session
from reviewer.qt.session.reads import parse_span_output
from reviewer.qt.spans.layers import (
    Mark,
    apply_formats,
    edge_at,
    golden_at,
    paint_golden,
    paint_marks,
    paint_sections,
    selections,
    span_at,
)
from reviewer.qt.spans.role_bar import RoleBar
from reviewer.qt.spans.style import SpanLegend
from reviewer.qt.text import break_at_spaces, line


def show_plain(edit: QPlainTextEdit, text: str) -> None:
    """Set ``text`` in ``edit`` as break_at_spaces shows it (every position
    the same), wrapping anywhere when a long line has no space to break at."""
    shown, whole = break_at_spaces(text)
    edit.setWordWrapMode(
        QTextOption.WrapMode.WrapAnywhere if whole else QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere
    )
    edit.setPlainText(shown)


class SpanTextView(QPlainTextEdit):
    """The labelled text (read-only, selectable by mouse and keyboard) with
    the span layers; emits requests, holds no domain state."""

    labelRequested = Signal(bool)  # True: with the last role (Shift+Enter)
    deleteRequested = Signal(int)  # document position
    dragFinished = Signal(int, str, int)  # golden span id, 'start' | 'end', new position
    clickedAt = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setTextInteractionFlags(Qt.TextSelectableByMouse | Qt.TextSelectableByKeyboard)
        self.setLineWrapMode(QPlainTextEdit.WidgetWidth)
        self.document().setDocumentMargin(12)
        self.source = ""  # the text shown (break_at_spaces of it is in the document)
        self.tinted = False  # character formats applied since the text was set
        self.golden: list[GoldenSpan] = []
        self.golden_starts: list[int] = []
        self.bounds: list[tuple[str, int, int]] = []
        self.marks: list = []  # findings placed on the text (painted)
        self._drag: tuple[GoldenSpan, str] | None = None
        self._drag_pos: int | None = None

    def show_text(self, text: str) -> None:
        """Show ``text`` (as break_at_spaces: long lines broken at a space, every
        position the same; wrapping anywhere when a long line has no space);
        nothing happens when it is shown already."""
        if text == self.source:
            return
        self.source = text
        show_plain(self, text)
        self.tinted = False

    def set_golden(self, golden: list[GoldenSpan]) -> None:
        """The golden spans to paint (sorted by start)."""
        self.golden = sorted(golden, key=lambda g: (g.start, g.end))
        self.golden_starts = [g.start for g in self.golden]
        self.viewport().update()

    def _dragging(self) -> tuple[int, int, int] | None:
        if not self._drag or self._drag_pos is None:
            return None
        g, side = self._drag
        assert g.id is not None  # golden spans read from the project have ids
        return (g.id, self._drag_pos, g.end) if side == "start" else (g.id, g.start, self._drag_pos)

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """The text, then the section stripes and golden spans over it."""
        super().paintEvent(event)
        painter = QPainter(self.viewport())
        try:
            paint_sections(painter, self, self.bounds)
            paint_golden(painter, self, self.golden, self.golden_starts, self._dragging())
            paint_marks(painter, self, self.marks)
        finally:
            painter.end()

    def event(self, event) -> bool:
        """Take Delete, Backspace, Enter and L from the window's shortcuts
        while labelling here (the other review keys stay the window's)."""
        if event.type() == QEvent.Type.ShortcutOverride:
            if event.matches(QKeySequence.StandardKey.Undo) or event.matches(QKeySequence.StandardKey.Redo):
                event.ignore()  # the window's undo (golden-span commands), not the text's
                return False
            key = event.key()
            if key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and golden_at(
                self.golden, self.textCursor().position()
            ):
                event.accept()
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_L) and self.textCursor().hasSelection():
                event.accept()
                return True
        return super().event(event)

    def grow(self, unit: str) -> None:
        """Grow the selection by a 'word' or 'sentence' (reviewer.core.spans.selection.grow)."""
        c = self.textCursor()
        text = self.source
        start = utf16_to_index(text, c.selectionStart())
        end = utf16_to_index(text, c.selectionEnd())
        start, end = grow(text, start, end, unit)
        c.setPosition(index_to_utf16(text, start))
        c.setPosition(index_to_utf16(text, end), c.MoveMode.KeepAnchor)
        self.setTextCursor(c)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """L / Enter: label the selection; Shift+Enter: with the last role; Delete: remove the
        golden span; W / S: grow the selection by a word / a sentence."""
        key = event.key()
        if key in (Qt.Key.Key_W, Qt.Key.Key_S) and not event.modifiers():
            self.grow("word" if key == Qt.Key.Key_W else "sentence")
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_L) and self.textCursor().hasSelection():
            self.labelRequested.emit(
                bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier) and key != Qt.Key.Key_L
            )
            return
        if key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.deleteRequested.emit(self.textCursor().position())
            return
        super().keyPressEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """On a golden span's end: start dragging it; else select as usual."""
        pos = self.cursorForPosition(event.position().toPoint()).position()
        edge = edge_at(self.golden, pos) if event.button() == Qt.MouseButton.LeftButton else None
        if edge is not None and not event.modifiers():
            self._drag, self._drag_pos = edge, pos
            return
        super().mousePressEvent(event)
        self.clickedAt.emit(pos)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """While dragging an end: follow the mouse."""
        if self._drag:
            self._drag_pos = self.cursorForPosition(event.position().toPoint()).position()
            self.viewport().update()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """End a drag: ask for the move (one command)."""
        if self._drag:
            (g, side), pos = self._drag, self._drag_pos
            self._drag = self._drag_pos = None
            self.viewport().update()
            if pos is not None and pos != (g.start if side == "start" else g.end):
                self.dragFinished.emit(g.id, side, pos)
            return
        super().mouseReleaseEvent(event)


class SpanPane(QWidget):
    """The span pane over a Session (see module doc)."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.labelled = ""
        self.shown_prompt = ""
        self.spans: list[dict] = []
        self.marks: list[Mark] = []
        self.last_role: str | None = None
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setWordWrap(True)
        self.prompt_view = QPlainTextEdit()
        self.prompt_view.setReadOnly(True)
        self.prompt_view.setMaximumHeight(48)
        self.view = SpanTextView()
        self.view.setFont(mono)
        self.apart = QListWidget()
        self.apart.setMaximumHeight(90)
        self.role_bar = RoleBar()
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.view)
        split.addWidget(self.apart)
        split.setStretchFactor(0, 1)
        split.setSizes([800, 60])
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        for w in (self.header, SpanLegend(), self.prompt_view):
            box.addWidget(w)
        box.addWidget(split, 1)
        box.addWidget(self.role_bar)
        self.view.labelRequested.connect(self._label)
        self.view.deleteRequested.connect(self._delete)
        self.view.dragFinished.connect(self._dragged)
        self.view.clickedAt.connect(self._clicked)
        self.role_bar.committed.connect(self._labelled_as)
        for signal in (session.itemChanged, session.runChanged, session.findingsChanged, session.projectChanged):
            signal.connect(self.refresh)
        session.groundTruthChanged.connect(lambda _item: self.refresh_golden())
        session.findingSelectionChanged.connect(self._show_selection)

    # -- session -> view ----------------------------------------------------------------
    def applies(self) -> bool:
        """True when the current item is a span item (the pane is the span perspective's centre)."""
        return self.session.workflow() == Workflow.SPANS

    def refresh(self) -> None:
        """Read the current item and run and redraw everything."""
        item, run = self.session.item(), self.session.run()
        parsed = parse_span_output(run.run["output"]) if run is not None else None
        prompt = (item.text or "") if item is not None else ""
        self.labelled, self.spans = parsed if parsed else (prompt, [])
        self.view.show_text(self.labelled)
        shown_prompt = prompt if prompt != self.labelled else ""  # the same text is not shown twice
        if self.shown_prompt != shown_prompt:
            self.shown_prompt = shown_prompt
            show_plain(self.prompt_view, shown_prompt)
        self.prompt_view.setVisible(bool(shown_prompt))
        sections = detect_sections(self.labelled)
        self.view.bounds = [(n, b.start, b.end) for n, b in sections.boundaries()]
        self.marks, apart = [], []
        for f in run.findings if run is not None else []:
            code = f.final_code or f.code
            text = f.gt_card if code == SpanCode.MISSED else (f.model_card or "")
            where = place(code.value, f.model_index, text or "", self.labelled, self.spans)
            if where is None:
                apart.append(f"{code.value}: '{text}' · {f.status.value} · {f.detail}")
            else:
                assert f.id is not None  # findings read from the project have ids
                self.marks.append(Mark(where[0], where[1], f.id, f.status.value, where[2]))
        if self.spans or self.view.tinted:  # a fresh text has no formats to clear
            apply_formats(self.view.document(), self.spans, self.marks)
            self.view.tinted = bool(self.spans)
        self.view.marks = self.marks
        self.view.viewport().update()
        self.apart.clear()
        self.apart.addItems(apart or ["every finding sits on the text"])
        self.refresh_golden()
        who = f"{line(run.run['model'])} · " if run is not None else ""
        self.header.setText(
            f"{line(item.name) if item else ''} · {who}{len(self.spans)} spans · "
            f"{len(self.view.golden)} golden · {len(self.marks) + len(apart)} findings "
            f"({len(apart)} not in the text)"
        )
        self._show_selection()

    def refresh_golden(self) -> None:
        """Read the golden spans of this item's labelled text."""
        item = self.session.item()
        golden = self.session.reads.golden_spans(item.id, self.labelled) if item and item.id is not None else []
        self.view.set_golden(golden)

    def _show_selection(self) -> None:
        chosen = set(self.session.selected_findings)
        self.view.setExtraSelections(selections(self.view, self.marks, chosen))
        mark = next((m for m in self.marks if m.finding_id in chosen), None)
        if mark is not None:
            cursor = self.view.textCursor()
            cursor.setPosition(min(mark.start, self.view.document().characterCount() - 1))
            self.view.setTextCursor(cursor)
            self.view.centerCursor()

    # -- view -> commands -----------------------------------------------------------------
    def span_target(self) -> tuple[int, str] | None:
        """(index, text) of the run's span at the cursor, for A (add a finding)."""
        index = span_at(self.spans, self.view.textCursor().position())
        return (index, str(self.spans[index].get("text", ""))) if index is not None else None

    def _selection(self) -> tuple[int, int]:
        c = self.view.textCursor()
        return c.selectionStart(), c.selectionEnd()

    def _label(self, with_last: bool) -> None:
        start, end = self._selection()
        if start == end:
            return
        if with_last and self.last_role:
            self._labelled_as(self.last_role)
            return
        self.role_bar.ask(utf16_slice(self.labelled, start, end))

    def _labelled_as(self, role: str) -> None:
        item = self.session.item()
        start, end = self._selection()
        if item is None or item.id is None or start == end:
            return
        self.last_role = role
        try:
            command = AddGoldenSpan(item.id, self.labelled, start, end, role)
        except ValueError as exc:
            self.session.message.emit(str(exc))
            return
        if self.session.execute(command):
            cursor = self.view.textCursor()
            cursor.setPosition(end)
            self.view.setTextCursor(cursor)
        self.view.setFocus()

    def _delete(self, pos: int) -> None:
        g = golden_at(self.view.golden, pos)
        if g is None:
            self.session.message.emit("no golden span at the cursor")
            return
        assert g.id is not None  # golden spans read from the project have ids
        self.session.execute(DeleteGoldenSpan(g.id, self.labelled))

    def _dragged(self, span_id: int, side: str, pos: int) -> None:
        if side == "start":
            self.session.execute(EditGoldenSpan(span_id, self.labelled, start=pos))
        else:
            self.session.execute(EditGoldenSpan(span_id, self.labelled, end=pos))

    def _clicked(self, pos: int) -> None:
        hits = [m for m in self.marks if m.start <= pos < m.end]
        if hits:
            self.session.select_findings([min(hits, key=lambda m: m.end - m.start).finding_id])


__all__ = ["RoleBar", "SpanPane", "SpanTextView", "show_plain"]
