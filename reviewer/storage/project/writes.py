"""Writes that wait for the project instead of failing: for the window.

While another program writes to the project (an import, ``reviewer score``),
it holds the write lock for at most ``db.BATCH_S`` at a time, so a decision
taken in the window usually gets in within a few milliseconds. When it
cannot (the other program is slow, or a kill left a lock behind for a
moment), the decision must neither be lost nor block the window:

* :func:`write_retrying` runs a write in one transaction, waiting for the
  lock up to a timeout and calling ``on_wait`` once when it is slow (to show
  "waiting for the project..."); ProjectBusy when it did not get in.
* :class:`WriteQueue` keeps writes that could not be done at once, in order,
  and does them on ``flush()`` (call it from a timer, e.g. every 250 ms);
  ``pending`` is what the window shows ("2 decisions waiting to be saved").

Both are plain Python (no Qt): the GUI wires ``flush`` to a QTimer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reviewer.storage.project.db import Project, ProjectBusy

Write = Callable[[], Any]


def write_retrying(
    project: Project,
    write: Write,
    *,
    timeout: float | None = None,
    on_wait: Callable[[float], None] | None = None,
) -> Any:
    """Run ``write()`` (which writes through ``project``) in one
    transaction that waits up to ``timeout`` seconds (db.BUSY_TIMEOUT_S by
    default) for another program's write lock; ``on_wait(seconds)`` is
    called once when the wait passes db.WAIT_NOTICE_S. Returns what
    ``write`` returns. Raises ProjectBusy (nothing written) when the lock
    did not come, ReadOnlyProject for a read-only project, and whatever
    ``write`` raises (its changes rolled back)."""
    with project.transaction(timeout=timeout, on_wait=on_wait):
        return write()


@dataclass
class Queued:
    """A write waiting for the project: ``label`` says what it is (for the
    window: 'reject finding 12'); ``tries``: attempts made so far."""

    write: Write
    label: str = ""
    tries: int = 0


class WriteQueue:
    """Writes done in order, each as soon as the project is free.

    ``submit(write)`` does the write at once when nothing is queued and the
    lock comes within ``wait`` seconds; otherwise it queues it (so order is
    kept: a later decision never overtakes an earlier one). ``flush()``
    does queued writes in order until one is still blocked. ``on_change``
    is called with the number pending after every change of it. An error
    other than a busy project (ReadOnlyProject, a constraint) drops that
    write and is raised to the caller of submit/flush, so it is reported,
    never retried forever.
    """

    def __init__(self, project: Project, wait: float = 0.05, on_change: Callable[[int], None] | None = None):
        self.project = project
        self.wait = wait
        self.on_change = on_change
        self._queue: deque[Queued] = deque()

    @property
    def pending(self) -> int:
        """How many writes are waiting."""
        return len(self._queue)

    def labels(self) -> list[str]:
        """The labels of the waiting writes, oldest first."""
        return [q.label for q in self._queue]

    def submit(self, write: Write, label: str = "") -> bool:
        """Write now if possible (True), else queue it behind the writes
        already waiting (False)."""
        item = Queued(write, label)
        self._queue.append(item)
        if len(self._queue) == 1:
            self.flush()
        if any(q is item for q in self._queue):
            self._changed()
            return False
        return True

    def flush(self) -> int:
        """Do the queued writes in order until one finds the project still
        busy. Returns how many were written."""
        written = 0
        while self._queue:
            head = self._queue[0]
            head.tries += 1
            try:
                write_retrying(self.project, head.write, timeout=self.wait)
            except ProjectBusy:
                break
            except Exception:
                self._queue.popleft()
                self._changed()
                raise
            self._queue.popleft()
            written += 1
        if written:
            self._changed()
        return written

    def _changed(self) -> None:
        if self.on_change:
            self.on_change(self.pending)
