"""The runs of the current item in a sortable, filterable table: prompt,
model, repetition, automatic text and spatial accuracy, hallucinations,
JSON validity and review progress, filtered by the window's search
(reviewer.qt.search). Selecting a row makes it the session's current run."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QVBoxLayout, QWidget

from reviewer.core.cards.report import pct
from reviewer.core.models import AnswerSchema, Status
from reviewer.qt.panels import IdRole, RowsModel, SortProxy, SortRole, plain_tooltip, row_of
from reviewer.qt.search import run_matches, terms
from reviewer.qt.session import Session
from reviewer.qt.session.reads import ScoredRun
from reviewer.qt.text import CELL_CHARS
from reviewer.qt.text import cell as one_line

COLUMNS = ["prompt", "model", "rep", "text", "spatial", "halluc", "JSON valid", "reviewed"]
NUMERIC = {2, 3, 4, 5, 7}
_TIPS = {
    3: "automatic text accuracy: cards read correctly / cards visible",
    4: "automatic spatial accuracy: cards in the right pile / cards visible",
    5: "cards in the answer that are not in the photo (automatic)",
    6: "the answer's JSON: ✓ valid, ✗ invalid, repaired: salvaged with json-repair",
    7: "findings decided by a person / all findings",
}


def decided(run: ScoredRun) -> tuple[int, int]:
    """(findings decided by a person, all findings) of a run."""
    return sum(f.status != Status.PROPOSED for f in run.findings), len(run.findings)


def _json_cell(run: ScoredRun) -> str:
    if run.run["schema"] == AnswerSchema.FREE.value:
        return "free text"
    if run.facts.repaired:
        return "repaired"
    return "✓" if run.facts.json_valid else "✗"


def _both(auto: str, reviewed: str) -> str:
    return auto if reviewed == auto else f"{auto} → {reviewed}"


def _num(value: float | None) -> float:
    return -1.0 if value is None else value


def cell(run: ScoredRun, column: int) -> tuple[str, Any]:
    """(display text, sort key) of one cell: automatic figures, shown as
    'automatic → reviewed' where review changed them; None sorts first."""
    scored = run.facts.scored
    if column == 0:
        return one_line(run.run["prompt"]), run.run["prompt"][:CELL_CHARS].casefold()
    if column == 1:
        return one_line(run.run["model"]), run.run["model"][:CELL_CHARS].casefold()
    if column == 2:
        return str(run.run["repetition"]), run.run["repetition"]
    auto, rev = run.auto, run.reviewed
    if column == 3:
        if not scored:
            return "-", -1.0
        return _both(pct(auto.text_accuracy), pct(rev.text_accuracy)), _num(auto.text_accuracy)
    if column == 4:
        if not scored:
            return "-", -1.0
        return _both(pct(auto.spatial_accuracy), pct(rev.spatial_accuracy)), _num(auto.spatial_accuracy)
    if column == 5:
        if not scored:
            return "-", -1
        return _both(str(auto.hallucinations), str(rev.hallucinations)), auto.hallucinations
    if column == 6:
        text = _json_cell(run)
        return text, {"✓": 3, "repaired": 2, "✗": 1}.get(text, 0)
    done, total = decided(run)
    return f"{done}/{total}", (done / total if total else 2.0, total)


class RunsModel(RowsModel):
    """The current item's scored runs (session.runs())."""

    HEADERS = COLUMNS
    TIPS = _TIPS

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self._cells: dict[int, list] = {}

    def forget(self, rows=None) -> None:
        """Drop the cached cells of ``rows`` (all when None)."""
        if rows is None:
            self._cells.clear()
        for row in rows or ():
            self._cells.pop(row, None)

    def load(self) -> list:
        """The current item's scored runs."""
        return self.session.runs()

    def update(self, run_ids: set[int] | None) -> bool:
        """Take the session's new copies of the runs ``run_ids`` (None: any)
        in place, with dataChanged on their rows only; False (nothing done)
        when the item's runs are no longer the same rows (reload then)."""
        fresh = self.session.runs()
        if run_ids is None or [r.run["id"] for r in fresh] != [r.run["id"] for r in self.rows]:
            return False
        rows = [k for k, r in enumerate(fresh) if r.run["id"] in run_ids]
        for k in rows:
            self.rows[k] = fresh[k]
        self.changed(rows)
        return True

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        """A run's cell: text, sort key (SortRole), run id (IdRole), alignment, and tooltips for
        a parse error, review progress and cards read; None otherwise."""
        if not index.isValid():
            return None
        run, column = self.rows[index.row()], index.column()
        if role in (Qt.ItemDataRole.DisplayRole, SortRole):
            cells = self._cells.get(index.row())
            if cells is None:  # made once per row: data() is called for every paint
                cells = self._cells[index.row()] = [cell(run, c) for c in range(len(COLUMNS))]
            return cells[column][0 if role == Qt.ItemDataRole.DisplayRole else 1]
        if role == IdRole:
            return run.run["id"]
        if role == Qt.ItemDataRole.TextAlignmentRole and column in NUMERIC | {6}:
            return (
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column != 6
                else int(Qt.AlignmentFlag.AlignCenter)
            )
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 6 and run.facts.parse_error:
                return plain_tooltip(run.facts.parse_error)
            if column == 7 and run.findings:
                done, total = decided(run)
                return f"{done} of {total} findings decided" + (" (run reviewed)" if run.is_reviewed else "")
            if column == 3 and run.facts.scored:
                m = run.auto
                return f"{m.cards_correct} of {m.cards_visible} cards read correctly"
        return None


class RunsProxy(SortProxy):
    """Sorting of the runs table, and filtering by the search words."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.words: list[str] = []

    def set_search(self, text: str) -> None:
        """Keep the runs matching every word of ``text`` (all when empty)."""
        self.beginFilterChange()
        self.words = terms(text)
        self.endFilterChange(SortProxy.Direction.Rows)

    def filterAcceptsRow(self, row: int, parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        """The run matches the search words (reviewer.qt.search.run_matches)."""
        model = self.sourceModel()
        assert isinstance(model, RunsModel)  # the proxy filters the runs model
        return not self.words or (row < len(model.rows) and run_matches(self.words, model.rows[row]))


class RunsPanel(QWidget):
    """The runs table (see module doc). Follows session.runChanged and keeps
    its selection over session.findingsChanged."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.model = RunsModel(session, self)
        self.proxy = RunsProxy(self)
        self.proxy.setSourceModel(self.model)

        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # session order until a header is clicked
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)  # sized from the header texts once
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # prompt and model share what is left
        header.setHighlightSections(False)
        metrics = self.view.fontMetrics()
        # prompt and model never narrower than their header (a narrow dock scrolls instead)
        header.setMinimumSectionSize(max(metrics.horizontalAdvance(COLUMNS[c]) for c in (0, 1)) + 18)
        sample = {2: "rep", 3: "100% → 100%", 4: "100% → 100%", 5: "10 → 10", 6: "repaired", 7: "10/10"}
        for column, text in sample.items():
            self.view.setColumnWidth(
                column, max(metrics.horizontalAdvance(text), metrics.horizontalAdvance(COLUMNS[column])) + 18
            )

        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.view, 1)

        self._syncing = False
        session.searchChanged.connect(self._filter)
        self.view.selectionModel().currentRowChanged.connect(self._picked)
        session.projectChanged.connect(self.refresh)
        session.itemChanged.connect(self.refresh)
        session.findingsChanged.connect(self._findings_changed)
        session.runChanged.connect(self.follow)
        self.refresh()

    def refresh(self) -> None:
        """Re-read the current item's runs, keeping the current run selected."""
        self._syncing = True
        try:
            self.model.reload()
        finally:
            self._syncing = False
        self.follow()

    def _findings_changed(self) -> None:
        """Update the rows of the runs the edit touched; a reload only when the item's runs changed."""
        self._syncing = True
        try:
            done = self.model.update(self.session.changed_runs)
        finally:
            self._syncing = False
        if not done:
            self.refresh()

    def _filter(self, text: str) -> None:
        self._syncing = True
        try:
            self.proxy.set_search(text)
        finally:
            self._syncing = False
        self.follow()

    def set_hidden_columns(self, columns) -> None:
        """Hide ``columns`` (indexes of COLUMNS) and show the others: the
        card figures are columns of the card perspective only."""
        for column in range(len(COLUMNS)):
            self.view.setColumnHidden(column, column in set(columns))

    def row_of(self, run_id: int | None) -> QModelIndex:
        """The view index of a run (invalid when absent or filtered out)."""
        return row_of(self.proxy, run_id)

    def follow(self) -> None:
        """Select the session's current run."""
        self._syncing = True
        try:
            index = self.row_of(self.session.run_id)
            if index.isValid():
                self.view.selectionModel().setCurrentIndex(
                    index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
                )
                self.view.scrollTo(index)
            else:
                self.view.selectionModel().clear()
        finally:
            self._syncing = False

    def _picked(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        run_id = current.data(IdRole)
        if run_id != self.session.run_id:
            self.session.set_run(run_id)
