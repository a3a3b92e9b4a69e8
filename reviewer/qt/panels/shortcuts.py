"""The '?' sheet: every key of the review window in one non-modal table.

``SHORTCUTS`` is the one list of (keys, action); the main window can reuse
it (for menus, tooltips) so the sheet never disagrees with the bindings.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

#: (keys, action) for every key of the review window, grouped by area.
SHORTCUTS: list[tuple[str, str]] = [
    ("Wheel, + / -", "zoom the photo"),
    ("F", "fit the photo to the window"),
    ("Ctrl+1", "actual size (1:1)"),
    ("Space+drag, middle-drag", "pan the photo"),
    ("L", "model-card labels: on / on hover / off"),
    ("P", "pile tool: draw a pile region"),
    ("C", "card tool: draw a card box"),
    ("V, Esc", "select tool"),
    ("Delete", "delete the selection"),
    ("G / Shift+G", "move the selected cards to the next / previous pile"),
    ("Double-click", "edit a card's text"),
    ("Ctrl+Z", "undo (the view goes to what was undone)"),
    ("Ctrl+Shift+Z, Ctrl+Y", "redo"),
    ("J / K", "next / previous finding (the photo pans to its card)"),
    ("Shift+J", "next run needing review"),
    ("Y", "confirm the selected findings"),
    ("N", "reject the selected findings at once"),
    ("R", "type a reason for the findings just rejected (Enter saves, Esc leaves none)"),
    ("Shift+Y / Shift+N", "confirm / reject every undecided finding of the selected code in the run"),
    ("Ctrl+Shift+Y / Ctrl+Shift+N", "confirm / reject every undecided finding of the run"),
    ("1-6", "reclassify as OCR, MISS, SPATIAL, HALLUC, FORMAT, PARTIAL"),
    ("A", "add a finding the classifier missed"),
    ("T / Shift+T", "next / previous card to transcribe (a box without text): type its text, Enter"),
    ("Ctrl+F, Esc", "search items, runs and disputes; Esc clears"),
    ("Ctrl+O", "open a project"),
    ("Ctrl+I", "import a file or a folder (model name typed inline)"),
    ("Ctrl+B", "blind adjudication: hide model names"),
    ("?", "this sheet (Esc closes it)"),
]


class ShortcutsDialog(QDialog):
    """Non-modal table of SHORTCUTS (show() it, it stays open beside the work)."""

    def __init__(self, parent: Optional[QWidget] = None, shortcuts: Optional[list[tuple[str, str]]] = None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.setModal(False)
        rows = shortcuts if shortcuts is not None else SHORTCUTS
        self.table = QTableWidget(len(rows), 2)
        self.table.setHorizontalHeaderLabels(["keys", "action"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.NoSelection)
        self.table.setFocusPolicy(Qt.NoFocus)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        bold = self.font()
        bold.setBold(True)
        for row, (keys, action) in enumerate(rows):
            key_item = QTableWidgetItem(keys)
            key_item.setFont(bold)
            self.table.setItem(row, 0, key_item)
            self.table.setItem(row, 1, QTableWidgetItem(action))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.Stretch)
        self.table.resizeRowsToContents()
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.close)
        box = QVBoxLayout(self)
        box.addWidget(self.table, 1)
        box.addWidget(buttons)
        height = self.table.horizontalHeader().height() + sum(self.table.rowHeight(r) for r in range(len(rows)))
        keys_w = max((QFontMetrics(bold).horizontalAdvance(k) for k, _ in rows), default=100)
        action_w = max((self.table.fontMetrics().horizontalAdvance(a) for _, a in rows), default=200)
        self.resize(min(keys_w + action_w + 80, 900), min(height + 70, 760))


def close_sheets(widget: Optional[QWidget]) -> bool:
    """Esc, first of all: close the sheets open beside ``widget``'s window
    (the '?' key sheet). Returns True when one was open."""
    if widget is None:
        return False
    sheets = [d for d in widget.window().findChildren(ShortcutsDialog) if d.isVisible()]
    for sheet in sheets:
        sheet.close()
    return bool(sheets)
