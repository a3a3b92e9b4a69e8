"""The main window's layout on first start and its saved layout (docs/window.md:
a 1600x1000 window showing at least 6 runs and the findings' card columns)."""

from __future__ import annotations

from PySide6.QtCore import QSettings, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QMainWindow

#: The first-start window size (smaller when the screen is).
DEFAULT_SIZE = QSize(1600, 1000)


def first_size(window: QMainWindow) -> None:
    """The first-start size: 1600x1000, or what the screen holds."""
    screen = QGuiApplication.primaryScreen()
    window.resize(DEFAULT_SIZE.boundedTo(screen.availableSize()) if screen is not None else DEFAULT_SIZE)


def dock_defaults(window: QMainWindow, docks: dict[str, QDockWidget]) -> None:
    """The first-start docks: items narrow on the left, the findings wide
    enough for their card columns on the right, the runs tall enough for 6
    rows or more."""
    window.resizeDocks([docks["items"]], [230], Qt.Horizontal)
    window.resizeDocks([docks["findings"]], [560], Qt.Horizontal)
    window.resizeDocks([docks["findings"], docks["output"]], [330, 300], Qt.Vertical)
    window.resizeDocks([docks["runs"]], [250], Qt.Vertical)
    window.resizeDocks([docks["runs"], docks["scores"]], [700, 900], Qt.Horizontal)


def restore(window: QMainWindow, settings: QSettings) -> None:
    """Restore the saved window geometry and dock layout, if any."""
    geometry = settings.value("geometry")
    state = settings.value("state")
    if geometry is not None:
        window.restoreGeometry(geometry)
    if state is not None:
        window.restoreState(state)
