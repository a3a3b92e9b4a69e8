"""The review window's docks, one per panel, with their keys
(reviewer.qt.perspectives names which belong to which workflow).

Every score panel is a dock of its own, titled by what it shows; the
perspective shows the one(s) of its workflow."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QScrollArea, QWidget

from reviewer.qt import registry

#: Dock key -> (title, area). Titles are also the docks' object names (the saved layouts use them).
DOCKS = {
    "items": ("Items", Qt.DockWidgetArea.LeftDockWidgetArea),
    "piles": ("Piles and cards", Qt.DockWidgetArea.LeftDockWidgetArea),
    "unplaced": ("Unplaced cards", Qt.DockWidgetArea.LeftDockWidgetArea),
    "legend": ("Legend", Qt.DockWidgetArea.LeftDockWidgetArea),
    "findings": ("Findings", Qt.DockWidgetArea.RightDockWidgetArea),
    "output": ("Model output", Qt.DockWidgetArea.RightDockWidgetArea),
    "runs": ("Runs", Qt.DockWidgetArea.BottomDockWidgetArea),
    "scores": ("Scores (T-P1)", Qt.DockWidgetArea.BottomDockWidgetArea),
    "span_scores": ("Span scores", Qt.DockWidgetArea.BottomDockWidgetArea),
    "case_scores": ("Case scores", Qt.DockWidgetArea.BottomDockWidgetArea),
    "failter_scores": ("Failter scores", Qt.DockWidgetArea.BottomDockWidgetArea),
    "rubric_scores": ("Rubric distribution", Qt.DockWidgetArea.BottomDockWidgetArea),
    "pairwise_scores": ("Pairwise scores", Qt.DockWidgetArea.BottomDockWidgetArea),
}


#: The score docks (one per workflow), placed right of the runs.
#: Other docks whose panel scrolls when short: the Legend's wrapped meanings keep their lines.
SCROLLED_DOCKS = ("legend",)
SCORE_DOCKS = ("scores", "span_scores", "case_scores", "failter_scores", "rubric_scores", "pairwise_scores")


def add_docks(window: QMainWindow, panels: dict[str, QWidget]) -> dict[str, QDockWidget]:
    """A dock for each of ``panels`` ({key of DOCKS: widget}), added to
    ``window`` in its area; the score docks sit right of the runs."""
    docks: dict[str, QDockWidget] = {}
    scores = {p.score_key: p.score_title for p in registry.registered() if p.score_panel}
    for key, widget in panels.items():
        title, area = DOCKS.get(key) or (scores[key], Qt.DockWidgetArea.BottomDockWidgetArea)
        dock = QDockWidget(title, window)
        dock.setObjectName(title)
        if (
            key in SCORE_DOCKS or key in SCROLLED_DOCKS or key in scores
        ):  # they scroll: a panel never makes the window taller
            scroll = QScrollArea()
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QFrame.Shape.NoFrame)
            scroll.setWidget(widget)
            dock.setWidget(scroll)
        else:
            dock.setWidget(widget)
        window.addDockWidget(area, dock)
        docks[key] = dock
    previous = docks.get("runs")
    for key in (*SCORE_DOCKS, *scores):
        if key in docks and previous is not None:
            window.splitDockWidget(docks["runs"], docks[key], Qt.Orientation.Horizontal)
    if "failter_scores" in docks and "rubric_scores" in docks:
        window.tabifyDockWidget(docks["failter_scores"], docks["rubric_scores"])
    if "unplaced" in docks and "legend" in docks:
        window.tabifyDockWidget(docks["unplaced"], docks["legend"])
        docks["unplaced"].raise_()
    if "piles" in docks and "unplaced" in docks:  # the piles and cards first: they hold the unplaced ones too
        window.tabifyDockWidget(docks["unplaced"], docks["piles"])
        docks["piles"].raise_()
    return docks
