"""The label-first page of the adjudication mode (docs/alignment.md#label-first):
people label a judge's fair queue before they see the judge.

At the top the judge (shown as 'Judge 1', 'Judge 2'... : a judge's name
can carry its model's) and the dimension, the label budget and the
progress (reviewer.storage.judging.label_plan, computed when the page is
shown, a combo changes or F5 asks for it). On the left the subjects to
label in the budget's order (subject ids only); on the right the item,
the output(s) (a pair in its stored shuffled order, as A and B) and the
rubric, the key line and, once the first label is committed, the judges'
verdicts.

What is shown comes from the project: the judges' verdicts are put in the
verdict box only when the reviewer's first label of the subject and
dimension is stored (reviewer.qt.judging.label_keys decides, on the keys).
Model and judge text is plain text only.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.judging.dispute_common import format_value, primary_verdicts, value_of
from reviewer.core.judging.label_first import pair_verdict_text, rationale_as_shown
from reviewer.core.judging.verdicts import Scale, Value
from reviewer.qt.judging.common import show_value
from reviewer.qt.judging.screen import TextBox
from reviewer.qt.session import Session
from reviewer.qt.session.reads import LabelPlan
from reviewer.qt.text import plain_label

#: Photo files shown as a picture in the item box.
_PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp", ".gif", ".tif", ".tiff"}
#: Marks before a subject of the queue list: labelled (first label stored) or not.
DONE_MARK, TODO_MARK = "✓", "·"


def shown_value(value: Value, scale: Scale | None, order: str | None) -> str:
    """A stored value as the reviewer saw it: a winner as 'A' / 'B' (the
    output shown first / second) or 'tie'; others as the adjudication
    view shows them ('4', 'B (80)', 'pass')."""
    if scale == Scale.WINNER and order is not None and format_value(value) in ("1", "2"):
        first_shown = "1" if order == "ab" else "2"
        return "A" if format_value(value) == first_shown else "B"
    return show_value(value, scale)


def judge_names(judges: list[str]) -> dict[str, str]:
    """{judge: 'Judge n'}: the names the page shows before any label (sorted order)."""
    return {j: f"Judge {n}" for n, j in enumerate(judges, 1)}


class LabelFirstPage(QWidget):
    """See module doc. ``plan``: the LabelPlan shown (None: nothing to label)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.plan: LabelPlan | None = None
        self.judge_combo = QComboBox()
        self.dimension_combo = QComboBox()
        self.recompute = QPushButton("Recompute budget (F5)")
        self.recompute.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.budget = plain_label(selectable=True)
        self.progress = plain_label(selectable=True)
        top = QHBoxLayout()
        top.addWidget(plain_label("Label first ·", bold=True, wrap=False, selectable=True))
        top.addWidget(plain_label("judge:", wrap=False, selectable=True))
        top.addWidget(self.judge_combo)
        top.addWidget(plain_label("dimension:", wrap=False, selectable=True))
        top.addWidget(self.dimension_combo)
        top.addWidget(self.recompute)
        top.addStretch(1)
        self.list = QListWidget()
        self.list.setMinimumWidth(180)
        self.item_box = TextBox("Item")
        self.output_boxes = [TextBox("Output"), TextBox("Output B")]
        outputs = QSplitter(Qt.Orientation.Horizontal)
        for box in self.output_boxes:
            outputs.addWidget(box)
        self.rubric_box = TextBox("Rubric")
        self.prompt = plain_label(selectable=True)
        font = self.prompt.font()
        font.setBold(True)
        self.prompt.setFont(font)
        self.value = QLineEdit()  # a 0-100 label, typed
        self.value.setPlaceholderText("0-100, Enter")
        self.value.setMaximumWidth(140)
        self.value.hide()
        self.verdicts = QPlainTextEdit()
        self.verdicts.setReadOnly(True)
        self.verdicts.setMaximumHeight(170)
        self.verdicts.hide()
        line = QHBoxLayout()
        line.addWidget(self.prompt, 1)
        line.addWidget(self.value)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.item_box)
        right.addWidget(outputs)
        right.addWidget(self.rubric_box)
        right.setStretchFactor(1, 2)
        body = QSplitter(Qt.Orientation.Horizontal)
        body.addWidget(self.list)
        body.addWidget(right)
        body.setStretchFactor(1, 1)
        body.setSizes([260, 1300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.budget)
        layout.addWidget(self.progress)
        layout.addWidget(body, 1)
        layout.addLayout(line)
        layout.addWidget(self.verdicts)

    # -- the choices -------------------------------------------------------------------
    def set_judges(self, dims: dict[str, list[str]], judge: str | None, dimension: str | None) -> None:
        """Fill the combos ({judge: its dimensions}); ``judge`` and
        ``dimension`` current when given and there. Signals are blocked."""
        names = judge_names(list(dims))
        for combo in (self.judge_combo, self.dimension_combo):
            combo.blockSignals(True)
        self.judge_combo.clear()
        for j, shown in names.items():
            self.judge_combo.addItem(shown, j)
        if judge in names:
            self.judge_combo.setCurrentIndex(list(names).index(judge))
        judge_now = self.judge()
        self.set_dimensions(dims.get(judge_now, []) if judge_now else [], dimension)
        for combo in (self.judge_combo, self.dimension_combo):
            combo.blockSignals(False)

    def set_dimensions(self, dims: list[str], dimension: str | None = None) -> None:
        """Fill the dimension combo, ``dimension`` current when there."""
        block = self.dimension_combo.blockSignals(True)
        self.dimension_combo.clear()
        self.dimension_combo.addItems(dims)
        if dimension in dims:
            self.dimension_combo.setCurrentIndex(dims.index(dimension))
        self.dimension_combo.blockSignals(block)

    def judge(self) -> str | None:
        """The judge chosen (its real name), None when there is none."""
        return self.judge_combo.currentData()

    def dimension(self) -> str | None:
        """The dimension chosen."""
        return self.dimension_combo.currentText() or None

    # -- the queue ---------------------------------------------------------------------
    def show_queue(self, subjects: list[str], done: set[str], current: str | None) -> None:
        """List ``subjects`` (the plan's order), marked when labelled, ``current`` selected."""
        block = self.list.blockSignals(True)
        self.list.clear()
        for n, s in enumerate(subjects, 1):
            self.list.addItem(f"{DONE_MARK if s in done else TODO_MARK} {n}. {s}")
        if current in subjects:
            self.list.setCurrentRow(subjects.index(current))
        self.list.blockSignals(block)

    # -- one subject -------------------------------------------------------------------------
    def show_subject(self, subject: str | None, judge: str, order: str | None) -> None:
        """Show the item, the output(s) in their shown order and the rubric
        of ``subject`` (None: an empty page); the verdicts are hidden."""
        self.hide_verdicts()
        plan = self.plan
        if subject is None or not self.session.has_project() or plan is None:
            self.item_box.show_text("Item", "")
            for box in self.output_boxes:
                box.show_text("Output", "")
            self.output_boxes[1].hide()
            self.rubric_box.show_text("Rubric", plan.rubric if plan else "")
            return
        name, text, outputs = self.session.reads.subject_view(subject, judge, self.session.judging.judge_verdicts())
        self._show_item(name, text)
        pair = len(outputs) == 2
        for n, box in enumerate(self.output_boxes):
            box.setVisible(n == 0 or pair)
            title = ("Output A" if n == 0 else "Output B") if pair else "Output"
            box.show_text(title, outputs[n] if n < len(outputs) else ("" if n else "(no stored output)"))
        self.rubric_box.show_text(f"Rubric · {plan.dimension} · {plan.scale.value}", plan.rubric)

    def _show_item(self, name: str, text: str) -> None:
        title = f"Item · {name or '-'}"
        if text and "\n" not in text and Path(text).suffix.lower() in _PHOTO_SUFFIXES:
            path = self.session.reads.resolve(text)
            pixmap = QPixmap(str(path)) if path is not None and path.is_file() else QPixmap()
            if not pixmap.isNull():
                self.item_box.show_pixmap(title, pixmap)
                return
            self.item_box.show_text(title, f"photo {text} (no preview)")
            return
        self.item_box.show_text(title, text)

    # -- after the first label -------------------------------------------------------------------
    def show_verdicts(self, subject: str, dimension: str, order: str | None, label) -> None:
        """Show every judge's verdict on ``subject`` and ``dimension`` (name,
        model, value as shown, rationale) under the reviewer's first label
        and final value (``label``: the stored HumanLabel). A pairwise
        verdict says which output its judge saw first and what it chose, in
        the letters shown, and its rationale's answer references are
        rewritten to those letters (core label_first.rationale_as_shown)."""
        if not self.session.has_project():
            return
        scale = self.plan.scale if self.plan else None
        lines = [
            f"Your first label: {shown_value(label.first_value, scale, order)}"
            + (
                f" · final value: {shown_value(label.final_value, scale, order)}"
                if label.final_value is not None
                else ""
            )
        ]
        aliases = {self.judge_combo.itemData(n): self.judge_combo.itemText(n) for n in range(self.judge_combo.count())}
        for judge, vs in sorted(self.session.reads.judge_verdicts(self.session.judging.judge_verdicts()).items()):
            for (s, _), v in sorted(primary_verdicts(vs).items()):
                if s != subject or dimension not in v.scores:
                    continue
                pair = v.scale == Scale.WINNER and v.other_run_id is not None
                value = (
                    pair_verdict_text(value_of(v, dimension), v.answer_order, order)
                    if pair
                    else shown_value(value_of(v, dimension), v.scale, order)
                )
                rationale = rationale_as_shown(v.rationale, v.answer_order, order) if pair else v.rationale
                line = f"{aliases.get(judge, 'judge')} = {judge} (model {v.judge_model or '-'}): {value}"
                lines.append(line + (f" · rationale: {rationale}" if rationale else ""))
        if len(lines) == 1:
            lines.append("(no judge verdict on this dimension)")
        self.verdicts.setPlainText("\n".join(lines))
        self.verdicts.show()

    def hide_verdicts(self) -> None:
        """Empty and hide the verdict box (before a first label)."""
        self.verdicts.clear()
        self.verdicts.hide()
