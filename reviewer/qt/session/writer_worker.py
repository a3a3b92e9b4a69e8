"""Writing work on a project off the GUI thread: the stale runs scored
when a project opens (decision record "big-projects-stay-interactive").

``WriterWorker`` runs ``work(project, progress, cancelled)`` on a
one-thread QThreadPool through a write connection of its own
(reviewer.storage.project.db.second_connection: SQLite connections never cross
threads), with the same short write transactions as every writer
(decision record "short-write-transactions"), so the window's edits get in
between. ``progress(done, total)`` reaches the GUI thread as ``progress``;
the result as ``done``, or ``failed`` with the one-line message when the
connection cannot be opened or the work raises a project error. A project
that lives in memory (opened read-only) is worked on in place, at once.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from reviewer.storage.project.db import ProjectError, second_connection

#: work(project, progress, cancelled) -> result, on the worker thread.
Work = Callable[[Any, Callable[[int, int], None], Callable[[], bool]], Any]


class _Bridge(QObject):
    """Carries progress and the result to the GUI thread (it lives there)."""

    progress = Signal(int, int, int)  # generation, done, total
    done = Signal(int, object, str)  # generation, result, error ('' for none)


class _Job(QRunnable):
    def __init__(self, project, work: Work, generation: int, bridge: _Bridge, cancel: threading.Event):
        super().__init__()
        self.project, self.work, self.generation, self.bridge, self.cancel = project, work, generation, bridge, cancel

    def run(self) -> None:
        """Open the writer, do the work, close it; emit the result."""
        result, error = None, ""
        try:
            writer = second_connection(self.project)
            try:
                result = self.work(writer, self._progress, self.cancel.is_set)
            finally:
                if writer is not self.project:
                    writer.close()
        except (ProjectError, sqlite3.Error) as exc:
            error = str(exc) or type(exc).__name__
        with contextlib.suppress(RuntimeError):  # the owner went away meanwhile
            self.bridge.done.emit(self.generation, result, error)

    def _progress(self, done: int, total: int) -> None:
        with contextlib.suppress(RuntimeError):
            self.bridge.progress.emit(self.generation, done, total)


class WriterWorker(QObject):
    """One writing job at a time on a worker thread (module doc)."""

    progress = Signal(int, int)  # done, total
    done = Signal(object)  # the latest job's result
    failed = Signal(str)  # the latest job's error, one line

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.generation = 0
        self._running = 0
        self._cancel = threading.Event()
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._bridge = _Bridge()
        self._bridge.progress.connect(self._progressed)
        self._bridge.done.connect(self._finished)

    def start(self, project, work: Work) -> int:
        """Run ``work`` on ``project``'s own write connection; an older job
        is told to stop and its result dropped. Returns the generation."""
        self.cancel()
        self._running += 1
        self.pool.start(_Job(project, work, self.generation, self._bridge, self._cancel))
        return self.generation

    def cancel(self) -> None:
        """Tell the running job to stop between its steps and drop its result."""
        self._cancel.set()
        self._cancel = threading.Event()
        self.generation += 1

    def busy(self) -> bool:
        """A job is running or queued (its result not delivered yet)."""
        return self._running > 0

    def wait(self, ms: int = 60000) -> bool:
        """Block until the pool is idle (closing, tests); True when it is."""
        return self.pool.waitForDone(ms)

    def _progressed(self, generation: int, done: int, total: int) -> None:
        if generation == self.generation:
            self.progress.emit(done, total)

    def _finished(self, generation: int, result: Any, error: str) -> None:
        self._running = max(0, self._running - 1)
        if generation != self.generation:
            return
        if error:
            self.failed.emit(error)
        else:
            self.done.emit(result)
