"""What the Session knows about the whole project, kept interactive on big
projects (issue 9).

A mixin of reviewer.qt.session.Session. The runs are a cache: opening a
project reads its items, their ground-truth card counts and review counts
(one aggregate query, reviewer.storage.cards.overview.review_counts); an item's
scored runs are read when it is first shown (``_ensure_item``: by the runs'
item index). What needs every run (the T-P1 verdicts of the scores panel,
the search over run texts, the next run needing review across items) comes
from the *summary*: a RunLine of every scored run (a few hundred bytes:
who made it, its stored metrics, its findings and search text; the whole
ScoredRun, about 35 KB, stays cached only for the items shown) and both
verdict sets, computed on a worker thread (QThreadPool, its own read connection) for projects of more
than SYNC_RUNS runs, at once for smaller ones; the result is applied on the
GUI thread (``summaryChanged``, ``scoresChanged(None)``).

An edit replaces only the runs it touched (``_put_runs``): their items'
counts are recounted from the cache, and the T-P1 rows of their (prompt,
model, item) and (prompt, model, '*') are computed again at once (cheap:
one prompt's runs of one model, ~1 ms for 2,000 runs) and announced with
``scoresChanged(rows)``.
``changed_runs`` / ``changed_items`` name what the last ``findingsChanged``
touched (None: anything), so views update those rows only.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Iterable, Optional

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from reviewer.core.cards.metrics import prompt_verdict, prompt_verdicts
from reviewer.core.models import AnswerSchema, Item, PromptVerdict
from reviewer.storage import repo
from reviewer.storage.cards import overview
from reviewer.storage.db import ProjectError
from reviewer.storage.cards.scores import ScoredRun

#: Projects with at most this many runs are summarised at once, on the GUI thread.
SYNC_RUNS = 500
#: Runs read per slice on the worker, which pauses between slices so the GUI thread gets the GIL.
SLICE = 250
#: Milliseconds after opening before the worker starts (the first photo is shown first).
START_DELAY_MS = 250

Row = tuple  # (automatic PromptVerdict, reviewed PromptVerdict or None)


def _pair_rows(auto: list[PromptVerdict], reviewed: list[PromptVerdict]) -> list[Row]:
    by_key = {v.key(): v for v in reviewed}
    return [(v, by_key.get(v.key())) for v in auto]


def summarise(project, cancelled=lambda: False, pause: float = 0.0) -> Optional[tuple[list, list[Row]]]:
    """(a RunLine of every scored run in run_rows order, T-P1 rows) of
    ``project``; read in slices of SLICE runs with ``pause`` seconds between
    them; None when ``cancelled()`` turns true."""
    ids = repo.run_ids(project)
    lines: list[overview.RunLine] = []
    for start in range(0, len(ids), SLICE):
        if cancelled():
            return None
        lines += overview.run_lines(project, ids[start:start + SLICE])
        if pause:
            time.sleep(pause)
    return lines, _rows_of(lines, repo.current_config(project))


def _rows_of(lines: Iterable, config) -> list[Row]:
    """The T-P1 rows (automatic, reviewed) of RunLines; free text left out."""
    rows = [(x.prompt, x.item, x.auto, x.reviewed, x.model) for x in lines if x.schema != AnswerSchema.FREE.value]
    return _pair_rows(prompt_verdicts([(p, i, a, m) for p, i, a, _, m in rows], config),
                      prompt_verdicts([(p, i, v, m) for p, i, _, v, m in rows], config))


@dataclass
class ItemStatus:
    """An item with its review progress, for the items list."""

    item: Item
    cards: int
    runs: int
    reviewed: int
    #: ground-truth cards with no text yet (left out of scoring)
    to_transcribe: int = 0


class _Bridge(QObject):
    """Carries the worker's summary to the GUI thread."""

    done = Signal(int, object)  # generation, (runs, rows) or None


class _SummaryJob(QRunnable):
    """On a pool thread: the summary of the project at ``path`` through its own connection."""

    def __init__(self, project, generation: int, bridge: _Bridge, cancel: threading.Event):
        super().__init__()
        self.project, self.generation, self.bridge, self.cancel = project, generation, bridge, cancel

    def run(self) -> None:
        """Read and compute (module doc); emit the result (None on failure or cancel)."""
        result = None
        try:
            reader, own = overview.reader(self.project)
            try:
                result = summarise(reader, self.cancel.is_set, pause=0.002)
            finally:
                if own:
                    reader.close()
        except (ProjectError, sqlite3.Error):
            result = None
        try:
            self.bridge.done.emit(self.generation, result)
        except RuntimeError:  # the session went away meanwhile
            pass


class OverviewMixin:
    """The run cache, review counts and the summary of a Session (module doc)."""

    def _init_overview(self) -> None:
        """Set up the caches and the worker (call once from __init__)."""
        self._by_item: dict[int, list[int]] = {}
        self._by_group: dict[tuple[str, str], list[int]] = {}
        self._lines: dict[int, overview.RunLine] = {}
        self._order: Optional[tuple[list[int], dict[int, int]]] = None  # run_order(), made when asked
        self._counts: dict[int, overview.ReviewCounts] = {}
        self._statuses: list = []
        self._status_by_id: dict[int, object] = {}
        self._complete = False
        self._score_rows: Optional[list[Row]] = None
        self._score_index: dict[tuple, int] = {}
        self._dirty_keys: set[tuple] = set()
        self.changed_runs: Optional[set[int]] = None
        self.changed_items: Optional[set[int]] = None
        self._generation = 0
        self._cancel = threading.Event()
        self._running = False
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._bridge = _Bridge()
        self._bridge.done.connect(self._summary_done)
        self._start_timer = QTimer(self, singleShot=True, interval=START_DELAY_MS, timeout=self._start_summary)

    # -- opening ----------------------------------------------------------------------------
    def _reset_overview(self) -> None:
        """Forget every cached run; read items, card and review counts; summarise (module doc)."""
        self._cancel.set()
        self._cancel = threading.Event()
        self._generation += 1
        self._start_timer.stop()
        self._runs, self._by_item, self._by_group, self._complete = {}, {}, {}, False
        self._lines, self._order = {}, None
        self._score_rows, self._score_index, self._dirty_keys = None, {}, set()
        self.changed_runs = self.changed_items = None
        if self.project is None:
            self._counts, self._statuses, self._status_by_id = {}, [], {}
            return
        self._counts = overview.review_counts(self.project)
        cards = repo.card_counts(self.project)
        blank = repo.transcribe_counts(self.project)
        self._statuses = [ItemStatus(item, cards.get(item.id, 0), 0, 0, blank.get(item.id, 0))
                          for item in self._items]
        self._status_by_id = {st.item.id: st for st in self._statuses}
        for st in self._statuses:
            c = self._counts.get(st.item.id)
            st.runs, st.reviewed = (c.runs, c.reviewed) if c else (0, 0)
        self._ensure_item(self.item_id)
        if sum(c.runs for c in self._counts.values()) <= SYNC_RUNS:
            result = summarise(self.project)
            self._apply_summary(result)
        else:
            self._start_timer.start()

    def _start_summary(self) -> None:
        if self.project is None or self._complete:
            return
        self._running = True
        self.pool.start(_SummaryJob(self.project, self._generation, self._bridge, self._cancel))

    def _summary_done(self, generation: int, result) -> None:
        self._running = False
        if generation != self._generation or self.project is None:
            return
        if result is None:
            self.error.emit("could not read every run for the scores; they show once the project is opened again")
            return
        self._apply_summary(result)
        self.summaryChanged.emit()
        self.scoresChanged.emit(None)
        if self._dirty_keys:
            self._rescore_rows()

    def _apply_summary(self, result) -> None:
        """Take the summary's RunLines (those of the runs cached whole are as
        new or newer: made from them) and its T-P1 rows. Whole runs stay
        cached only for the items shown so far."""
        lines, rows = result
        merged: dict[int, overview.RunLine] = {x.id: x for x in lines}
        for rid, r in self._runs.items():  # cached runs: as new as the summary or newer
            merged[rid] = overview.run_line(r)
        by_group: dict[tuple[str, str], list[int]] = {}
        for x in merged.values():
            by_group.setdefault((x.prompt, x.model), []).append(x.id)
        self._lines, self._by_group, self._complete, self._order = merged, by_group, True, None
        self._score_rows = rows
        self._score_index = {a.key(): k for k, (a, _) in enumerate(rows)}

    def busy(self) -> bool:
        """The summary is still being computed (on the worker, or waiting to start)."""
        return self._running or self._start_timer.isActive()

    def summary_ready(self) -> bool:
        """Every run is cached and the T-P1 rows are there."""
        return self._complete

    # -- the run cache ----------------------------------------------------------------------
    def _ensure_item(self, item_id: Optional[int]) -> None:
        """Read the scored runs of ``item_id`` unless they are cached."""
        if item_id is None or item_id in self._by_item or self.project is None:
            return
        runs = overview.item_runs(self.project, item_id)
        for r in runs:
            if r.run["id"] not in self._runs:
                self._runs[r.run["id"]] = r
                if r.run["id"] not in self._lines:
                    self._order = None
                self._lines[r.run["id"]] = overview.run_line(r)
        self._by_item[item_id] = [r.run["id"] for r in runs]

    def run_order(self) -> tuple[list[int], dict[int, int]]:
        """(ids of every known run by item, prompt, model and repetition,
        {id: position}); sorted once, again only when runs are added (a
        run's place never changes), so navigation costs no sort of 100,000
        runs per key."""
        if self._order is None:
            lines = self._lines
            ids = sorted(lines, key=lambda i: (lines[i].item, lines[i].prompt, lines[i].model, lines[i].repetition))
            self._order = (ids, {run_id: k for k, run_id in enumerate(ids)})
        return self._order

    def line(self, run_id: int) -> overview.RunLine:
        """The RunLine of a known run (KeyError when unknown)."""
        return self._lines[run_id]

    def _load_run(self, run_id: Optional[int]) -> Optional[ScoredRun]:
        """The cached run ``run_id``, its item's runs read first when needed."""
        if run_id is None:
            return None
        if run_id not in self._runs and self.project is not None:
            rows = overview.scored_runs_of(self.project, [run_id], with_cards=False)
            if rows:
                self._ensure_item(rows[0].run["item_id"])
        return self._runs.get(run_id)

    def take_runs(self, runs: list[ScoredRun]) -> set[int]:
        """Runs stored meanwhile by another connection (a model run on a
        worker thread): cached, counted and scored like edited ones
        (``_put_runs``); the caller tells the views."""
        return self._put_runs(runs) if runs else set()

    def _put_runs(self, runs: Iterable[ScoredRun]) -> set[int]:
        """Cache the re-read ``runs``; recount their items, queue their T-P1
        rows; returns their ids (also in ``changed_runs``/``changed_items``)."""
        ids, items = set(), set()
        for r in runs:
            rid, item_id = r.run["id"], r.run["item_id"]
            if rid not in self._runs and item_id in self._by_item and rid not in self._by_item[item_id]:
                self._by_item[item_id].append(rid)
            if rid not in self._lines:
                self._order = None
                if self._complete:
                    self._by_group.setdefault((r.run["prompt"], r.run["model"]), []).append(rid)
            self._runs[rid] = r
            self._lines[rid] = overview.run_line(r)
            ids.add(rid)
            items.add(item_id)
        self._touched(ids)
        return ids

    def _touched(self, run_ids: set[int]) -> None:
        """Runs changed in the cache (re-read, or waiting decisions played on them)."""
        runs = [self._runs[i] for i in run_ids if i in self._runs]
        items = {r.run["item_id"] for r in runs}
        for item_id in items:
            self._recount(item_id)
        self.changed_runs, self.changed_items = set(run_ids), items
        self._dirty_keys |= {(r.run["prompt"], r.run["model"], key) for r in runs
                             for key in (r.run["item"], "*") if r.run["schema"] != AnswerSchema.FREE.value}
        if self._dirty_keys and self._complete:
            self._rescore_rows()

    def _recount(self, item_id: int) -> None:
        if item_id not in self._by_item and self.project is not None:
            self._ensure_item(item_id)
        counts = overview.ReviewCounts.of(self._runs[i] for i in self._by_item.get(item_id, []))
        self._counts[item_id] = counts
        st = self._status_by_id.get(item_id)
        if st is not None:
            st.runs, st.reviewed = counts.runs, counts.reviewed

    def _recard(self, item_id: int) -> None:
        """The ground truth of ``item_id`` changed: its card count again."""
        st = self._status_by_id.get(item_id)
        if st is not None and self.project is not None:
            cards = self.ground_truth(item_id).cards
            st.cards = len(cards)
            st.to_transcribe = sum(1 for c in cards if not c.text.strip())

    # -- T-P1 rows ----------------------------------------------------------------------------
    def score_rows(self) -> Optional[list[Row]]:
        """(automatic, reviewed) T-P1 verdicts per prompt, model and item ('*':
        all items), or None while the summary is being computed."""
        return self._score_rows

    def _rescore_rows(self) -> None:
        """Compute the queued (prompt, model, item) rows again from the cache
        and announce the rows that exist (a new row: every row)."""
        if not self._complete or not self._dirty_keys or self._score_rows is None:
            return
        keys, self._dirty_keys = self._dirty_keys, set()
        groups = {(p, m): [self._lines[i] for i in self._by_group.get((p, m), [])] for p, m, _ in keys}
        config = repo.current_config(self.project)
        changed, new = [], False
        for prompt, model, item in keys:
            lines = [x for x in groups.get((prompt, model), []) if item == "*" or x.item == item]
            if not lines:
                continue
            auto = prompt_verdict(prompt, item, [x.auto for x in lines], config, model)
            reviewed = prompt_verdict(prompt, item, [x.reviewed for x in lines], config, model)
            row = self._score_index.get(auto.key())
            if row is None:
                new = True
                continue
            self._score_rows[row] = (auto, reviewed)
            changed.append(row)
        if new:
            self._summarise_rows_now()
            self.scoresChanged.emit(None)
        elif changed:
            self.scoresChanged.emit(sorted(changed))

    def _summarise_rows_now(self) -> None:
        """Every T-P1 row again from the RunLines (rare: a row appeared)."""
        self._score_rows = _rows_of(self._lines.values(), repo.current_config(self.project))
        self._score_index = {a.key(): k for k, (a, _) in enumerate(self._score_rows)}
