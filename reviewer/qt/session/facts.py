"""Facts of the project's items that choose what the window shows, read
off the GUI thread.

``FailterItems`` reads which items' runs have a Failter verdict
(reviewer.storage.workflows.failter_verdict_items: a judged output shows
the Failter table, else the rubric distribution) on a ReaderWorker
(reviewer.qt.session.reader_worker: a pool thread, its own read
connection) and emits ``known`` on the GUI thread once it has them. A
project of at most summary.SYNC_RUNS runs is read at once (``read_now``)
instead, so a small project's perspective is right when it opens. Until a
big project's answer is in, no item counts as having one.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from reviewer.qt.session.reader_worker import ReaderWorker
from reviewer.storage.workflows import failter_verdict_items


def _read(reader, _cancelled) -> set[int] | None:
    return failter_verdict_items(reader)


class FailterItems(QObject):
    """Which items have a Failter verdict (module doc)."""

    known = Signal()  # the answer of the worker arrived

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.items: set[int] = set()
        self.worker = ReaderWorker(_read, lambda exc: None, self)
        self.worker.done.connect(self._done)

    def read_now(self, project) -> None:
        """Read the answer on this thread (a small project)."""
        self.worker.cancel()
        self.items = failter_verdict_items(project)

    def start(self, project) -> None:
        """Read the answer on the worker; until it is in, no item has one."""
        self.items = set()
        self.worker.start(project)

    def cancel(self) -> None:
        """Drop a read under way (the project closes)."""
        self.worker.cancel()
        self.items = set()

    def _done(self, items: set[int] | None) -> None:
        if items is not None:
            self.items = items
            self.known.emit()
