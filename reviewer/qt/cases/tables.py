"""The tables of the case perspective: read-only, one line per row of a
fixed height (so a number of rows is a height), cells elided in the middle
with the full text on hover, plain text only (plain_tooltip)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from reviewer.qt.cases.rows import Row
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.text import cell as one_line


class CaseTable(QTableWidget):
    """A read-only table of one-line rows of a fixed height (so a number of
    rows is a height), text elided in the middle, focus left to the window
    (the review keys stay with it); its columns fit the width it is given
    (:func:`fit_widths`) whenever it is resized or filled."""

    def __init__(self, columns: Sequence[str]):
        super().__init__(0, len(columns))
        self.setHorizontalHeaderLabels(list(columns))
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)

    def fit_columns(self) -> None:
        """Each column as wide as its content (header included) when they
        all fit; else the widest ones narrowed to one width so they do,
        never below their header's width (the table then scrolls)."""
        n = self.columnCount()
        if not n:
            return
        header = self.horizontalHeader()
        want = [max(self.sizeHintForColumn(c), header.sectionSizeHint(c)) + 4 for c in range(n)]
        header.setStretchLastSection(False)  # else the last keeps the width it was stretched to
        for c, width in enumerate(fit_widths(want, self.viewport().width())):
            header.resizeSection(c, max(width, header.sectionSizeHint(c)))
        header.setStretchLastSection(True)  # over what is left

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Fit the columns to the new width."""
        super().resizeEvent(event)
        self.fit_columns()


def fit_widths(want: Sequence[int], room: int, least: int = 48) -> list[int]:
    """Column widths for content widths ``want`` in ``room`` pixels: ``want``
    when it fits; else the first column (the row's name) whole when the
    others can keep ``least`` pixels each, and every other column wider
    than a cap narrowed to it, the cap the largest that fits (at least
    ``least``)."""
    want = list(want)
    if sum(want) <= room:
        return want
    head: list[int] = []
    if len(want) > 1 and room - want[0] >= least * (len(want) - 1):
        head, want, room = want[:1], want[1:], room - want[0]
    low, high = least, max(want)
    while low < high:  # the largest cap whose widths fit
        cap = (low + high + 1) // 2
        if sum(min(w, cap) for w in want) <= room:
            low = cap
        else:
            high = cap - 1
    return head + [min(w, low) for w in want]


def table_widget(columns: Sequence[str]) -> CaseTable:
    """A CaseTable with ``columns``."""
    return CaseTable(columns)


def rows_height(table: QTableWidget, rows: int) -> int:
    """Pixels ``table`` needs to show ``rows`` whole rows under its header
    (and a horizontal scroll bar, in case a column overflows)."""
    frame = 2 * table.frameWidth()
    scroll = table.horizontalScrollBar().sizeHint().height()
    header = table.horizontalHeader().sizeHint().height()
    return header + rows * table.verticalHeader().defaultSectionSize() + frame + scroll


def fill(table: QTableWidget, rows: Sequence[Row]) -> None:
    """Put ``rows`` in ``table``: one-line cells, the full text and the
    row's tip on hover, as plain text; a CaseTable's columns fitted."""
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row.cells):
            item = QTableWidgetItem(one_line(text))
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
            tip = "\n".join(t for t in (text if text not in row.tip else "", row.tip) if t)
            if tip:
                item.setToolTip(plain_tooltip(tip) or "")
            table.setItem(r, c, item)
    if isinstance(table, CaseTable):
        table.fit_columns()


__all__ = ["CaseTable", "fill", "fit_widths", "rows_height", "table_widget"]
