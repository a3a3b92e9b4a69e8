"""The editing part of the Session: every edit is a core Command done
through the queued history (reviewer.qt.session.history), so an edit is
never refused because another program is writing the project.

``Editor`` is owned by the Session. An edit written at once is announced
with ``written`` (its Effect; the Session refreshes what it touched); an
edit that must wait is kept in order and announced with ``queued`` (the
Session shows the waiting decisions as made, so the review keys go on as
usual; the status bar says so through ``history.pendingChanged``). Undo
and redo of a waiting edit are queued behind it.

A read-only project (``Project.read_only``) takes no edit: ``execute``
says why and returns False.
"""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import QObject, Signal

from reviewer.core.commands import Command, Effect
from reviewer.qt.session.history import History, Op
from reviewer.storage.project.db import Project, ProjectError

#: Seconds opening another project (or closing) waits for edits still queued.
SETTLE_S = 5.0


class Editor(QObject):
    """Edits, undo and redo of the open project (module doc)."""

    written = Signal(object)  # the Effect of an operation now in the project (None: nothing to refresh)
    queued = Signal()  # operations wait (or one was dropped): show the waiting decisions
    undoChanged = Signal()
    walked = Signal(object)  # the command just undone or redone
    message = Signal(str)
    error = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        #: The undo history, its writes queued while the project is busy.
        self.history = History(self)
        #: The command ``execute`` did last; None after undo or redo (so a
        #: view can amend its own last decision, e.g. to add a rationale).
        self.last_command: Command | None = None
        self._quiet = False
        self.history.written.connect(self._written)
        self.history.failed.connect(self._failed)

    def attach(self, project: Project | None, store) -> None:
        """Edit ``project`` through ``store`` (None: no project); the history starts empty."""
        self.project, self.last_command = project, None
        self.history.attach(project, store)

    @property
    def read_only(self) -> str | None:
        """Why the open project takes no edits (None when it does)."""
        return self.project.read_only if self.project is not None else None

    def settle(self, wait: float = SETTLE_S) -> bool:
        """Write the edits still waiting, waiting up to ``wait`` seconds for
        the lock; True when none is left."""
        if self.history.pending:
            self.history.flush(wait)
        return not self.history.pending

    # -- doing ------------------------------------------------------------------------------
    def execute(self, command: Command) -> bool:
        """Do a command: written at once, or queued while another program
        holds the project (True either way); False when it cannot be done
        at all (the error says why)."""
        if self.history.store is None:
            return False
        if self.read_only:
            self.error.emit(f"cannot {command.text}: the project is read-only ({self.read_only})")
            return False
        try:
            now = self.history.push(command)
        except (KeyError, ProjectError, sqlite3.Error) as exc:
            self.error.emit(f"could not {command.text}: {exc}")
            return False
        self.last_command = command
        if now:
            self.message.emit(f"{command.text} · saved (Ctrl+Z undoes)")
        else:
            self.queued.emit()
            self.message.emit(f"{command.text} · waiting to be saved ({self.history.waiting_text()})")
        return True

    def undo(self) -> None:
        """Undo the last edit; ``walked`` names it, so views can show it."""
        self._walk("undo")

    def redo(self) -> None:
        """Redo the last undone edit; ``walked`` names it."""
        self._walk("redo")

    def replace_last(self, command: Command) -> bool:
        """Undo the last edit and do ``command`` in its place (one undo
        step, e.g. a decision amended with a reason); views are not moved."""
        self._quiet = True
        try:
            self.undo()
        finally:
            self._quiet = False
        return self.execute(command)

    def _walk(self, kind: str) -> bool:
        if self.history.store is None:
            return False
        self.last_command = None
        command = self.history.next_undo() if kind == "undo" else self.history.next_redo()
        if command is None:
            self.message.emit("nothing to undo or redo")
            return False
        if self.read_only:
            self.error.emit(f"cannot {kind}: the project is read-only ({self.read_only})")
            return False
        try:
            now = self.history.undo() if kind == "undo" else self.history.redo()
        except (KeyError, ProjectError, sqlite3.Error) as exc:
            self.error.emit(f"could not {kind}: {exc}")
            return False
        if not now:
            self.queued.emit()
        self.message.emit(f"{kind}ne: {command.text}" + ("" if now else " · waiting to be saved"))
        if not self._quiet:
            self.walked.emit(command)
        return True

    # -- what was written -----------------------------------------------------------------------
    def _written(self, op: Op, effect: Effect | None) -> None:
        self.written.emit(effect)

    def _failed(self, op: Op, why: str) -> None:
        self.error.emit(f"could not save '{op.command.text}': {why}")
        self.queued.emit()
        self.undoChanged.emit()
