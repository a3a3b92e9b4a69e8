"""T-P1 verdicts per prompt (per item and over all items), automatic and
reviewed side by side. Verdict cells are coloured (pass green, ambiguous
amber, fail red) and always carry the word too. Names too long for their
column are elided in the middle, the whole name on hover."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QColor, QFont, QFontMetrics
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from reviewer.core.cards.report import pct
from reviewer.core.models import TP1Verdict
from reviewer.qt.panels import RowsModel, SortProxy, SortRole, plain_tooltip
from reviewer.qt.session import Session
from reviewer.qt.text import CELL_CHARS
from reviewer.qt.text import cell as one_line

COLUMNS = [
    "prompt",
    "item",
    "runs",
    "text auto",
    "text reviewed",
    "spatial",
    "halluc runs",
    "JSON valid",
    "verdict auto",
    "verdict reviewed",
]
#: Header texts (two lines, so the table stays narrow in a dock).
HEADERS = [c.replace(" ", "\n") for c in COLUMNS]
VERDICT_COLUMNS = (8, 9)
#: Light backgrounds (dark text on them in any theme) per verdict.
VERDICT_COLORS: dict[TP1Verdict, str] = {
    TP1Verdict.PASS: "#BFE8C8",  # green
    TP1Verdict.AMBIGUOUS: "#FFE29A",  # amber
    TP1Verdict.FAIL: "#F6B3AE",  # red
    TP1Verdict.UNSCORED: "#E2E2E2",
}
_TIPS = {
    3: "text accuracy from the automatic findings (cards read correctly / visible)",
    4: "text accuracy after review (rejected findings do not count, reclassified ones do)",
    5: "spatial accuracy: automatic, → reviewed when review changed it",
    6: "runs with hallucinations: automatic, → reviewed when review changed it",
    7: "runs whose answer was valid JSON / runs",
}


def _both(auto: str, reviewed: str | None) -> str:
    return auto if reviewed is None or reviewed == auto else f"{auto} → {reviewed}"


def _num(value: float | None) -> float:
    return -1.0 if value is None else value


_ORDER = {TP1Verdict.FAIL: 0, TP1Verdict.AMBIGUOUS: 1, TP1Verdict.PASS: 2, TP1Verdict.UNSCORED: -1}


class ScoresModel(RowsModel):
    """Rows: (automatic verdict, reviewed verdict or None) per prompt and item
    (session.score_rows(); none while the session computes them). data() is
    O(1): a row's cells are made once, when it is first shown, and kept until
    the row changes; rows are shown BATCH at a time."""

    HEADERS = HEADERS
    TIPS = _TIPS
    BATCH = 500

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self._cells: dict[int, list] = {}
        self.several = False
        self.bold = QFont()
        self.bold.setBold(True)
        self.dark = QColor("#111111")
        self.colors = {v: QColor(c) for v, c in VERDICT_COLORS.items()}

    def load(self) -> list:
        """The session's T-P1 rows ([] while they are being computed); the same
        list object, so rows the session replaces in place are seen here."""
        rows = self.session.score_rows()
        rows = rows if rows is not None else []
        self.several = len({v.model for v, _ in rows}) > 1  # once, not per cell
        return rows

    def forget(self, rows=None) -> None:
        """Drop the cached cells of ``rows`` (all when None)."""
        if rows is None:
            self._cells.clear()
        for row in rows or ():
            self._cells.pop(row, None)

    def cells(self, row: int) -> list:
        """[(display text, sort key)] of every column of a row (cached)."""
        got = self._cells.get(row)
        if got is None:
            got = self._cells[row] = [self.cell(row, c) for c in range(len(COLUMNS))]
        return got

    def cell(self, row: int, column: int) -> tuple[str, Any]:
        """(display text, sort key) of a cell."""
        a, r = self.rows[row]
        if column == 0:
            label = a.label(self.several)
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
            return (_both(pct(a.spatial_accuracy), pct(r.spatial_accuracy) if r else None), _num(a.spatial_accuracy))
        if column == 6:
            return (_both(str(a.hallucination_runs), str(r.hallucination_runs) if r else None), a.hallucination_runs)
        if column == 7:
            return a.json_signal, a.json_valid_runs / a.runs if a.runs else -1.0
        v = a if column == 8 else r
        return (v.verdict.value, _ORDER[v.verdict]) if v else ("-", -2)

    def verdict_of(self, row: int, column: int) -> TP1Verdict | None:
        """The verdict shown in a verdict cell, or None."""
        a, r = self.rows[row]
        v = a if column == 8 else r if column == 9 else None
        return v.verdict if v else None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        """A cell's text and sort key (SortRole); verdict cells coloured with dark text, 'all' rows
        and verdicts bold, numbers right-aligned; tooltips for verdict reasons and cards read."""
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells(row)[column][0]
        if role == SortRole:
            return self.cells(row)[column][1]
        a, r = self.rows[row]
        verdict = self.verdict_of(row, column)
        if role == Qt.ItemDataRole.BackgroundRole and verdict is not None:
            return self.colors[verdict]
        if role == Qt.ItemDataRole.ForegroundRole and verdict is not None:
            return self.dark
        if role == Qt.ItemDataRole.FontRole and (a.item == "*" or verdict is not None):
            return self.bold
        if role == Qt.ItemDataRole.TextAlignmentRole and 2 <= column <= 7:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.TextAlignmentRole and verdict is not None:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole and column in VERDICT_COLUMNS:
            v = a if column == 8 else r
            return plain_tooltip("\n".join(v.reasons)) if v else None
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:  # the whole name (the cell elides in the middle)
            return plain_tooltip(a.label(self.several))
        if role == Qt.ItemDataRole.ToolTipRole and column == 1 and a.item != "*":
            return plain_tooltip(a.item)
        if role == Qt.ItemDataRole.ToolTipRole and column in (3, 4):
            v = a if column == 3 else r
            return f"{v.cards_correct} of {v.cards_visible} cards read correctly" if v else None
        return None


class ScoresPanel(QWidget):
    """The T-P1 verdict table (see module doc)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.model = ScoresModel(session, self)
        self.proxy = SortProxy(self)
        self.proxy.setSourceModel(self.model)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(False)
        self.view.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # model names differ at their ends; the whole on hover
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)  # sized once, from a sample (size_columns)
        header.setHighlightSections(False)
        self._sized = False
        self.note = QLabel(
            "T-P1 verdicts from the automatic findings and after review "
            "(rejected findings dropped, reclassified ones recounted). "
            "Hover a verdict for its reasons."
        )
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note_text = self.note.text()
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
        session.scoresChanged.connect(self._scores_changed)
        self.refresh()

    def _schedule(self, *_args) -> None:
        self._timer.start()

    def _scores_changed(self, rows) -> None:
        """The session recomputed some rows (dataChanged on those) or all (None: a reset)."""
        if rows is None or self.model.rows is not self.session.score_rows():
            self._schedule()
        else:
            self.model.changed(rows)

    def refresh(self) -> None:
        """Show the session's T-P1 rows again (a reset); column widths are
        set the first time there are rows."""
        self._timer.stop()
        self.model.reload()
        computing = self.session.project is not None and self.session.score_rows() is None
        self.note.setText("computing the T-P1 verdicts of every run…" if computing else self.note_text)
        if self.model.rows and not self._sized:
            self.size_columns()

    def size_columns(self, sample: int = 50) -> None:
        """Fit each column to its header and the first ``sample`` rows, once
        (never ResizeToContents, which reads every row on every change)."""
        self._sized = True
        metrics = self.view.fontMetrics()
        bold = QFontMetrics(self.model.bold)
        for column in range(len(COLUMNS)):
            texts = [self.model.cells(row)[column][0] for row in range(min(sample, len(self.model.rows)))]
            if column in VERDICT_COLUMNS:  # any verdict fits, whichever the sample holds
                texts += [v.value for v in TP1Verdict]
            head = max(metrics.horizontalAdvance(part) for part in HEADERS[column].split("\n"))
            widest = max([bold.horizontalAdvance(t) for t in texts] + [head])
            self.view.setColumnWidth(column, min(widest + 16, 320))
