"""The inline editor of the canvas: a one-line editor placed under a scene
rectangle (a card's text, a pile's label), never a modal dialog. Given
choices (the texts offered for a card, reviewer.core.cards.text_choices) it
shows them in a list under it (reviewer.qt.choices): Enter takes the chosen
one (the first, unless Up/Down chose another or typing filtered them),
Shift+Enter the text as typed."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QLineEdit, QWidget

from reviewer.qt.canvas.model import Rect
from reviewer.qt.choices import Choice, ChoiceList


class InlineEditor(QLineEdit):
    """A one-line editor on the canvas: Enter commits, Escape cancels;
    leaving it commits a non-empty text (the edit can be undone)."""

    def __init__(
        self,
        parent: QWidget,
        text: str,
        placeholder: str,
        done: Callable[[str], None],
        cancelled: Callable[[], object],
        choices: Sequence[Choice] = (),
    ):
        super().__init__(text, parent)
        self.setPlaceholderText(placeholder)
        self._done, self._cancelled, self._closed = done, cancelled, False
        self.setStyleSheet("QLineEdit { background: #FFFDE7; color: #111; border: 2px solid #FFD400; padding: 2px; }")
        self.choices = ChoiceList(self, parent)
        self.choices.set_choices(choices, first=not text)  # a text being edited is kept unless one is chosen
        if not choices:
            self.choices.hide()
        self.returnPressed.connect(lambda: self.finish(self.choices.chosen() or self.text()))

    def finish(self, text: str | None) -> None:
        """Close with ``text`` (None cancels); only the first call counts."""
        if self._closed:
            return
        self._closed = True
        self.hide()
        self.choices.hide()
        self.choices.deleteLater()
        self.deleteLater()
        if text is not None and text.strip():
            self._done(text)
        else:
            self._cancelled()

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Escape cancels (``finish(None)``); Return/Enter commits the chosen choice, else the
        text (Shift: the text as typed); Up/Down choose a choice; other keys edit as in QLineEdit."""
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.finish(None)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            typed = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            self.finish(self.text() if typed else (self.choices.chosen() or self.text()))
        elif key in (Qt.Key.Key_Up, Qt.Key.Key_Down) and self.choices.step(1 if key == Qt.Key.Key_Down else -1):
            pass
        else:
            super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Losing focus commits the text (empty cancels), except to another window or a popup."""
        super().focusOutEvent(event)
        if event.reason() not in (Qt.FocusReason.ActiveWindowFocusReason, Qt.FocusReason.PopupFocusReason):
            self.finish(self.text())


class EditorHost:
    """Keeps at most one InlineEditor on a view's viewport, placed under a
    scene rectangle and following zoom and scroll (call ``place``)."""

    def __init__(self, view):
        self.view = view
        self.editor: InlineEditor | None = None
        self.rect: Rect | None = None

    def open(
        self,
        rect: Rect,
        text: str,
        placeholder: str,
        done: Callable[[str], None],
        cancelled: Callable[[], object],
        choices: Sequence[Choice] = (),
    ) -> None:
        """Cancel any open editor, then open one under ``rect`` (scene) with ``text`` selected
        and ``choices`` (shown line, value) listed under it; ``done(text)`` or ``cancelled()``
        runs once it closes and the view has the focus back."""
        self.close()

        def closed(callback, *args) -> None:
            """Forget the editor, give the view the focus back, then call ``callback(*args)``."""
            self.editor = self.rect = None
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)
            callback(*args)

        self.editor = InlineEditor(
            self.view.viewport(), text, placeholder, lambda t: closed(done, t), lambda: closed(cancelled), choices
        )
        self.rect = rect
        self.editor.textEdited.connect(lambda _typed: self.place())  # the list grows and shrinks
        self.place()
        self.editor.show()
        self.editor.selectAll()
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def place(self) -> None:
        """Put the editor just under its rectangle, inside the viewport."""
        if self.editor is None or self.rect is None:
            return
        x0, y0, x1, y1 = self.rect
        t = self.view.viewportTransform()
        tl, br = t.map(QPointF(x0, y0)), t.map(QPointF(x1, y1))
        width = int(min(max(br.x() - tl.x(), 220), 480))
        vp = self.view.viewport().rect()
        hint = self.editor.sizeHint().height()
        x = int(min(max(tl.x(), 0), max(vp.width() - width, 0)))
        listed = self.editor.choices.rows_height() if self.editor.choices.isVisible() else 0
        y = int(min(max(br.y() + 4, 0), max(vp.height() - hint - listed, 0)))
        self.editor.setGeometry(x, y, width, hint)
        if listed:  # the list under the field, as wide as its lines need (up to 560 px), inside the viewport
            wide = min(max(width, self.editor.choices.sizeHintForColumn(0) + 24), 560, vp.width())
            self.editor.choices.setGeometry(min(x, max(vp.width() - wide, 0)), y + hint, wide, listed)
            self.editor.choices.raise_()

    def close(self) -> None:
        """Cancel the open editor, if any."""
        if self.editor is not None:
            self.editor.finish(None)
