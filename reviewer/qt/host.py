"""What the window's parts receive instead of the main window (decision
record "typed-window-host"): narrow Protocols, so a part names the few
things it uses and mypy sees when it reaches for more.

``PerspectiveHost``: what reviewer.qt.perspectives switches: the Session
(the current item), the mode, the actions by name, the centre widgets and
their stack, the docks and their saved layouts, the runs table and the
compact legend.

``RunnerHost``: what the Run menu (reviewer.qt.runner.controller) uses:
the Session, the settings, the menu bar, the status line and the window
to parent its forms to and to watch for closing.

``ActionsHost`` (in reviewer.qt.actions, since it names the card
workflow's annotator view, which a module every workflow imports may not)
extends ``ToolbarHost`` and ``TranscribeHost``.

``ToolbarHost``: a window that takes a toolbar. (The annotator switch,
reviewer.qt.cards.annotators.add_annotator_bar, takes Qt's QMainWindow,
which only adds its toolbar: this module names AnnotatorView, so the
annotators module cannot import it back.)

``TranscribeHost``: the Session and the canvas, for T / Shift+T
(reviewer.qt.cards.transcribe.step).

The main window satisfies every one of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QByteArray, QRect, QSettings, Qt
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QDockWidget, QMenuBar, QStackedWidget, QStatusBar, QToolBar, QWidget

    from reviewer.qt.canvas.view import CanvasView
    from reviewer.qt.panels.runs import RunsPanel
    from reviewer.qt.session import Session


class PerspectiveHost(Protocol):
    """The window as reviewer.qt.perspectives.Perspectives uses it (module doc)."""

    @property
    def session(self) -> Session: ...
    @property
    def mode(self) -> str: ...
    @property
    def settings(self) -> QSettings: ...
    @property
    def actions_by_name(self) -> dict[str, QAction]: ...
    @property
    def centers(self) -> dict[str, QWidget]: ...
    @property
    def center_stack(self) -> QStackedWidget: ...
    @property
    def docks(self) -> dict[str, QDockWidget]: ...
    @property
    def runs_panel(self) -> RunsPanel: ...
    @property
    def compact_legend(self) -> QWidget: ...

    def saveState(self, version: int = ...) -> QByteArray:  # noqa: N802 (Qt's name)
        """The dock layout, to save."""
        ...

    def restoreState(self, state: Any, version: int = ...) -> bool:  # noqa: N802 (Qt's name)
        """Put a saved dock layout back; False when it cannot."""
        ...

    def resizeDocks(  # noqa: N802 (Qt's name)
        self, docks: Sequence[QDockWidget], sizes: Sequence[int], orientation: Qt.Orientation
    ) -> None:
        """Give ``docks`` their ``sizes`` along ``orientation``."""
        ...

    def width(self) -> int:
        """The window's width in pixels."""
        ...

    def height(self) -> int:
        """The window's height in pixels."""
        ...

    def rect(self) -> QRect:
        """The window's own rectangle (0, 0, width, height)."""
        ...

    def findChildren(self, type: Any, name: str = ..., options: Any = ...) -> Any:  # noqa: N802 (Qt's name)
        """The window's children of ``type``."""
        ...

    def findChild(self, type: Any, name: str = ...) -> Any:  # noqa: N802 (Qt's name)
        """The window's child of ``type`` named ``name``."""
        ...


class ToolbarHost(Protocol):
    """A window that takes a toolbar (module doc)."""

    def addToolBar(self, title: str) -> QToolBar:  # noqa: N802 (Qt's name)
        """A new toolbar named ``title`` at the top of the window."""
        ...


class RunnerHost(Protocol):
    """The window as the Run menu uses it (module doc)."""

    @property
    def session(self) -> Session: ...
    @property
    def settings(self) -> QSettings: ...

    def menuBar(self) -> QMenuBar:  # noqa: N802 (Qt's name)
        """The window's menu bar (the Run menu goes before Help)."""
        ...

    def statusBar(self) -> QStatusBar:  # noqa: N802 (Qt's name)
        """The status line (the job's progress and Cancel)."""
        ...

    def window(self) -> QWidget:
        """The top-level widget: the forms' parent, watched for closing."""
        ...


class TranscribeHost(Protocol):
    """The window as T / Shift+T use it (module doc)."""

    @property
    def session(self) -> Session: ...
    @property
    def canvas(self) -> CanvasView: ...


__all__ = ["PerspectiveHost", "RunnerHost", "ToolbarHost", "TranscribeHost"]
