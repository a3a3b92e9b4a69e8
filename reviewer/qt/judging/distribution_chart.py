"""One judge's 1-5 score distribution against the expected one as a QtCharts
bar chart: the judge's shares in #0072B2 and the expected shares in #E69F00
(Okabe-Ito, safe for colour vision deficiency), each bar labelled with its
percentage. Shared by the calibration panel (reviewer.qt.judging.calibration)
and the rubric score panel (reviewer.qt.judging.rubric_scores).

Judge names are untrusted and Qt Charts renders titles and legend labels as
rich text: they are escaped here.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from PySide6.QtCharts import QAbstractBarSeries, QBarCategoryAxis, QBarSeries, QBarSet, QChart, QValueAxis
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from reviewer.core.judging.calibration import EXPECTED_DISTRIBUTION, SCORES, Distribution
from reviewer.qt.judging.common import EXPECTED_COLOUR, JUDGE_COLOUR

__all__ = ["HEAD_ROOM", "clear_chart", "draw_distribution"]

#: Percentage points left above the tallest bar for its label.
HEAD_ROOM = 6


def clear_chart(chart: QChart) -> None:
    """Remove every series and axis of ``chart``."""
    chart.removeAllSeries()
    for axis in chart.axes():
        chart.removeAxis(axis)


def draw_distribution(
    chart: QChart, d: Distribution, expected: Mapping[int, float] | None = EXPECTED_DISTRIBUTION
) -> None:
    """Draw ``d``'s shares of each score (percent) beside ``expected``'s
    (left out when None: the dimension has no expected distribution) on
    ``chart``, replacing what it showed; the y axis runs to the next 10 %
    above the tallest bar plus HEAD_ROOM (for its label; at most 100 %); the title names the judge, dimension, n, mean
    and missing scores."""
    clear_chart(chart)
    judge = QBarSet(html.escape(d.judge))
    judge.setColor(QColor(JUDGE_COLOUR))
    shares = d.shares
    judge.append([round(100 * shares[s]) for s in SCORES])  # whole percents: a label never spills past the axis
    series = QBarSeries()
    series.append(judge)
    bar_sets = [judge]
    if expected is not None:
        exp = QBarSet("expected")
        exp.setColor(QColor(EXPECTED_COLOUR))
        exp.append([round(100 * expected.get(s, 0.0)) for s in SCORES])
        series.append(exp)
        bar_sets.append(exp)
    series.setLabelsVisible(True)
    series.setLabelsFormat("@value%")
    series.setLabelsPrecision(3)  # "67%", "100%": three significant digits never turn 100 into 1e+02
    series.setLabelsPosition(QAbstractBarSeries.LabelsPosition.LabelsOutsideEnd)
    for bar_set in bar_sets:
        bar_set.setLabelColor(QColor("black"))
    chart.addSeries(series)
    x = QBarCategoryAxis()
    x.append([str(s) for s in SCORES])
    x.setTitleText("score")
    y = QValueAxis()
    top = max([100 * shares[s] for s in SCORES] + [100 * p for p in (expected or {}).values()])
    ceiling = min(100, (int(top + HEAD_ROOM) // 10 + 1) * 10)
    y.setRange(0, ceiling)
    y.setTickType(QValueAxis.TickType.TicksDynamic)  # round ticks: every 10 %, every 20 % on a tall axis
    y.setTickAnchor(0)
    y.setTickInterval(20 if ceiling > 50 else 10)
    y.setLabelFormat("%d%%")
    y.setTitleText("share of scores")
    chart.addAxis(x, Qt.AlignmentFlag.AlignBottom)
    chart.addAxis(y, Qt.AlignmentFlag.AlignLeft)
    series.attachAxis(x)
    series.attachAxis(y)
    mean = f"mean {d.mean:.2f}" if d.mean is not None else "no mean"
    chart.setTitle(html.escape(f"{d.judge} · {d.dimension} (n = {d.n}, {mean}, {d.missing} missing)"))
