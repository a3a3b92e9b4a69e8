"""The case perspective's centre (docs/test-cases.md): the test case of the
current item (query, context and expected behaviour) beside the answer of
the current run (reviewer.qt.cases.answer: what each check matched
highlighted, the selected finding underlined), and below them the checks
that count for the case's category with their outcome
(reviewer.qt.cases.rows) beside the scores of the metrics that count,
automatic and reviewed.

The fired checks are the run's findings (ERROR, WARNING) in the findings
panel, decided with the usual keys (Y, N, 1 ERROR / 2 WARNING, A adds a
check); the reviewed scores here follow every decision. Everything shown
is read from the project on each refresh: the view keeps no domain state.
Plain text only: labels are PlainText, tooltips escaped (plain_tooltip).
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QPalette
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSizePolicy, QSplitter, QTableWidget, QVBoxLayout, QWidget

from reviewer.core.cases.scoring import case_score, counted_metrics
from reviewer.qt.cases.answer import FIRED_ERROR, FIRED_WARNING, CaseAnswer
from reviewer.qt.cases.rows import CHECK_COLUMNS, SCORE_COLUMNS, check_rows, score_rows
from reviewer.qt.cases.tables import fill, rows_height, table_widget
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.panels.live import LiveRefresh
from reviewer.qt.session import Session
from reviewer.qt.text import line, plain_label

#: Rows of the checks table the first layout leaves room for (a theory or
#: story case of the CICADA preset has 9 checks that count).
CHECK_ROWS = 10
#: Rows the checks table keeps when the splitter is dragged up to it.
MIN_CHECK_ROWS = 3
#: The least height of each text and table when the view is narrow.
NARROW_MIN_PX = 44
#: Below this width the case and the answer stand one over the other.
SIDE_BY_SIDE_PX = 620


def _heading(text: str) -> QLabel:
    label = plain_label(text, wrap=False, selectable=True)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    # a narrow view clips a heading rather than growing to its width
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label


class CaseView(QWidget):
    """The current item's test case, its run's answer, checks and scores (see module doc)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self._outcomes: tuple[str, list[dict]] = ("[]", [])  # the stored outcomes read last, parsed
        self._user_sized = False  # the user moved the splitter between the texts and the tables
        self.title = _heading("no test case")
        self.title.setWordWrap(True)  # the whole title, on two lines when narrow
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.query = plain_label(selectable=True)
        self.expected = QPlainTextEdit()
        self.expected.setReadOnly(True)
        self.expected.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.answer_title = _heading("answer")
        self.answer = CaseAnswer()
        self.highlighter = self.answer.highlighter
        self.checks_title = _heading("checks")
        self.checks_title.setWordWrap(True)
        self.checks = table_widget(CHECK_COLUMNS)
        self.scores = table_widget(SCORE_COLUMNS)
        self.texts = QSplitter(Qt.Orientation.Horizontal)  # the case | the answer
        self.texts.addWidget(
            self._pane(_heading("query"), self.query, _heading("context and expected behaviour"), self.expected)
        )
        self.texts.addWidget(self._pane(self.answer_title, self.answer))
        self.tables = QSplitter(Qt.Orientation.Horizontal)  # the checks | the scores
        self.tables.addWidget(self._pane(self.checks_title, self.checks))
        self.tables.addWidget(self._pane(_heading("scores (automatic, reviewed)"), self.scores))
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.texts)
        self.splitter.addWidget(self.tables)
        for split, stretch in ((self.texts, (2, 3)), (self.tables, (3, 2)), (self.splitter, (1, 1))):
            split.setChildrenCollapsible(False)
            for i, s in enumerate(stretch):
                split.setStretchFactor(i, s)
        self.splitter.splitterMoved.connect(self._moved)
        self.tables.splitterMoved.connect(self._moved)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.title)
        box.addWidget(self.splitter, 1)
        # read only while shown, at once on each change; an item switch ends in runChanged
        # (Session.set_item): itemChanged would read it all twice
        signals = (session.projectChanged, session.runChanged, session.findingsChanged, session.findingSelectionChanged)
        self.live = LiveRefresh(self, self.refresh, signals, debounce_ms=None)

    @staticmethod
    def _pane(*widgets: QWidget) -> QWidget:
        pane = QWidget()
        lay = QVBoxLayout(pane)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        for w in widgets:
            lay.addWidget(w, 1 if isinstance(w, (QPlainTextEdit, QTableWidget)) else 0)
        return pane

    # -- layout ----------------------------------------------------------------------------
    def _moved(self, *_args) -> None:
        self._user_sized = True  # the user's sizes stay

    def _place(self) -> None:
        """The case beside the answer when there is room, else over it; until
        the user moves a splitter, the tables get room for CHECK_ROWS checks
        (at most 60 % of the height), the texts the rest, and the scores
        the width of the longest metric name and two scores (at most 45 %)."""
        wide = self.width() >= SIDE_BY_SIDE_PX
        # a wide view keeps MIN_CHECK_ROWS checks; a narrow one (a dock) asks for little height
        for w in (self.expected, self.answer, self.scores):
            w.setMinimumHeight(0 if wide else NARROW_MIN_PX)
        self.checks.setMinimumHeight(rows_height(self.checks, MIN_CHECK_ROWS) if wide else NARROW_MIN_PX)
        self.texts.setOrientation(Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)
        self.tables.setOrientation(Qt.Orientation.Horizontal if wide else Qt.Orientation.Vertical)
        if self._user_sized:
            return
        total = self.splitter.height()
        if total <= 0:
            return
        want = rows_height(self.checks, CHECK_ROWS) + self.checks_title.sizeHint().height() + 2  # + the pane's spacing
        if not wide:
            want += rows_height(self.scores, 4) + self.checks_title.sizeHint().height()
        bottom = min(want, int(total * 0.6))
        self.splitter.setSizes([total - bottom, bottom])
        width = self.tables.width()
        if wide and width > 0:
            scores = self.fontMetrics().horizontalAdvance("overallCorrectness 0.00 fail 0.00 fail weight") + 64
            scores = min(scores, int(width * 0.45))
            self.tables.setSizes([width - scores, scores])

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Lay the parts out for the new size (see _place)."""
        super().resizeEvent(event)
        self._place()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        """Lay the parts out once shown (see _place)."""
        super().showEvent(event)
        self._place()

    # -- content ---------------------------------------------------------------------------
    def applies(self) -> bool:
        """Whether the current item is a test case (the case perspective's)."""
        s = self.session
        return s.reads.case_of_item(s.item_id) is not None

    def refresh(self) -> None:
        """Show the session's current item and run (read from the project;
        LiveRefresh calls it only while the view is shown)."""
        s = self.session
        case = s.reads.case_of_item(s.item_id)
        self.setEnabled(case is not None)
        if case is None:
            self.title.setText("the current item is no test case")
            self.query.clear()
            self.expected.clear()
            self._no_run("answer")
            return
        meta = case.metadata
        self.title.setText(
            line(
                f"test case {case.id} · dataset {case.dataset} · category {case.category or '-'} · "
                f"difficulty {case.difficulty or '-'}"
            )
        )
        self.title.setToolTip(plain_tooltip(meta.get("description")) or "")
        self.query.setText(case.query)
        self.query.setToolTip(plain_tooltip(meta.get("description")) or "")
        self.expected.setPlainText(
            json.dumps({"context": case.context, "expectedBehavior": case.expected}, indent=2, ensure_ascii=False)
        )
        metrics = s.reads.case_metrics()
        counted = [m.name for m in metrics.metrics if m.name in counted_metrics(metrics, case.category)]
        self.checks_title.setText(line(f"checks of a {case.category or '-'} case: {', '.join(counted) or 'none'}"))
        run = s.run()
        if run is None or run.run["item_id"] != s.item_id:
            self._no_run("answer: no run of this case selected")
            return
        self.answer_title.setText(line(f"answer of {run.run['model']} #{run.run.get('repetition', 1)}"))
        outcomes_text = s.reads.check_outcomes_text(run.run["id"])
        if outcomes_text != self._outcomes[0]:
            self._outcomes = (outcomes_text, json.loads(outcomes_text))
        outcomes = self._outcomes[1]
        auto = case_score(case, run.findings, metrics, outcomes=outcomes)
        reviewed = case_score(case, run.findings, metrics, True, outcomes=outcomes)
        fill(self.scores, score_rows(auto, reviewed, metrics))
        checks = check_rows(outcomes, metrics, case.category)
        fill(self.checks, checks)
        self._shade(checks)
        selected = set(s.selected_findings)
        self.answer.show_answer(
            run.run["output"], outcomes_text, outcomes, [f for f in run.findings if f.id in selected]
        )

    def _shade(self, checks) -> None:
        """A fired check's outcome in the colour of its matches in the
        answer; checks that are off or not run greyed."""
        dark = int(self.palette().color(QPalette.ColorRole.Base).lightness() < 128)
        grey = self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        for r, row in enumerate(checks):
            word = row.cells[2]
            items = [self.checks.item(r, c) for c in range(self.checks.columnCount())]
            if word == "FIRED" and items[2] is not None:
                color = FIRED_ERROR if row.cells[1] == "error" else FIRED_WARNING
                items[2].setBackground(QColor(color[dark]))
            elif word in ("off", "not run"):
                for item in items:
                    if item is not None:
                        item.setForeground(grey)

    def _no_run(self, title: str) -> None:
        self.answer_title.setText(title)
        self.answer.clear_answer()
        self.scores.setRowCount(0)
        self.checks.setRowCount(0)


__all__ = ["CHECK_ROWS", "CaseView"]
