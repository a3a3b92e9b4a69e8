"""What the window's parts receive instead of the main window (decision
record "typed-window-host"): narrow Protocols, so a part names the few
things it uses and mypy sees when it reaches for more.

``PerspectiveHost``: what reviewer.qt.perspectives switches: the Session
(the current item), the mode, the actions by name, the centre widgets and
their stack, the docks and their saved layouts, the runs table and the
compact legend. The main window satisfies it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, Sequence

if TYPE_CHECKING:
    from PySide6.QtCore import QByteArray, QRect, QSettings, Qt
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QDockWidget, QStackedWidget, QWidget

    from reviewer.qt.panels.runs import RunsPanel
    from reviewer.qt.session import Session


class PerspectiveHost(Protocol):
    """The window as reviewer.qt.perspectives.Perspectives uses it (module doc)."""

    @property
    def session(self) -> "Session": ...
    @property
    def mode(self) -> str: ...
    @property
    def settings(self) -> "QSettings": ...
    @property
    def actions_by_name(self) -> "dict[str, QAction]": ...
    @property
    def centers(self) -> "dict[str, QWidget]": ...
    @property
    def center_stack(self) -> "QStackedWidget": ...
    @property
    def docks(self) -> "dict[str, QDockWidget]": ...
    @property
    def runs_panel(self) -> "RunsPanel": ...
    @property
    def compact_legend(self) -> "QWidget": ...

    def saveState(self, version: int = ...) -> "QByteArray":  # noqa: N802 (Qt's name)
        """The dock layout, to save."""
        ...

    def restoreState(self, state: Any, version: int = ...) -> bool:  # noqa: N802 (Qt's name)
        """Put a saved dock layout back; False when it cannot."""
        ...

    def resizeDocks(  # noqa: N802 (Qt's name)
        self, docks: "Sequence[QDockWidget]", sizes: Sequence[int], orientation: "Qt.Orientation"
    ) -> None:
        """Give ``docks`` their ``sizes`` along ``orientation``."""
        ...

    def width(self) -> int:
        """The window's width in pixels."""
        ...

    def height(self) -> int:
        """The window's height in pixels."""
        ...

    def rect(self) -> "QRect":
        """The window's own rectangle (0, 0, width, height)."""
        ...

    def findChildren(self, type: Any, name: str = ..., options: Any = ...) -> Any:  # noqa: N802 (Qt's name)
        """The window's children of ``type``."""
        ...

    def findChild(self, type: Any, name: str = ...) -> Any:  # noqa: N802 (Qt's name)
        """The window's child of ``type`` named ``name``."""
        ...


__all__ = ["PerspectiveHost"]
