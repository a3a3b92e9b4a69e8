"""The session: the one model every widget observes.

It is composed of owned parts, each with its own state, none changing
another's (see docs/decisions/session-composed-of-parts.md):

* ``cache``: the RunCache (reviewer.qt.session.runs, no Qt): items,
  ground truth, scored runs, review counts and T-P1 rows, read when asked;
* ``summariser``: the Summariser (reviewer.qt.session.summary): the
  summary of a big project on a worker thread;
* ``judging``: the DisputeState (reviewer.qt.session.disputes): disputes,
  judge verdicts and the dispute being adjudicated (the adjudication view
  reads verdicts, references and metrics from it directly);
* ``reads``: the ProjectReads (reviewer.qt.session.reads): what the
  widgets read of the project beside the cache (annotators, test cases,
  verdicts, spans, labels), never from reviewer.storage themselves;
* ``editor``: the Editor (reviewer.qt.session.editor): every edit a core
  Command through the queued history (reviewer.qt.session.history), in
  the database before the signal that announces it is emitted, or, while
  another program holds the project, queued in order and shown as waiting.

The Session owns the open project and what is selected (item, run,
findings, cards, tool, box convention shown, search), forwards the parts'
signals and reads to the widgets, and ties them together: after an edit is
written it re-scores and re-reads what the edit touched into the cache and
tells the views. Widgets keep no domain state of their own.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from reviewer.core.commands import Command, Effect
from reviewer.core.judging.verdicts import Adjudication, Dispute
from reviewer.core.models import BoxConvention, GroundTruth, Item, PromptVerdict
from reviewer.core.workflows import AnyWorkflow
from reviewer.qt.session import summary
from reviewer.qt.session.collector import keep_long_lived, pause_collector, release_long_lived
from reviewer.qt.session.disputes import DisputeState
from reviewer.qt.session.editor import SETTLE_S, Editor
from reviewer.qt.session.facts import FailterItems
from reviewer.qt.session.item_status import ItemStatus
from reviewer.qt.session.label_planner import LabelPlanner
from reviewer.qt.session.reads import ProjectReads
from reviewer.qt.session.rows import Row, read_summary
from reviewer.qt.session.runs import RunCache
from reviewer.qt.session.writer_worker import WriterWorker
from reviewer.storage.cards import overview
from reviewer.storage.cards.scores import ScoredRun, verdicts
from reviewer.storage.files import previews
from reviewer.storage.importers import ImportOptions, ImportReport, import_source
from reviewer.storage.project.db import Project, ProjectError, open_project
from reviewer.storage.repo import config as repo_config
from reviewer.storage.repo import items as repo_items
from reviewer.storage.scoring import score_project
from reviewer.storage.store import ProjectStore

#: Milliseconds on a run before it is remembered as where the reviewer left off.
REMEMBER_MS = 400


#: From this many stale runs on, opening a project scores them on the writer
#: worker after the window shows (fewer are scored at once, before it shows).
ASYNC_STALE_RUNS = 1_000


def _stale_runs(project: Project) -> int:
    """How many runs are not scored with the project's scoring config (two
    counts from indexes, as score_runs asks)."""
    version = repo_config.current_config(project).version
    scored = project.db.execute(
        "SELECT count(*) FROM run_scores WHERE config_version = ? AND strict = 0", [version]
    ).fetchone()[0]
    return max(0, project.db.execute("SELECT count(*) FROM runs").fetchone()[0] - scored)


def _score_stale(project, progress, cancelled) -> int:
    """The writer's work after open: the stale runs scored (reviewer.storage.scoring),
    in short write transactions; returns how many the card scorer scored."""
    return score_project(project, only_stale=True, progress=progress)


__all__ = ["ItemStatus", "REMEMBER_MS", "Session"]


class Session(QObject):
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
    summaryChanged = Signal()  # every run is cached now (reviewer.qt.session.summary)
    scoresChanged = Signal(object)  # T-P1 rows changed: their indexes in score_rows(), None for all
    factsChanged = Signal()  # facts read off the GUI thread arrived (which items have Failter verdicts)

    def __init__(self, reviewer: str = "unknown", parent: QObject | None = None):
        super().__init__(parent)
        self.reviewer = reviewer
        self.project: Project | None = None
        self.store: ProjectStore | None = None
        self.cache = RunCache()
        self.summariser = summary.Summariser(self)
        self.judging = DisputeState(self)
        #: the label-first plan of a big project, made on a writer worker
        self.planner = LabelPlanner(lambda: self.project, self)
        self.planner.message.connect(self.message)
        self.reads = ProjectReads(self)
        self.failter_items = FailterItems(self)
        self.failter_items.known.connect(self.factsChanged.emit)
        self.editor = Editor(self)
        #: The undo history, its writes queued while the project is busy
        #: (``stack`` is the same object, for the undo actions and tests).
        self.history = self.stack = self.editor.history
        self.item_id: int | None = None
        self.run_id: int | None = None
        self.selected_findings: list[int] = []
        self.selected_cards: list[int] = []
        self.tool = "select"
        self.convention_override: BoxConvention | None = None
        #: What the search box holds (view state: filters items, runs, disputes).
        self.search = ""
        self.summariser.done.connect(self._summary_done)
        for part, names in (
            (self.judging, ("disputesChanged", "disputeChanged", "error", "message")),
            (self.editor, ("undoChanged", "walked", "message", "error")),
        ):
            for name in names:
                getattr(part, name).connect(getattr(self, name))
        self.editor.written.connect(self._written)
        self.editor.queued.connect(self._show_pending)
        self._remember_timer = QTimer(self)
        self._remember_timer.setSingleShot(True)
        self._remember_timer.setInterval(REMEMBER_MS)
        self._remember_timer.timeout.connect(self._remember_run)
        #: Writing work off the GUI thread: the stale runs scored after open.
        self.scorer = WriterWorker(self)
        self.scorer.progress.connect(self._scoring_progress)
        self.scorer.done.connect(self._scored)
        self.judging.writer.done.connect(lambda _result: self._keep_if_big())  # after the disputes are in
        self.judging.writer.failed.connect(lambda _why: self._keep_if_big())
        self.scorer.failed.connect(lambda _why: self._keep_if_big())
        self.scorer.failed.connect(lambda text: self.error.emit(f"could not score the stale runs: {text}"))

    # -- project ------------------------------------------------------------------
    def open(self, path: Path, create: bool = False) -> bool:
        """Open a project file; emits error and returns False on failure."""
        project = None
        try:
            project = open_project(path, create=create)
            background = not project.read_only and _stale_runs(project) >= ASYNC_STALE_RUNS
            if not background:  # in memory, or little to do: at once
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
            release_long_lived()  # the project closed: its cycles may be collected
        self.project, self.store = project, ProjectStore(project, self.reviewer)
        self.editor.attach(project, self.store)
        self.cache.forget_previewed()
        self.reload()
        self.item_id = self.run_id = None
        self.selected_findings, self.selected_cards = [], []
        self.judging.attach(project)
        if background:  # the disputes are found once the scores are in (``_scored``); the stored ones meanwhile
            self.judging.show_stored()
        else:
            self.judging.refresh()
        self.projectChanged.emit()
        self.undoChanged.emit()
        last = self.project.meta("view.run")
        if last and last.isdigit() and self.cache.load_run(int(last)) is not None:
            self.set_run(int(last))  # where the reviewer left off
        elif self.items():
            self.set_item(self.items()[0].id)
        if background:
            self.scorer.start(project, _score_stale)  # the window is up; the stale runs are scored meanwhile
        if self.cache.total_runs() > summary.SYNC_RUNS and self.busy():
            pause_collector()  # until the workers' results are in (_keep_if_big)
        self._keep_if_big()
        return True

    def _keep_if_big(self) -> None:
        """Once the workers are done, keep what a big project's reading made
        (its items, runs, summary, verdicts) out of the collector's full
        passes (collector.keep_long_lived)."""
        if self.project is not None and self.cache.total_runs() > summary.SYNC_RUNS and not self.busy():
            keep_long_lived()

    def _refresh_disputes(self) -> None:
        """Find the disputes again after the stale runs were scored
        (DisputeState.refresh); when that is work for the writer worker while
        the summary's worker runs, once the summary is in
        (DisputeState.refresh_later), so the GUI thread applies each result
        while the other worker is not running."""
        if self.summariser.busy() and self.judging.in_background():
            self.judging.refresh_later()
        else:
            self.judging.refresh()

    def scoring(self) -> bool:
        """The stale runs of the project just opened are being scored (on the writer worker)."""
        return self.scorer.busy()

    def _scoring_progress(self, done: int, total: int) -> None:
        self.message.emit(f"scoring stale runs: {done} of {total}")

    def _scored(self, scored) -> None:
        """The writer scored ``scored`` stale runs: read them again (the views
        are told as after an import, the current item kept), and find the
        disputes, which open left for now."""
        if self.project is None:
            return
        if not scored:
            self.judging.refresh()
            return
        self.reload(items=False)  # scoring changes runs, not items
        self._refresh_disputes()
        self.findingsChanged.emit()
        self.scoresChanged.emit(None)
        self.message.emit(f"scored {scored} stale run{'s' if scored != 1 else ''}")
        self._keep_if_big()

    def import_source(self, source: Path, model: str | None = None) -> ImportReport | None:
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
        self.reload()
        self.judging.refresh()
        self.projectChanged.emit()
        if self.item_id is None and self.items():
            self.set_item(self.items()[0].id)
        self.message.emit(report.summary().replace("\n", "; "))
        return report

    def reload(self, items: bool = True) -> None:
        """Read the project's items again and forget every cached run and
        ground truth (after an import, or a write by another path); the
        summary is computed again (at once for up to summary.SYNC_RUNS runs,
        else on the worker). Without ``items`` only the runs are forgotten
        (runs scored by another path: items, cards and ground truth are as
        they were). Views are not told: emit what changed."""
        self.summariser.cancel()
        self.failter_items.cancel()
        if items or self.project is None:
            self.cache.reset(self.project, self.item_id)
        else:  # the summary on the worker counts the reviews of a project too big to summarise at once
            self.cache.rescored(self.item_id, counts_now=self.cache.all_runs() <= summary.SYNC_RUNS)
        if self.project is None:
            return
        if self.cache.total_runs() <= summary.SYNC_RUNS:
            self.cache.apply_summary(read_summary(self.project))
            if len(self.cache.items()) <= summary.SYNC_RUNS:  # a few items: every one whole at once
                self.cache.take_items(repo_items.items_by_id(self.project))
        else:
            self.summariser.start(self.project)
        self.refresh_facts(tell=False)

    def refresh_facts(self, tell: bool = True) -> None:
        """Read again which items have Failter verdicts (new verdicts were
        stored): at once for up to summary.SYNC_RUNS runs, else on the
        reader worker (factsChanged when it is in; at once too when ``tell``)."""
        if self.project is None:
            return
        if self.cache.total_runs() <= summary.SYNC_RUNS:
            self.failter_items.read_now(self.project)
            if tell:
                self.factsChanged.emit()
        else:
            self.failter_items.start(self.project)

    def _summary_done(self, result) -> None:
        if self.project is None:
            return
        if result is None:
            self.error.emit("could not read every run for the scores; they show once the project is opened again")
        else:
            lines_and_rows, whole = result
            self.cache.take_items(whole)
            self.cache.apply_summary(lines_and_rows)
            self.summaryChanged.emit()
            self.scoresChanged.emit(None)
            self._announce_scores()
        self.judging.refresh_waiting()  # the disputes put off until the summary is in (_refresh_disputes)
        self._keep_if_big()

    def busy(self) -> bool:
        """Work of the open project is still under way off the GUI thread:
        the summary (on the worker, or waiting to start), the stale runs'
        scores, the dispute refresh or a label-first plan (writer workers)."""
        return self.summariser.busy() or self.scorer.busy() or self.judging.refreshing() or self.planner.busy()

    def summary_ready(self) -> bool:
        """Every run is cached and the T-P1 rows are there."""
        return self.cache.complete()

    # -- reading (the run cache) -------------------------------------------------------------
    def items(self) -> list[ItemStatus]:
        """Every item with counts of ground-truth cards, runs and reviewed runs
        (kept up to date by edits: no query)."""
        return self.cache.items() if self.project is not None else []

    def item(self) -> Item | None:
        """The current item."""
        if self.project is None or self.item_id is None:
            return None
        return self.cache.item(self.item_id)

    def item_named(self, name: str) -> Item | None:
        """The item called ``name``, or None."""
        return self.cache.item(self.cache.item_id(name)) if self.project is not None else None

    def item_texts(self) -> dict[int, str | None]:
        """{item id: text} of every text item (read once per project)."""
        return self.cache.texts() if self.project is not None else {}

    def workflow(self) -> AnyWorkflow | None:
        """The current item's workflow (reviewer.core.workflows), which picks
        the window's perspective; None without a current item."""
        status = self.cache.status(self.item_id) if self.project is not None else None
        return status.workflow if status is not None else None

    def image_path(self, item: Item | None = None) -> Path | None:
        """Absolute path of an item's photo (the current one by default)."""
        item = item or self.item()
        if item is None or item.path is None or self.project is None:
            return None
        return self.project.resolve(item.path)

    def preview(self, item: Item) -> bytes | None:
        """The stored preview JPEG of a photo item, or None."""
        if self.project is None or item.kind != "photo":
            return None
        return previews.preview(self.project, item.sha256)

    def ground_truth(self, item_id: int | None = None) -> GroundTruth:
        """Ground truth of an item (the current one by default), cached."""
        item_id = self.item_id if item_id is None else item_id
        if item_id is None or self.project is None:
            return GroundTruth(item="")
        return self.cache.ground_truth(item_id)

    def runs(self, item_id: int | None = None) -> list[ScoredRun]:
        """Scored runs of an item (the current one by default), read by
        item when first asked for, then cached."""
        return self.cache.runs(self.item_id if item_id is None else item_id)

    def progress(self) -> dict[str, int]:
        """Review progress of the project: findings, decided findings, runs,
        runs reviewed (with findings, every one decided) and runs without findings."""
        return self.cache.progress()

    def run_lines(self) -> list[overview.RunLine]:
        """Every scored run of the project as a RunLine (who made it, its
        metrics, findings and search text; reviewer.storage.cards.overview) once
        the summary is in (``summary_ready``); until then those of the runs
        cached so far. A run's whole ScoredRun: ``run()`` / ``runs()``."""
        return self.cache.run_lines()

    def scored_run(self, run_id: int | None) -> ScoredRun | None:
        """The whole ScoredRun ``run_id`` (its item's runs read when not
        cached), or None."""
        return self.cache.load_run(run_id)

    def has_run(self, run_id: int | None) -> bool:
        """The run is one of the project's scored runs the session knows."""
        return self.cache.has_run(run_id)

    def line(self, run_id: int) -> overview.RunLine:
        """The RunLine of a known run (KeyError when unknown)."""
        return self.cache.line(run_id)

    def run_order(self) -> tuple[list[int], dict[int, int]]:
        """(ids of every known run by item, prompt, model and repetition,
        {id: position}), sorted once (RunCache.run_order)."""
        return self.cache.run_order()

    def run(self) -> ScoredRun | None:
        """The current run."""
        return self.cache.load_run(self.run_id)

    def convention(self) -> BoxConvention | None:
        """The box convention the predicted boxes are drawn in: the user's
        choice, else the one detected for the current run."""
        run = self.run()
        return self.convention_override or (run.facts.box_convention if run else None)

    def score_rows(self) -> list[Row] | None:
        """(automatic, reviewed) T-P1 verdicts per prompt, model and item ('*':
        all items), or None while the summary is being computed."""
        return self.cache.score_rows()

    def verdicts(self, reviewed: bool) -> list[PromptVerdict]:
        """T-P1 verdicts of the project (automatic or reviewed)."""
        if self.project is None:
            return []
        rows = self.cache.score_rows()
        if rows is not None:
            return [r if reviewed else a for a, r in rows if not reviewed or r is not None]
        return verdicts(self.project, reviewed=reviewed)

    @property
    def changed_runs(self) -> set[int] | None:
        """Runs the last ``findingsChanged`` touched (None: any)."""
        return self.cache.changed_runs

    @property
    def changed_items(self) -> set[int] | None:
        """Items the last ``findingsChanged`` touched (None: any)."""
        return self.cache.changed_items

    def has_project(self) -> bool:
        """A project is open."""
        return self.project is not None

    def has_failter_verdicts(self, item_id: int) -> bool:
        """The item's runs have a Failter verdict (False until a big
        project's answer is read off the GUI thread: factsChanged)."""
        return item_id in self.failter_items.items

    def project_path(self) -> Path | None:
        """The open project's file, None when none is open."""
        return self.project.path if self.project is not None else None

    def add_stored_runs(self, run_ids: list[int]) -> list[ScoredRun]:
        """Read the runs ``run_ids`` stored meanwhile by another connection
        (a worker thread) into the caches (take_runs); returns them."""
        fresh = self.reads.stored_runs(run_ids)
        self.take_runs(fresh)
        return fresh

    def take_runs(self, runs: list[ScoredRun]) -> set[int]:
        """Runs stored meanwhile by another connection (a model run on a
        worker thread): cached, counted and scored like edited ones; the
        caller tells the views."""
        if not runs:
            return set()
        ids = self.cache.put_runs(runs)
        self._announce_scores()
        return ids

    def _announce_scores(self) -> None:
        """Compute the T-P1 rows queued by the cache and say which changed."""
        rows = self.cache.rescore()
        if rows is None or rows:
            self.scoresChanged.emit(rows)

    # -- judging (the dispute state) --------------------------------------------------------
    @property
    def current_dispute_id(self) -> int | None:
        """The dispute being adjudicated (None: none)."""
        return self.judging.current_dispute_id

    def disputes(self) -> list[Dispute]:
        """The stored disputes, most severe first."""
        return self.judging.disputes()

    def dispute(self) -> Dispute | None:
        """The current dispute, or None."""
        return self.judging.dispute()

    def set_dispute(self, dispute_id: int | None) -> None:
        """Make ``dispute_id`` the dispute being adjudicated."""
        self.judging.set_dispute(dispute_id)

    def adjudications(self) -> list[Adjudication]:
        """Every adjudication of the project."""
        return self.judging.adjudications()

    # -- editing (the editor) ---------------------------------------------------------------
    @property
    def last_command(self) -> Command | None:
        """The command ``execute`` did last; None after undo or redo."""
        return self.editor.last_command

    @property
    def read_only(self) -> str | None:
        """Why the open project takes no edits (None when it does)."""
        return self.editor.read_only

    def settle(self, wait: float = SETTLE_S) -> bool:
        """Write the edits still waiting (Editor.settle); True when none is left."""
        return self.editor.settle(wait)

    def execute(self, command: Command) -> bool:
        """Do a command (Editor.execute): True when written or queued."""
        return self.editor.execute(command)

    def undo(self) -> None:
        """Undo the last edit; ``walked`` names it, so views can show it."""
        self.editor.undo()

    def redo(self) -> None:
        """Redo the last undone edit; ``walked`` names it."""
        self.editor.redo()

    def replace_last(self, command: Command) -> bool:
        """Undo the last edit and do ``command`` in its place (one undo step)."""
        return self.editor.replace_last(command)

    def _written(self, effect: Effect | None) -> None:
        """An operation is in the project: refresh what it touched, and
        show the decisions still waiting on top."""
        if effect is not None:
            self._after(effect)
        if self.history.pending or self.cache.previewed:
            self._show_pending()
        self.undoChanged.emit()

    def _show_pending(self) -> None:
        """Show the waiting decisions on the cached runs (RunCache.show_waiting); tell the views."""
        if self.project is None:
            return
        changed = self.cache.show_waiting(self.history.pending_ops())
        self._announce_scores()
        if changed:
            self._keep_live_findings()
            self.findingsChanged.emit()
        self.cache.clear_changes()
        self.undoChanged.emit()

    def _after(self, effect: Effect) -> None:
        """Re-score runs of items whose ground truth changed, reload the
        runs whose findings changed (RunCache.refresh), and tell the views."""
        runs = set(effect.runs)
        try:
            self.cache.refresh(effect.items, runs)
            self._announce_scores()
        except (ProjectError, sqlite3.Error) as exc:
            # the edit itself is written; only the derived scores lag behind
            self.error.emit(f"the edit is saved, but re-scoring failed: {exc}")
        if runs:
            self._keep_live_findings()
        for item_id in effect.items:
            self.groundTruthChanged.emit(item_id)
        if runs:
            self.findingsChanged.emit()
        self.cache.clear_changes()
        if effect.subjects:
            self.adjudicationsChanged.emit()
        self.undoChanged.emit()

    def _keep_live_findings(self) -> None:
        run = self.run()
        live = {f.id for f in (run.findings if run else [])}
        self.selected_findings = [i for i in self.selected_findings if i in live]

    # -- selection ------------------------------------------------------------------------
    def set_item(self, item_id: int | None) -> None:
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

    def set_run(self, run_id: int | None) -> None:
        """Make ``run_id`` current (its item too) and select its first finding."""
        run = self.cache.load_run(run_id)
        if run and run.run["item_id"] != self.item_id:
            self.item_id = run.run["item_id"]
            self.selected_cards = []
            self.itemChanged.emit()
        self.run_id = run_id
        if run is not None and self.project is not None:
            self._remember_timer.start()  # written once the reviewer stays on it (no write per key)
        self.convention_override = None
        first = run.findings[0].id if run and run.findings else None
        self.selected_findings = [first] if first is not None else []
        self.runChanged.emit()
        self.conventionChanged.emit()
        self.findingSelectionChanged.emit()

    def _remember_run(self, run_id: int | None = None) -> None:
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

    def set_convention(self, convention: BoxConvention | None) -> None:
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
        return repo_items.card_texts(self.project) if self.project is not None else {}

    def close(self) -> None:
        """Close the project (after writing the edits still waiting, for up
        to editor.SETTLE_S seconds; what is still waiting then is lost and
        said on the error signal)."""
        if self.project is not None:
            self.scorer.cancel()  # its result is for this project: dropped (what it wrote is committed)
            if self._remember_timer.isActive():
                self._remember_run()
            if not self.settle():
                self.error.emit(f"{self.history.waiting_text()}: not saved")
            self.project.close()
            self.project = self.store = None
            self.item_id = self.run_id = None
            self.reload()
            self.judging.attach(None)
            self.editor.attach(None, None)
            self.projectChanged.emit()
            release_long_lived()
