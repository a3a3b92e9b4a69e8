"""The reason bar of the review pane: an inline bar (no dialog) that offers
a reason after N rejected findings and takes it after R (docs/window.md).
It never swallows review keys: after N it only shows; R puts the keyboard in
its line edit, Enter saves, Esc leaves it, Ctrl+Z undoes the rejection."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QLineEdit, QWidget


class _ReasonEdit(QLineEdit):
    """The reason's line edit: Undo and Redo go to the window (they undo
    the rejection, not the typing)."""

    def event(self, event) -> bool:
        """Leave Ctrl+Z / Ctrl+Shift+Z / Ctrl+Y to the window's actions."""
        if event.type() == QEvent.Type.ShortcutOverride and (
            event.matches(QKeySequence.StandardKey.Undo) or event.matches(QKeySequence.StandardKey.Redo)
        ):
            event.ignore()
            return False
        return super().event(event)


class ReasonBar(QWidget):
    """An inline bar (no dialog) with a prompt and a line edit. ``show_hint``
    shows it without the keyboard; ``ask`` focuses the edit: Enter commits,
    Escape closes."""

    committed = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.edit = _ReasonEdit()
        self.edit.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # never reached by Tab or by accident
        layout.addWidget(self.label)
        layout.addWidget(self.edit, 1)
        self.edit.returnPressed.connect(self._commit)
        self._return_to: QWidget | None = None
        self.hide()

    def show_hint(self, prompt: str) -> None:
        """Show the bar with ``prompt``, the keyboard staying where it is."""
        self.label.setText(prompt)
        self.edit.clear()
        self.edit.setPlaceholderText("press R to type a reason (optional)")
        self.show()

    def ask(self, prompt: str, placeholder: str = "") -> None:
        """Show the bar with ``prompt`` and focus the edit; focus goes back
        where it was when the bar closes or commits."""
        focus = QApplication.focusWidget()
        if focus is not self.edit:
            self._return_to = focus
        self.label.setText(prompt)
        self.edit.clear()
        self.edit.setPlaceholderText(placeholder)
        self.show()
        self.edit.setFocus()

    def typing(self) -> bool:
        """The edit has the keyboard (after R)."""
        return self.isVisible() and self.edit.hasFocus()

    def close_bar(self) -> None:
        """Hide the bar and give the keyboard back (the review keys must not
        end up typing into a filter box)."""
        had_focus = self.edit.hasFocus()
        self.hide()
        back, self._return_to = self._return_to, None
        if had_focus and back is not None and back is not self.edit and back.isVisible():
            back.setFocus()

    def _commit(self) -> None:
        text = self.edit.text().strip()
        self.close_bar()
        self.committed.emit(text)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Escape closes the bar without committing (focus goes back); other keys as in QWidget."""
        if event.key() == Qt.Key.Key_Escape:
            self.close_bar()
            return
        super().keyPressEvent(event)
