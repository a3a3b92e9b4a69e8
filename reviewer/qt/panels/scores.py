"""T-P1 verdicts per prompt (per item and over all items), automatic and
reviewed side by side. Verdict cells are coloured (pass green, ambiguous
amber, fail red) and always carry the word too."""

from __future__ import annotations

from typing import Any, Optional

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from reviewer.core.models import Verdict
from reviewer.core.cards.report import pct
from reviewer.qt.panels import RowsModel, SortProxy, SortRole, plain_tooltip
from reviewer.qt.session import Session
from reviewer.qt.text import CELL_CHARS, cell as one_line

COLUMNS = ["prompt", "item", "runs", "text auto", "text reviewed", "spatial", "halluc runs",
           "JSON valid", "verdict auto", "verdict reviewed"]
#: Header texts (two lines, so the table stays narrow in a dock).
HEADERS = [c.replace(" ", "\n") for c in COLUMNS]
VERDICT_COLUMNS = (8, 9)
#: Light backgrounds (dark text on them in any theme) per verdict.
VERDICT_COLORS: dict[Verdict, str] = {
    Verdict.PASS: "#BFE8C8",  # green
    Verdict.AMBIGUOUS: "#FFE29A",  # amber
    Verdict.FAIL: "#F6B3AE",  # red
    Verdict.UNSCORED: "#E2E2E2",
}
_TIPS = {
    3: "text accuracy from the automatic findings (cards read correctly / visible)",
    4: "text accuracy after review (rejected findings do not count, reclassified ones do)",
    5: "spatial accuracy: automatic, → reviewed when review changed it",
    6: "runs with hallucinations: automatic, → reviewed when review changed it",
    7: "runs whose answer was valid JSON / runs",
}


def _both(auto: str, reviewed: Optional[str]) -> str:
    return auto if reviewed is None or reviewed == auto else f"{auto} → {reviewed}"


def _num(value: Optional[float]) -> float:
    return -1.0 if value is None else value


class ScoresModel(RowsModel):
    """Rows: (automatic verdict, reviewed verdict or None) per prompt and item."""

    HEADERS = HEADERS
    TIPS = _TIPS

    def load(self) -> list:
        """(automatic verdict, reviewed verdict with the same key or None) per automatic verdict."""
        reviewed = {v.key(): v for v in self.session.verdicts(True)}
        rows = [(v, reviewed.get(v.key())) for v in self.session.verdicts(False)]
        self.several = len({v.model for v, _ in rows}) > 1  # once, not per cell
        return rows

    def cell(self, row: int, column: int) -> tuple[str, Any]:
        """(display text, sort key) of a cell."""
        a, r = self.rows[row]
        if column == 0:
            label = a.label(getattr(self, "several", False))
            return one_line(label), label[:CELL_CHARS].casefold()
        if column == 1:
            return ("all", "\uffff") if a.item == "*" else (one_line(a.item), a.item[:CELL_CHARS].casefold())
        if column == 2:
            return str(a.runs), a.runs
        if column == 3:
            return pct(a.text_accuracy), _num(a.text_accuracy)
        if column == 4:
            value = r.text_accuracy if r else None
            return pct(value), _num(value)
        if column == 5:
            return (_both(pct(a.spatial_accuracy), pct(r.spatial_accuracy) if r else None),
                    _num(a.spatial_accuracy))
        if column == 6:
            return (_both(str(a.hallucination_runs), str(r.hallucination_runs) if r else None),
                    a.hallucination_runs)
        if column == 7:
            return a.json_signal, a.json_valid_runs / a.runs if a.runs else -1.0
        v = a if column == 8 else r
        order = {Verdict.FAIL: 0, Verdict.AMBIGUOUS: 1, Verdict.PASS: 2, Verdict.UNSCORED: -1}
        return (v.verdict.value, order[v.verdict]) if v else ("-", -2)

    def verdict_of(self, row: int, column: int) -> Optional[Verdict]:
        """The verdict shown in a verdict cell, or None."""
        a, r = self.rows[row]
        v = a if column == 8 else r if column == 9 else None
        return v.verdict if v else None

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        """A cell's text and sort key (SortRole); verdict cells coloured with dark text, 'all' rows
        and verdicts bold, numbers right-aligned; tooltips for verdict reasons and cards read."""
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == Qt.DisplayRole:
            return self.cell(row, column)[0]
        if role == SortRole:
            return self.cell(row, column)[1]
        a, r = self.rows[row]
        verdict = self.verdict_of(row, column)
        if role == Qt.BackgroundRole and verdict is not None:
            return QColor(VERDICT_COLORS[verdict])
        if role == Qt.ForegroundRole and verdict is not None:
            return QColor("#111111")
        if role == Qt.FontRole and (a.item == "*" or verdict is not None):
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.TextAlignmentRole and 2 <= column <= 7:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        if role == Qt.TextAlignmentRole and verdict is not None:
            return int(Qt.AlignCenter)
        if role == Qt.ToolTipRole and column in VERDICT_COLUMNS:
            v = a if column == 8 else r
            return plain_tooltip("\n".join(v.reasons)) if v else None
        if role == Qt.ToolTipRole and column in (3, 4):
            v = a if column == 3 else r
            return f"{v.cards_correct} of {v.cards_visible} cards read correctly" if v else None
        return None


class ScoresPanel(QWidget):
    """The T-P1 verdict table (see module doc)."""

    def __init__(self, session: Session, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.session = session
        self.model = ScoresModel(session, self)
        self.proxy = SortProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.AscendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeToContents)
        header.setHighlightSections(False)
        self.note = QLabel("T-P1 verdicts from the automatic findings and after review "
                           "(rejected findings dropped, reclassified ones recounted). "
                           "Hover a verdict for its reasons.")
        self.note.setTextFormat(Qt.PlainText)
        self.note.setWordWrap(True)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.view, 1)
        box.addWidget(self.note)

        # one edit can emit groundTruthChanged per item and then findingsChanged:
        # recompute once, when the event loop is next idle
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        session.projectChanged.connect(self._schedule)
        session.findingsChanged.connect(self._schedule)
        session.groundTruthChanged.connect(self._schedule)
        self.refresh()

    def _schedule(self, *_args) -> None:
        self._timer.start()

    def refresh(self) -> None:
        """Recompute both verdict sets from the session (now)."""
        self._timer.stop()
        self.model.reload()
