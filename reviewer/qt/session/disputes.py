"""The judging part of the Session: disputes, the judge verdicts, the
dispute being adjudicated, and the reads the adjudication view shows beside
them.

``DisputeState`` is owned by the Session, which forwards its signals. The
disputes are found again when a project is opened and after an import
(``refresh``), and the judge verdicts are cached then (commands never
change them). On a project with ASYNC_VERDICTS verdicts or more the
refresh is writing work off the GUI thread (decision record
"big-projects-stay-interactive"): it runs on a WriterWorker (a connection
of its own, the same short write transaction as ever), the message line
says so, and disputesChanged comes when it is done. Either way the
verdicts, their index by subject, the raters' names and the stored
disputes are read together (reviewer.qt.session.judging_read), on the
worker for a big project, and kept: the views told ask the state, which
answers from what was read (the disputes read again only when the table's
stamp says another writer changed them).
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace

from PySide6.QtCore import QObject, Signal

from reviewer.core.judging.dispute_common import RaterKey
from reviewer.core.judging.verdicts import Adjudication, Dispute, Verdict
from reviewer.qt.session.judging_read import EMPTY, JudgingRead, read_judging, with_disputes
from reviewer.qt.session.writer_worker import WriterWorker
from reviewer.storage import dispute_queue
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

#: Verdicts from which the disputes are found on the writer worker (fewer:
#: at once, on the GUI thread, as the window's tests expect).
ASYNC_VERDICTS = 1_000


def verdict_count(project: Project) -> int:
    """How many verdicts the project holds (one count over the table)."""
    return project.db.execute("SELECT count(*) FROM verdicts").fetchone()[0]


def _find_disputes(project: Project, progress, cancelled) -> JudgingRead | None:
    """The writer's work: the disputes found again and stored (one short
    write transaction), then the verdicts and disputes read with what the
    views derive from them (judging_read.read_judging), so the GUI thread
    only takes the result; None when cancelled."""
    progress(0, 2)
    if judging.has_judging(project):
        dispute_queue.refresh_disputes(project)
    if cancelled():
        return None
    progress(1, 2)
    return read_judging(project)


class DisputeState(QObject):
    """Disputes, cached verdicts and the current dispute of the open project."""

    disputesChanged = Signal()  # disputes found again (open, import)
    disputeChanged = Signal()  # current dispute changed
    error = Signal(str)
    message = Signal(str)  # the background refresh's progress, for the status line

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.current_dispute_id: int | None = None
        #: what the views read: verdicts, their index, names and the stored disputes (judging_read)
        self._read: JudgingRead = EMPTY
        self._telling = False  # disputesChanged is being emitted: the disputes are the ones just read
        self._waiting = False  # a refresh put off until refresh_waiting
        #: how many times the views were told the disputes changed (a view shown since needs no refresh)
        self.generation = 0
        #: the background refresh of a big project (module doc)
        self.writer = WriterWorker(self)
        self.writer.done.connect(self._found)
        self.writer.failed.connect(lambda why: self.error.emit(f"could not find disputes: {why}"))
        self.writer.failed.connect(lambda _: self.message.emit(""))

    def attach(self, project: Project | None) -> None:
        """Work on ``project`` (None: none); no dispute is current, no verdict
        cached, a background refresh of the project before is dropped."""
        self.writer.cancel()
        self.project, self.current_dispute_id, self._read = project, None, EMPTY
        self._waiting = False

    def refreshing(self) -> bool:
        """The disputes are being found on the writer worker (a big
        project), or wait to be (``refresh_later``)."""
        return self.writer.busy() or self._waiting

    def in_background(self) -> bool:
        """A refresh would find the disputes on the writer worker: the
        project is on disk and holds ASYNC_VERDICTS verdicts or more."""
        if self.project is None or self.project.read_only:
            return False
        try:
            return verdict_count(self.project) >= ASYNC_VERDICTS
        except sqlite3.Error:
            return False

    def refresh_later(self) -> None:
        """Find the disputes when ``refresh_waiting`` is called, not now: the
        Session waits for the summary's worker, so the two workers do not run
        side by side (a worker running Python holds the interpreter half the
        time, and the GUI thread applying the other's result waits for it).
        ``refreshing`` holds meanwhile."""
        self.writer.cancel()
        self._waiting = True
        self.message.emit("finding disputes…")

    def refresh_waiting(self) -> None:
        """Do the refresh ``refresh_later`` put off, if there is one."""
        if self._waiting:
            self.refresh()

    def refresh(self) -> None:
        """Find the disputes over every verdict again and store them
        (reviewer.storage.dispute_queue.refresh_disputes; skipped when the
        project has neither verdicts nor disputes), cache the verdicts and
        emit disputesChanged. Called on open and after an import. With
        ASYNC_VERDICTS verdicts or more (and a project on disk) this
        returns at once and the work is done on the writer worker."""
        self._waiting = False
        if self.in_background():
            assert self.project is not None  # in_background says so
            self.message.emit("finding disputes…")
            self.writer.start(self.project, _find_disputes)
            return
        self.writer.cancel()  # a refresh at once supersedes one in the background
        self._read = EMPTY
        if self.project is not None:
            try:
                if judging.has_judging(self.project):
                    dispute_queue.refresh_disputes(self.project)
                self._read = read_judging(self.project)
            except (ProjectError, sqlite3.Error) as exc:
                self.error.emit(f"could not find disputes: {exc}")
        self._settle()

    def show_stored(self) -> None:
        """Tell the views about the disputes as stored, without finding them
        again (open does that after the stale runs are scored)."""
        self.writer.cancel()
        self._waiting = False
        if self.project is not None:
            try:
                self._read = read_judging(self.project, verdicts=False)
            except (ProjectError, sqlite3.Error) as exc:
                self.error.emit(f"could not read the disputes: {exc}")
        self._settle()

    def _found(self, read: JudgingRead | None) -> None:
        """The writer found and stored the disputes and read them (``read``)."""
        if self.project is None or read is None:
            return
        self._read = read
        self._settle()
        self.message.emit(f"disputes found: {len(read.disputes)}")

    def _settle(self) -> None:
        current = self.current_dispute_id
        if current is not None and all(d.id != current for d in self._read.disputes):
            self.current_dispute_id = None
        self.generation += 1
        self._telling = True  # every view told below reads the disputes just read, without a stamp
        try:
            self.disputesChanged.emit()
        finally:
            self._telling = False

    def disputes(self) -> list[Dispute]:
        """The stored disputes, most severe first: the ones read with the
        verdicts (refresh), read again only when the table's stamp
        (reviewer.storage.judging.verdicts.disputes_stamp) says they changed
        since, e.g. written by another program."""
        if self.project is None:
            return []
        if not self._telling:
            try:
                stamp = judging.disputes_stamp(self.project)
            except sqlite3.Error:
                stamp = None
            if stamp is None or stamp != self._read.stamp:
                self._read = with_disputes(self._read, self.project)
        return list(self._read.disputes)

    def dispute(self) -> Dispute | None:
        """The current dispute (``current_dispute_id``), or None."""
        if self.current_dispute_id is None:
            return None
        return next((d for d in self.disputes() if d.id == self.current_dispute_id), None)

    def set_dispute(self, dispute_id: int | None) -> None:
        """Make ``dispute_id`` the dispute being adjudicated."""
        if dispute_id != self.current_dispute_id:
            self.current_dispute_id = dispute_id
            self.disputeChanged.emit()

    def judge_verdicts(self, subject: str | None = None) -> list[Verdict]:
        """Judge (and human) verdicts of one subject, or all, in id order
        (cached at open/import: commands never change verdicts)."""
        if subject is None:
            return list(self._read.verdicts)
        return list(self._read.by_subject.get(subject, ()))

    def rater_labels(self) -> dict[RaterKey, str]:
        """A display name per rater of every cached verdict
        (reviewer.core.judging.dispute_common.rater_labels, made once per refresh)."""
        return self._read.labels

    def verdict_names(self) -> dict[int, str]:
        """{verdict id: its rater's display name} of every cached verdict (made once per refresh)."""
        return self._read.names

    def dispute_raters(self) -> dict[int, frozenset[str]]:
        """{dispute id: the display names of its verdicts' raters} of the
        stored disputes (made with them, on the worker for a big project)."""
        self.disputes()  # read again if another writer changed them
        return self._read.raters

    def dispute_items(self) -> dict[int, str]:
        """{dispute id: the item name of its subject's run} of the stored
        disputes whose subject names a run (made with them)."""
        self.disputes()
        return self._read.items

    def adjudications(self) -> list[Adjudication]:
        """Every adjudication of the project."""
        return judging.adjudications(self.project) if self.project is not None else []

    def references(self, item_id: int) -> list[tuple[str, str]]:
        """(source, text) of an item's reference answers."""
        return judging.references(self.project, item_id) if self.project is not None else []

    def subject_metrics(self, subject: str) -> dict:
        """Structural metrics of a subject ({} when none)."""
        return judging.subject_metrics(self.project).get(subject, {}) if self.project is not None else {}

    def run_items(self) -> dict[int, str]:
        """{run id: its item's name} of every run: read with the disputes
        (refresh), else now (one query), and kept until they change."""
        if self.project is None:
            return {}
        if self._read.run_items is None:
            self._read = replace(self._read, run_items=repo_items.run_item_names(self.project))
        assert self._read.run_items is not None
        return self._read.run_items

    def run_by_id(self, run_id: int | None) -> dict | None:
        """A run row (reviewer.storage.repo.runs.run_rows: item, prompt, model,
        repetition, output, ...) with its ``item_kind``, ``item_text`` and
        ``item_path``; None when there is no such run."""
        if self.project is None or run_id is None:
            return None
        rows = repo_runs.run_rows(self.project, [run_id])
        if not rows:
            return None
        row = rows[0]
        item = repo_items.item_by_name(self.project, row["item"])
        row.update(
            item_kind=item.kind if item else None,
            item_text=item.text if item else None,
            item_path=item.path if item else None,
        )
        return row
