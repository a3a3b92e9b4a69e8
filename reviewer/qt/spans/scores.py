"""The span perspective's score panel: the span report's figures, live with
decisions.

* **Span F1 against golden spans**, per run group as the span report forms
  them (a span snapshot, else 'model:<model>'; reviewer.storage.spans.spans.
  f1_by_group), over all spans and per taxonomy category: golden and
  predicted spans, exact and relaxed F1, and per category the coverage
  (relaxed recall: golden spans found) and precision (relaxed: predicted
  spans that are right). Numbers as the report prints them (3 decimals).
* **Category scores by the span judge** of each stored snapshot (average
  coverage and precision, 1-5, as the report's "Category scores").
* **Missed elements by severity** of each snapshot: as the judge said them
  (the report's figure) and after review (reviewer.storage.spans.reviewed:
  rejected missed elements drop out).

The figures come from the same functions as ``reviewer report``, so they
are equal by construction; golden-span edits (groundTruthChanged) and
finding decisions (findingsChanged) recompute them, only while the panel is
shown, once per burst (reviewer.qt.panels.live.LiveRefresh).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from reviewer.core.spans.diagnostics import SEVERITIES
from reviewer.core.spans.golden import Counts
from reviewer.core.spans.snapshots import CATEGORIES
from reviewer.qt.panels.live import FiguresTable, LiveRefresh
from reviewer.qt.session import Session
from reviewer.qt.text import plain_label

F1_HEADER = ["run", "category", "golden", "predicted", "exact F1", "relaxed F1", "coverage", "precision"]
F1_TIPS = [
    "the span snapshot the runs belong to, else model:<the labeler>",
    "all spans, or the spans of one taxonomy category",
    "golden spans",
    "spans the labeler predicted",
    "F1 with exact matching: same offsets and role",
    "F1 with relaxed matching: IoU above 0.5 and the same role",
    "relaxed recall: share of the golden spans found",
    "relaxed precision: share of the predicted spans that match a golden span",
]
CATEGORY_HEADER = ["snapshot", "category", "coverage", "precision"]
SEVERITY_HEADER = ["snapshot", "severity", "judge", "after review"]
SEVERITY_TIPS = [
    "",
    "",
    "missed elements as the span judge said them (the report's figure)",
    "missed elements still MISSED after review: rejected ones drop out",
]
NOTHING = "no span runs yet: import span-labelled runs and golden spans (or a judged span snapshot)"
NO_GOLDEN = "no span F1: no span run has golden spans on its text"
NO_JUDGE = "no span judge: the judge's category scores and missed elements come from a judged span snapshot"


def _f(x: float) -> str:
    return f"{x:.3f}"


def f1_rows(f1: dict) -> list[list[str]]:
    """Rows of F1_HEADER from ``f1_by_group``: per group 'all' first, then
    the taxonomy categories in taxonomy order ('unknown' last); roles are
    left out (the report lists them too)."""
    order = {c: i for i, c in enumerate(("all", *CATEGORIES, "unknown"))}
    rows = []
    for group, modes in f1.items():
        exact, relaxed = modes.get("exact", {}), modes.get("relaxed", {})
        for key in sorted((k for k in relaxed if k in order), key=order.__getitem__):
            r, e = relaxed[key], exact.get(key, Counts())
            rows.append(
                [group, key, str(r.golden), str(r.predicted), _f(e.f1), _f(r.f1), _f(r.recall), _f(r.precision)]
            )
    return rows


class SpanScoresPanel(QWidget):
    """See module doc. ``live`` decides when to compute; ``figures()`` is what it shows."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.note = plain_label()
        self.f1_table = FiguresTable()
        self.category_table = FiguresTable()
        self.severity_table = FiguresTable()
        self.judge_note = plain_label()
        parts = QSplitter(Qt.Orientation.Vertical)
        parts.setChildrenCollapsible(False)
        #: the titled box of each table (hidden with nothing to show)
        self.boxes: dict[str, QWidget] = {}
        for key, title, table in (
            ("f1", "Span F1 against golden spans", self.f1_table),
            ("categories", "Category scores by the span judge (1-5)", self.category_table),
            ("severity", "Missed elements by severity", self.severity_table),
        ):
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(plain_label(title, bold=True))
            lay.addWidget(table, 1)
            self.boxes[key] = box
            parts.addWidget(box)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.note)
        layout.addWidget(parts, 1)
        layout.addWidget(self.judge_note)
        self._summaries: dict[str, dict] | None = None  # per snapshot: its summary (changes only on import)
        for signal in (session.projectChanged, session.disputesChanged):
            signal.connect(self._forget_summaries)
        self.live = LiveRefresh(
            self,
            self.refresh,
            (session.projectChanged, session.findingsChanged, session.groundTruthChanged, session.disputesChanged),
        )

    def _forget_summaries(self) -> None:
        """An open or an import: the snapshots' summaries are read again when next shown."""
        self._summaries = None

    def _snapshot_summaries(self) -> dict[str, dict]:
        """{snapshot: its summary recomputed from its results}, parsed once
        per open or import (a decision changes only the F1 and the counts
        after review)."""
        if self._summaries is None:
            self._summaries = self.session.reads.snapshot_summaries()
        return self._summaries

    def refresh(self) -> None:
        """Compute the figures from the open project and show them."""
        reads = self.session.reads
        f1, categories, severity = [], [], []
        runs = has_data = False
        if self.session.has_project():
            has_data = reads.has_span_data()
            f1 = f1_rows(reads.span_f1())
            # the span runs are read a second time only when nothing else says there is span data
            runs = bool(f1) or (not has_data and bool(reads.span_runs()))
            reviewed = reads.missed_after_review()
            for name, s in self._snapshot_summaries().items():
                cats = s["avgCategoryScores"]
                categories += [
                    [name, c, f"{cats[c]['coverage']:.2f}", f"{cats[c]['precision']:.2f}"]
                    for c in CATEGORIES
                    if c in cats
                ]
                sev = s["missedSeverity"]
                after = reviewed.get(name, {})
                severity += [[name, k, str(sev[k]["count"]), str(after.get(k, 0))] for k in SEVERITIES if k in sev]
        self.f1_table.set_rows(F1_HEADER, f1, F1_TIPS)
        self.category_table.set_rows(CATEGORY_HEADER, categories)
        self.severity_table.set_rows(SEVERITY_HEADER, severity, SEVERITY_TIPS)
        self.boxes["f1"].setVisible(bool(f1))
        for key in ("categories", "severity"):
            self.boxes[key].setVisible(bool(categories or severity))
        if not runs and not has_data:
            self.note.setText(NOTHING)
        elif not f1:
            self.note.setText(NO_GOLDEN)
        else:
            self.note.setText("")
        self.note.setVisible(bool(self.note.text()))
        self.judge_note.setText("" if (categories or severity) or not (runs or has_data) else NO_JUDGE)
        self.judge_note.setVisible(bool(self.judge_note.text()))

    def figures(self) -> dict[str, list[list[str]]]:
        """What the panel shows: {'f1', 'categories', 'severity'}: each
        [header, *rows] of display strings ([] for an empty table), and
        'note': the notes shown ([] when none)."""
        return {
            "f1": self.f1_table.rows() if self.f1_table.rowCount() else [],
            "categories": self.category_table.rows() if self.category_table.rowCount() else [],
            "severity": self.severity_table.rows() if self.severity_table.rowCount() else [],
            "note": [[t] for t in (self.note.text(), self.judge_note.text()) if t],
        }
