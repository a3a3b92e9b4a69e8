"""The judging part of the Session: disputes, the judge verdicts, the
dispute being adjudicated, and the reads the adjudication view shows beside
them.

``DisputeState`` is owned by the Session, which forwards its signals. The
disputes are found again when a project is opened and after an import
(``refresh``), and the judge verdicts are cached then (commands never
change them).
"""

from __future__ import annotations

import sqlite3
from typing import Optional

from PySide6.QtCore import QObject, Signal

from reviewer.core.judging.verdicts import Adjudication, Dispute, Verdict
from reviewer.storage import dispute_queue
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project, ProjectError


class DisputeState(QObject):
    """Disputes, cached verdicts and the current dispute of the open project."""

    disputesChanged = Signal()  # disputes found again (open, import)
    disputeChanged = Signal()  # current dispute changed
    error = Signal(str)

    def __init__(self, parent: Optional[QObject] = None):
        super().__init__(parent)
        self.project: Optional[Project] = None
        self.current_dispute_id: Optional[int] = None
        self._verdicts: list[Verdict] = []

    def attach(self, project: Optional[Project]) -> None:
        """Work on ``project`` (None: none); no dispute is current, no verdict cached."""
        self.project, self.current_dispute_id, self._verdicts = project, None, []

    def refresh(self) -> None:
        """Find the disputes over every verdict again and store them
        (reviewer.storage.dispute_queue.refresh_disputes; skipped when the
        project has neither verdicts nor disputes), cache the verdicts and
        emit disputesChanged. Called on open and after an import."""
        self._verdicts = []
        if self.project is not None:
            try:
                if judging.has_judging(self.project):
                    dispute_queue.refresh_disputes(self.project)
                self._verdicts = judging.verdicts(self.project)
            except (ProjectError, sqlite3.Error) as exc:
                self.error.emit(f"could not find disputes: {exc}")
        ids = {d.id for d in self.disputes()}
        if self.current_dispute_id not in ids:
            self.current_dispute_id = None
        self.disputesChanged.emit()

    def disputes(self) -> list[Dispute]:
        """The stored disputes, most severe first."""
        return judging.disputes(self.project) if self.project is not None else []

    def dispute(self) -> Optional[Dispute]:
        """The current dispute (``current_dispute_id``), or None."""
        if self.current_dispute_id is None:
            return None
        return next((d for d in self.disputes() if d.id == self.current_dispute_id), None)

    def set_dispute(self, dispute_id: Optional[int]) -> None:
        """Make ``dispute_id`` the dispute being adjudicated."""
        if dispute_id != self.current_dispute_id:
            self.current_dispute_id = dispute_id
            self.disputeChanged.emit()

    def judge_verdicts(self, subject: Optional[str] = None) -> list[Verdict]:
        """Judge (and human) verdicts of one subject, or all, in id order
        (cached at open/import: commands never change verdicts)."""
        return [v for v in self._verdicts if subject is None or v.subject == subject]

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

    def run_by_id(self, run_id: Optional[int]) -> Optional[dict]:
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
