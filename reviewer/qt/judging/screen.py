"""One dispute on one screen: what it is (kind, subject, dimension,
severity, detail), the input (a text item's text, a photo item's preview or
name), the output or both outputs of a pair side by side, the reference
answers, the subject's structural metrics and every verdict of the subject
side by side (reviewer.qt.judging.compare).

A ground-truth dispute (docs/window.md#adjudication-mode) shows instead the photo cut to both
annotators' boxes, each side's card (text, pile, box) and the side-picker
(reviewer.qt.judging.gt_sides); ``difference`` is its difference.

Everything shown comes from the session when the current dispute changes;
model and judge text is plain text only. In blind mode (``set_blind``) the
outputs are not labelled with their model names, so a pairwise judgement is
not swayed by who wrote which answer.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSizePolicy, QSplitter, QVBoxLayout, QWidget

from reviewer.core.cards.gt_agreement import Difference
from reviewer.core.judging.dispute_common import rater_key
from reviewer.core.judging.verdicts import Dispute, Verdict
from reviewer.qt.canvas.crop import marked_crop
from reviewer.qt.judging.common import KIND_SHORT, dimensions, subject_runs
from reviewer.qt.judging.compare import VerdictColumns
from reviewer.qt.judging.gt_sides import SidePicker, difference_of, is_ground_truth, side_text
from reviewer.qt.palette import color_of, style_of
from reviewer.qt.session import Session
from reviewer.qt.text import plain_label


class TextBox(QWidget):
    """A bold title over a read-only plain-text box."""

    def __init__(self, title: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = plain_label(title, bold=True, wrap=False, selectable=True)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.image = QLabel()
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.image.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.image, 1)
        layout.addWidget(self.text, 1)

    def show_text(self, title: str, text: str) -> None:
        """Show ``text`` (plain) under ``title``."""
        self.title.setText(title)
        self.image.hide()
        self.text.show()
        self.text.setPlainText(text)

    def show_pixmap(self, title: str, pixmap: QPixmap) -> None:
        """Show a photo scaled into the box."""
        self.title.setText(title)
        self.text.hide()
        self.image.show()
        self.image.setPixmap(
            pixmap.scaled(520, 300, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
        )


class DisputeScreen(QWidget):
    """The current dispute (see module doc). ``verdicts``: the subject's
    verdicts in column order (those in the dispute first); ``dims``: the
    subject's dimensions, the disputed one first. ``refreshed`` follows
    every refresh (the cards are new then)."""

    refreshed = Signal()

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.dispute: Dispute | None = None
        self.verdicts: list[Verdict] = []
        self.names: list[str] = []
        self.dims: list[str] = []
        self.difference: Difference | None = None  # the difference of a ground-truth dispute (gt_sides.difference_of)
        self.blind = False
        self._shown_for: tuple[int, int | None] | None = None  # (disputes' generation, dispute id) last shown
        self.header = plain_label(bold=True, selectable=True)
        font = self.header.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.header.setFont(font)
        self.detail = plain_label(selectable=True)
        self.sides = SidePicker()
        self.sides.hide()
        self.input_box = TextBox("Input")
        self.reference_box = TextBox("Reference answer")
        self.metrics_box = TextBox("Structural metrics")
        self.output_boxes = [TextBox("Output 1"), TextBox("Output 2")]
        self.columns = VerdictColumns()
        top = QSplitter(Qt.Orientation.Horizontal)
        w: QWidget
        for w in (self.input_box, self.reference_box, self.metrics_box):
            top.addWidget(w)
        top.setSizes([600, 400, 220])
        middle = QSplitter(Qt.Orientation.Horizontal)
        for w in self.output_boxes:
            middle.addWidget(w)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        for w in (top, middle, self.columns):
            self.splitter.addWidget(w)
        self.splitter.setSizes([200, 190, 480])
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.setSpacing(2)
        layout.addWidget(self.header)
        layout.addWidget(self.detail)
        layout.addWidget(self.sides)
        layout.addWidget(self.splitter, 1)
        session.disputeChanged.connect(self.refresh)
        session.disputesChanged.connect(self._disputes_changed)
        session.projectChanged.connect(self.refresh)
        self.refresh()

    def set_blind(self, on: bool) -> None:
        """Blind mode: hide the model names of the outputs."""
        if on != self.blind:
            self.blind = on
            self.refresh()

    def _disputes_changed(self) -> None:
        """The disputes were found again: show the current one again, unless
        it was shown since (the queue, told first, selected it)."""
        if self._shown_for != (self.session.judging.generation, self.session.current_dispute_id):
            self.refresh()

    def refresh(self) -> None:
        """Show the session's current dispute (or say there is none)."""
        s = self.session
        self._shown_for = (s.judging.generation, s.current_dispute_id)
        d = self.dispute = s.dispute()
        self.difference = None
        self.sides.hide()
        self.columns.setVisible(not is_ground_truth(d))  # no verdicts: the photo and the sides get the room
        if is_ground_truth(d):
            return self._show_ground_truth(d)
        if d is None:
            self.verdicts, self.names, self.dims = [], [], []
            if s.disputes():
                text = "No dispute selected"
            elif s.judging.judge_verdicts():
                text = (
                    "No disputes: the judges agree within tolerance, or there is one judge and no "
                    "human label or metric to compare it with"
                )
            else:
                text = "No disputes: import judge verdicts (e.g. reviewer import PROJECT FOLDER)"
            self.header.setText(text)
            self.detail.setText("")
            for box in (self.input_box, *self.output_boxes):
                box.show_text(box.title.text(), "")
            self.reference_box.hide()
            self.metrics_box.hide()
            self.columns.set_verdicts([], [], [], [])
            self.refreshed.emit()
            return
        mine = s.judging.judge_verdicts(d.subject)
        labels = s.judging.rater_labels()  # made once per refresh, with the verdicts
        disputed = [v for v in mine if v.id in d.verdict_ids]
        self.verdicts = disputed + [v for v in mine if v.id not in d.verdict_ids]
        self.names = [labels.get(rater_key(v), v.judge) for v in self.verdicts]
        self.dims = dimensions(self.verdicts, d.dimension)
        found = [s.judging.run_by_id(r) for r in subject_runs(d.subject, mine)]
        runs = [r for r in found if r is not None]
        item = f"{runs[0]['item']} · " if runs else ""
        self.header.setText(
            f"{KIND_SHORT.get(d.kind.value, d.kind.value)} · {d.dimension} · "
            f"severity {d.severity:.2f} · {item}{d.subject}"
        )
        self.detail.setText(d.detail)
        self.detail.setVisible(bool(d.detail))
        self._show_input(runs[0] if runs else None)
        self._show_outputs(runs)
        refs = s.judging.references(runs[0]["item_id"]) if runs else []
        self.reference_box.setVisible(bool(refs))
        if refs:
            self.reference_box.show_text(
                "Reference answer" + ("s" if len(refs) > 1 else ""),
                "\n\n".join(f"[{src}]\n{text}" if len(refs) > 1 else text for src, text in refs),
            )
            if len(refs) == 1:
                self.reference_box.title.setText(f"Reference answer ({refs[0][0]})")
        metrics = s.judging.subject_metrics(d.subject)
        self.metrics_box.setVisible(bool(metrics))
        if metrics:
            self.metrics_box.show_text(
                "Structural metrics",
                "\n".join(
                    f"{k}: {v if isinstance(v, (str, int, float)) else json.dumps(v, ensure_ascii=False)}"
                    for k, v in metrics.items()
                ),
            )
        self.columns.set_verdicts(self.verdicts, self.names, [v.id in d.verdict_ids for v in self.verdicts], self.dims)
        self.refreshed.emit()

    def _show_ground_truth(self, d: Dispute) -> None:
        """A ground-truth dispute: the photo cut to both sides' boxes, each
        side's card, and the side-picker (see module doc)."""
        s = self.session
        diff = self.difference = difference_of(s, d)
        self.verdicts, self.names, self.dims = [], [], [d.dimension]
        self.header.setText(
            f"{KIND_SHORT.get(d.kind.value, d.kind.value)} · {d.dimension} · severity {d.severity:.2f} · {d.subject}"
        )
        self.detail.setText(d.detail)
        self.detail.setVisible(bool(d.detail))
        self.reference_box.hide()
        self.metrics_box.hide()
        self.columns.set_verdicts([], [], [], [])
        name = d.subject.split(":", 1)[1]
        if diff is None:
            self.input_box.show_text(f"Ground truth · {name}", "The annotators agree now: nothing to decide.")
            for box in self.output_boxes:
                box.setVisible(False)
            self.refreshed.emit()
            return
        sides = [diff.annotator_a, diff.annotator_b]
        adj = next((a for a in s.adjudications() if (a.subject, a.dimension) == (d.subject, d.dimension)), None)
        self.sides.set_sides(sides, adj.sided_with if adj else None)
        self.sides.show()
        for n, (box, who) in enumerate(zip(self.output_boxes, sides), 1):
            box.setVisible(True)
            box.show_text(f"{n} · {who}'s side", side_text(diff, who))
        names = s.reads.annotators()
        marks = [
            ((c.bbox.x_min, c.bbox.y_min, c.bbox.x_max, c.bbox.y_max), color_of(names, who), style_of(names, who))
            for who, c in ((diff.annotator_a, diff.a_card), (diff.annotator_b, diff.b_card))
            if c is not None and c.bbox is not None
        ]
        item = s.item_named(name)
        pixmap = QPixmap()
        data = s.preview(item) if item is not None else None
        if data:
            pixmap.loadFromData(data)
        elif item is not None and s.image_path(item):
            pixmap.load(str(s.image_path(item)))
        if pixmap.isNull() or item is None:
            self.input_box.show_text(f"Photo · {name}", "(no preview of the photo)")
        else:
            self.input_box.show_pixmap(
                f"Photo · {name} · " + " / ".join(sides), marked_crop(pixmap, item.width or pixmap.width(), marks)
            )
        self.refreshed.emit()

    def _show_input(self, run: dict | None) -> None:
        box = self.input_box
        if run is None:
            box.show_text("Input", "(the subject names no run of this project)")
            return
        title = f"Input · {run['item']} · prompt {run['prompt']}"
        if run["item_kind"] == "photo":
            item = self.session.item_named(run["item"])
            data = self.session.preview(item) if item else None
            pixmap = QPixmap()
            if data:
                pixmap.loadFromData(data)
            elif item is not None and self.session.image_path(item):
                pixmap.load(str(self.session.image_path(item)))
            if not pixmap.isNull():
                box.show_pixmap(title, pixmap)
                return
            box.show_text(title, f"photo {run['item_path'] or run['item']} (no preview)")
            return
        box.show_text(title, run["item_text"] or "")

    def _show_outputs(self, runs: list[dict]) -> None:
        pair = len(runs) > 1
        for n, box in enumerate(self.output_boxes):
            if n >= len(runs):
                box.setVisible(False)
                continue
            r = runs[n]
            box.setVisible(True)
            name = f"Output {n + 1}" if pair else "Output"
            model = "model hidden (blind mode)" if self.blind else r["model"]
            box.show_text(f"{name} · {model} · run {r['id']}", r["output"])
