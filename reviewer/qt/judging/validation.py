"""The validation view of the adjudication mode: is a judge fit to be
trusted? Three tabs over one computation
(reviewer.qt.session.validation_worker, off the GUI thread):

* **Agreement**: every agreement statistic with its 95 % bootstrap interval
  (low, high, the method: BCa or percentile), Landis-Koch words for
  chance-corrected statistics, n, the class prevalence and the note, as
  ``reviewer agreement`` prints them;
* **Alignment** (reviewer.qt.judging.alignment_view): per judge and
  dimension, the figures per split, confusion matrix, per-class scores,
  corrected pass rate, the label budget with its progress and the
  dangerous cells; choosing a dangerous
  subject opens its dispute (``disputeOpened``), or, when it has none,
  shows its verdicts below the tabs;
* **Reliability** (reviewer.qt.judging.reliability): the reliability
  diagram with ECE, adaptive ECE and Brier;
* **Compare**: two judges chosen above the tabs compared on the subjects
  both judged and people labelled, as ``reviewer alignment P --compare
  J1,J2`` prints it (McNemar's exact test, the Δκ and Δaccuracy paired
  bootstrap intervals, the sentence).

The slice selector above the tabs (a metadata field of the items, then one
of its values) limits the alignment, the reliability and the comparison to
that slice's subjects, as ``--by FIELD`` does; the agreement table stays
over all subjects.

The view computes while it is shown: a change while hidden marks it stale,
and it is computed when shown again. While computing, the status line says
"computing…" and the last figures stay; figures of an older generation
(another project, a change since) are dropped by the worker.

Keys: while the focus is in this view, plain keys (letters, digits, Enter,
Tab, arrows) act on its widgets, not as the mode's adjudication keys (which
would decide a dispute that is not shown); Shift+D is the mode's key to
the dangerous list.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.judging.agreement_intervals import strength
from reviewer.core.judging.dispute_common import format_value
from reviewer.qt.judging.alignment_view import AlignmentView
from reviewer.qt.judging.reliability import ReliabilityView
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.session import Session
from reviewer.qt.session.validation_worker import ValidationFigures, ValidationWorker, comparison_text, slice_choices
from reviewer.qt.text import plain_label

ALL_SUBJECTS = "all subjects"
NO_JUDGE = "-"

AGREEMENT_COLUMNS = (
    "raters",
    "dimension",
    "statistic",
    "value",
    "ci low",
    "ci high",
    "method",
    "strength",
    "n",
    "prevalence",
    "note",
)
#: Item-data role of the agreement table's number cells: the float shown (None: undefined).
ValueRole = Qt.ItemDataRole.UserRole + 7
_NAV = {
    Qt.Key.Key_Return,
    Qt.Key.Key_Enter,
    Qt.Key.Key_Tab,
    Qt.Key.Key_Backtab,
    Qt.Key.Key_Up,
    Qt.Key.Key_Down,
    Qt.Key.Key_Left,
    Qt.Key.Key_Right,
}
_NAV |= {Qt.Key.Key_Home, Qt.Key.Key_End, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown, Qt.Key.Key_Space}


def _num(x: float | None) -> QStandardItem:
    item = QStandardItem("-" if x is None else f"{x:.3f}")
    item.setData(x, ValueRole)
    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class ValidationPanel(QWidget):
    """See module doc. ``figures``: the last computation shown (None before
    the first); ``stale``: a change not computed yet."""

    disputeOpened = Signal(int)  # the dispute id made current

    def __init__(self, session: Session, parent: QWidget | None = None, resamples: int | None = None):
        super().__init__(parent)
        self.session = session
        self.stale = True
        self.figures: ValidationFigures | None = None
        self.worker = ValidationWorker(self) if resamples is None else ValidationWorker(self, resamples)
        self.worker.done.connect(self._show)
        self.status = plain_label()
        self.recompute = QPushButton("Recompute")
        self.recompute.clicked.connect(self.refresh)
        self.agreement = QStandardItemModel(0, len(AGREEMENT_COLUMNS))
        self.agreement.setHorizontalHeaderLabels(list(AGREEMENT_COLUMNS))
        self.agreement_view = QTableView()
        self.agreement_view.setModel(self.agreement)
        self.agreement_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.agreement_view.setSortingEnabled(True)
        self.agreement_view.verticalHeader().hide()
        self.agreement_view.setWordWrap(False)
        self.agreement_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.agreement_view.horizontalHeader().setStretchLastSection(True)
        self.alignment = AlignmentView()
        self.alignment.subjectChosen.connect(self.open_subject)
        self.reliability = ReliabilityView()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.agreement_view, "Agreement")
        self.tabs.addTab(self.alignment, "Alignment")
        self.tabs.addTab(self.reliability, "Reliability")
        self.compare_text = QPlainTextEdit()
        self.compare_text.setReadOnly(True)
        self.compare_text.setPlaceholderText("Choose two judges above to compare them on the same subjects.")
        self.tabs.addTab(self.compare_text, "Compare")
        self.slice_field = QComboBox()
        self.slice_value = QComboBox()
        self.first_judge = QComboBox()
        self.second_judge = QComboBox()
        self.slice_field.setToolTip("Limit alignment, reliability and comparison to a slice: an item metadata field")
        self.slice_field.currentIndexChanged.connect(self._fill_slice_values)
        for box in (self.slice_value, self.first_judge, self.second_judge):
            box.activated.connect(self._choice_changed)
        for box in (self.slice_field, self.slice_value, self.first_judge, self.second_judge):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(16)
        self.verdicts = QPlainTextEdit()
        self.verdicts.setReadOnly(True)
        self.verdicts.setPlaceholderText("The verdicts of a dangerous subject without a dispute show here.")
        head = QHBoxLayout()
        head.addWidget(self.status, 1)
        head.addWidget(self.recompute)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tabs)
        split.addWidget(self.verdicts)
        split.setSizes([800, 120])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(head)
        choose = QHBoxLayout()
        for label, box in (
            ("slice:", self.slice_field),
            ("=", self.slice_value),
            ("compare:", self.first_judge),
            ("with", self.second_judge),
        ):
            choose.addWidget(QLabel(label))
            choose.addWidget(box)
        choose.addStretch(1)
        layout.addLayout(choose)
        layout.addWidget(split, 1)
        for signal in (session.projectChanged, session.disputesChanged, session.adjudicationsChanged):
            signal.connect(self.mark_stale)

    # -- when to compute ---------------------------------------------------------------------
    def mark_stale(self) -> None:
        """Something changed: compute now when shown, else when next shown."""
        self.stale = True
        if self.isVisible():
            self.refresh()
        else:
            self.worker.cancel()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Show as usual, then compute if something changed while hidden."""
        super().showEvent(event)
        if self.stale:
            self.refresh()

    def refresh(self) -> None:
        """Start computing the figures of the open project on the worker."""
        self.stale = False
        project = self.session.project
        if project is None:
            self.worker.cancel()
            self.status.setText("No project open.")
            return
        self._fill_slice_fields(project)
        self.worker.start(project)
        self.status.setText("computing… (agreement intervals, alignment, calibration)")

    # -- slice and comparison ----------------------------------------------------------------
    def _fill_slice_fields(self, project) -> None:
        """The metadata fields of the open project, keeping the one chosen."""
        chosen = self.slice_field.currentText()
        fields = [ALL_SUBJECTS] + slice_choices(project)
        if [self.slice_field.itemText(i) for i in range(self.slice_field.count())] == fields:
            return
        self.slice_field.blockSignals(True)
        self.slice_field.clear()
        self.slice_field.addItems(fields)
        self.slice_field.setCurrentIndex(max(0, fields.index(chosen) if chosen in fields else 0))
        self.slice_field.blockSignals(False)
        self._fill_slice_values(compute=False)

    def _fill_slice_values(self, *_args, compute: bool = True) -> None:
        """The values (slices) of the chosen field; computes again when asked."""
        project = self.session.project
        field_name = self.slice_field.currentText()
        self.slice_value.clear()
        if project is not None and field_name and field_name != ALL_SUBJECTS:
            try:
                self.slice_value.addItems(slice_choices(project, field_name))
            except ValueError as exc:
                self.status.setText(str(exc))
        self.slice_value.setEnabled(self.slice_value.count() > 0)
        if compute:
            self._choice_changed()

    def choose(self, slice_: tuple[str, str] | None, compare: tuple[str, str] | None) -> None:
        """Set the slice (field, value) and the two judges compared, and compute again."""
        if slice_ is None:
            self.slice_field.setCurrentIndex(0)
        else:
            self.slice_field.setCurrentText(slice_[0])
            self.slice_value.setCurrentText(slice_[1])
        for box, name in zip((self.first_judge, self.second_judge), compare or (NO_JUDGE, NO_JUDGE)):
            if box.findText(name) < 0:
                box.addItem(name)
            box.setCurrentText(name)
        self._choice_changed()

    def _choice_changed(self, *_args) -> None:
        field_name, value = self.slice_field.currentText(), self.slice_value.currentText()
        self.worker.slice = (field_name, value) if field_name not in ("", ALL_SUBJECTS) and value else None
        pair = (self.first_judge.currentText(), self.second_judge.currentText())
        self.worker.compare = pair if NO_JUDGE not in pair and "" not in pair and pair[0] != pair[1] else None
        self.mark_stale()

    def _fill_judges(self, figures: ValidationFigures) -> None:
        names = sorted({a.judge for a in figures.validation.items} | {n for n in self._judge_names() if n != NO_JUDGE})
        for box in (self.first_judge, self.second_judge):
            chosen = box.currentText() or NO_JUDGE
            box.clear()
            box.addItems([NO_JUDGE] + names)
            box.setCurrentText(chosen)

    def _judge_names(self) -> list[str]:
        return [self.first_judge.itemText(i) for i in range(self.first_judge.count())]

    def _show(self, figures: ValidationFigures) -> None:
        self.figures = figures
        if figures.error:
            self.status.setText(f"could not compute the validation: {figures.error}")
        else:
            self.status.setText(
                f"computed in {figures.seconds:.1f} s: {len(figures.agreement)} agreement statistics, "
                f"{len(figures.validation.items)} judge / dimension alignments, "
                f"{len(figures.calibration)} calibrations (95 % intervals: Wilson or Clopper-Pearson for shares, else bootstrap with 2,000 resamples, seed 0)"
            )
        if figures.slice is not None:
            self.status.setText(
                self.status.text()
                + f"; alignment, reliability and comparison on {figures.slice[0]} = {figures.slice[1]} "
                f"({figures.subjects} subjects; agreement on all)"
            )
        self._fill_judges(figures)
        if figures.comparisons:
            self.compare_text.setPlainText(comparison_text(figures.comparisons))
        elif figures.compare_error:
            self.compare_text.setPlainText(f"cannot compare: {figures.compare_error}")
        else:
            self.compare_text.clear()
        self._fill_agreement(figures)
        self.alignment.set_validation(figures.validation, figures.budget)
        self.reliability.set_rows(figures.calibration)

    def _fill_agreement(self, figures: ValidationFigures) -> None:
        self.agreement.removeRows(0, self.agreement.rowCount())
        for r in figures.agreement:
            cells = [QStandardItem(x) for x in (r.raters, r.dimension, r.statistic)]
            cells += [_num(r.value), _num(r.ci_low), _num(r.ci_high)]
            cells += [QStandardItem(x) for x in (r.ci_method, strength(r), str(r.n), r.prevalence_text(), r.note)]
            cells[0].setToolTip(plain_tooltip(r.raters) or "")
            cells[-1].setToolTip(plain_tooltip(r.note) or "")
            self.agreement.appendRow(cells)
        view = self.agreement_view
        view.resizeColumnsToContents()
        for col, cap in ((0, 320), (2, 260), (9, 220)):
            view.setColumnWidth(col, min(view.columnWidth(col), cap))

    # -- the dangerous cells -----------------------------------------------------------------
    def show_dangerous(self) -> None:
        """Show the Alignment tab with the keyboard in its dangerous list."""
        self.tabs.setCurrentWidget(self.alignment)
        self.alignment.focus_dangerous()

    def open_subject(self, subject: str, dimension: str) -> None:
        """Open ``subject``'s dispute (on ``dimension`` first) in the dispute
        screen and emit disputeOpened; when it has none, show its verdicts."""
        disputes = [d for d in self.session.disputes() if d.subject == subject]
        disputes.sort(key=lambda d: d.dimension != dimension)
        if disputes and disputes[0].id is not None:
            self.session.set_dispute(disputes[0].id)
            self.disputeOpened.emit(disputes[0].id)
            return
        lines = [f"{subject}: no dispute; its verdicts on {dimension}:"]
        for v in self.session.judging.judge_verdicts(subject):
            value = format_value(v.scores.get(dimension)) if dimension in v.scores else "-"
            order = f", order {v.answer_order}" if v.answer_order else ""
            lines.append(
                f"  {v.judge} ({v.method.value}{order}): {value}" + (f"; {v.rationale}" if v.rationale else "")
            )
        self.verdicts.setPlainText("\n".join(lines))
        self.session.message.emit(f"{subject} has no dispute: its verdicts are shown under the validation view")

    # -- keys ---------------------------------------------------------------------------------
    def event(self, event) -> bool:
        """Plain keys act on this view's widgets, not as adjudication keys
        (module doc): accept their ShortcutOverride, except Shift+D."""
        if event.type() == QEvent.Type.ShortcutOverride:
            mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            plain_key = not mods & (
                Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier
            )
            shift_d = event.key() == Qt.Key.Key_D and mods == Qt.KeyboardModifier.ShiftModifier
            text = event.text()
            if plain_key and not shift_d and (event.key() in _NAV or (text and text.isprintable() and text.strip())):
                event.accept()
                return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Keys no widget took stop here (they never start a rationale)."""
        event.accept()
