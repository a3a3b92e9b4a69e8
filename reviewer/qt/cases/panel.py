"""The test case of the current item (docs/test-cases.md): its query, context and
expected behaviour; the answer of the current run as plain text with the
text each check matched highlighted (fired errors and warnings strongly,
the selected finding underlined, what passing checks found faintly); every
check with its outcome; and the metric and case scores, automatic and
reviewed side by side.

The fired checks are the run's findings (ERROR, WARNING) in the findings
panel, decided with the usual keys (Y, N, 1 ERROR / 2 WARNING, A adds a
check); the reviewed scores here follow every decision. Everything shown
is read from the project on each refresh: the panel keeps no domain state.
"""

from __future__ import annotations

import json
from typing import Optional

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.cases.scoring import case_score
from reviewer.core.models import CaseCode
from reviewer.qt.cases.highlight import MatchHighlighter, merged
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.session import Session
from reviewer.qt.text import doc_pos, doc_positions, wrap_long_lines
from reviewer.storage.cases.cases import case_of_item, check_outcomes_text, project_metrics

#: Backgrounds of matched text: (light theme, dark theme).
FIRED_ERROR = ("#F8C9C9", "#5A2222")
FIRED_WARNING = ("#FBE3B0", "#4E3A12")
PASSED_MATCH = ("#DDF0DD", "#1F3A24")


def _plain(text: str = "", wrap: bool = True) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.PlainText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextSelectableByMouse)
    return label


def _cell(text: str, tip: Optional[str] = None) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setFlags(Qt.ItemIsEnabled | Qt.ItemIsSelectable)
    if tip:
        item.setToolTip(plain_tooltip(tip))
    return item


class CasePanel(QWidget):
    """The current item's test case and its run's checks (see module doc)."""

    def __init__(self, session: Session, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.session = session
        mono = QFontDatabase.systemFont(QFontDatabase.FixedFont)
        self.title = _plain("no test case")
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.query = _plain()
        self.expected = QPlainTextEdit()
        self.expected.setReadOnly(True)
        self.expected.setFont(mono)
        self.answer = QPlainTextEdit()
        self.answer.setReadOnly(True)
        self.answer.setLineWrapMode(QPlainTextEdit.WidgetWidth)
        self.answer.setPlaceholderText("no answer of this case selected")
        self.highlighter = MatchHighlighter(self.answer.document())
        self._shown: Optional[tuple] = None  # (answer, outcomes, dark) the answer view shows
        self._breaks: list[int] = []
        self._outcomes: tuple[str, list[dict]] = ("[]", [])  # the stored outcomes read last, parsed
        self.scores = QTableWidget(0, 3)
        self.scores.setHorizontalHeaderLabels(["metric", "automatic", "reviewed"])
        self.checks = QTableWidget(0, 4)
        self.checks.setHorizontalHeaderLabels(["check", "severity", "outcome", "message"])
        for table in (self.scores, self.checks):
            table.verticalHeader().hide()
            table.setEditTriggers(QTableWidget.NoEditTriggers)
            table.setFocusPolicy(Qt.NoFocus)  # the review keys stay with the window
            table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
            table.horizontalHeader().setStretchLastSection(True)
        top = QWidget()
        lay = QVBoxLayout(top)
        lay.setContentsMargins(0, 0, 0, 0)
        for w in (self.title, _plain("query:"), self.query, _plain("context and expected behaviour:")):
            lay.addWidget(w)
        lay.addWidget(self.expected, 1)
        self.splitter = QSplitter(Qt.Vertical)
        for w in (top, self.answer, self.scores, self.checks):
            self.splitter.addWidget(w)
        self.splitter.setChildrenCollapsible(False)
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.splitter)
        for signal in (
            session.projectChanged,
            session.itemChanged,
            session.runChanged,
            session.findingsChanged,
            session.findingSelectionChanged,
        ):
            signal.connect(self.refresh)
        self.refresh()

    def _dark(self) -> bool:
        return self.palette().color(QPalette.Base).lightness() < 128

    def refresh(self) -> None:
        """Show the session's current item and run (read from the project)."""
        s = self.session
        case = case_of_item(s.project, s.item_id) if s.project is not None and s.item_id is not None else None
        self.setEnabled(case is not None)
        if case is None:
            self.title.setText("the current item is no test case")
            for w in (self.query,):
                w.clear()
            self.expected.clear()
            self._clear_answer()
            self.scores.setRowCount(0)
            self.checks.setRowCount(0)
            return
        meta = case.metadata
        self.title.setText(
            f"test case {case.id} · dataset {case.dataset} · category {case.category or '-'} · "
            f"difficulty {case.difficulty or '-'}"
        )
        self.query.setText(case.query)
        self.query.setToolTip(plain_tooltip(meta.get("description")))
        self.expected.setPlainText(
            json.dumps({"context": case.context, "expectedBehavior": case.expected}, indent=2, ensure_ascii=False)
        )
        run = s.run()
        if run is None or run.run["item_id"] != s.item_id:
            self._clear_answer()
            self.scores.setRowCount(0)
            self.checks.setRowCount(0)
            return
        metrics = project_metrics(s.project)
        outcomes_text = check_outcomes_text(s.project, run.run["id"])
        if outcomes_text != self._outcomes[0]:
            self._outcomes = (outcomes_text, json.loads(outcomes_text))
        outcomes = self._outcomes[1]
        auto = case_score(case, run.findings, metrics, outcomes=outcomes)
        reviewed = case_score(case, run.findings, metrics, True, outcomes=outcomes)
        self._scores(auto, reviewed, metrics.scoring.categories.get(case.category, {}))
        self._checks(outcomes)
        self._answer(
            run.run["output"], outcomes_text, outcomes, [f for f in run.findings if f.id in set(s.selected_findings)]
        )

    def _clear_answer(self) -> None:
        self.answer.clear()
        self._shown, self._breaks = None, []

    def _scores(self, auto, reviewed, weights: dict) -> None:
        rows = [
            (
                name,
                f"{m.score:.2f}",
                f"{reviewed.metrics[name].score:.2f}",
                f"weight {weights[name]:g} in the case score" if name in weights else "not in the case score",
            )
            for name, m in auto.metrics.items()
        ]
        rows.append(
            (
                "case score",
                f"{auto.score:.2f} {'pass' if auto.passed else 'fail'}",
                f"{reviewed.score:.2f} {'pass' if reviewed.passed else 'fail'}",
                "weighted by category",
            )
        )
        self.scores.setRowCount(len(rows))
        for r, (name, a, b, tip) in enumerate(rows):
            for c, text in enumerate((name, a, b)):
                self.scores.setItem(r, c, _cell(text, tip))

    def _checks(self, outcomes: list[dict]) -> None:
        self.checks.setRowCount(len(outcomes))
        for r, o in enumerate(outcomes):
            ran = o.get("ran", True)
            outcome = "off" if not o["on"] else "not run" if not ran else "FIRED" if o["fired"] else "passed"
            message = o["message"] if o["fired"] else "" if ran else o.get("note", "")
            values = (f"{o['metric']}/{o['check']}", o["severity"], outcome, message)
            for c, text in enumerate(values):
                self.checks.setItem(r, c, _cell(text, o["message"] if ran else o.get("note", "")))

    def _answer(self, raw: str, outcomes_text: str, outcomes: list[dict], selected) -> None:
        """The answer with what the checks matched as backgrounds (set once
        per answer and outcomes: a refresh for a decision only moves the
        selection) and the selected findings' spans as extra selections."""
        dark = int(self._dark())
        key = (raw, outcomes_text, dark)
        if key != self._shown:
            self._shown = key
            shown, self._breaks = wrap_long_lines(raw)
            self.highlighter.set_layers(self._layers(raw, outcomes, dark), rehighlight=False)
            self.answer.setPlainText(shown)  # formats the text as it is laid out
        doc, breaks = self.answer.document(), self._breaks
        selections, first = [], None
        for f in selected:
            color = FIRED_ERROR if (f.final_code or f.code) == CaseCode.ERROR else FIRED_WARNING
            for span in f.attrs.get("spans", []):
                sel = QTextEdit.ExtraSelection()
                sel.cursor = _cursor(doc, doc_pos(raw, span[0], breaks), doc_pos(raw, span[1], breaks))
                sel.format.setBackground(QColor(color[dark]))
                sel.format.setUnderlineStyle(QTextCharFormat.SingleUnderline)
                sel.format.setFontWeight(700)
                selections.append(sel)
                first = first or sel.cursor
        self.answer.setExtraSelections(selections)
        if first is not None:
            self.answer.setTextCursor(QTextCursor(first))
            self.answer.ensureCursorVisible()

    def _layers(self, raw: str, outcomes: list[dict], dark: int) -> list[tuple[str, list[tuple[int, int]]]]:
        """What passing checks found, then fired warnings, then fired errors
        over them: per colour, the matched spans merged, in document positions."""
        spans: dict[tuple, list] = {}
        for o in outcomes:
            if not o["on"] or not o.get("ran", True):
                continue
            color = (FIRED_ERROR if o["severity"] == "error" else FIRED_WARNING) if o["fired"] else PASSED_MATCH
            spans.setdefault(color, []).extend(o["spans"])
        layers = []
        for palette in (PASSED_MATCH, FIRED_WARNING, FIRED_ERROR):
            if palette in spans:
                ranges = merged(spans[palette])
                ends = doc_positions(raw, [x for r in ranges for x in r], self._breaks)
                layers.append((palette[dark], list(zip(ends[::2], ends[1::2]))))
        return layers


def _cursor(doc, start: int, end: int) -> QTextCursor:
    """A cursor selecting document positions [start, end) (clamped)."""
    last = max(0, doc.characterCount() - 1)
    cursor = QTextCursor(doc)
    cursor.setPosition(max(0, min(start, last)))
    cursor.setPosition(max(0, min(end, last)), QTextCursor.KeepAnchor)
    return cursor
