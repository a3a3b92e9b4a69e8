"""The role field of hand labelling in the span pane (docs/spans.md#keys):
the roles of the taxonomy that complete what is typed are listed under it
as you type (reviewer.qt.choices); Enter takes the chosen one."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from reviewer.core.spans.golden import ROLES, complete_role
from reviewer.qt.choices import Choice, ChoiceList


def role_choices(choices: list[Choice], typed: str) -> list[Choice]:
    """The roles that complete ``typed`` (reviewer.core.spans.golden.complete_role: those
    starting with it, then those holding it), as (role, role) choices."""
    return [(r, r) for r in complete_role(typed)]


class RoleBar(QWidget):
    """The inline role field, the roles completing what is typed listed
    under it (reviewer.qt.choices): Enter takes the chosen one (the first
    unless Up/Down chose another), Esc closes the bar."""

    committed = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 2, 4, 2)
        column.setSpacing(2)
        row = QHBoxLayout()
        self.label = QLabel("role:")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("category.attribute, Enter labels, Up/Down choose, Esc cancels")
        row.addWidget(self.label)
        row.addWidget(self.edit, 1)
        column.addLayout(row)
        self.choices = ChoiceList(self.edit, narrow=role_choices)
        column.addWidget(self.choices)
        self.edit.returnPressed.connect(self._commit)
        self.edit.textEdited.connect(lambda _typed: self._fit())
        self.edit.installEventFilter(self)
        self.hide()

    def _fit(self) -> None:
        self.choices.setFixedHeight(self.choices.rows_height())

    def ask(self, text: str) -> None:
        """Show the bar for labelling ``text`` (every role listed) and focus the field."""
        self.label.setText(f"role of '{text[:40]}':")
        self.edit.clear()
        self.choices.set_choices([(r, r) for r in ROLES])
        self._fit()
        self.show()
        self.edit.setFocus()

    def _commit(self) -> None:
        typed = self.edit.text().strip()
        chosen = self.choices.chosen()
        role = chosen or (typed if typed in ROLES else (complete_role(typed)[:1] or [typed])[0])
        self.hide()
        if role:
            self.committed.emit(role)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt name)
        """Escape closes the bar; Up and Down choose a role."""
        if event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress) and event.key() == Qt.Key.Key_Escape:
            if event.type() == QEvent.Type.KeyPress:
                self.hide()
            event.accept()
            return True
        if event.type() == QEvent.Type.KeyPress and event.key() in (Qt.Key.Key_Up, Qt.Key.Key_Down):
            return self.choices.step(1 if event.key() == Qt.Key.Key_Down else -1)
        return super().eventFilter(watched, event)


__all__ = ["RoleBar", "role_choices"]
