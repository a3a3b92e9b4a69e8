"""Panels that fit (docs/window.md#perspectives): every perspective's default
layout, at 1600x1000 and at 1280x800, on the bundled samples, shows its table
headers and labels unclipped, charts with their axes' tick labels whole, at
least 4 rows of every table that has them (fewer rows: all of them), cells
too wide for their column whole on hover, and no widget of another
perspective."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QListView, QTabBar, QTableView, QTreeView

from reviewer.core.workflows import Workflow
from reviewer.qt.panels import WholeOnHover
from tests.helpers.perspectives import SAMPLE_WORKFLOWS, make
from tests.helpers.window import open_window

pytestmark = pytest.mark.gui

SIZES = [(1600, 1000), (1280, 800)]
#: sample -> the item shown (as docs/screenshots/take.py)
ITEMS = {
    "cards": "table-01",
    "spans": "sample-bakery",
    "cases": "orchard-theory-1",
    "failter": "failter/pond.md",
    "rubric": "sample-reading-1",
    "pairwise": "llmbar-pairwise-1",
}
#: Dock titles only the card perspective shows.
CARD_TITLES = ("Unplaced cards", "Scores (T-P1)")


def _seen(widget) -> QRect:
    """The part of ``widget`` its ancestors leave in view (widget coordinates;
    visibleRegion is empty for some views, such as a QChartView)."""
    rect = widget.rect()
    w = widget
    while w.parentWidget() is not None and not w.isWindow():
        parent = w.parentWidget()
        rect = rect.intersected(parent.rect().translated(-widget.mapTo(parent, QPoint(0, 0))))
        w = parent
    return rect


def _shown(widget) -> bool:
    return widget.isVisible() and not _seen(widget).isEmpty()


def _header_problems(view: QAbstractItemView, name: str) -> list[str]:
    header: QHeaderView = view.horizontalHeader() if isinstance(view, QTableView) else view.header()
    model = view.model()
    out = []
    if header is None or header.isHidden():
        return out
    fm = header.fontMetrics()
    for col in range(model.columnCount()):
        if header.isSectionHidden(col) or header.sectionSize(col) == 0:
            continue
        text = str(model.headerData(col, Qt.Horizontal, Qt.DisplayRole) or "")
        need = max((fm.horizontalAdvance(line) for line in text.split("\n")), default=0) + 8
        if need > header.sectionSize(col):
            out.append(f"{name}: header '{text}' is cut ({header.sectionSize(col)} < {need} px)")
        lines = text.count("\n") + 1
        if header.height() < lines * fm.height():
            out.append(f"{name}: header '{text}' is cut in height")
    return out


def _row_problems(view: QAbstractItemView, name: str) -> list[str]:
    model = view.model()
    rows = model.rowCount()
    if not rows:
        return []
    height = (
        view.sizeHintForRow(0) if isinstance(view, QTableView) else view.sizeHintForIndex(model.index(0, 0)).height()
    )
    fits = view.viewport().height() // max(height, 1)
    want = min(4, rows)
    return [f"{name}: {fits} of {rows} rows fit, {want} wanted"] if fits < want else []


def _cell_problems(view: QAbstractItemView, name: str) -> list[str]:
    model = view.model()
    fm = view.fontMetrics()
    out = []
    if (
        not isinstance(view, QTableView)
        or view.wordWrap()
        and view.verticalHeader().sectionResizeMode(0) == QHeaderView.ResizeToContents
    ):
        return out
    for row in range(min(model.rowCount(), 30)):
        for col in range(model.columnCount()):
            if view.isColumnHidden(col):
                continue
            index = model.index(row, col)
            text = str(index.data(Qt.DisplayRole) or "")
            if not text or "\n" in text:
                continue
            if fm.horizontalAdvance(text) + 10 > view.columnWidth(col):
                tip = str(index.data(Qt.ToolTipRole) or "")
                if text not in tip and not isinstance(view.itemDelegate(), WholeOnHover):
                    out.append(f"{name}: cell '{text[:40]}' is cut and not whole on hover")
    return out


def _label_problems(label: QLabel) -> list[str]:
    text = label.text()
    if text and label.wordWrap() and label.textFormat() != Qt.RichText:
        need = label.heightForWidth(label.width())
        if need > label.height() + 1:  # wrapped lines cut or drawn over the next row
            return [f"label '{text[:50]}' needs {need} px of height, has {label.height()}"]
        return []
    if not text or label.wordWrap() or "\n" in text or label.textFormat() == Qt.RichText or "<" in text:
        return []
    if label.fontMetrics().horizontalAdvance(text) > label.contentsRect().width() + 1:
        tip = label.toolTip()
        if text not in tip:
            return [f"label '{text[:50]}' is cut ({label.contentsRect().width()} px)"]
    return []


def _chart_problems(window) -> list[str]:
    from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
    from PySide6.QtCharts import QChartView

    out = []
    for view in window.findChildren(QChartView):
        if not _shown(view):
            continue
        seen = _seen(view)
        if seen != view.rect():
            out.append(f"chart {type(view.parent()).__name__} is cut: {seen} of {view.rect()}")
        chart = view.chart()
        plot = chart.plotArea()
        for axis in chart.axes():  # the tick labels lie between the plot area and the chart's edge
            if not axis.isVisible() or not axis.labelsVisible():
                continue
            if (
                axis.orientation() == Qt.Horizontal
                and chart.size().height() - plot.bottom() < view.fontMetrics().height()
            ):
                out.append(f"chart {chart.title()!r}: no room for the x axis's tick labels")
            if axis.orientation() == Qt.Vertical and plot.left() < view.fontMetrics().horizontalAdvance("100%"):
                out.append(f"chart {chart.title()!r}: no room for the y axis's tick labels")
    for chart in window.findChildren(FigureCanvasQTAgg):
        if not _shown(chart):
            continue
        seen = _seen(chart)
        if seen != chart.rect():
            out.append(f"chart {chart.objectName() or type(chart).__name__} is cut: {seen} of {chart.rect()}")
        fig = chart.figure
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        box = fig.bbox
        for ax in fig.axes:
            for tick in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
                if not tick.get_text() or not tick.get_visible():
                    continue
                e = tick.get_window_extent(renderer)
                if e.x0 < box.x0 - 1 or e.x1 > box.x1 + 1 or e.y0 < box.y0 - 1 or e.y1 > box.y1 + 1:
                    out.append(f"chart tick label '{tick.get_text()}' is cut")
    return out


def problems(window, workflow: Workflow) -> list[str]:
    """What the layout shown cuts or shows of another perspective."""
    out = []
    for view in window.findChildren(QAbstractItemView):
        if not _shown(view) or view.model() is None or isinstance(view, QListView):
            continue
        if not isinstance(view, (QTableView, QTreeView)):
            continue
        name = view.objectName() or f"{type(view.parent()).__name__}.{type(view).__name__}"
        out += _header_problems(view, name) + _row_problems(view, name) + _cell_problems(view, name)
    for label in window.findChildren(QLabel):
        if _shown(label):
            out += _label_problems(label)
    out += _chart_problems(window)
    if workflow != Workflow.CARDS:
        for bar in window.findChildren(QTabBar):
            if _shown(bar):
                tabs = [bar.tabText(i) for i in range(bar.count())]
                out += [f"a tab '{t}' of the card perspective shows" for t in tabs if t in CARD_TITLES]
        if _shown(window.canvas):
            out.append("the photo canvas shows")
    return out


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("sample", list(SAMPLE_WORKFLOWS))
def test_every_perspective_fits_at_its_default_layout(qtbot, tmp_path, monkeypatch, sample, size):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = open_window(qtbot, make(tmp_path, sample), size=size, wait_canvas=False, item=ITEMS[sample])
    w.set_mode("review")
    workflow = SAMPLE_WORKFLOWS[sample]
    qtbot.waitUntil(lambda: w.perspectives.perspective().workflow == workflow, timeout=5000)
    qtbot.wait(300)
    found = problems(w, workflow)
    if workflow == Workflow.CARDS:  # the Legend, tabbed behind Unplaced cards, raised
        w.docks["legend"].raise_()
        qtbot.wait(100)
        found += problems(w, workflow)
    assert not found, "\n".join(found)


def _stale_tabs(window) -> list[str]:
    return [
        bar.tabText(i)
        for bar in window.findChildren(QTabBar)
        if _shown(bar) and bar.parentWidget() is window
        for i in range(bar.count())
        if bar.tabText(i) in (*CARD_TITLES, "Legend", "Failter scores", "Rubric distribution")
        and not any(d.windowTitle() == bar.tabText(i) and d.isVisible() for d in window.docks.values())
    ]


@pytest.mark.parametrize("sample", ["spans", "cases", "rubric"])
def test_no_tab_bar_of_hidden_docks_is_drawn_over_a_text_item(qtbot, tmp_path, monkeypatch, sample):
    """As `reviewer open P --screenshot` shows the window: built in its
    default mode, resized and shown; the dock tab bars Qt made while it was
    hidden (Unplaced cards | Legend, Failter | Rubric) stay hidden."""
    from PySide6.QtWidgets import QApplication

    from reviewer.qt.app import SCREENSHOT_SIZE, _wait_until_ready, build

    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = build(make(tmp_path, sample), ask_name=False)
    qtbot.addWidget(w)
    w.resize(*SCREENSHOT_SIZE)
    w.show()
    _wait_until_ready(w, QApplication.instance())
    qtbot.wait(50)
    assert not _stale_tabs(w)


def _bars_over_docks(window) -> list[str]:
    """The shown dock tab bars drawn over a shown dock: Qt places a group's
    tab bar beside its docks, so one over a dock is a stale bar hiding
    what the dock lists."""
    out = []
    for bar in window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
        if not bar.isVisible() or not bar.geometry().intersects(window.rect()):
            continue
        for dock in window.docks.values():
            if dock.isVisible() and not dock.isFloating() and bar.geometry().intersects(dock.geometry()):
                tabs = [bar.tabText(i) for i in range(bar.count())]
                out.append(f"a tab bar {tabs} at {bar.geometry().getRect()} over the '{dock.windowTitle()}' dock")
    return out


def test_no_tab_bar_is_drawn_over_the_piles_and_cards_of_the_card_sample(qtbot, tmp_path, monkeypatch):
    """As `reviewer open --screenshot` shows the bundled card sample: the
    Unplaced cards | Legend | Piles and cards group has one tab bar, below
    its docks, and no bar made before the window was shown covers the
    piles tree."""
    from PySide6.QtWidgets import QApplication

    from reviewer.qt.app import SCREENSHOT_SIZE, _wait_until_ready, build

    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = build(make(tmp_path, "cards"), ask_name=False)
    qtbot.addWidget(w)
    w.resize(*SCREENSHOT_SIZE)
    w.show()
    _wait_until_ready(w, QApplication.instance())
    qtbot.wait(50)
    assert w.docks["piles"].isVisible()
    assert not _bars_over_docks(w)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_items_list_of_the_card_sample_shows_every_photo(qtbot, tmp_path, monkeypatch, size):
    """The Items list shares the left column with Piles and cards: at the
    default layout it still shows every photo of the sample (at least 2
    whole rows), not one photo and the top of the next."""
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = open_window(qtbot, make(tmp_path, "cards"), size=size, wait_canvas=False, item=ITEMS["cards"])
    w.set_mode("review")
    qtbot.waitUntil(lambda: w.perspectives.perspective().workflow == Workflow.CARDS, timeout=5000)
    qtbot.wait(300)
    view = w.docks["items"].findChild(QListView)
    rows = view.model().rowCount()
    assert rows == 2
    height = max(view.sizeHintForIndex(view.model().index(n, 0)).height() for n in range(rows))
    assert view.viewport().height() >= rows * height, f"{view.viewport().height()} px for {rows} rows of {height} px"
