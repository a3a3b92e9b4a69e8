"""The rubric perspective's score panel: each rubric judge's 1-5 score
distribution against the expected one, with the inflation warning, as
``reviewer report``'s "Calibration (1-5 scores)" section computes them
(reviewer.core.judging.calibration: score_distribution, expected_for with
the project's configured distributions, inflation_warning).

A table (one row per judge and dimension: n, the count and share of each
score, the mean, whether it looks inflated; the expected distribution on
the first row) beside (below, in a narrow dock) a bar chart of the selected row against its expected
distribution (reviewer.qt.judging.distribution_chart, the calibration
panel's chart). Judge names are untrusted: plain display strings, escaped
in the chart.

Recomputed on the session's project, verdict and adjudication signals,
only while shown, once per burst (reviewer.qt.panels.live).
"""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCharts import QChart, QChartView
from PySide6.QtCore import QMargins, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from reviewer.core.judging.calibration import (
    EXPECTED_DISTRIBUTION,
    EXPECTED_MEAN,
    SCORES,
    Distribution,
    expected_for,
    inflation_warning,
    score_distribution,
)
from reviewer.core.judging.verdicts import Method
from reviewer.qt.judging.distribution_chart import clear_chart, draw_distribution
from reviewer.qt.panels.live import FiguresTable, LiveRefresh
from reviewer.qt.session import Session
from reviewer.qt.text import plain_label

HEADER = ["judge", "dimension", "n", *(str(s) for s in SCORES), "mean", "inflated"]
TIPS = [
    "",
    "",
    "scores counted (missing or off-scale ones are not)",
    *(f"how many scores were {s}, and their share" for s in SCORES),
    "mean score",
    "yes: share of 5s above expected + 5 %, or mean above expected + 0.5, with 5 or more scores",
]
#: From this width (pixels) the chart stands beside the table, below it when narrower.
WIDE = 1000
#: Methods of Failter's judges, shown in the Failter table instead.
FAILTER_METHODS = (Method.RULES, Method.GROUND_TRUTH)
NOTHING = "no 1-5 rubric scores: import rubric judge verdicts (scores on the 1-5 scale)"


def _pct(x: float) -> str:
    return f"{x:.0%}"


def distribution_row(d: Distribution, expected: Mapping[int, float] | None, warning: str | None) -> list[str]:
    """One row of HEADER: counts as 'count (share)', shares as the report
    rounds them; 'inflated' as the report says it ('yes', '' or 'no expected')."""
    shares = d.shares
    flag = ("yes" if warning else "") if expected is not None else "no expected"
    return (
        [d.judge, d.dimension, str(d.n)]
        + [f"{d.counts.get(s, 0)} ({_pct(shares[s])})" for s in SCORES]
        + ["-" if d.mean is None else f"{d.mean:.2f}", flag]
    )


class RubricScoresPanel(QWidget):
    """See module doc. ``distributions`` and ``expected`` (per distribution)
    hold the last computation; ``warnings`` the inflation warnings shown."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.distributions: list[Distribution] = []
        self.expected: list[Mapping[int, float] | None] = []
        self.warnings: list[str] = []
        self.table = FiguresTable()
        self.table.itemSelectionChanged.connect(self._show_selected)
        self.chart = QChart()
        self.chart.setAnimationOptions(QChart.AnimationOption.NoAnimation)
        self.chart.legend().setAlignment(Qt.AlignmentFlag.AlignRight)  # the height goes to the bars
        self.chart.setMargins(QMargins(4, 4, 4, 4))
        self.chart_view = QChartView(self.chart)
        self.chart_view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.chart_view.setMinimumSize(240, 210)
        self.note = plain_label()
        self.split = split = QSplitter(Qt.Orientation.Horizontal)
        split.setChildrenCollapsible(False)
        split.addWidget(self.table)
        split.addWidget(self.chart_view)
        split.setStretchFactor(0, 3)  # the table takes the width first; the chart stays readable
        split.setStretchFactor(1, 2)
        split.setSizes([600, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(plain_label("Rubric score distribution (1-5) against the expected one", bold=True))
        layout.addWidget(split, 1)
        layout.addWidget(self.note)
        self.live = LiveRefresh(
            self,
            self.refresh,
            (session.projectChanged, session.disputesChanged),  # verdicts change only on open, import and judging,
        )

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """The chart beside the table when the dock's visible part is WIDE
        or wider than tall (a short dock below the chart would cut its
        axes), else below it. The visible part, not the panel: inside the
        dock's scroll area the panel is never shorter than its minimum."""
        super().resizeEvent(event)
        seen = self.parentWidget() or self  # the scroll area's viewport
        width, height = seen.width(), seen.height()
        beside = width >= WIDE or width >= 1.5 * height
        orientation = Qt.Orientation.Horizontal if beside else Qt.Orientation.Vertical
        if orientation != self.split.orientation():
            self.split.setOrientation(orientation)
            whole = self.width() if orientation == Qt.Orientation.Horizontal else self.height()
            self.split.setSizes(
                [whole * 3 // 5, whole * 2 // 5] if orientation == Qt.Orientation.Horizontal else [whole // 2] * 2
            )
            self.updateGeometry()

    def refresh(self) -> None:
        """Compute the distributions from the session's rubric verdicts and show them
        (a Failter experiment's rules-based and ground-truth judges have their own table)."""
        configured = self.session.reads.configured_expected()
        rubric = [v for v in self.session.judging.judge_verdicts() if v.method not in FAILTER_METHODS]
        self.distributions = score_distribution(rubric) if self.session.has_project() else []
        self.expected = [expected_for(d.dimension, configured) for d in self.distributions]
        warned = [inflation_warning(d, e) for d, e in zip(self.distributions, self.expected)]
        self.warnings = [w for w in warned if w]
        rows = [distribution_row(d, e, w) for d, e, w in zip(self.distributions, self.expected, warned)]
        if rows:
            expected_row = ["expected (plan)", "", ""] + [_pct(EXPECTED_DISTRIBUTION[s]) for s in SCORES]
            rows.insert(0, expected_row + [f"{EXPECTED_MEAN:.2f}", ""])
        self.table.set_rows(HEADER, rows, TIPS)
        if not self.distributions:
            self.note.setText(NOTHING)
        elif self.warnings:
            self.note.setText("\n".join(f"⚠ {w}" for w in self.warnings))
        else:
            self.note.setText("Not inflated: every judge is within its expected spread (or has fewer than 5 scores).")
        first = next((n for n, w in enumerate(warned) if w), 0)  # the first inflated judge, else the first
        if self.distributions:
            self.table.selectRow(first + 1)  # row 0 is the expected distribution
        self._show_selected()

    def _show_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        i = (rows[0].row() - 1) if rows else -1
        if not 0 <= i < len(self.distributions):
            i = 0 if self.distributions else -1
        if i < 0:
            clear_chart(self.chart)
            self.chart.setTitle("No 1-5 scores")
            return
        draw_distribution(self.chart, self.distributions[i], self.expected[i])

    def figures(self) -> dict[str, list]:
        """What the panel shows: 'table': [HEADER, expected row, one row per
        judge and dimension] of display strings ([] with no 1-5 score);
        'counts': [[judge, dimension, [count of 1, ..., count of 5]]] per row;
        'warnings': the inflation warnings."""
        return {
            "table": self.table.rows() if self.distributions else [],
            "counts": [[d.judge, d.dimension, [d.counts.get(s, 0) for s in SCORES]] for d in self.distributions],
            "warnings": list(self.warnings),
        }
