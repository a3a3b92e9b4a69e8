"""Agreement and calibration: a judge's 1-5 score distribution against the
expected one (reviewer.core.judging.calibration.EXPECTED_DISTRIBUTION) as a QtCharts
bar chart with the inflation warning, a confusion matrix of a judge against
the adjudicated (or human) values as a small heatmap, and the agreement
table (reviewer.storage.dispute_queue.agreement_table).

Colours are safe for colour vision deficiency: judge #0072B2, expected
#E69F00, the heatmap white to #0072B2 with the count printed in every cell.
Judge names are untrusted: chart titles and legend labels are escaped (Qt
Charts renders them as rich text); tables use display strings.

The panel computes only while it is shown: a change while hidden marks it
stale and it is recomputed when shown again. 'Save chart…' writes the chart
as PNG (the CLI report writes SVG through reviewer.core.judging.charts).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCharts import QChart, QChartView
from PySide6.QtCore import QBuffer, QIODevice, Qt
from PySide6.QtGui import QColor, QPainter, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.judging.agreement_table import agreement_rows
from reviewer.core.judging.calibration import (
    EXPECTED_DISTRIBUTION,
    ConfusionMatrix,
    Distribution,
    inflation_warning,
    judge_vs_reference,
    score_distribution,
)
from reviewer.qt import file_dialogs
from reviewer.qt.judging.common import JUDGE_COLOUR, show_value
from reviewer.qt.judging.distribution_chart import clear_chart, draw_distribution
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.session import Session
from reviewer.qt.session.reads import ProjectError, safe_write
from reviewer.qt.text import plain_label

AGREEMENT_COLUMNS = ("raters", "dimension", "statistic", "value", "n", "note")


def heat(count: int, top: int) -> QColor:
    """The heatmap colour of ``count`` out of ``top``: white to #0072B2."""
    t = count / top if top else 0.0
    end = QColor(JUDGE_COLOUR)
    return QColor(
        round(255 + (end.red() - 255) * t), round(255 + (end.green() - 255) * t), round(255 + (end.blue() - 255) * t)
    )


class CalibrationPanel(QWidget):
    """See module doc. ``distributions`` and ``matrices`` are what the
    combos offer (caches of the last computation)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.stale = True
        self.distributions: list[Distribution] = []
        self.matrices: list[ConfusionMatrix] = []
        # distribution chart
        self.dist_combo = QComboBox()
        self.dist_combo.currentIndexChanged.connect(self._show_distribution)
        self.chart = QChart()
        self.chart.setAnimationOptions(QChart.AnimationOption.NoAnimation)
        self.chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.chart_view = QChartView(self.chart)
        self.chart_view.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.chart_view.setMinimumHeight(260)
        self.warning = plain_label()
        self.save_button = QPushButton("Save chart…")
        self.save_button.clicked.connect(self._save_dialog)
        left = QWidget()
        lbox = QVBoxLayout(left)
        head = QHBoxLayout()
        head.addWidget(plain_label("Score distribution (1-5)", bold=True, wrap=False))
        head.addWidget(self.dist_combo, 1)
        head.addWidget(self.save_button)
        lbox.addLayout(head)
        lbox.addWidget(self.chart_view, 1)
        lbox.addWidget(self.warning)
        # confusion matrix
        self.conf_combo = QComboBox()
        self.conf_combo.currentIndexChanged.connect(self._show_matrix)
        self.matrix = QTableWidget()
        self.matrix.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.matrix.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.matrix_note = plain_label()
        right = QWidget()
        rbox = QVBoxLayout(right)
        chead = QHBoxLayout()
        chead.addWidget(plain_label("Confusion matrix", bold=True, wrap=False))
        chead.addWidget(self.conf_combo, 1)
        rbox.addLayout(chead)
        rbox.addWidget(plain_label("rows: the judge's value · columns: the reference's value"))
        rbox.addWidget(self.matrix, 1)
        rbox.addWidget(self.matrix_note)
        # agreement table
        self.agreement = QStandardItemModel(0, len(AGREEMENT_COLUMNS))
        self.agreement.setHorizontalHeaderLabels(list(AGREEMENT_COLUMNS))
        self.agreement_view = QTableView()
        self.agreement_view.setModel(self.agreement)
        self.agreement_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.agreement_view.setSortingEnabled(True)
        self.agreement_view.verticalHeader().hide()
        self.agreement_view.setWordWrap(False)
        header = self.agreement_view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        bottom = QWidget()
        bbox = QVBoxLayout(bottom)
        bbox.addWidget(plain_label("Agreement", bold=True, wrap=False))
        bbox.addWidget(self.agreement_view, 1)
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(left)
        top.addWidget(right)
        top.setSizes([620, 480])
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(bottom)
        splitter.setSizes([480, 360])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
        for signal in (session.projectChanged, session.disputesChanged, session.adjudicationsChanged):
            signal.connect(self.mark_stale)

    # -- when to compute ---------------------------------------------------------------------
    def mark_stale(self) -> None:
        """Something changed: recompute now when shown, else when next shown."""
        self.stale = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Show as usual, then recompute if something changed while hidden (``stale``)."""
        super().showEvent(event)
        if self.stale:
            self.refresh()

    def refresh(self) -> None:
        """Recompute the distributions, matrices and agreement table."""
        self.stale = False
        s = self.session
        vs, adj = s.judging.judge_verdicts(), s.adjudications()
        self.distributions = score_distribution(vs)
        self.matrices = judge_vs_reference(vs, adj, "adjudicated") + judge_vs_reference(vs, (), "human")
        for combo, texts in (
            (self.dist_combo, [f"{d.judge} · {d.dimension}" for d in self.distributions]),
            (self.conf_combo, [f"{m.judge} · {m.dimension} vs {m.reference}" for m in self.matrices]),
        ):
            keep = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(texts)
            combo.setCurrentIndex(max(0, combo.findText(keep)))
            combo.setEnabled(bool(texts))
            combo.blockSignals(False)
        self._show_distribution()
        self._show_matrix()
        self._fill_agreement(agreement_rows(vs, adj) if vs else [])

    # -- distribution ------------------------------------------------------------------------
    def _show_distribution(self) -> None:
        i = self.dist_combo.currentIndex()
        if not 0 <= i < len(self.distributions):
            clear_chart(self.chart)
            self.chart.setTitle("No 1-5 scores in this project")
            self.warning.setText("The score distribution needs verdicts on the 1-5 scale.")
            return
        d = self.distributions[i]
        draw_distribution(self.chart, d, EXPECTED_DISTRIBUTION)
        warning = inflation_warning(d)
        self.warning.setText(
            f"⚠ {warning}"
            if warning
            else f"Not inflated: {d.judge} / {d.dimension} is within the expected spread (or has fewer than 5 scores)."
        )

    def save_chart(self, path: Path) -> bool:
        """Write the chart as PNG to ``path`` (see write_chart); True when saved."""
        return self.write_chart(path) is None

    def write_chart(self, path: Path) -> str | None:
        """Write the chart as PNG to ``path``, replacing the file whole
        (reviewer.storage.files.safe_write: never a project or a file that is not
        a PNG image). Returns None, or why it could not be saved."""
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not self.chart_view.grab().save(buffer, "PNG"):
            return "the chart could not be drawn"
        try:
            safe_write.write_bytes(path, bytes(buffer.data().data()), safe_write.PNG_FORMAT)
        except ProjectError as exc:
            return str(exc)
        return None

    def _save_dialog(self) -> None:
        path = file_dialogs.save_file_name(self, "Save chart", "score-distribution.png", "PNG images (*.png)")
        if path:
            problem = self.write_chart(Path(path))
            self.session.message.emit(f"saved {path}" if problem is None else f"could not save {path}: {problem}")

    # -- confusion matrix ---------------------------------------------------------------------
    def _show_matrix(self) -> None:
        i = self.conf_combo.currentIndex()
        self.matrix.clear()
        if not 0 <= i < len(self.matrices):
            self.matrix.setRowCount(0)
            self.matrix.setColumnCount(0)
            self.matrix_note.setText("No adjudicated or human values to compare the judges with yet.")
            return
        m = self.matrices[i]
        names = [show_value(label, m.scale) for label in m.labels]
        self.matrix.setRowCount(len(names))
        self.matrix.setColumnCount(len(names))
        self.matrix.setVerticalHeaderLabels([f"judge {n}" for n in names])
        self.matrix.setHorizontalHeaderLabels([f"{m.reference} {n}" for n in names])
        top = max((c for row in m.counts for c in row), default=0)
        for r, row in enumerate(m.counts):
            for c, count in enumerate(row):
                cell = QTableWidgetItem(str(count))
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                colour = heat(count, top)
                cell.setBackground(colour)
                cell.setForeground(QColor("white" if colour.lightness() < 140 else "black"))
                if r == c:
                    font = cell.font()
                    font.setBold(True)
                    cell.setFont(font)
                self.matrix.setItem(r, c, cell)
        agreement = f"{m.agreement:.0%}" if m.agreement is not None else "undefined"
        self.matrix_note.setText(
            f"{m.judge} against {m.reference} on {m.dimension}: agreement {agreement} "
            f"over {m.n} subjects; {m.skipped} skipped (a value missing)."
        )

    # -- agreement ------------------------------------------------------------------------------
    def _fill_agreement(self, rows) -> None:
        self.agreement.removeRows(0, self.agreement.rowCount())
        for r in rows:
            cells = [QStandardItem(x) for x in (r.raters, r.dimension, r.statistic, r.formatted(), str(r.n), r.note)]
            cells[5].setToolTip(plain_tooltip(r.note) or "")
            cells[0].setToolTip(plain_tooltip(r.raters) or "")
            for c in (3, 4):
                cells[c].setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.agreement.appendRow(cells)
        view = self.agreement_view
        view.resizeColumnsToContents()
        for col, cap in ((0, 320), (2, 300), (1, 140)):
            view.setColumnWidth(col, min(view.columnWidth(col), cap))
