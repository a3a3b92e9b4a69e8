"""The judged-output perspective's score panel: the Failter report's table
(reviewer.storage.judging.failter_report: one row per model x prompt with
Eval_Method, Trials, Errors, Avg_Score, Rules_Score, GT_Score, Avg_Time,
Avg_Tokens and Avg_Cost), the same rows ``reviewer report`` prints (default
weights 0.5:0.5, no prices), with the line saying how errors were counted
and each row's error messages on hover of its Errors cell. Eval_Method is
shown whole: its column fits the text up to EVAL_METHOD_WIDTH pixels, and a
longer text wraps onto more lines of its row (the scales it names are part
of the figures).

Recomputed on the session's project, verdict, finding and adjudication
signals, only while shown, once per burst (reviewer.qt.panels.live).
"""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from reviewer.qt.panels import plain_tooltip
from reviewer.qt.panels.live import FiguresTable, LiveRefresh
from reviewer.qt.session import Session
from reviewer.qt.session.reads import FAILTER_HEADER as HEADER
from reviewer.qt.session.reads import FailterRow, errors_line
from reviewer.qt.text import plain_label

#: The widest the Eval_Method column grows before its text wraps (pixels).
EVAL_METHOD_WIDTH = 420
NOTHING = "no Failter results: import a Failter experiment (results with rules-based or ground-truth evaluations)"
TIPS = {
    "Eval_Method": "which judges the scores come from; 'mixed: ...' counts trials per combination",
    "Trials": "every trial: answered ones (judged or not) and failed ones",
    "Errors": "trials that failed at the model, plus answered trials whose judge failed or gave no readable score",
    "Avg_Score": "per trial 0.5 x Rules + 0.5 x GT when both judged it, else the one score; errors count 0",
    "Rules_Score": "mean of the rules-based judge's readable scores (grades as points: A=100 ... F=20)",
    "GT_Score": "mean of the ground-truth judge's readable scores",
    "Avg_Time": "mean latency of the answered trials, seconds",
    "Avg_Tokens": "mean total tokens of the answered trials",
    "Avg_Cost": "mean cost the trials recorded ('-' when unknown)",
}


class FailterScoresPanel(QWidget):
    """See module doc. ``rows`` holds the FailterRows last computed; ``figures()`` is what it shows."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.rows: list[FailterRow] = []
        self.title = plain_label("Failter report", bold=True)
        self.table = FiguresTable()
        self.table.setWordWrap(True)
        self.note = plain_label()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)
        self.live = LiveRefresh(
            self,
            self.refresh,
            (session.projectChanged, session.findingsChanged, session.disputesChanged, session.adjudicationsChanged),
        )

    def refresh(self) -> None:
        """Compute the table from the open project and show it."""
        self.rows = self.session.reads.failter_rows()
        self.table.set_rows(HEADER, [r.cells() for r in self.rows], [TIPS.get(h, "") for h in HEADER])
        method = HEADER.index("Eval_Method")
        self.table.resizeColumnToContents(method)
        self.table.setColumnWidth(method, min(self.table.columnWidth(method), EVAL_METHOD_WIDTH))
        self.table.resizeRowsToContents()
        errors = HEADER.index("Errors")
        for n, row in enumerate(self.rows):
            item = self.table.item(n, errors)
            if item is not None and row.messages:
                item.setToolTip(plain_tooltip("\n".join(row.messages)) or "")
        self.table.setVisible(bool(self.rows))
        self.note.setText(errors_line(self.rows) if self.rows else NOTHING)

    def figures(self) -> list[list[str]]:
        """[HEADER, *rows] as shown (display strings), [] when there is no row."""
        return self.table.rows() if self.rows else []
