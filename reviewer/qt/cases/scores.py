"""The case perspective's score panel (docs/test-cases.md): per model the
seed's figures over the answers of the current case's dataset (every
dataset when the current item is no test case): answers, passed and
failed cases, average score and each metric's average, automatic and
reviewed side by side. The rows are made by the same functions as the
case report (storage.cases.cases.case_results, core.cases.report
seed_reports and summary_rows), so the figures are the report's.

The figures follow every decision (findingsChanged) and import
(projectChanged). They are computed only while the panel is visible: a
change while hidden marks them stale and showing the panel computes them;
changes in a burst are computed once, CHANGE_MS after the last.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from reviewer.core.cases.report import seed_reports, summary_rows
from reviewer.qt.cases.rows import Row
from reviewer.qt.cases.tables import fill, table_widget
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.panels.live import LiveRefresh
from reviewer.qt.session import Session
from reviewer.qt.text import line

#: Milliseconds after the last change before the figures are computed.
CHANGE_MS = 150

_TIPS = {
    "basis": "auto: the checks as they fired; reviewed: after the decisions",
    "totalCases": "answers scored",
    "passedCases": "answers whose case score reaches the pass mark",
    "averageScore": "mean case score over the answers",
}


class CaseScoresPanel(QWidget):
    """The seed's figures per model of the current dataset (see module doc)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self._dataset: str | None = None  # the dataset shown ('' for all)
        self._header: list[str] = []
        self._rows: list[list[str]] = []
        self.title = QLabel("no test case answers")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.table = table_widget(["model"])
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.title)
        box.addWidget(self.table, 1)
        self.live = LiveRefresh(self, self.recompute, (session.projectChanged, session.findingsChanged), CHANGE_MS)
        session.itemChanged.connect(self._item_changed)

    def _current_dataset(self) -> str:
        s = self.session
        case = s.reads.case_of_item(s.item_id)
        return case.dataset if case is not None else ""

    def _item_changed(self) -> None:
        """Another item: the figures change only when its dataset does (read
        only while shown; a hidden panel just reads it again when shown)."""
        if not self.isVisible():
            self.live.stale = True
        elif self._current_dataset() != self._dataset:
            self.live.mark_stale()

    def recompute(self) -> None:
        """Read the project's scored answers and show the figures (LiveRefresh
        calls it only while the panel is shown)."""
        s = self.session
        self._dataset = dataset = self._current_dataset()
        header: list[str] = []
        rows: list[list[str]] = []
        if s.reads.has_cases():
            metrics = s.reads.case_metrics()
            results = [r for r in s.reads.case_results(metrics) if not dataset or r.case.dataset == dataset]
            if results:
                header, rows = summary_rows(
                    seed_reports(results, metrics, "auto"), seed_reports(results, metrics, "reviewed"), metrics
                )
        self._header, self._rows = header, rows
        where = f"dataset {dataset}" if dataset else "all datasets"
        self.title.setText(
            line(
                f"test cases, {where}: {len(rows) // 2} models"
                if rows
                else f"no scored answer of a test case ({where})"
            )
        )
        self.table.setColumnCount(len(header) or 1)
        self.table.setHorizontalHeaderLabels(header or ["model"])
        for c, name in enumerate(header):
            item = self.table.horizontalHeaderItem(c)
            if item is not None:
                tip = _TIPS.get(name, f"{name}: mean score of the metric over the answers" if c > 5 else name)
                item.setToolTip(plain_tooltip(tip) or "")
        fill(self.table, [Row(tuple(r), f"{r[0]} ({r[1]})") for r in rows])

    def figures(self) -> tuple[list[str], list[list[str]]]:
        """The (header, rows) shown, as summary_rows gives them ([], [] when none)."""
        return list(self._header), [list(r) for r in self._rows]


__all__ = ["CHANGE_MS", "CaseScoresPanel"]
