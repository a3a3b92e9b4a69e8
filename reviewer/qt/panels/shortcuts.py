"""The '?' sheet: every key of the review window in one non-modal table.

``SHORTCUTS`` is the one list of (keys, action); the main window can reuse
it (for menus, tooltips) so the sheet never disagrees with the bindings.
"""

from __future__ import annotations

from collections.abc import Callable

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

from reviewer.qt import registry

#: (keys, action) for every key of the review window, grouped by area.
#: Every badge the window draws beside a value or a name, and what it means
#: (each also says so in its tooltip).
BADGES = {
    "≠": "adjudication: this judge's value of the current dimension differs from the other judges' "
    "(a disagreement to settle; it says nothing of a rubric rule)",
    "▶": "adjudication: the judge Enter would accept (Left / Right frame another)",
    "⚠": "a warning: an inflated score distribution, or a photo truncated or too large to decode",
}


SHORTCUTS: list[tuple[str, str]] = [
    ("Wheel, + / -", "zoom the photo"),
    ("F", "fit the photo to the window"),
    ("Ctrl+1", "actual size (1:1)"),
    ("Space+drag, middle-drag", "pan the photo"),
    ("L", "model-card labels: on / on hover / off"),
    ("Shift+L", "finding tags: the selected finding and its neighbours (the others on hover) / all"),
    ("P", "pile tool: draw a pile region"),
    ("C", "card tool: draw a card box"),
    (
        "Enter, Up / Down, typing",
        "card text: take the first text offered (model card on the box, unplaced cards, readings), choose another, filter; Shift+Enter keeps the typed text",
    ),
    (
        "Tab, Enter, arrows, Delete",
        "proposed boxes: next, accept, move the chosen edge (Shift: further; across it: choose that edge), drop",
    ),
    ("B", "in Piles and cards: draw the box of the card chosen"),
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
    (
        "1-6",
        "reclassify as OCR, MISS, SPATIAL, HALLUC, FORMAT, PARTIAL (a paired card: OCR, PARTIAL, SPATIAL; a MISS, HALLUC or FORMAT: Y or N only)",
    ),
    ("A", "add a finding the classifier missed"),
    ("T / Shift+T", "next / previous card to transcribe (a box without text): type its text, Enter"),
    ("Ctrl+F, Esc", "search items, runs and disputes; Esc clears"),
    ("Ctrl+O", "open a project"),
    ("Ctrl+I", "import a file or a folder (model name typed inline)"),
    ("Ctrl+B", "blind adjudication: hide model names"),
    ("?", "this sheet (Esc closes it)"),
    *[(f"badge {mark}", meaning) for mark, meaning in BADGES.items()],
]


#: Keys of the card perspective only (the photo, its tools and transcription).
CARD_KEYS = {
    "Wheel, + / -",
    "F",
    "Ctrl+1",
    "Space+drag, middle-drag",
    "L",
    "Shift+L",
    "P",
    "C",
    "Enter, Up / Down, typing",
    "Tab, Enter, arrows, Delete",
    "B",
    "V, Esc",
    "Delete",
    "G / Shift+G",
    "Double-click",
    "T / Shift+T",
}
#: Keys that review findings (the perspectives with findings: cards, spans, case).
FINDING_KEYS = {
    "J / K",
    "Shift+J",
    "Y",
    "N",
    "R",
    "Shift+Y / Shift+N",
    "Ctrl+Shift+Y / Ctrl+Shift+N",
    "1-6",
    "A",
}


def shortcuts_for(
    perspective: str, rows: list[tuple[str, str]], card_only: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The '?' sheet of one perspective ('cards', 'spans', 'case', 'judged
    output', 'pairwise'; reviewer.core.workflows values), as its
    registration gives it (reviewer.qt.registry): for the card tools'
    perspective every row of ``rows`` and ``card_only`` (the annotator
    switch); for another, ``rows`` without the card keys, without the
    finding keys unless it has codes (the number keys and A are then its
    own), and its own rows."""
    parts = registry.of(perspective)
    if parts is not None and parts.card_tools:
        return rows + card_only
    findings = parts is not None and bool(parts.codes)
    kept = [
        (keys, action)
        for keys, action in rows
        if keys not in CARD_KEYS and (findings and keys not in ("1-6", "A") or keys not in FINDING_KEYS)
    ]
    at = next((k for k, (keys, _) in enumerate(kept) if keys == "Ctrl+F, Esc"), len(kept))
    own = list(parts.keys) if parts is not None else []
    return kept[:at] + own + kept[at:]


class ShortcutsDialog(QDialog):
    """Non-modal table of SHORTCUTS (show() it, it stays open beside the work)."""

    def __init__(
        self,
        parent: QWidget | None = None,
        shortcuts: list[tuple[str, str]] | None = None,
        source: Callable[[], list[tuple[str, str]]] | None = None,
    ):
        super().__init__(parent)
        self.source = source  # the rows to list each time the sheet is shown (the perspective's keys)
        self.setWindowTitle("Keyboard shortcuts")
        self.setModal(False)
        rows = shortcuts if shortcuts is not None else SHORTCUTS
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["keys", "action"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setShowGrid(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        box = QVBoxLayout(self)
        box.addWidget(self.table, 1)
        box.addWidget(buttons)
        self.set_rows(rows)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """List ``source()``'s rows (when given) as the sheet opens."""
        if self.source is not None:
            self.set_rows(self.source())
        super().showEvent(event)

    def set_rows(self, rows: list[tuple[str, str]]) -> None:
        """Show ``rows`` ((keys, action) pairs) and size the sheet to them."""
        bold = self.font()
        bold.setBold(True)
        self.table.setRowCount(len(rows))
        for row, (keys, action) in enumerate(rows):
            key_item = QTableWidgetItem(keys)
            key_item.setFont(bold)
            self.table.setItem(row, 0, key_item)
            self.table.setItem(row, 1, QTableWidgetItem(action))
        self.table.resizeRowsToContents()
        height = self.table.horizontalHeader().height() + sum(self.table.rowHeight(r) for r in range(len(rows)))
        keys_w = max((QFontMetrics(bold).horizontalAdvance(k) for k, _ in rows), default=100)
        action_w = max((self.table.fontMetrics().horizontalAdvance(a) for _, a in rows), default=200)
        self.resize(min(keys_w + action_w + 80, 900), min(height + 70, 760))


def close_sheets(widget: QWidget | None) -> bool:
    """Esc, first of all: close the sheets open beside ``widget``'s window
    (the '?' key sheet). Returns True when one was open."""
    if widget is None:
        return False
    sheets = [d for d in widget.window().findChildren(ShortcutsDialog) if d.isVisible()]
    for sheet in sheets:
        sheet.close()
    return bool(sheets)
