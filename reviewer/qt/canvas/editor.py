"""The inline editor of the canvas: a one-line editor placed under a scene
rectangle (a card's text, a pile's label), never a modal dialog."""

from __future__ import annotations

from typing import Callable, Optional

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QLineEdit, QWidget

from reviewer.qt.canvas.overlay import Rect


class InlineEditor(QLineEdit):
    """A one-line editor on the canvas: Enter commits, Escape cancels;
    leaving it commits a non-empty text (the edit can be undone)."""

    def __init__(
        self, parent: QWidget, text: str, placeholder: str, done: Callable[[str], None], cancelled: Callable[[], None]
    ):
        super().__init__(text, parent)
        self.setPlaceholderText(placeholder)
        self._done, self._cancelled, self._closed = done, cancelled, False
        self.setStyleSheet("QLineEdit { background: #FFFDE7; color: #111; border: 2px solid #FFD400; padding: 2px; }")

    def finish(self, text: Optional[str]) -> None:
        """Close with ``text`` (None cancels); only the first call counts."""
        if self._closed:
            return
        self._closed = True
        self.hide()
        self.deleteLater()
        if text is not None and text.strip():
            self._done(text)
        else:
            self._cancelled()

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Escape cancels (``finish(None)``), Return/Enter commits the text; other keys edit
        as in QLineEdit."""
        if event.key() == Qt.Key_Escape:
            self.finish(None)
        elif event.key() in (Qt.Key_Return, Qt.Key_Enter):
            self.finish(self.text())
        else:
            super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Losing focus commits the text (empty cancels), except to another window or a popup."""
        super().focusOutEvent(event)
        if event.reason() not in (Qt.ActiveWindowFocusReason, Qt.PopupFocusReason):
            self.finish(self.text())


class EditorHost:
    """Keeps at most one InlineEditor on a view's viewport, placed under a
    scene rectangle and following zoom and scroll (call ``place``)."""

    def __init__(self, view):
        self.view = view
        self.editor: Optional[InlineEditor] = None
        self.rect: Optional[Rect] = None

    def open(
        self, rect: Rect, text: str, placeholder: str, done: Callable[[str], None], cancelled: Callable[[], None]
    ) -> None:
        """Cancel any open editor, then open one under ``rect`` (scene) with ``text`` selected;
        ``done(text)`` or ``cancelled()`` runs once it closes and the view has the focus back."""
        self.close()

        def closed(callback, *args) -> None:
            """Forget the editor, give the view the focus back, then call ``callback(*args)``."""
            self.editor = self.rect = None
            self.view.setFocus(Qt.OtherFocusReason)
            callback(*args)

        self.editor = InlineEditor(
            self.view.viewport(), text, placeholder, lambda t: closed(done, t), lambda: closed(cancelled)
        )
        self.rect = rect
        self.place()
        self.editor.show()
        self.editor.selectAll()
        self.editor.setFocus(Qt.OtherFocusReason)

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
        y = int(min(max(br.y() + 4, 0), max(vp.height() - hint, 0)))
        self.editor.setGeometry(x, y, width, hint)

    def close(self) -> None:
        """Cancel the open editor, if any."""
        if self.editor is not None:
            self.editor.finish(None)
