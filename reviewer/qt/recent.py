"""The File > Open recent menu: the project files opened last, newest first,
kept in the user's settings (QSettings key ``recent``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMenu

#: Projects the menu remembers.
MAX_RECENT = 8


class RecentProjects:
    """The recent list in ``settings`` and the ``menu`` that shows it;
    choosing an entry calls ``open_path`` with its path."""

    def __init__(self, settings: QSettings, menu: QMenu, open_path: Callable[[Path], None]):
        self.settings, self.menu, self.open_path = settings, menu, open_path
        menu.aboutToShow.connect(self.fill)

    def paths(self) -> list[str]:
        """Recently opened project files (absolute paths), newest first."""
        value = self.settings.value("recent", [])
        if isinstance(value, str):  # an INI file gives one entry back as a string
            value = [value]
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else []

    def remember(self, path: Path) -> None:
        """Put ``path`` first in the list (at most MAX_RECENT entries)."""
        full = str(Path(path).resolve())
        recent = [p for p in self.paths() if p != full]
        self.settings.setValue("recent", [full] + recent[: MAX_RECENT - 1])

    def fill(self) -> None:
        """Fill the menu with the list (a disabled '(none yet)' when empty)."""
        self.menu.clear()
        paths = self.paths()
        for path in paths:
            self.menu.addAction(path).triggered.connect(lambda _=False, p=path: self.open_path(Path(p)))
        if not paths:
            self.menu.addAction("(none yet)").setEnabled(False)
