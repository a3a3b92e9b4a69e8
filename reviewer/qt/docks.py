"""The review window's docks, one per panel, with their keys
(reviewer.qt.perspectives names which belong to which workflow).

The shared panels' docks are listed here (DOCKS); every score panel is a
dock of its own, registered by its workflow (reviewer.qt.registry:
``score_docks``, titled by what it shows) and placed right of the runs, a
workflow's several score docks tabbed in one place; the perspective shows
the one(s) of its workflow."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QScrollArea, QWidget

from reviewer.qt import registry

#: Dock key -> (title, area) of the shared panels. Titles are also the docks' object names (the saved layouts use them).
DOCKS = {
    "items": ("Items", Qt.DockWidgetArea.LeftDockWidgetArea),
    "piles": ("Piles and cards", Qt.DockWidgetArea.LeftDockWidgetArea),
    "unplaced": ("Unplaced cards", Qt.DockWidgetArea.LeftDockWidgetArea),
    "legend": ("Legend", Qt.DockWidgetArea.LeftDockWidgetArea),
    "findings": ("Findings", Qt.DockWidgetArea.RightDockWidgetArea),
    "output": ("Model output", Qt.DockWidgetArea.RightDockWidgetArea),
    "runs": ("Runs", Qt.DockWidgetArea.BottomDockWidgetArea),
}

#: Other docks whose panel scrolls when short (as every score dock does): the Legend's wrapped meanings keep their lines.
SCROLLED_DOCKS = ("legend",)


def add_docks(window: QMainWindow, panels: dict[str, QWidget]) -> dict[str, QDockWidget]:
    """A dock for each of ``panels`` ({key of DOCKS or of a registered
    score dock: widget}), added to ``window`` in its area; the score docks
    sit right of the runs, in registration order, those of one workflow
    tabbed together."""
    docks: dict[str, QDockWidget] = {}
    scores = {d.key: d.title for p in registry.registered() for d in p.score_docks}
    for key, widget in panels.items():
        title, area = DOCKS.get(key) or (scores[key], Qt.DockWidgetArea.BottomDockWidgetArea)
        dock = QDockWidget(title, window)
        dock.setObjectName(title)
        if key in SCROLLED_DOCKS or key in scores:  # they scroll: a panel never makes the window taller
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
    for key in scores:
        if key in docks and previous is not None:
            window.splitDockWidget(docks["runs"], docks[key], Qt.Orientation.Horizontal)
    for parts in registry.registered():  # a workflow's score docks in one place (the Failter table | rubric)
        keys = [d.key for d in parts.score_docks if d.key in docks]
        for key in keys[1:]:
            window.tabifyDockWidget(docks[keys[0]], docks[key])
    if "unplaced" in docks and "legend" in docks:
        window.tabifyDockWidget(docks["unplaced"], docks["legend"])
        docks["unplaced"].raise_()
    if "piles" in docks and "unplaced" in docks:  # the piles and cards first: they hold the unplaced ones too
        window.tabifyDockWidget(docks["unplaced"], docks["piles"])
        docks["piles"].raise_()
    return docks
