"""The editing part of the Session: every edit is a core Command done
through the queued history (reviewer.qt.history), so an edit is never
refused because another program is writing the project.

A mixin of reviewer.qt.session.Session (which owns the signals, the
project and the cached runs). An edit written at once refreshes what it
touched as before; an edit that must wait is kept in order, the status bar
says so (``history.pendingChanged``), and a waiting decision is shown as
made (its findings' status and the reviewed metrics) until it is written,
so the review keys go on as usual. Undo and redo of a waiting edit are
queued behind it.

A read-only project (``Project.read_only``) takes no edit: ``execute``
says why and returns False.
"""

from __future__ import annotations

import sqlite3
from typing import Optional

from reviewer.core.commands import Command, Effect
from reviewer.storage.db import ProjectError
from reviewer.storage.cards.overview import scored_runs_of
from reviewer.storage.scoring import score_project
from reviewer.storage.cards.scores import scored_runs
from reviewer.qt.history import Op, play_pending, runs_of

#: Seconds opening another project (or closing) waits for edits still queued.
SETTLE_S = 5.0


class EditingMixin:
    """Edits, undo and redo of a Session (see module doc)."""

    def _wire_history(self) -> None:
        """Connect the history's reports (call once from __init__)."""
        self._previewed: set[int] = set()
        self.history.written.connect(self._written)
        self.history.failed.connect(self._failed)

    @property
    def read_only(self) -> Optional[str]:
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
        if self.store is None:
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
            self._show_pending()
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
        if self.store is None:
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
            self._show_pending()
        self.message.emit(f"{kind}ne: {command.text}" + ("" if now else " · waiting to be saved"))
        if not self._quiet:
            self.walked.emit(command)
        return True

    # -- what was written -----------------------------------------------------------------------
    def _written(self, op: Op, effect: Optional[Effect]) -> None:
        """An operation is in the project: refresh what it touched, and
        show the decisions still waiting on top."""
        if effect is not None:
            self._after(effect)
        if self.history.pending or self._previewed:
            self._show_pending()
        self.undoChanged.emit()

    def _failed(self, op: Op, why: str) -> None:
        self.error.emit(f"could not save '{op.command.text}': {why}")
        self._show_pending()
        self.undoChanged.emit()

    def _show_pending(self) -> None:
        """Reload the runs the waiting decisions touch (and those shown
        with waiting decisions before) and play the waiting decisions on
        them; tell the views."""
        if self.project is None:
            return
        ops = self.history.pending_ops()
        runs = runs_of(self._runs, ops) | self._previewed
        try:
            self._put_runs(scored_runs(self.project, runs))
        except (ProjectError, sqlite3.Error):
            pass  # the cache stays as it is; the decisions are shown on it
        self._previewed = play_pending(self._runs, ops)
        self._touched(runs | self._previewed)
        if runs or self._previewed:
            live = {f.id for f in (self.run().findings if self.run() else [])}
            self.selected_findings = [i for i in self.selected_findings if i in live]
            self.findingsChanged.emit()
        self.changed_runs = self.changed_items = None
        self.undoChanged.emit()

    def _after(self, effect: Effect) -> None:
        """Re-score runs of items whose ground truth changed, reload the
        runs whose findings changed, and tell the views."""
        runs = set(effect.runs)
        try:
            for item_id in effect.items:
                self._gt.pop(item_id, None)
                self._recard(item_id)
                ids = [r.run["id"] for r in self.runs(item_id)]
                if ids:
                    score_project(self.project, run_ids=ids)
                    runs.update(ids)
            if runs:
                self._put_runs(scored_runs_of(self.project, sorted(runs)))
        except (ProjectError, sqlite3.Error) as exc:
            # the edit itself is written; only the derived scores lag behind
            self.error.emit(f"the edit is saved, but re-scoring failed: {exc}")
        if runs:
            live = {f.id for f in (self.run().findings if self.run() else [])}
            self.selected_findings = [i for i in self.selected_findings if i in live]
        for item_id in effect.items:
            self.groundTruthChanged.emit(item_id)
        if runs:
            self.findingsChanged.emit()
        self.changed_runs = self.changed_items = None
        if effect.subjects:
            self.adjudicationsChanged.emit()
        self.undoChanged.emit()
