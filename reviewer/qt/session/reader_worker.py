"""Work on a project off the GUI thread, one job at a time.

``ReaderWorker`` runs ``work(reader, cancelled)`` on a one-thread
QThreadPool through a read connection of its own (reviewer.storage.cards.
overview.reader: SQLite connections never cross threads; a WAL reader sees
the last commit), ``delay_ms`` after the event loop's first pass once
``start`` was called (0: at once), and emits
``done`` on the GUI thread with what it returned. Each ``start`` or
``cancel`` begins a new *generation*: the cancel event of the older job is
set (it may stop between its steps) and its result is dropped. When the
connection cannot be opened or the work raises one of ``errors``,
``on_error(exc)`` is the result. The Session's summary
(reviewer.qt.session.summary) and the validation view
(reviewer.qt.session.validation_worker) are its users.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from reviewer.storage.cards import overview
from reviewer.storage.project.db import ProjectError

#: work(reader, cancelled) -> result, on the worker thread.
Work = Callable[[Any, Callable[[], bool]], Any]


class _Bridge(QObject):
    """Carries a job's result to the GUI thread (it lives there)."""

    done = Signal(int, object)  # generation, result


class _Job(QRunnable):
    """On a pool thread: ``work`` through a connection of its own."""

    def __init__(self, project, generation: int, bridge: _Bridge, cancel: threading.Event, worker: ReaderWorker):
        super().__init__()
        self.project, self.generation, self.bridge, self.cancel = project, generation, bridge, cancel
        self.work, self.errors, self.on_error = worker.work, worker.errors, worker.on_error

    def run(self) -> None:
        """Open the reader, do the work, close what it opened; emit the result."""
        try:
            reader, own = overview.reader(self.project)
            try:
                result = self.work(reader, self.cancel.is_set)
            finally:
                if own:
                    reader.close()
        except self.errors as exc:
            result = self.on_error(exc)
        with contextlib.suppress(RuntimeError):  # the owner went away meanwhile
            self.bridge.done.emit(self.generation, result)


class ReaderWorker(QObject):
    """One job at a time on a worker thread (module doc)."""

    done = Signal(object)  # the latest generation's result

    def __init__(
        self,
        work: Work,
        on_error: Callable[[Exception], Any],
        parent: QObject | None = None,
        delay_ms: int = 0,
        errors: tuple[type[Exception], ...] = (ProjectError, sqlite3.Error),
    ):
        super().__init__(parent)
        self.work, self.on_error, self.errors = work, on_error, errors
        self.generation = 0
        self._cancel = threading.Event()
        self._running = 0
        self._project = None
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._bridge = _Bridge()
        self._bridge.done.connect(self._finished)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._start_now)
        #: the delay counts from the event loop's first pass after ``start`` (not from
        #: ``start`` itself: a project opened before the window shows is shown first)
        self._arm = QTimer(self)
        self._arm.setSingleShot(True)
        self._arm.setInterval(0)
        self._arm.timeout.connect(self._timer.start)

    def start(self, project) -> int:
        """Work on ``project`` after the delay; an older job is cancelled and
        its result dropped. Returns the new generation."""
        self.cancel()
        self._project = project
        if self._timer.interval() > 0:
            self._arm.start()
        else:
            self._start_now()
        return self.generation

    def cancel(self) -> None:
        """Drop the job running or waiting to start (a new generation begins)."""
        self._cancel.set()
        self._cancel = threading.Event()
        self.generation += 1
        self._arm.stop()
        self._timer.stop()
        self._project = None

    def busy(self) -> bool:
        """A job is running, queued or waiting to start."""
        return self._running > 0 or self._arm.isActive() or self._timer.isActive()

    def wait(self, ms: int = 60000) -> bool:
        """Block until the pool is idle (tests, closing); True when it is."""
        return self.pool.waitForDone(ms)

    def _start_now(self) -> None:
        if self._project is None:
            return
        self._running += 1
        self.pool.start(_Job(self._project, self.generation, self._bridge, self._cancel, self))
        self._project = None

    def _finished(self, generation: int, result: Any) -> None:
        self._running = max(0, self._running - 1)
        if generation == self.generation:
            self.done.emit(result)
