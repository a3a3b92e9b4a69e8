"""The decision bar under the dispute: the current dimension and its scale,
what is adjudicated already, the keys that decide it, and two inline line
edits (no dialogs): the rationale (R or typing) and a 0-100 value (typed
digits). Enter commits an edit, Escape closes it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QIntValidator
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from reviewer.core.judging.verdicts import Scale
from reviewer.qt.text import plain_label

#: What the value keys do per scale (shown in the bar).
SCALE_KEYS = {
    Scale.WINNER: "1 / 2 / T: output 1 wins, output 2 wins, tie",
    Scale.ORDINAL5: "1-5: set the score",
    Scale.GRADE: "A B C D F: set the grade",
    Scale.PERCENT: "0-9: type a value 0-100, Enter",
    Scale.PASS_FAIL: "P / F: pass, fail",
    Scale.CIP: "C / P / I: correct, partial, incorrect",
}
COMMON_KEYS = (
    "Enter: accept the framed judge · ←/→ [ ]: judge · Tab: dimension · R: rationale · "
    "J/K: next/previous dispute · Ctrl+Z: undo"
)


class _Edit(QLineEdit):
    """A line edit that reports Escape (the bar closes it)."""

    escaped = Signal()

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Escape emits ``escaped`` (the bar closes the edit) instead of reaching QLineEdit;
        other keys edit as usual."""
        if event.key() == Qt.Key.Key_Escape:
            self.escaped.emit()
            return
        super().keyPressEvent(event)


class DecisionBar(QWidget):
    """See module doc. ``rationaleCommitted(text)`` and
    ``valueCommitted(text)`` fire on Enter; the bar keeps no decision."""

    rationaleCommitted = Signal(str)
    valueCommitted = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.status = plain_label()
        font = self.status.font()
        font.setBold(True)
        self.status.setFont(font)
        self.keys = plain_label()
        self.pending = plain_label()
        self.pending.hide()
        self.rationale_label = plain_label("Rationale:")
        self.rationale = _Edit()
        self.rationale.setPlaceholderText("why (Enter saves, Esc closes)")
        self.value_label = plain_label("Value 0-100:")
        self.value = _Edit()
        self.value.setValidator(QIntValidator(0, 100, self.value))
        self.value.setMaximumWidth(90)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.value_label)
        row.addWidget(self.value)
        row.addWidget(self.rationale_label)
        row.addWidget(self.rationale, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addWidget(self.status)
        layout.addWidget(self.keys)
        layout.addWidget(self.pending)
        layout.addLayout(row)
        self.rationale.returnPressed.connect(self.commit_rationale)
        self.value.returnPressed.connect(self.commit_value)
        self.rationale.escaped.connect(self.close_editors)
        self.value.escaped.connect(self.close_editors)
        self.close_editors()

    def show_state(self, status: str, scale: Scale | None, pending: str = "") -> None:
        """Show the status line, the keys of ``scale`` and the rationale held
        for the next decision."""
        self.status.setText(status)
        self.keys.setText((SCALE_KEYS.get(scale, "") + " · " if scale else "") + COMMON_KEYS)
        self.pending.setText(f"Rationale for the next decision: {pending}" if pending else "")
        self.pending.setVisible(bool(pending))

    # -- inline editors ---------------------------------------------------------------------
    def editing(self) -> bool:
        """An inline editor is open."""
        return self.rationale.isVisible() or self.value.isVisible()

    def ask_rationale(self, text: str = "", prompt: str = "Rationale:") -> None:
        """Open the rationale edit (with ``text`` typed) and focus it."""
        self.rationale_label.setText(prompt)
        self.rationale_label.show()
        self.rationale.show()
        if text:
            self.rationale.setText(self.rationale.text() + text)
        self.rationale.setFocus()

    def ask_value(self, text: str = "") -> None:
        """Open the 0-100 value edit with ``text`` typed and focus it."""
        self.value_label.show()
        self.value.show()
        self.value.setText(self.value.text() + text)
        self.value.setFocus()

    def close_editors(self) -> None:
        """Hide both edits and forget what was typed in them."""
        for w in (self.rationale_label, self.rationale, self.value_label, self.value):
            w.hide()
        self.rationale.clear()
        self.value.clear()

    def commit_rationale(self) -> None:
        """Enter in the rationale edit: close it and emit its text."""
        text = self.rationale.text().strip()
        self.close_editors()
        self.rationaleCommitted.emit(text)

    def commit_value(self) -> None:
        """Enter in the value edit: close it and emit its text."""
        text = self.value.text().strip()
        self.close_editors()
        self.valueCommitted.emit(text)
