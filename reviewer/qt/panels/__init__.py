"""The dockable panels of the review window.

Every panel is ``XPanel(session, parent=None)``: it observes the Session's
signals, reads from it and calls its methods; it keeps no domain state of
its own (its Qt models are caches of what the session says, rebuilt on the
session's signals).

Model and judge text is untrusted: panels show it as plain text only
(QPlainTextEdit, Qt.PlainText labels, item-model display strings). Tooltips
are the one place Qt guesses rich text, so they go through
``plain_tooltip``, which escapes them.

Panels are imported lazily (``from reviewer.qt.panels import RunsPanel``
works) so that this module can hold the small helpers the panels share
without import cycles.
"""

from __future__ import annotations

import html
import importlib
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtWidgets import QAbstractItemView, QStyledItemDelegate, QToolTip

from reviewer.qt.text import block

#: Item-data role holding a row's domain id (item, run, finding or card id).
IdRole = Qt.ItemDataRole.UserRole + 1
#: Item-data role holding a row's sort key (numbers sort as numbers).
SortRole = Qt.ItemDataRole.UserRole + 2

_PANELS = {
    "ItemsPanel": "items",
    "RunsPanel": "runs",
    "OutputPanel": "output",
    "FindingsPanel": "findings",
    "ScoresPanel": "scores",
    "LegendPanel": "legend",
    "UnplacedPanel": "unplaced",
    "ShortcutsDialog": "shortcuts",
    "SHORTCUTS": "shortcuts",
}

__all__ = ["IdRole", "SortRole", "RowsModel", "SortProxy", "plain_tooltip", "row_of", *_PANELS]


def row_of(model, row_id) -> QModelIndex:
    """The index in column 0 of ``model`` whose IdRole is ``row_id``, or an
    invalid index (a row filtered out, or none)."""
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        if index.data(IdRole) == row_id:
            return index
    return QModelIndex()


class SortProxy(QSortFilterProxyModel):
    """Sorts by the SortRole keys (numbers as numbers) and filters on every
    column, case-insensitively."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.setSortRole(SortRole)
        self.setFilterKeyColumn(-1)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort every row: a source that fetches its rows in batches
        (RowsModel.BATCH) gives them all first."""
        source = self.sourceModel()
        if column >= 0 and isinstance(source, RowsModel):
            source.fetch_all()
        super().sort(column, order)

    def lessThan(self, left: QModelIndex | QPersistentModelIndex, right: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        """Compare the SortRole keys; as strings when they do not compare (TypeError)."""
        a, b = left.data(SortRole), right.data(SortRole)
        try:
            return a < b
        except TypeError:
            return str(a) < str(b)


class RowsModel(QAbstractTableModel):
    """A table of ``rows`` read from the session: subclasses set ``HEADERS``
    (and optionally ``TIPS``: {column: tooltip}), implement ``load()`` (the
    rows, from the session) and ``data()``.

    With ``BATCH`` set, a view sees the rows ``BATCH`` at a time (Qt's
    canFetchMore / fetchMore as it scrolls to the end; sorting fetches them
    all). ``changed(rows)`` announces rows replaced in place (dataChanged,
    no reset)."""

    HEADERS: list[str] = []
    TIPS: dict[int, str] = {}
    BATCH: int | None = None

    def __init__(self, session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.rows: list = []
        self.shown = 0

    def load(self) -> list:
        """The rows to show now."""
        raise NotImplementedError

    def reload(self) -> None:
        """Read the rows again from the session (a model reset)."""
        self.beginResetModel()
        self.rows = self.load()
        self.shown = len(self.rows) if self.BATCH is None else min(self.BATCH, len(self.rows))
        self.forget()
        self.endResetModel()

    def forget(self, rows: list[int] | None = None) -> None:
        """Drop what a subclass cached per row (all rows when None)."""

    def changed(self, rows: list[int]) -> None:
        """Rows replaced in place: dataChanged over each run of consecutive rows shown."""
        rows = sorted(r for r in set(rows) if 0 <= r < self.shown)
        self.forget(rows)
        last = self.columnCount() - 1
        start = None
        for k, row in enumerate(rows):
            start = row if start is None else start
            if k + 1 == len(rows) or rows[k + 1] != row + 1:
                self.dataChanged.emit(self.index(start, 0), self.index(row, last))
                start = None

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> bool:  # noqa: N802
        """Rows are left to show (BATCH)."""
        return not parent.isValid() and self.shown < len(self.rows)

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> None:  # noqa: N802
        """Show the next BATCH rows."""
        if parent.isValid() or self.shown >= len(self.rows):
            return
        end = min(len(self.rows), self.shown + (self.BATCH or len(self.rows)))
        self.beginInsertRows(QModelIndex(), self.shown, end - 1)
        self.shown = end
        self.endInsertRows()

    def fetch_all(self) -> None:
        """Show every row (before sorting or filtering all of them)."""
        if self.shown < len(self.rows):
            self.BATCH, batch = None, self.BATCH
            try:
                self.fetchMore()
            finally:
                self.BATCH = batch

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802
        """Number of rows shown (0 under a valid parent: the table is flat)."""
        return 0 if parent.isValid() else self.shown

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802
        """Number of HEADERS (0 under a valid parent)."""
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        """Horizontal headers only: the HEADERS text, and the TIPS tooltip; None otherwise."""
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.TIPS.get(section)
        return None


def plain_tooltip(text: str | None) -> str | None:
    """A tooltip that shows ``text`` literally: Qt renders tooltips that
    look like HTML as rich text, so the text is escaped and wrapped (line
    breaks kept), at most reviewer.qt.text.TIP_CHARS characters with control
    and bidirectional characters made visible. None or empty gives None (no
    tooltip)."""
    if not text:
        return None
    body = html.escape(block(text), quote=False).replace("\n", "<br>")
    return f"<p style='white-space:pre-wrap'>{body}</p>"


class WholeOnHover(QStyledItemDelegate):
    """The default cell delegate, and a cell whose text its column cuts
    shows the whole text on hover (plain, plain_tooltip) when its model
    gives no tooltip of its own (docs/window.md: wide text columns show the
    whole text on hover)."""

    def helpEvent(self, event, view, option, index) -> bool:  # noqa: N802 (Qt name)
        """A tooltip event over a cut cell without a tooltip: show its whole text."""
        if (
            event is not None
            and event.type() == QEvent.Type.ToolTip
            and index.isValid()
            and not index.data(Qt.ItemDataRole.ToolTipRole)
        ):
            text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
            if text and view.fontMetrics().horizontalAdvance(text) + 8 > view.visualRect(index).width():
                QToolTip.showText(event.globalPos(), plain_tooltip(text) or "", view)
                return True
        return super().helpEvent(event, view, option, index)


def whole_on_hover(root: QObject) -> int:
    """Give every item view under ``root`` that uses the default delegate a
    WholeOnHover; returns how many got one."""
    count = 0
    for view in root.findChildren(QAbstractItemView):
        if type(view.itemDelegate()) is QStyledItemDelegate:
            view.setItemDelegate(WholeOnHover(view))
            count += 1
    return count


def __getattr__(name: str) -> Any:
    module = _PANELS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
