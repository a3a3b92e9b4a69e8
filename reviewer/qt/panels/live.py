"""What the workflow score panels share: when to compute, and how to show a
table of figures.

* ``LiveRefresh``: owned by a panel (composition, no mixin). The session
  signals it is given mark the panel stale; a stale panel that is visible
  computes once when the event loop has been idle for ``DEBOUNCE_MS`` (a
  burst of decisions computes once); a hidden one computes when it is next
  shown (the Show event of the widget, read through an event filter).
* ``FiguresTable``: a read-only QTableWidget of display strings (model and
  judge names are untrusted: never rich text), each cell with its whole text
  as a plain tooltip (reviewer.qt.panels.plain_tooltip); columns fit their
  content up to ``MAX_COLUMN`` pixels and elide in the middle beyond it;
  long headers take two lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, SignalInstance
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from reviewer.qt.panels import plain_tooltip
from reviewer.qt.text import cell as one_line

#: Quiet time after the last change before a shown panel computes (ms).
DEBOUNCE_MS = 150
#: Widest a column grows to fit its content (pixels); wider text elides in the middle.
MAX_COLUMN = 260
_NUMBER = re.compile(r"^[-+]?\d[\d.,]*\s*%?$")

__all__ = ["DEBOUNCE_MS", "MAX_COLUMN", "FiguresTable", "LiveRefresh", "two_lines"]


class LiveRefresh(QObject):
    """Calls ``compute`` when ``widget`` is shown and stale (see module doc);
    ``debounce_ms`` None: at once on each change while shown (no quiet time).

    ``stale`` is True until the first computation and after every signal of
    ``signals``; ``computed`` counts the computations (for tests)."""

    def __init__(
        self,
        widget: QWidget,
        compute: Callable[[], None],
        signals: Iterable[SignalInstance],
        debounce_ms: int | None = DEBOUNCE_MS,
    ):
        super().__init__(widget)
        self.widget, self.compute = widget, compute
        self.stale = True
        self.computed = 0
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.at_once = debounce_ms is None  # a view that must follow each change as it happens
        self.timer.setInterval(debounce_ms or 0)
        self.timer.timeout.connect(self.run)
        for signal in signals:
            signal.connect(self.mark_stale)
        widget.installEventFilter(self)

    def mark_stale(self, *_args) -> None:
        """Something changed: compute after the quiet time when shown, else when next shown."""
        self.stale = True
        if self.widget.isVisible():
            if self.at_once:
                self.run()
            else:
                self.timer.start()

    def run(self) -> None:
        """Compute now (when stale or not) and mark fresh."""
        self.timer.stop()
        self.stale = False
        self.computed += 1
        self.compute()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        """On the widget's Show event, compute at once if stale; never consumes the event."""
        if watched is self.widget and event.type() == QEvent.Type.Show and self.stale:
            self.run()
        return False


def two_lines(header: str, longest: int = 10) -> str:
    """A header longer than ``longest`` characters broken at the space nearest
    its middle (so a table of figures stays narrow in a dock); shorter ones as given."""
    spaces = [i for i, ch in enumerate(header) if ch == " "]
    if len(header) <= longest or not spaces:
        return header
    cut = min(spaces, key=lambda i: abs(i - len(header) / 2))
    return header[:cut] + "\n" + header[cut + 1 :]


class FiguresTable(QTableWidget):
    """A read-only table of display strings (see module doc); ``rows()``
    gives back what it shows, header first."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # names differ at their ends; the whole on hover
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setHighlightSections(False)
        self._header: list[str] = []

    def set_rows(self, header: Sequence[str], rows: Sequence[Sequence[str]], tips: Sequence[str] = ()) -> None:
        """Show ``rows`` (lists of display strings, one line each) under
        ``header`` (``tips``: header tooltips, by column); numbers are
        right-aligned; columns fit their content up to MAX_COLUMN."""
        self._header = [str(h) for h in header]
        self.clear()
        self.setColumnCount(len(self._header))
        self.setRowCount(len(rows))
        self.setHorizontalHeaderLabels([two_lines(h) for h in self._header])
        for c, tip in enumerate(tips):
            item = self.horizontalHeaderItem(c)
            if item is not None and tip:
                item.setToolTip(plain_tooltip(tip) or "")
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(one_line(text))
                item.setData(Qt.ItemDataRole.UserRole, str(text))
                item.setToolTip(plain_tooltip(str(text)) or "")
                if _NUMBER.match(str(text)):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(r, c, item)
        self.resizeColumnsToContents()
        for c in range(self.columnCount()):
            self.setColumnWidth(c, min(self.columnWidth(c), MAX_COLUMN))

    def text(self, row: int, column: int) -> str:
        """The whole text of a cell ('' for none)."""
        item = self.item(row, column)
        return "" if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def rows(self) -> list[list[str]]:
        """[header, *rows] as shown (each cell's whole text)."""
        body = [[self.text(r, c) for c in range(self.columnCount())] for r in range(self.rowCount())]
        return [list(self._header), *body] if self._header else []
