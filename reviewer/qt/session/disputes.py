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
says so, and disputesChanged comes when it is done.
"""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import QObject, Signal

from reviewer.core.judging.verdicts import Adjudication, Dispute, Verdict
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


def _find_disputes(project: Project, progress, cancelled) -> list[Verdict] | None:
    """The writer's work: the disputes found again and stored (one short
    write transaction), then every verdict read; None when cancelled."""
    progress(0, 2)
    if judging.has_judging(project):
        dispute_queue.refresh_disputes(project)
    if cancelled():
        return None
    progress(1, 2)
    return judging.verdicts(project)


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
        self._verdicts: list[Verdict] = []
        self._told: list[Dispute] | None = None  # the disputes while disputesChanged is emitted
        self._indexed: list[Verdict] | None = None  # the verdicts _by_subject was made from
        self._by_subject: dict[str, list[Verdict]] = {}
        #: the background refresh of a big project (module doc)
        self.writer = WriterWorker(self)
        self.writer.done.connect(self._found)
        self.writer.failed.connect(lambda why: self.error.emit(f"could not find disputes: {why}"))
        self.writer.failed.connect(lambda _: self.message.emit(""))

    def attach(self, project: Project | None) -> None:
        """Work on ``project`` (None: none); no dispute is current, no verdict
        cached, a background refresh of the project before is dropped."""
        self.writer.cancel()
        self.project, self.current_dispute_id, self._verdicts = project, None, []

    def refreshing(self) -> bool:
        """The disputes are being found on the writer worker (a big project)."""
        return self.writer.busy()

    def refresh(self) -> None:
        """Find the disputes over every verdict again and store them
        (reviewer.storage.dispute_queue.refresh_disputes; skipped when the
        project has neither verdicts nor disputes), cache the verdicts and
        emit disputesChanged. Called on open and after an import. With
        ASYNC_VERDICTS verdicts or more (and a project on disk) this
        returns at once and the work is done on the writer worker."""
        if self.project is not None and not self.project.read_only:
            try:
                many = verdict_count(self.project) >= ASYNC_VERDICTS
            except sqlite3.Error:
                many = False
            if many:
                self.message.emit("finding disputes…")
                self.writer.start(self.project, _find_disputes)
                return
        self.writer.cancel()  # a refresh at once supersedes one in the background
        self._verdicts = []
        if self.project is not None:
            try:
                if judging.has_judging(self.project):
                    dispute_queue.refresh_disputes(self.project)
                self._verdicts = judging.verdicts(self.project)
            except (ProjectError, sqlite3.Error) as exc:
                self.error.emit(f"could not find disputes: {exc}")
        self._settle()

    def show_stored(self) -> None:
        """Tell the views about the disputes as stored, without finding them
        again (open does that after the stale runs are scored)."""
        self.writer.cancel()
        self._settle()

    def _found(self, verdicts: list[Verdict] | None) -> None:
        """The writer found and stored the disputes and read ``verdicts``."""
        if self.project is None or verdicts is None:
            return
        self._verdicts = verdicts
        self._settle()
        self.message.emit(f"disputes found: {len(self.disputes())}")

    def _settle(self) -> None:
        self._told = self.disputes()  # read once for every view told below (each asks again)
        try:
            if self.current_dispute_id not in {d.id for d in self._told}:
                self.current_dispute_id = None
            self.disputesChanged.emit()
        finally:
            self._told = None

    def disputes(self) -> list[Dispute]:
        """The stored disputes, most severe first (read once while the views
        are told that they changed)."""
        if self._told is not None:
            return list(self._told)
        return judging.disputes(self.project) if self.project is not None else []

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
            return list(self._verdicts)
        if self._indexed is not self._verdicts:  # the verdicts were read again: index them by subject once
            self._by_subject = {}
            for v in self._verdicts:
                self._by_subject.setdefault(v.subject, []).append(v)
            self._indexed = self._verdicts
        return list(self._by_subject.get(subject, ()))

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
        """{run id: its item's name} of every run (one query)."""
        if self.project is None:
            return {}
        return repo_items.run_item_names(self.project)

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
