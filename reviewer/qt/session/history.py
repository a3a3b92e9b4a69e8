"""The undo history of the window with its writes queued: an edit is never
refused because another program is writing the project.

Every push, undo and redo is an operation on the core UndoStack done inside
one write (reviewer.storage.project.writes.WriteQueue). When the project is free
(the usual case) it is done at once; when another program holds the write
lock longer than ``SUBMIT_WAIT_S``, the operation waits in the queue, in
order behind the others, and a QTimer flushes the queue every
``FLUSH_MS`` until it is empty. Meanwhile the history as the reviewer sees
it (``can_undo``, ``next_undo``, ``history`` ...) is the stack with the
waiting operations played on top, so undo works on a waiting edit as on
any other: its undo is queued behind it.

``written`` tells the session what each operation changed once it is in
the project; ``pendingChanged`` says how many operations wait and why
(for the status bar). No Qt widget, no SQL: plain wiring of core and
storage.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from reviewer.core.commands import Command, DecideFindings, Effect, UndoStack
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.project.writes import WriteQueue

#: Seconds an edit may wait for the lock before it is queued (another
#: writer commits at least every db.BATCH_S, so usually it gets in).
SUBMIT_WAIT_S = 0.15
#: Seconds a timer flush waits for the lock (short: the window stays live).
FLUSH_WAIT_S = 0.03
#: Milliseconds between flushes while something waits.
FLUSH_MS = 100
#: Why queued writes wait (a busy project is the only reason they queue).
LOCKED = "project locked by another program"


@dataclass(eq=False)
class Op:
    """One operation on the history: ``kind`` 'push', 'undo' or 'redo' of
    ``command``."""

    kind: str
    command: Command


class History(QObject):
    """The undo stack of the open project, its writes queued (module doc)."""

    written = Signal(object, object)  # Op, Effect (None when there was nothing to do)
    failed = Signal(object, str)  # Op, why it was dropped
    pendingChanged = Signal(int, str)  # operations waiting, the status line saying so ('' when none)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.stack: UndoStack[Any] = UndoStack()  # the store is the project's (Store and the narrower protocols)
        self.store: Any = None
        self._queue: WriteQueue | None = None
        self._ops: deque[Op] = deque()
        self._done_now: list[tuple[Op, Effect | None]] = []
        self.timer = QTimer(self)
        self.timer.setInterval(FLUSH_MS)
        self.timer.timeout.connect(self.flush)

    # -- the project ---------------------------------------------------------------
    def attach(self, project: Project | None, store) -> None:
        """Work on ``project`` through ``store`` (None: no project). The
        history starts empty; call ``flush(wait)`` first to keep what waits."""
        self.stack.clear()
        self._ops.clear()
        self.store = store
        self._queue = WriteQueue(project, wait=SUBMIT_WAIT_S) if project else None
        self.timer.stop()
        self.pendingChanged.emit(0, "")

    # -- what the reviewer sees ---------------------------------------------------------
    def commands(self) -> tuple[list[Command], list[Command]]:
        """(done, undone) as the reviewer sees them: the stack with the
        waiting operations played on top."""
        done, undone = self.stack.commands()
        for op in self._ops:
            if op.kind == "push":
                done.append(op.command)
                undone.clear()
            elif op.kind == "undo" and done:
                undone.append(done.pop())
            elif op.kind == "redo" and undone:
                done.append(undone.pop())
        return done, undone

    @property
    def can_undo(self) -> bool:
        """There is an edit to undo."""
        return bool(self.commands()[0])

    @property
    def can_redo(self) -> bool:
        """There is an edit to redo."""
        return bool(self.commands()[1])

    def next_undo(self) -> Command | None:
        """The edit undo would revert, or None."""
        done = self.commands()[0]
        return done[-1] if done else None

    def next_redo(self) -> Command | None:
        """The edit redo would do again, or None."""
        undone = self.commands()[1]
        return undone[-1] if undone else None

    def undo_text(self) -> str:
        """Name of the edit undo would revert ('' when none)."""
        command = self.next_undo()
        return command.text if command else ""

    def redo_text(self) -> str:
        """Name of the edit redo would do again ('' when none)."""
        command = self.next_redo()
        return command.text if command else ""

    def history(self) -> list[str]:
        """Names of the done edits, oldest first."""
        return [c.text for c in self.commands()[0]]

    @property
    def pending(self) -> int:
        """Operations waiting to be written."""
        return len(self._ops)

    def pending_ops(self) -> list[Op]:
        """The waiting operations, oldest first."""
        return list(self._ops)

    def waiting_text(self) -> str:
        """'2 decisions waiting: project locked by another program' ('' when none)."""
        n = self.pending
        if not n:
            return ""
        what = "decision" if all(isinstance(op.command, DecideFindings) for op in self._ops) else "edit"
        return f"{n} {what}{'s' if n != 1 else ''} waiting: {LOCKED}"

    # -- doing -------------------------------------------------------------------------
    def push(self, command: Command) -> bool:
        """Do ``command`` (True: written now; False: queued). Raises what
        doing it raised (nothing recorded then)."""
        return self._submit(Op("push", command))

    def undo(self) -> bool | None:
        """Undo the last edit (True: written now, False: queued, None:
        nothing to undo)."""
        command = self.next_undo()
        return None if command is None else self._submit(Op("undo", command))

    def redo(self) -> bool | None:
        """Redo the last undone edit (as ``undo``)."""
        command = self.next_redo()
        return None if command is None else self._submit(Op("redo", command))

    def flush(self, wait: float = FLUSH_WAIT_S) -> int:
        """Write what waits, in order, each waiting up to ``wait`` seconds
        for the lock; returns how many were written. A write that fails
        otherwise is dropped and reported by ``failed``."""
        if self._queue is None or not self._ops:
            self.timer.stop()
            return 0
        self._queue.wait = wait
        try:
            written = self._queue.flush()
        except Exception as exc:  # noqa: BLE001 - reported by ``failed``, never raised into the timer
            dropped = self._sync()
            self._report()
            for op in dropped:
                self.failed.emit(op, str(exc))
            return 0
        finally:
            self._queue.wait = SUBMIT_WAIT_S
        self._sync()
        self._report()
        return written

    def _submit(self, op: Op) -> bool:
        if self._queue is None:
            raise ProjectError("open a project first")
        self._ops.append(op)
        try:
            now = self._queue.submit(lambda: self._do(op), op.command.text)
        except Exception:
            self._sync()
            self._done_now.clear()
            raise
        self._sync()
        self._report()
        return now

    def _do(self, op: Op) -> None:
        """Inside the write transaction: the operation on the real stack.
        An undo or redo whose edit is no longer next (its push failed) does
        nothing."""
        effect: Effect | None
        if op.kind == "push":
            effect = self.stack.push(op.command, self.store)
        elif op.kind == "undo":
            effect = self.stack.undo(self.store) if self.stack.next_undo() is op.command else None
        else:
            effect = self.stack.redo(self.store) if self.stack.next_redo() is op.command else None
        self._done_now.append((op, effect))

    def _sync(self) -> list[Op]:
        """Drop the operations the queue no longer holds (written or
        failed), oldest first; returns those that failed."""
        done = {id(op) for op, _ in self._done_now}
        gone = []
        while self._ops and (self._queue is None or len(self._ops) > self._queue.pending):
            gone.append(self._ops.popleft())
        return [op for op in gone if id(op) not in done]

    def _report(self) -> None:
        finished, self._done_now = self._done_now, []
        for op, effect in finished:
            self.written.emit(op, effect)
        if self._ops:
            if not self.timer.isActive():
                self.timer.start()
        else:
            self.timer.stop()
        self.pendingChanged.emit(len(self._ops), self.waiting_text())
