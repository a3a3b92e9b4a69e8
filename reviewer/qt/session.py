"""The session: the one model every widget observes.

It owns the open project, the undo stack and what is selected (item, run,
findings, cards, tool, box convention shown, the dispute being adjudicated).
Widgets read from it and call its methods; they keep no domain state of their
own. Every edit goes through ``execute`` as a core Command
(reviewer.qt.session_editing): it is in the database before the signal that
announces it is emitted, or, while another program holds the project,
queued in order and shown as waiting (reviewer.qt.history).

Judging (issue 4): the disputes are found again (``refresh_disputes``) when a
project is opened and after an import; the judge verdicts are cached then
(commands never change them). ``adjudicationsChanged`` follows every command
whose Effect names subjects.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Optional

from PySide6.QtCore import QObject, QTimer, Signal

from reviewer.core.commands import Command
from reviewer.core.judging.verdicts import Verdict
from reviewer.core.models import BoxConvention, GroundTruth, Item, PromptVerdict
from reviewer.storage import previews, repo
from reviewer.storage.db import Project, ProjectError, open_project
from reviewer.storage.importers import ImportOptions, ImportReport, import_source
from reviewer.storage.cards.overview import RunLine
from reviewer.storage.scoring import score_project
from reviewer.storage.cards.scores import ScoredRun, verdicts
from reviewer.storage.store import ProjectStore
from reviewer.qt.history import History
from reviewer.qt.session_editing import EditingMixin
from reviewer.qt.session_judging import JudgingMixin
from reviewer.qt.session_overview import ItemStatus, OverviewMixin  # noqa: F401  (ItemStatus: long imported from here)


#: Milliseconds on a run before it is remembered as where the reviewer left off.
REMEMBER_MS = 400


class Session(EditingMixin, JudgingMixin, OverviewMixin, QObject):
    """Observable state of the review window (see module doc)."""

    projectChanged = Signal()
    itemChanged = Signal()  # current item changed (or its ground truth)
    runChanged = Signal()  # current run changed
    groundTruthChanged = Signal(int)  # item id
    findingsChanged = Signal()  # findings / metrics of runs changed
    findingSelectionChanged = Signal()
    cardSelectionChanged = Signal()
    conventionChanged = Signal()
    toolChanged = Signal(str)
    undoChanged = Signal()
    disputesChanged = Signal()  # disputes found again (open, import)
    disputeChanged = Signal()  # current dispute changed
    adjudicationsChanged = Signal()  # a command changed adjudications
    message = Signal(str)  # a line for the status bar
    error = Signal(str)  # a problem the user must see
    walked = Signal(object)  # the command just undone or redone (views go to what it changed)
    searchChanged = Signal(str)  # the search text changed
    reviewerChanged = Signal(str)  # the reviewer's name changed
    summaryChanged = Signal()  # every run is cached now (reviewer.qt.session_overview)
    scoresChanged = Signal(object)  # T-P1 rows changed: their indexes in score_rows(), None for all

    def __init__(self, reviewer: str = "unknown", parent: Optional[QObject] = None):
        super().__init__(parent)
        self.reviewer = reviewer
        self.project: Optional[Project] = None
        self.store: Optional[ProjectStore] = None
        #: The undo history, its writes queued while the project is busy
        #: (``stack`` is the same object, for the undo actions and tests).
        self.history = self.stack = History(self)
        self.item_id: Optional[int] = None
        self.run_id: Optional[int] = None
        self.selected_findings: list[int] = []
        self.selected_cards: list[int] = []
        self.tool = "select"
        self.convention_override: Optional[BoxConvention] = None
        self._runs: dict[int, ScoredRun] = {}
        self._items: list[Item] = []
        self._items_by_id: dict[int, Item] = {}
        self._gt: dict[int, GroundTruth] = {}
        self.current_dispute_id: Optional[int] = None
        #: The command ``execute`` did last; None after undo or redo (so a
        #: view can amend its own last decision, e.g. to add a rationale).
        self.last_command: Optional[Command] = None
        self._verdicts: list[Verdict] = []
        #: What the search box holds (view state: filters items, runs, disputes).
        self.search = ""
        self._quiet = False
        self._wire_history()
        self._init_overview()
        self._remember_timer = QTimer(self, singleShot=True, interval=REMEMBER_MS, timeout=self._remember_run)

    # -- project ------------------------------------------------------------------
    def open(self, path: Path, create: bool = False) -> bool:
        """Open a project file; emits error and returns False on failure."""
        project = None
        try:
            project = open_project(path, create=create)
            score_project(project, only_stale=True)
        except (ProjectError, sqlite3.Error) as exc:
            if project is not None:
                project.close()
            self.error.emit(str(exc))
            return False
        if self.project is not None:
            if self._remember_timer.isActive():
                self._remember_run()
            if not self.settle():
                project.close()
                self.error.emit(f"{self.history.waiting_text()}; not opening {path} until they are saved")
                return False
            self.project.close()
        self.project, self.store = project, ProjectStore(project, self.reviewer)
        self.history.attach(project, self.store)
        self._previewed = set()
        self.last_command = None
        self._reload()
        self.item_id = self.run_id = None
        self.selected_findings, self.selected_cards = [], []
        self.current_dispute_id = None
        self.refresh_disputes()
        self.projectChanged.emit()
        self.undoChanged.emit()
        last = self.project.meta("view.run")
        if last and last.isdigit() and self._load_run(int(last)) is not None:
            self.set_run(int(last))  # where the reviewer left off
        elif self.items():
            self.set_item(self.items()[0].item.id)
        return True

    def import_source(self, source: Path, model: Optional[str] = None) -> Optional[ImportReport]:
        """Import a folder or file into the open project and score it."""
        if self.project is None:
            self.error.emit("open or create a project first")
            return None
        try:
            report = import_source(self.project, source, options=ImportOptions(model=model, actor=self.reviewer))
            score_project(self.project, only_stale=True)
        except ProjectError as exc:
            self.error.emit(str(exc))
            return None
        self._reload()
        self.refresh_disputes()
        self.projectChanged.emit()
        if self.item_id is None and self.items():
            self.set_item(self.items()[0].item.id)
        self.message.emit(report.summary().replace("\n", "; "))
        return report

    def _reload(self) -> None:
        """Read the items again and forget the cached runs (reviewer.qt.session_overview)."""
        self._items = repo.items(self.project) if self.project else []  # items change only by import
        self._items_by_id = {i.id: i for i in self._items}
        self._gt.clear()
        self._reset_overview()

    # -- reading ------------------------------------------------------------------------
    def items(self) -> list[ItemStatus]:
        """Every item with counts of ground-truth cards, runs and reviewed runs
        (kept up to date by edits: no query)."""
        return list(self._statuses) if self.project is not None else []

    def item(self) -> Optional[Item]:
        """The current item."""
        if self.project is None or self.item_id is None:
            return None
        return self._items_by_id.get(self.item_id)

    def image_path(self, item: Optional[Item] = None) -> Optional[Path]:
        """Absolute path of an item's photo (the current one by default)."""
        item = item or self.item()
        if item is None or item.path is None or self.project is None:
            return None
        return self.project.resolve(item.path)

    def preview(self, item: Item) -> Optional[bytes]:
        """The stored preview JPEG of a photo item, or None."""
        if self.project is None or item.kind != "photo":
            return None
        return previews.preview(self.project, item.sha256)

    def ground_truth(self, item_id: Optional[int] = None) -> GroundTruth:
        """Ground truth of an item (the current one by default), cached."""
        item_id = self.item_id if item_id is None else item_id
        if item_id is None or self.project is None:
            return GroundTruth(item="")
        if item_id not in self._gt:
            self._gt[item_id] = repo.ground_truth(self.project, item_id)
        return self._gt[item_id]

    def runs(self, item_id: Optional[int] = None) -> list[ScoredRun]:
        """Scored runs of an item (the current one by default), read by
        item when first asked for, then cached."""
        item_id = self.item_id if item_id is None else item_id
        self._ensure_item(item_id)
        return [self._runs[i] for i in self._by_item.get(item_id, [])]

    def progress(self) -> dict[str, int]:
        """Review progress of the project: findings, decided findings, runs,
        and runs reviewed (every finding decided, or none to decide)."""
        counts = self._counts.values()
        return {"findings": sum(c.findings for c in counts), "decided": sum(c.decided for c in counts),
                "runs": sum(c.runs for c in counts), "runs_reviewed": sum(c.reviewed for c in counts)}

    def run_lines(self) -> list[RunLine]:
        """Every scored run of the project as a RunLine (who made it, its
        metrics, findings and search text; reviewer.storage.cards.overview) once
        the summary is in (``summary_ready``); until then those of the runs
        cached so far. A run's whole ScoredRun: ``run()`` / ``runs()``."""
        return list(self._lines.values())

    def scored_run(self, run_id: Optional[int]) -> Optional[ScoredRun]:
        """The whole ScoredRun ``run_id`` (its item's runs read when not
        cached), or None."""
        return self._load_run(run_id)

    def has_run(self, run_id: Optional[int]) -> bool:
        """The run is one of the project's scored runs the session knows."""
        return run_id in self._lines

    def run(self) -> Optional[ScoredRun]:
        """The current run."""
        return self._runs.get(self.run_id) if self.run_id in self._runs else self._load_run(self.run_id)

    def convention(self) -> Optional[BoxConvention]:
        """The box convention the predicted boxes are drawn in: the user's
        choice, else the one detected for the current run."""
        run = self.run()
        return self.convention_override or (run.facts.box_convention if run else None)

    def verdicts(self, reviewed: bool) -> list[PromptVerdict]:
        """T-P1 verdicts of the project (automatic or reviewed)."""
        if self.project is None:
            return []
        if self._score_rows is not None:
            return [r if reviewed else a for a, r in self._score_rows if not reviewed or r is not None]
        return verdicts(self.project, reviewed=reviewed)

    # -- selection ------------------------------------------------------------------------
    def set_item(self, item_id: Optional[int]) -> None:
        """Make ``item_id`` current and select its first run that still
        needs review (else its first scored run)."""
        if item_id == self.item_id:
            return
        self.item_id = item_id
        self.selected_cards = []
        self.itemChanged.emit()
        self.cardSelectionChanged.emit()
        runs = self.runs()
        pending = [r for r in runs if any(f.status.value == "proposed" for f in r.findings)]
        first = pending or [r for r in runs if r.facts.scored] or runs
        self.set_run(first[0].run["id"] if first else None)

    def set_run(self, run_id: Optional[int]) -> None:
        """Make ``run_id`` current (its item too) and select its first finding."""
        run = self._load_run(run_id)
        if run and run.run["item_id"] != self.item_id:
            self.item_id = run.run["item_id"]
            self.selected_cards = []
            self.itemChanged.emit()
        self.run_id = run_id
        if run is not None and self.project is not None:
            self._remember_timer.start()  # written once the reviewer stays on it (no write per key)
        self.convention_override = None
        self.selected_findings = [run.findings[0].id] if run and run.findings else []
        self.runChanged.emit()
        self.conventionChanged.emit()
        self.findingSelectionChanged.emit()

    def _remember_run(self, run_id: Optional[int] = None) -> None:
        """Keep the current run in the project (meta 'view.run'), so the
        project opens where the reviewer left off; a locked file just skips it."""
        self._remember_timer.stop()
        run_id = self.run_id if run_id is None else run_id
        if run_id is None or self.project is None or self.read_only:
            return
        try:
            with self.project.transaction(timeout=0):  # one try: never wait for another writer here
                self.project.set_meta("view.run", str(run_id))
        except (ProjectError, sqlite3.Error):
            pass

    def select_findings(self, ids: list[int]) -> None:
        """Select findings of the current run."""
        self.selected_findings = list(ids)
        self.findingSelectionChanged.emit()

    def select_cards(self, ids: list[int]) -> None:
        """Select ground-truth cards of the current item."""
        self.selected_cards = list(ids)
        self.cardSelectionChanged.emit()

    def set_convention(self, convention: Optional[BoxConvention]) -> None:
        """Draw predicted boxes in ``convention`` (None: as detected)."""
        self.convention_override = convention
        self.conventionChanged.emit()

    def set_tool(self, tool: str) -> None:
        """The canvas tool: 'select', 'pile' or 'card'."""
        self.tool = tool
        self.toolChanged.emit(tool)

    def set_reviewer(self, name: str) -> None:
        """Record later decisions (and audit rows) under ``name``."""
        self.reviewer = name
        if self.store is not None:
            self.store.actor = name
        self.reviewerChanged.emit(name)

    def set_search(self, text: str) -> None:
        """Filter items, runs and disputes by ``text`` (see reviewer.qt.search)."""
        text = text.strip()
        if text != self.search:
            self.search = text
            self.searchChanged.emit(text)

    def card_texts(self) -> dict[int, list[str]]:
        """{item id: ground-truth card texts} (for search)."""
        return repo.card_texts(self.project) if self.project is not None else {}

    def close(self) -> None:
        """Close the project (after writing the edits still waiting, for up
        to editing.SETTLE_S seconds; what is still waiting then is lost and
        said on the error signal)."""
        if self.project is not None:
            if self._remember_timer.isActive():
                self._remember_run()
            if not self.settle():
                self.error.emit(f"{self.history.waiting_text()}: not saved")
            self.project.close()
            self.project = self.store = None
            self._runs, self._items, self._items_by_id, self.item_id, self.run_id = {}, [], {}, None, None
            self._reset_overview()
            self._verdicts, self.current_dispute_id, self.last_command = [], None, None
            self.history.attach(None, None)
            self.projectChanged.emit()
