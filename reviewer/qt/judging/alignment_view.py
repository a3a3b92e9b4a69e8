"""The alignment of one judge with people on one dimension, in the
validation view (reviewer.qt.judging.validation): the figures per split
(kappa, MAE, Spearman's rho, TPR and TNR with their 95 % intervals, as
``reviewer alignment`` prints them), the confusion matrix and per-class
precision / recall / F1 of the chosen split, the corrected pass rate with
its interval (or the sentence saying it is undefined), the label budget
with the progress towards it (labelled subjects of labelled + further
needed), and the **dangerous cells** with their subjects.

The dangerous list is one key away (Shift+D in the adjudication mode):
Enter or a double-click on a subject emits ``subjectChosen(subject,
dimension)``; the validation view opens its dispute or shows its verdicts.
Everything shown is plain text (judge names and subjects are untrusted).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QProgressBar,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.judging.alignment import Figures
from reviewer.qt.judging.calibration import heat
from reviewer.qt.session.reads import SPLIT_HEADER, Validation, corrected_line, split_rows
from reviewer.qt.text import plain_label

DANGER_COLUMNS = ("subject", "split", "judge", "people")
CLASS_COLUMNS = ("class", "precision", "recall", "F1", "people")


def table(columns: tuple[str, ...] | list[str]) -> QTableWidget:
    """A read-only, row-selecting table with these column headers."""
    t = QTableWidget(0, len(columns))
    t.setHorizontalHeaderLabels(list(columns))
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.verticalHeader().hide()
    t.setWordWrap(False)
    t.horizontalHeader().setStretchLastSection(True)
    return t


def fill(t: QTableWidget, rows: list[list[str]]) -> None:
    """Replace the rows of ``t`` with plain-text cells."""
    t.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            t.setItem(r, c, QTableWidgetItem(text))
    t.resizeColumnsToContents()


class DangerList(QTableWidget):
    """The dangerous cells: Enter or a double-click chooses the row's subject."""

    chosen = Signal(int)  # row

    def __init__(self, parent: QWidget | None = None):
        super().__init__(0, len(DANGER_COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(DANGER_COLUMNS))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setTabKeyNavigation(False)
        self.verticalHeader().hide()
        self.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Enter / Return choose the current row; other keys as a table."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentRow() >= 0:
            self.chosen.emit(self.currentRow())
            event.accept()
            return
        super().keyPressEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """A double-click on a row chooses it."""
        super().mouseDoubleClickEvent(event)
        row = self.rowAt(int(event.position().y()))
        if row >= 0:
            self.chosen.emit(row)


class AlignmentView(QWidget):
    """See module doc. ``validation`` is the last computation shown."""

    subjectChosen = Signal(str, str)  # subject, dimension

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.validation = Validation([], [], 0)
        self.budget: list[tuple[str, int | None]] = []
        self.dangerous: list[tuple[str, str, str, str]] = []  # subject, split, judge, people
        self.combo, self.split_combo = QComboBox(), QComboBox()
        self.combo.currentIndexChanged.connect(self._show)
        self.split_combo.currentIndexChanged.connect(self._show_split)
        self.title = plain_label()
        self.splits = table(SPLIT_HEADER)
        self.matrix = QTableWidget()
        self.matrix.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.classes = table(CLASS_COLUMNS)
        self.corrected = plain_label()
        self.budget_line = plain_label()
        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m labels")
        self.progress.setMinimumWidth(240)
        self.danger = DangerList()
        self.danger.chosen.connect(self._choose)
        self.danger_note = plain_label()
        head = QHBoxLayout()
        head.addWidget(plain_label("Judge / dimension", bold=True))
        head.addWidget(self.combo, 1)
        head.addWidget(plain_label("Split"))
        head.addWidget(self.split_combo)
        mid = QSplitter(Qt.Orientation.Horizontal)
        for caption, widget in (
            ("Confusion matrix (rows judge, columns people)", self.matrix),
            ("Per class", self.classes),
        ):
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(plain_label(caption, bold=True))
            lay.addWidget(widget, 1)
            mid.addWidget(box)
        danger_box = QWidget()
        dlay = QVBoxLayout(danger_box)
        dlay.setContentsMargins(0, 0, 0, 0)
        dlay.addWidget(
            plain_label("Dangerous cells (judge passes, people fail) — Shift+D; Enter opens the subject", bold=True)
        )
        dlay.addWidget(self.danger, 1)
        dlay.addWidget(self.danger_note)
        body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(self.splits)
        body.addWidget(mid)
        body.addWidget(danger_box)
        body.setSizes([150, 260, 220])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(head)
        layout.addWidget(self.title)
        layout.addWidget(body, 1)
        layout.addWidget(self.corrected)
        foot = QHBoxLayout()
        foot.addWidget(self.budget_line, 1)
        foot.addWidget(self.progress)
        layout.addLayout(foot)

    def set_validation(self, validation: Validation, budget: list[tuple[str, int | None]] | None = None) -> None:
        """Show ``validation`` and the label budget of each of its alignments
        (line, further labels; same order), keeping the judge / dimension
        chosen when it is still there."""
        self.validation = validation
        self.budget = budget or []
        keep = self.combo.currentText()
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItems([f"{a.judge} · {a.dimension}" for a in validation.items])
        self.combo.setCurrentIndex(max(0, self.combo.findText(keep)))
        self.combo.setEnabled(bool(validation.items))
        self.combo.blockSignals(False)
        self._show()

    def focus_dangerous(self) -> None:
        """Put the keyboard in the dangerous list, on its first row."""
        if self.danger.rowCount() and self.danger.currentRow() < 0:
            self.danger.setCurrentCell(0, 0)
        self.danger.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _current(self):
        i = self.combo.currentIndex()
        if 0 <= i < len(self.validation.items):
            return self.validation.items[i], self.validation.corrected[i]
        return None, None

    def _show(self) -> None:
        a, c = self._current()
        keep = self.split_combo.currentText()
        self.split_combo.blockSignals(True)
        self.split_combo.clear()
        self.split_combo.addItems([f.split for f in a.splits] if a else [])
        self.split_combo.setCurrentIndex(max(0, self.split_combo.findText(keep)))
        self.split_combo.blockSignals(False)
        if a is None:
            self.title.setText(
                "No alignment: no judge verdict on a subject people labelled (human verdicts or adjudications)."
            )
            fill(self.splits, [])
            self.corrected.setText("")
        else:
            people = ", ".join(f"{n} {s}" for s, n in sorted(a.people.items()))
            mark = f", pass >= {a.threshold:g}" if a.threshold is not None else ""
            stale = self.validation.stale_line(a)
            reads = self.validation.reads_line(a)  # the count only: the window never records a read
            self.title.setText(
                f"{a.judge} / {a.dimension} ({a.scale.value}{mark}; {a.splits[0].kappa_statistic}; people: {people})"
                + (f"\n{stale}" if stale else "")
                + (f"\n{reads}" if reads else "")
            )
            fill(self.splits, split_rows(a))
            self.corrected.setText(corrected_line(c))
        self._show_budget(a)
        self._show_danger(a)
        self._show_split()

    def _show_budget(self, a) -> None:
        i = self.combo.currentIndex()
        line, further = self.budget[i] if a is not None and 0 <= i < len(self.budget) else ("", None)
        self.budget_line.setText(f"Label budget: {line}" if line else "")
        self.progress.setVisible(a is not None and further is not None)
        if a is not None and further is not None:
            labelled = a.splits[0].n
            self.progress.setRange(0, max(1, labelled + further))
            self.progress.setValue(labelled)

    def _show_danger(self, a) -> None:
        self.dangerous = []
        if a is not None:
            splits = {s: f.split for f in a.splits[1:] for s in (d.subject for d in f.dangerous)}
            self.dangerous = [(d.subject, splits.get(d.subject, "-"), d.judge, d.people) for d in a.splits[0].dangerous]
        self.danger.setRowCount(len(self.dangerous))
        for r, row in enumerate(self.dangerous):
            for col, text in enumerate(row):
                self.danger.setItem(r, col, QTableWidgetItem(text))
        self.danger.resizeColumnsToContents()
        if a is None:
            self.danger_note.setText("")
        elif a.threshold is None and a.scale.value == "winner":
            self.danger_note.setText("Pairwise winners have no pass: no dangerous cells.")
        else:
            self.danger_note.setText(f"{len(self.dangerous)} dangerous cell(s) over all labelled subjects.")

    def _figures(self) -> Figures | None:
        a, _ = self._current()
        return a.figures(self.split_combo.currentText()) if a is not None else None

    def _show_split(self) -> None:
        f = self._figures()
        self.matrix.clear()
        if f is None:
            self.matrix.setRowCount(0)
            self.matrix.setColumnCount(0)
            fill(self.classes, [])
            return
        self.matrix.setRowCount(len(f.labels))
        self.matrix.setColumnCount(len(f.labels))
        self.matrix.setVerticalHeaderLabels([f"judge {x}" for x in f.labels])
        self.matrix.setHorizontalHeaderLabels([f"people {x}" for x in f.labels])
        top = max((n for row in f.counts for n in row), default=0)
        for r, row in enumerate(f.counts):
            for c, n in enumerate(row):
                cell = QTableWidgetItem(str(n))
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                colour = heat(n, top)
                cell.setBackground(colour)
                cell.setForeground(QColor("white" if colour.lightness() < 140 else "black"))
                self.matrix.setItem(r, c, cell)
        self.matrix.resizeColumnsToContents()

        def f3(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"

        fill(self.classes, [[k.label, f3(k.precision), f3(k.recall), f3(k.f1), str(k.support)] for k in f.per_class])

    def _choose(self, row: int) -> None:
        a, _ = self._current()
        if a is not None and 0 <= row < len(self.dangerous):
            self.subjectChosen.emit(self.dangerous[row][0], a.dimension)
