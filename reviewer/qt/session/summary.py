"""The summary of a big project, computed off the GUI thread.

``Summariser`` runs reviewer.qt.session.rows.read_summary on a QThreadPool
thread through its own read connection (reviewer.storage.cards.overview.reader),
START_DELAY_MS after it is asked to (so the first photo is shown first), and
emits ``done`` on the GUI thread with the result (None when it failed). A
newer ``start`` or ``cancel`` makes an older result be dropped. Projects of
at most SYNC_RUNS runs are summarised at once by the Session instead.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Optional

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from reviewer.storage.cards import overview
from reviewer.storage.db import ProjectError
from reviewer.qt.session.rows import read_summary

#: Projects with at most this many runs are summarised at once, on the GUI thread.
SYNC_RUNS = 500
#: Milliseconds after opening before the worker starts (the first photo is shown first).
START_DELAY_MS = 250


class _Bridge(QObject):
    """Carries the worker's summary to the GUI thread."""

    done = Signal(int, object)  # generation, (runs, rows) or None


class _SummaryJob(QRunnable):
    """On a pool thread: the summary of ``project`` through its own connection."""

    def __init__(self, project, generation: int, bridge: _Bridge, cancel: threading.Event):
        super().__init__()
        self.project, self.generation, self.bridge, self.cancel = project, generation, bridge, cancel

    def run(self) -> None:
        """Read and compute (module doc); emit the result (None on failure or cancel)."""
        result = None
        try:
            reader, own = overview.reader(self.project)
            try:
                result = read_summary(reader, self.cancel.is_set, pause=0.002)
            finally:
                if own:
                    reader.close()
        except (ProjectError, sqlite3.Error):
            result = None
        try:
            self.bridge.done.emit(self.generation, result)
        except RuntimeError:  # the session went away meanwhile
            pass


class Summariser(QObject):
    """One summary at a time on a worker thread (module doc)."""

    done = Signal(object)  # (RunLines, T-P1 rows), or None when it could not be read

    def __init__(self, parent: Optional[QObject] = None):
        super().__init__(parent)
        self._project = None
        self._generation = 0
        self._cancel = threading.Event()
        self._running = False
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._bridge = _Bridge()
        self._bridge.done.connect(self._finished)
        self._timer = QTimer(self, singleShot=True, interval=START_DELAY_MS, timeout=self._start_now)

    def start(self, project) -> None:
        """Summarise ``project`` on the worker after START_DELAY_MS."""
        self._project = project
        self._timer.start()

    def cancel(self) -> None:
        """Drop the summary being computed or waiting to start."""
        self._cancel.set()
        self._cancel = threading.Event()
        self._generation += 1
        self._timer.stop()
        self._project = None

    def busy(self) -> bool:
        """A summary is being computed (on the worker, or waiting to start)."""
        return self._running or self._timer.isActive()

    def _start_now(self) -> None:
        if self._project is None:
            return
        self._running = True
        self.pool.start(_SummaryJob(self._project, self._generation, self._bridge, self._cancel))

    def _finished(self, generation: int, result) -> None:
        self._running = False
        if generation == self._generation:
            self.done.emit(result)
