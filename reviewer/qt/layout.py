"""The main window's size on first start and its saved geometry and layout
(docs/window.md; each perspective's docks: reviewer.qt.perspectives)."""

from __future__ import annotations

from PySide6.QtCore import QSettings, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow

#: The first-start window size (smaller when the screen is).
DEFAULT_SIZE = QSize(1600, 1000)


def first_size(window: QMainWindow) -> None:
    """The first-start size: 1600x1000, or what the screen holds."""
    screen = QGuiApplication.primaryScreen()
    window.resize(DEFAULT_SIZE.boundedTo(screen.availableSize()) if screen is not None else DEFAULT_SIZE)


def restore(window: QMainWindow, settings: QSettings) -> None:
    """Restore the saved window geometry and dock layout, if any."""
    geometry = settings.value("geometry")
    state = settings.value("state")
    if geometry is not None:
        window.restoreGeometry(geometry)
    if state is not None:
        window.restoreState(state)
