"""The centre of the judged-output and pairwise perspectives
(docs/window.md#perspectives): the item's input text, the current run's
output beside its ground truth (a Failter experiment's ground-truth file,
kept as the item's reference) or, for a pairwise subject, beside the other
answer of its pair, and the judges' verdicts on the run.

Everything is plain text (model and judge output is untrusted) and read
from the project on each change of item or run: the view keeps no domain
state. A pairwise verdict names the other answer by its run's model.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.workflows import Workflow, first_words
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.session import Session
from reviewer.qt.text import cell, line, wrap_long_lines

#: Columns of the verdicts table.
VERDICT_COLUMNS = ["judge", "method", "order", "scores", "rationale"]


def _pane(title: str) -> tuple[QWidget, QLabel, QPlainTextEdit]:
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(2, 2, 2, 2)
    column.setSpacing(2)
    label = QLabel(title)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setStyleSheet("QLabel { font-weight: bold; }")
    text = QPlainTextEdit()
    text.setReadOnly(True)
    text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    column.addWidget(label)
    column.addWidget(text, 1)
    return box, label, text


def _scores(scores: dict) -> str:
    return ", ".join(f"{k}: {v}" for k, v in scores.items()) if scores else "-"


#: The most of the view's height the input and the verdicts take (``JudgedView.fit``).
INPUT_SHARE = 0.3
VERDICT_SHARE = 0.45


class JudgedView(QWidget):
    """Input, output beside ground truth, and the run's verdicts."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.title.setStyleSheet("QLabel { font-size: 13pt; padding: 2px 4px; }")
        input_box, _, self.input_text = _pane("Input")
        output_box, self.output_label, self.output_text = _pane("Output")
        self.truth_box, self.truth_label, self.truth_text = _pane("Ground truth")
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for text in (self.output_text, self.truth_text):
            text.setFont(mono)
        self.verdicts = QTableWidget(0, len(VERDICT_COLUMNS))
        self.verdicts.setHorizontalHeaderLabels(VERDICT_COLUMNS)
        self.verdicts.verticalHeader().hide()
        self.verdicts.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.verdicts.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.verdicts.horizontalHeader()
        for col in range(len(VERDICT_COLUMNS) - 1):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        side = QSplitter(Qt.Orientation.Horizontal)
        side.addWidget(output_box)
        side.addWidget(self.truth_box)
        side.setSizes([500, 500])
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(input_box)
        self.splitter.addWidget(side)
        self.splitter.addWidget(self.verdicts)
        self.splitter.setSizes([220, 420, 180])
        self._user_sized = False  # the reviewer moved the splitter: their sizes stay
        self.splitter.splitterMoved.connect(self._moved)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.title)
        column.addWidget(self.splitter, 1)
        session.runChanged.connect(self.refresh)  # an item switch ends in runChanged (Session.set_item)
        session.projectChanged.connect(self.refresh)

    def applies(self) -> bool:
        """The current item is a judged output or a pairwise subject."""
        return self.session.workflow() in (Workflow.JUDGED, Workflow.PAIRWISE)

    def refresh(self) -> None:
        """Read the current item, run, references and verdicts again (only while this view applies)."""
        if not self.applies():
            return
        s = self.session
        item, run = s.item(), s.run()
        text = (item.text or "") if item is not None else ""
        # the first words name the item; the id beside them tells apart items that begin alike (PandaLM's)
        self.title.setText(line(f"{first_words(text, item.name, words=16, chars=140)} · {item.name}") if item else "")
        self.title.setToolTip((plain_tooltip(f"id: {item.name}\n\n{text}") or "") if item else "")
        self.input_text.setPlainText(wrap_long_lines(text)[0])
        output = run.run["output"] if run is not None else ""
        self.output_label.setText(
            f"Output · {cell(run.run['model'])} · {cell(run.run['prompt'])}" if run is not None else "Output (no run)"
        )
        self.output_text.setPlainText(wrap_long_lines(output)[0])
        if not s.has_project():
            return
        verdicts = s.reads.run_verdicts(run.run["id"]) if run is not None else []
        if self.session.workflow() == Workflow.PAIRWISE:
            self._show_other(run, verdicts)
        else:
            refs = s.reads.references(item.id) if item is not None and item.id is not None else []
            self.truth_box.setVisible(bool(refs))  # without a ground-truth file the output takes the room
            self.truth_label.setText(f"Ground truth · {cell(refs[0][0])}" if refs else "Ground truth")
            self.truth_text.setPlainText(wrap_long_lines("\n\n".join(t for _, t in refs))[0] if refs else "")
        self._fill_verdicts(verdicts)
        self.fit()

    def _moved(self, *_args) -> None:
        self._user_sized = True

    def fit(self) -> None:
        """Space to what holds content: the input as tall as its text (at
        most INPUT_SHARE of the view), the verdicts as tall as their rows (at
        most VERDICT_SHARE), the output(s) the rest; not once the reviewer
        moved the splitter."""
        total = self.splitter.height()
        if self._user_sized or total <= 0:
            return
        text = self.input_text
        lines = text.document().documentLayout().documentSize().height()
        need_input = int(lines * text.fontMetrics().lineSpacing()) + 2 * text.frameWidth() + 40
        table = self.verdicts
        row = table.verticalHeader().defaultSectionSize()
        body = sum(table.rowHeight(r) for r in range(table.rowCount())) or row
        scroll = table.horizontalScrollBar().sizeHint().height()
        need_verdicts = table.horizontalHeader().sizeHint().height() + body + 2 * table.frameWidth() + scroll
        top = max(60, min(need_input, int(total * INPUT_SHARE)))
        bottom = max(row * 2, min(need_verdicts, int(total * VERDICT_SHARE)))
        self.splitter.setSizes([top, max(total - top - bottom, int(total * 0.25)), bottom])

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Fit the panes to the new height."""
        super().resizeEvent(event)
        self.fit()

    def _show_other(self, run, verdicts: list) -> None:
        """A pairwise subject: the other answer of the run's pair beside it."""
        mine = run.run["id"] if run is not None else None
        other_id = next(
            (v.other_run_id if v.run_id == mine else v.run_id for v in verdicts if v.other_run_id is not None), None
        )
        other = next((r for r in self.session.runs() if r.run["id"] == other_id), None)
        self.truth_box.setVisible(other is not None)
        self.truth_label.setText(f"Other answer · {cell(other.run['model'])}" if other is not None else "")
        self.truth_text.setPlainText(wrap_long_lines(other.run["output"])[0] if other is not None else "")

    def _fill_verdicts(self, verdicts: list) -> None:
        self.verdicts.setRowCount(len(verdicts))
        for row, v in enumerate(verdicts):
            values = [v.judge, v.method.value, v.answer_order or "-", _scores(v.scores), v.rationale or "-"]
            for col, value in enumerate(values):
                item = QTableWidgetItem(cell(value))
                item.setToolTip(plain_tooltip(value if col != 3 else json.dumps(v.scores, ensure_ascii=False)) or "")
                self.verdicts.setItem(row, col, item)
