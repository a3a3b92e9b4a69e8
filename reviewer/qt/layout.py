"""The main window's size on first start and its saved geometry and layout
(docs/window.md; each perspective's docks: reviewer.qt.perspectives)."""

from __future__ import annotations

from PySide6.QtCore import QSettings, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow, QSizePolicy, QStackedWidget

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


def only_the_shown_page_sizes(stack: QStackedWidget) -> None:
    """Make ``stack``'s minimum size that of its shown page, now and
    whenever the page changes: a QStackedWidget is otherwise as large as its
    largest page, so a hidden perspective or mode would take room from the
    docks (QStackedLayout leaves out pages whose size policy is Ignored)."""

    def shown(index: int) -> None:
        for i in range(stack.count()):
            page = stack.widget(i)
            assert page is not None  # i is below count()
            policy = QSizePolicy.Policy.Preferred if i == index else QSizePolicy.Policy.Ignored
            page.setSizePolicy(policy, policy)
        stack.updateGeometry()

    stack.currentChanged.connect(shown)
    shown(stack.currentIndex())
