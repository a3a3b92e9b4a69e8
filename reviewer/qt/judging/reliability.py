"""The reliability diagram of a judge's confidence, in the validation view
(reviewer.qt.judging.validation): per judge, dimension and confidence
source (logprob, stated, imported; span snapshots as source 'span'), one
point per non-empty equal-width bin at (mean confidence, share right),
joined by a line, the diagonal of perfect calibration, and the bins with
their counts in a table beside it; ECE, adaptive ECE, Brier, the mean
confidence of right and of wrong verdicts and the trust threshold of
selective judging above it (as ``reviewer calibration`` prints them).

Colours: the judge #0072B2, the diagonal grey. Names are escaped in the
chart (Qt Charts renders rich text); tables and labels are plain text.
"""

from __future__ import annotations

import html

from PySide6.QtCharts import QChart, QChartView, QLineSeries, QScatterSeries, QValueAxis
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QSplitter, QVBoxLayout, QWidget

from reviewer.qt.judging.alignment_view import fill, table
from reviewer.qt.judging.common import JUDGE_COLOUR
from reviewer.qt.session.reads import CalibrationRow
from reviewer.qt.text import plain_label

BIN_COLUMNS = ("bin", "count", "mean confidence", "share right", "gap")


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


class ReliabilityView(QWidget):
    """See module doc. ``rows``: the calibration rows the combo offers;
    ``points``, ``line``, ``diagonal``: the chart's series (None before a
    row is shown)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.rows: list[CalibrationRow] = []
        self.points: QScatterSeries | None = None
        self.line: QLineSeries | None = None
        self.diagonal: QLineSeries | None = None
        self.combo = QComboBox()
        self.combo.currentIndexChanged.connect(self._show)
        self.chart = QChart()
        self.chart.setAnimationOptions(QChart.AnimationOption.NoAnimation)
        self.chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.chart_view = QChartView(self.chart)
        self.chart_view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.chart_view.setMinimumSize(360, 300)
        self.figures = plain_label()
        self.bins = table(BIN_COLUMNS)
        head = QHBoxLayout()
        head.addWidget(plain_label("Reliability: judge · dimension · confidence source", bold=True))
        head.addWidget(self.combo, 1)
        side = QWidget()
        sbox = QVBoxLayout(side)
        sbox.setContentsMargins(0, 0, 0, 0)
        sbox.addWidget(self.figures)
        sbox.addWidget(self.bins, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.chart_view)
        split.addWidget(side)
        split.setSizes([600, 420])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(head)
        layout.addWidget(split, 1)

    def set_rows(self, rows: list[CalibrationRow]) -> None:
        """Offer ``rows``, keeping the chosen one when it is still there."""
        self.rows = rows
        keep = self.combo.currentText()
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItems([f"{r.judge} · {r.dimension} · {r.source}" for r in rows])
        self.combo.setCurrentIndex(max(0, self.combo.findText(keep)))
        self.combo.setEnabled(bool(rows))
        self.combo.blockSignals(False)
        self._show()

    def _show(self) -> None:
        self.chart.removeAllSeries()
        for axis in self.chart.axes():
            self.chart.removeAxis(axis)
        self.points = self.line = self.diagonal = None
        i = self.combo.currentIndex()
        if not 0 <= i < len(self.rows):
            self.chart.setTitle("No judge confidence with people's values in this project")
            self.figures.setText(
                "Calibration needs verdicts with a confidence (logprob, stated or imported) on subjects "
                "people labelled, or span confidences."
            )
            fill(self.bins, [])
            return
        r = self.rows[i]
        cal = r.calibration
        x, y = QValueAxis(), QValueAxis()
        for axis, title in ((x, "confidence"), (y, "share right")):
            axis.setRange(0.0, 1.0)
            axis.setTickCount(6)
            axis.setLabelFormat("%.1f")
            axis.setTitleText(title)
        self.chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
        self.chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
        self.diagonal = QLineSeries()
        self.diagonal.setName("perfect calibration")
        self.diagonal.append(0.0, 0.0)
        self.diagonal.append(1.0, 1.0)
        pen = QPen(QColor("#999999"))
        pen.setStyle(Qt.PenStyle.DashLine)
        self.diagonal.setPen(pen)
        filled = [b for b in cal.bins if b.count]
        self.line = QLineSeries()
        self.line.setName(html.escape(f"{r.judge} ({r.source})"))
        self.line.setPen(QPen(QColor(JUDGE_COLOUR), 2))
        self.points = QScatterSeries()
        self.points.setName("bins")
        self.points.setColor(QColor(JUDGE_COLOUR))
        self.points.setMarkerSize(10)
        for b in filled:
            assert b.mean_confidence is not None and b.accuracy is not None  # a non-empty bin has both
            self.line.append(b.mean_confidence, b.accuracy)
            self.points.append(b.mean_confidence, b.accuracy)
        for series in (self.diagonal, self.line, self.points):
            self.chart.addSeries(series)
            series.attachAxis(x)
            series.attachAxis(y)
        self.chart.setTitle(html.escape(f"{r.judge} · {r.dimension} · {r.source} (n = {cal.n})"))
        lines = [
            f"ECE {cal.ece:.3f} (15 equal-width bins) · adaptive ECE {cal.adaptive_ece:.3f} (15 equal-mass bins)",
            f"Brier {cal.brier:.3f} · share right {cal.accuracy:.3f} · mean confidence {cal.mean_confidence:.3f}",
            f"mean confidence right {_f(cal.mean_confidence_right)} · wrong {_f(cal.mean_confidence_wrong)}",
            f"{len(r.population)} verdicts with this confidence, {len(r.confidence)} labelled",
        ]
        if r.selection is not None:
            lines.append(f"Selective judging: {r.selection.summary()}")
        elif r.note:
            lines.append(r.note)
        self.figures.setText("\n".join(lines))
        fill(
            self.bins,
            [
                [f"{b.low:.2f}-{b.high:.2f}", str(b.count), _f(b.mean_confidence), _f(b.accuracy), _f(b.gap)]
                for b in filled
            ],
        )
