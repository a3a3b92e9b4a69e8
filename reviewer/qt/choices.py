"""A visible list of choices under a one-line field (the card text on the
canvas, the role of a golden span): typing filters it, Up and Down choose,
and the chosen row is what Enter takes. Up from the first row chooses none,
so Enter takes the text as typed. Rows are plain text (model text is
untrusted)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QListWidget, QListWidgetItem, QWidget

from reviewer.qt.text import cell

#: (shown line, value) of one choice.
Choice = tuple[str, str]
#: Rows shown at most before the list scrolls.
VISIBLE_ROWS = 6


def contains(choices: Sequence[Choice], typed: str) -> list[Choice]:
    """The choices whose value holds ``typed`` (case-insensitive), in order; all when blank."""
    needle = typed.strip().lower()
    return [c for c in choices if needle in c[1].lower()] if needle else list(choices)


class ChoiceList(QListWidget):
    """The choices of line edit ``field`` (module doc). ``narrow(choices,
    typed)`` filters and orders them for the typed text (``contains`` by
    default). The owner routes Up/Down to ``step`` and asks ``chosen()`` on
    Enter."""

    def __init__(
        self,
        field: QLineEdit,
        parent: QWidget | None = None,
        narrow: Callable[[Sequence[Choice], str], list[Choice]] = contains,
    ):
        super().__init__(parent)
        self.field, self.narrow = field, narrow
        self.choices: list[Choice] = []
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the field keeps the keys
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setUniformItemSizes(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setStyleSheet(
            "QListWidget { background: #FFFDE7; color: #111; border: 1px solid #E0C870; }"
            "QListWidget::item:selected { background: #FFD400; color: #111; }"
        )
        self.itemClicked.connect(lambda _item: self.field.returnPressed.emit())
        field.textEdited.connect(self.refilter)

    def set_choices(self, choices: Sequence[Choice], first: bool = True) -> None:
        """Offer ``choices`` (shown line, value), all of them until something is typed; the
        first chosen, or none when not ``first`` (a text being edited stays as it is on Enter)."""
        self.choices = list(choices)
        self.refilter("")
        if not first:
            self.setCurrentRow(-1)
            self.clearSelection()

    def refilter(self, typed: str) -> None:
        """Show the choices ``narrow`` keeps for ``typed``, the first chosen; hidden when none."""
        self.clear()
        for shown, value in self.narrow(self.choices, typed):
            row = QListWidgetItem(cell(shown, 160))
            row.setData(Qt.ItemDataRole.UserRole, value)
            self.addItem(row)
        self.setCurrentRow(0 if self.count() else -1)
        self.setVisible(self.count() > 0)

    def step(self, delta: int) -> bool:
        """Choose the next (1) or previous (-1) row; up from the first chooses none
        (Enter then takes the typed text). False when no choice is shown."""
        if not self.count() or not self.isVisible():
            return False
        row = self.currentRow() + delta
        if row < 0:
            self.setCurrentRow(-1)
            self.clearSelection()
        else:
            self.setCurrentRow(min(row, self.count() - 1))
        return True

    def chosen(self) -> str | None:
        """The value of the chosen row (None: no row chosen, or none shown)."""
        row = self.currentItem() if self.isVisible() and self.currentRow() >= 0 else None
        return row.data(Qt.ItemDataRole.UserRole) if row is not None else None

    def rows_height(self) -> int:
        """Height that shows up to VISIBLE_ROWS rows."""
        rows = min(self.count(), VISIBLE_ROWS)
        return self.sizeHintForRow(0) * rows + 2 * self.frameWidth() + 2 if rows else 0


__all__ = ["Choice", "ChoiceList", "VISIBLE_ROWS", "contains"]
