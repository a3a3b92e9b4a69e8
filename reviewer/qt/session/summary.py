"""The summary of a big project, computed off the GUI thread.

``Summariser`` runs reviewer.qt.session.rows.read_summary on the shared
ReaderWorker (reviewer.qt.session.reader_worker: a pool thread, its own read
connection), START_DELAY_MS after the event loop first runs once it is
asked to (so the first photo is shown first), then reads every item whole, and emits ``done`` on the GUI
thread with both (None when it failed). A newer ``start`` or ``cancel`` makes an older result be
dropped. Projects of
at most SYNC_RUNS runs are summarised at once by the Session instead.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from reviewer.qt.session.reader_worker import ReaderWorker
from reviewer.qt.session.rows import read_summary
from reviewer.storage.repo import items as repo_items

#: Projects with at most this many runs are summarised at once, on the GUI thread.
SYNC_RUNS = 500
#: Milliseconds after opening before the worker starts (the first photo is shown first).
START_DELAY_MS = 250


def _summary(reader, cancelled):
    """The summary (read_summary), then every item read whole (the list
    holds only their id, name and kind until then); None when it failed or
    was cancelled."""
    result = read_summary(reader, cancelled, pause=0.002)
    if result is None or cancelled():
        return None
    return result, repo_items.items_by_id(reader)


class Summariser(ReaderWorker):
    """One summary at a time on a worker thread (module doc); ``done`` gives
    ((RunLines, T-P1 rows), {item id: Item}), or None when the project
    could not be read."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(_summary, lambda exc: None, parent, delay_ms=START_DELAY_MS)
