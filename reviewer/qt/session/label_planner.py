"""The label-first plan of a big project made off the GUI thread.

Making a plan brings the stored fair queue up to date
(reviewer.storage.judging.labels.refresh_queue writes the subjects the
judge scored since, in one short write transaction) and sizes the label
budget over every verdict: on a project with
reviewer.qt.session.disputes.ASYNC_VERDICTS verdicts or more that is
writing work for the writer worker (decision record
"big-projects-stay-interactive"), not for the GUI thread. ``start`` runs
it there (``message`` says so on the status line) and ``planned`` brings
the LabelPlan back; ``failed`` says why there is none. A smaller project
is planned at once by the caller (Session.reads.label_plan).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from reviewer.qt.session.disputes import ASYNC_VERDICTS, verdict_count
from reviewer.qt.session.writer_worker import WriterWorker
from reviewer.storage.judging import label_plan as plans
from reviewer.storage.project.db import Project, ProjectError


def _work(judge: str, dimension: str, reviewer: str) -> Callable[[Any, Any, Any], Any]:
    def plan(project: Project, _progress, _cancelled):
        try:
            return plans.label_plan(project, judge, dimension, reviewer)
        except ValueError as exc:  # no verdict of the judge on the dimension: one line for the status
            raise ProjectError(str(exc)) from exc

    return plan


class LabelPlanner(QObject):
    """Label-first plans made on a writer worker (module doc)."""

    planned = Signal(object)  # LabelPlan
    failed = Signal(str)  # why there is no plan, one line
    message = Signal(str)  # for the status line

    def __init__(self, project: Callable[[], Project | None], parent: QObject | None = None):
        super().__init__(parent)
        self._project = project
        self._for: Project | None = None
        self.writer = WriterWorker(self)
        self.writer.done.connect(self._done)
        self.writer.failed.connect(self._failed)

    def in_background(self) -> bool:
        """The open project is big enough to be planned on the writer
        worker (and lives on disk); False without a project."""
        project = self._project()
        if project is None or project.read_only:
            return False
        try:
            return verdict_count(project) >= ASYNC_VERDICTS
        except sqlite3.Error:
            return False

    def start(self, judge: str, dimension: str, reviewer: str) -> None:
        """Plan ``judge``'s ``dimension`` for ``reviewer`` on the writer
        worker; a plan under way is dropped."""
        project = self._project()
        if project is None:
            return
        self._for = project
        self.message.emit("planning the label-first queue…")
        self.writer.start(project, _work(judge, dimension, reviewer))

    def busy(self) -> bool:
        """A plan is being made."""
        return self.writer.busy()

    def cancel(self) -> None:
        """Drop a plan under way."""
        self.writer.cancel()

    def _done(self, plan) -> None:
        if self._project() is not self._for:  # another project since
            return
        self.message.emit("")
        self.planned.emit(plan)

    def _failed(self, why: str) -> None:
        if self._project() is self._for:
            self.message.emit("")
            self.failed.emit(why)
