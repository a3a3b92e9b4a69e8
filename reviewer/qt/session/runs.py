"""The run cache of the Session: what the window knows about the project's
items and runs, kept interactive on big projects. Plain Python, no Qt: it
emits nothing; its methods return what changed and the Session announces it.

Opening a project reads its items, their ground-truth card counts and
review counts (one aggregate query, reviewer.storage.cards.overview.review_counts);
an item's scored runs are read when it is first shown (``ensure_item``: by
the runs' item index). What needs every run (the T-P1 verdicts of the scores
panel, the search over run texts, the next run needing review across items)
comes from the *summary* (reviewer.qt.session.rows.read_summary): a RunLine of every scored run (a few
hundred bytes: who made it, its stored metrics, its findings and search
text; the whole ScoredRun, about 35 KB, stays cached only for the items
shown) and both verdict sets. The Session computes it at once for small
projects and on a worker thread for big ones (reviewer.qt.session.summary)
and hands it over with ``apply_summary``.

An edit replaces only the runs it touched (``put_runs``): their items'
counts are recounted from the cache, and the T-P1 rows of their (prompt,
model, item) and (prompt, model, '*') are queued; ``rescore`` computes them
again (cheap: one prompt's runs of one model, ~1 ms for 2,000 runs) and
returns which rows changed; the '*' rows from pooled sums kept run by run
(core.cards.metrics.Pool), never a walk over every run. ``changed_runs`` / ``changed_items`` name what
the last change touched (None: anything), so views update those rows only.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable

from reviewer.core.cards.metrics import Pool, pooled_verdict
from reviewer.core.models import AnswerSchema, GroundTruth, Item
from reviewer.core.workflows import Workflow
from reviewer.qt.session.collector import collector_paused
from reviewer.qt.session.item_status import ItemStatus
from reviewer.qt.session.pending import play_pending, runs_of
from reviewer.qt.session.rows import Row, rows_of
from reviewer.storage import workflows
from reviewer.storage.cards import overview
from reviewer.storage.cards.scores import ScoredRun, scored_runs
from reviewer.storage.project.db import ProjectError
from reviewer.storage.repo import config as repo_config
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.scoring import score_project

#: Runs from which the review counts of the items come with the summary
#: (counted from its RunLines off the GUI thread) instead of from one
#: aggregate query at open (seconds on 100,000 runs); until then an item
#: counts only the runs the window has read whole.
COUNTS_WITH_SUMMARY_RUNS = 20_000


class RunCache:
    """Items, ground truth, scored runs, review counts and T-P1 rows of the
    open project, read when first asked for (module doc)."""

    def __init__(self):
        self.project = None
        self.changed_runs: set[int] | None = None
        self.changed_items: set[int] | None = None
        #: runs shown with waiting decisions played on them (``play``)
        self.previewed: set[int] = set()
        self._rows: list[repo_items.ItemRow] = []
        self._rows_by_id: dict[int, repo_items.ItemRow] = {}
        #: whole Items read so far (``item``), by id
        self._items_by_id: dict[int, Item] = {}
        self._texts: dict[int, str | None] | None = None  # text items' texts, read once when asked
        self._gt: dict[int, GroundTruth] = {}
        self._item_ids: dict[str, int] = {}
        self._clear()
        self._counts: dict[int, overview.ReviewCounts] = {}
        self._statuses: list[ItemStatus] = []
        self._status_by_id: dict[int, ItemStatus] = {}
        self._runs_total = 0
        self._counts_later = False

    def _clear(self) -> None:
        self._runs: dict[int, ScoredRun] = {}
        self._by_item: dict[int, list[int]] = {}
        self._by_group: dict[tuple[str, str], list[int]] = {}
        self._lines: dict[int, overview.RunLine] = {}
        self._order: tuple[list[int], dict[int, int]] | None = None  # run_order(), made when asked
        self._complete = False
        self._score_rows: list[Row] | None = None
        self._score_index: dict[tuple, int] = {}
        self._dirty_keys: set[tuple] = set()
        #: (prompt, model) -> (automatic, reviewed) Pool of its '*' T-P1 row, kept run by run (``_set_line``)
        self._pools: dict[tuple[str, str], tuple[Pool, Pool]] = {}
        self.changed_runs = self.changed_items = None

    # -- opening ----------------------------------------------------------------------------
    def reset(self, project, item_id: int | None = None) -> None:
        """Forget every cached run and ground truth; read the items, card
        and review counts of ``project`` (None: empty) and the runs of
        ``item_id``. The summary is the caller's (``apply_summary``)."""
        with collector_paused():
            self._reset(project, item_id)

    def _reset(self, project, item_id: int | None) -> None:
        self.project = project
        # items change only by import; each is read whole when first needed (``item``)
        self._rows = repo_items.item_rows(project) if project else []
        self._rows_by_id = {r.id: r for r in self._rows}
        self._items_by_id, self._texts = {}, None
        self._item_ids = {r.name: r.id for r in self._rows}
        self._gt.clear()
        self._clear()
        if project is None:
            self._counts, self._statuses, self._status_by_id = {}, [], {}
            self._runs_total, self._counts_later = 0, False
            return
        self._runs_total = project.db.execute("SELECT count(*) FROM runs").fetchone()[0]
        self._counts_later = self._runs_total >= COUNTS_WITH_SUMMARY_RUNS
        self._counts = {} if self._counts_later else overview.review_counts(project)
        cards = repo_items.ground_truth_counts(project)
        flows = workflows.item_workflows(project, self._rows)
        truth = workflows.truth_counts(project)
        load = self._whole_item
        self._statuses = [
            ItemStatus(
                r.id,
                r.name,
                r.kind,
                load,
                c[0],
                0,
                0,
                c[1],
                flows.get(r.id, Workflow.CARDS),
                *truth.get(r.id, (0, 0, 0, 0)),
            )
            for r in self._rows
            for c in [cards.get(r.id, (0, 0))]
        ]
        self._status_by_id = {st.id: st for st in self._statuses}
        self._apply_counts()
        self.ensure_item(item_id)

    def _whole_item(self, item_id: int) -> Item:
        """The whole Item ``item_id`` of the list, read once; an item gone
        from the project meanwhile is its listed id, name and kind."""
        item = self._items_by_id.get(item_id)
        if item is None:
            row = self._rows_by_id[item_id]
            found = repo_items.items_by_id(self.project, [item_id]) if self.project is not None else {}
            item = found.get(item_id) or Item(id=row.id, name=row.name, kind="text" if row.kind == "text" else "photo")
            self._items_by_id[item_id] = item
        return item

    def take_items(self, whole: dict[int, Item]) -> None:
        """Keep ``whole`` ({id: Item} read whole elsewhere: the summary's
        worker) for the listed items not read yet; an item read meanwhile
        keeps what was read."""
        for item_id, item in whole.items():
            if item_id in self._rows_by_id:
                self._items_by_id.setdefault(item_id, item)

    def texts(self) -> dict[int, str | None]:
        """{item id: text} of every text item (read whole in one query the
        first time: the list's titles and the search need them all)."""
        if self._texts is None:
            ids = [r.id for r in self._rows if r.kind == "text" and r.id not in self._items_by_id]
            found = repo_items.items_by_id(self.project, ids) if self.project is not None and ids else {}
            for item_id, item in found.items():
                self._items_by_id.setdefault(item_id, item)
            self._texts = {r.id: self._whole_item(r.id).text for r in self._rows if r.kind == "text"}
        return self._texts

    def _apply_counts(self) -> None:
        for iid, st in self._status_by_id.items():
            c = self._counts.get(iid)
            st.runs, st.reviewed, st.no_findings = (c.runs, c.reviewed, c.no_findings) if c else (0, 0, 0)

    def rescored(self, item_id: int | None = None, counts_now: bool = True) -> None:
        """Forget every cached run (their findings and scores were written
        by another path: the stale runs scored) and read the runs of
        ``item_id`` again; the items, their cards, workflows and ground
        truth, which scoring leaves alone, are kept. The review counts are
        read again at once with ``counts_now`` (one aggregate query over
        every run's findings), else they come with the summary."""
        if self.project is None:
            return
        with collector_paused():
            self._clear()
            if not counts_now:
                self._counts_later = True
            elif not self._counts_later:
                self._counts = overview.review_counts(self.project)
                self._apply_counts()
            self.ensure_item(item_id)

    def forget_previewed(self) -> None:
        """No run is shown with waiting decisions any more (a new project)."""
        self.previewed = set()

    def total_runs(self) -> int:
        """Scored runs of the project, from the review counts (every run
        while they wait for the summary)."""
        if self._counts_later:
            return self._runs_total
        return sum(c.runs for c in self._counts.values())

    def all_runs(self) -> int:
        """Every run of the project, scored or not (counted at open)."""
        return self._runs_total

    def counts_later(self) -> bool:
        """The review counts wait for the summary (a big project)."""
        return self._counts_later

    def apply_summary(self, result) -> None:
        """Take the summary's RunLines (those of the runs cached whole are as
        new or newer: made from them) and its T-P1 rows. Whole runs stay
        cached only for the items shown so far."""
        with collector_paused():
            self._apply_summary(result)

    def _apply_summary(self, result) -> None:
        lines, rows = result
        merged: dict[int, overview.RunLine] = {x.id: x for x in lines}
        for rid, r in self._runs.items():  # cached runs: as new as the summary or newer
            merged[rid] = overview.run_line(r)
        by_group: dict[tuple[str, str], list[int]] = {}
        for x in merged.values():
            by_group.setdefault((x.prompt, x.model), []).append(x.id)
        self._lines, self._by_group, self._complete, self._order = merged, by_group, True, None
        self._pools = {}  # pooled again from the new lines when first needed
        self._score_rows = rows
        self._score_index = {a.key(): k for k, (a, _) in enumerate(rows)}
        if self.counts_later():
            self._count_lines(merged.values())

    def _count_lines(self, lines: Iterable[overview.RunLine]) -> None:
        """The review counts of every item from the RunLines (as the
        aggregate query counts them), the statuses updated."""
        counts: dict[int, overview.ReviewCounts] = {}
        for x in lines:
            c = counts.get(x.item_id)
            if c is None:
                c = counts[x.item_id] = overview.ReviewCounts()
            c.runs += 1
            c.findings += x.findings
            c.decided += x.findings - x.open
            c.reviewed += x.findings > 0 and x.open == 0
            c.no_findings += x.findings == 0
        self._counts, self._counts_later = counts, False
        for iid, st in self._status_by_id.items():
            c = counts.get(iid)
            st.runs, st.reviewed, st.no_findings = (c.runs, c.reviewed, c.no_findings) if c else (0, 0, 0)

    def complete(self) -> bool:
        """Every run is known and the T-P1 rows are there."""
        return self._complete

    # -- items and ground truth ---------------------------------------------------------------
    def items(self) -> list[ItemStatus]:
        """Every item with its counts (kept up to date by ``put_runs``)."""
        return list(self._statuses)

    def item(self, item_id: int | None) -> Item | None:
        """The item ``item_id`` (read whole once), or None when the project has no such item."""
        return self._whole_item(item_id) if item_id is not None and item_id in self._rows_by_id else None

    def item_id(self, name: str) -> int | None:
        """The id of the item called ``name``, or None."""
        return self._item_ids.get(name)

    def status(self, item_id: int | None) -> ItemStatus | None:
        """The ItemStatus of ``item_id`` (its counts and workflow), or None."""
        return self._status_by_id.get(item_id) if item_id is not None else None

    def ground_truth(self, item_id: int) -> GroundTruth:
        """Ground truth of an item, read once then cached."""
        if item_id not in self._gt:
            self._gt[item_id] = repo_ground_truth.ground_truth(self.project, item_id)
        return self._gt[item_id]

    def forget_ground_truth(self, item_id: int | None = None) -> None:
        """Read the ground truth of ``item_id`` (None: every item) again when next asked for."""
        if item_id is None:
            self._gt.clear()
        else:
            self._gt.pop(item_id, None)

    def recard(self, item_id: int) -> None:
        """The ground truth of ``item_id`` changed: its card counts again."""
        st = self._status_by_id.get(item_id)
        if st is not None and self.project is not None:
            cards = self.ground_truth(item_id).cards
            st.cards = len(cards)
            st.to_transcribe = sum(1 for c in cards if not c.text.strip())

    # -- runs ---------------------------------------------------------------------------------
    def ensure_item(self, item_id: int | None) -> None:
        """Read the scored runs of ``item_id`` unless they are cached."""
        if item_id is None or item_id in self._by_item or self.project is None:
            return
        runs = overview.item_runs(self.project, item_id)
        for r in runs:
            if r.run["id"] not in self._runs:
                self._runs[r.run["id"]] = r
                if r.run["id"] not in self._lines:
                    self._order = None
                self._set_line(r.run["id"], overview.run_line(r))
        self._by_item[item_id] = [r.run["id"] for r in runs]

    def runs(self, item_id: int | None) -> list[ScoredRun]:
        """Scored runs of an item, read when first asked for."""
        self.ensure_item(item_id)
        return [self._runs[i] for i in self._by_item.get(item_id, [])] if item_id is not None else []

    def load_run(self, run_id: int | None) -> ScoredRun | None:
        """The cached run ``run_id``, its item's runs read first when needed."""
        if run_id is None:
            return None
        if run_id not in self._runs and self.project is not None:
            rows = overview.scored_runs_of(self.project, [run_id], with_cards=False)
            if rows:
                self.ensure_item(rows[0].run["item_id"])
        return self._runs.get(run_id)

    def has_run(self, run_id: int | None) -> bool:
        """The run is one of the scored runs known so far."""
        return run_id in self._lines

    def line(self, run_id: int) -> overview.RunLine:
        """The RunLine of a known run (KeyError when unknown)."""
        return self._lines[run_id]

    def run_lines(self) -> list[overview.RunLine]:
        """The RunLine of every known run."""
        return list(self._lines.values())

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

    def progress(self) -> dict[str, int]:
        """Findings, decided findings, runs, reviewed runs (runs with
        findings, none still proposed) and runs without findings of the project."""
        counts = self._counts.values()
        return {
            "findings": sum(c.findings for c in counts),
            "decided": sum(c.decided for c in counts),
            "runs": sum(c.runs for c in counts),
            "runs_reviewed": sum(c.reviewed for c in counts),
            "runs_no_findings": sum(c.no_findings for c in counts),
        }

    # -- changes ------------------------------------------------------------------------------
    def put_runs(self, runs: Iterable[ScoredRun]) -> set[int]:
        """Cache the re-read ``runs``; recount their items, queue their T-P1
        rows (``rescore``); returns their ids (also in ``changed_runs``)."""
        ids = set()
        for r in runs:
            rid, item_id = r.run["id"], r.run["item_id"]
            if rid not in self._runs and item_id in self._by_item and rid not in self._by_item[item_id]:
                self._by_item[item_id].append(rid)
            if rid not in self._lines:
                self._order = None
                if self._complete:
                    self._by_group.setdefault((r.run["prompt"], r.run["model"]), []).append(rid)
            self._runs[rid] = r
            self._set_line(rid, overview.run_line(r))
            ids.add(rid)
        self.touched(ids)
        return ids

    def _set_line(self, rid: int, line: overview.RunLine) -> None:
        """Keep ``line`` as run ``rid``'s, moving it in the pooled '*' T-P1
        sums of its prompt and model (when they are kept)."""
        old = self._lines.get(rid)
        self._lines[rid] = line
        for x, sign in ((old, -1), (line, 1)):
            pools = self._pools.get((x.prompt, x.model)) if x is not None else None
            if pools is not None and x is not None:
                pools[0].add(x.auto, sign)
                pools[1].add(x.reviewed, sign)

    def waiting_runs(self, ops: list) -> set[int]:
        """Cached runs the decisions of the waiting ``ops`` touch, and those
        shown with waiting decisions before."""
        return runs_of(self._runs, ops) | self.previewed

    def play(self, ops: list) -> set[int]:
        """Show the waiting decisions of ``ops`` on the cached runs
        (reviewer.qt.session.pending); returns the runs now shown so."""
        self.previewed = play_pending(self._runs, ops)
        return self.previewed

    def touched(self, run_ids: set[int]) -> None:
        """Runs changed in the cache (re-read, or waiting decisions played on
        them): recount their items and queue their T-P1 rows."""
        runs = [self._runs[i] for i in run_ids if i in self._runs]
        items = {r.run["item_id"] for r in runs}
        for item_id in items:
            self._recount(item_id)
        self.changed_runs, self.changed_items = set(run_ids), items
        self._dirty_keys |= {
            (r.run["prompt"], r.run["model"], key)
            for r in runs
            for key in (r.run["item"], "*")
            if r.run["schema"] != AnswerSchema.FREE.value
        }

    def refresh(self, items: Iterable[int], runs: set[int]) -> None:
        """An edit is written: re-score the runs of ``items`` (their ground
        truth changed; counted again) and re-read them and ``runs`` (their
        findings changed). ``runs`` gains the ids re-scored as it goes, so
        the caller knows what changed even when a read fails midway
        (ProjectError, sqlite3.Error are raised)."""
        for item_id in items:
            self.forget_ground_truth(item_id)
            self.recard(item_id)
            ids = [r.run["id"] for r in self.runs(item_id)]
            if ids:
                score_project(self.project, run_ids=ids)
                runs.update(ids)
        if runs:
            self.put_runs(overview.scored_runs_of(self.project, sorted(runs)))

    def show_waiting(self, ops: list) -> set[int]:
        """Re-read the runs the waiting ``ops`` touch (and those shown with
        waiting decisions before) and play the waiting decisions on them;
        returns the runs changed."""
        runs = self.waiting_runs(ops)
        # on an error the cache stays as it is; the decisions are shown on it
        with contextlib.suppress(ProjectError, sqlite3.Error):
            self.put_runs(scored_runs(self.project, runs))
        previewed = self.play(ops)
        self.touched(runs | previewed)
        return runs | previewed

    def clear_changes(self) -> None:
        """The views were told: the next change names its own runs and items."""
        self.changed_runs = self.changed_items = None

    def _recount(self, item_id: int) -> None:
        if item_id not in self._by_item and self.project is not None:
            self.ensure_item(item_id)
        counts = overview.ReviewCounts.of(self._runs[i] for i in self._by_item.get(item_id, []))
        self._counts[item_id] = counts
        st = self._status_by_id.get(item_id)
        if st is not None:
            st.runs, st.reviewed, st.no_findings = counts.runs, counts.reviewed, counts.no_findings

    # -- T-P1 rows ----------------------------------------------------------------------------
    def score_rows(self) -> list[Row] | None:
        """(automatic, reviewed) T-P1 verdicts per prompt, model and item ('*':
        all items), or None until the summary is in."""
        return self._score_rows

    def _item_lines(self, prompt: str, model: str, item: str) -> list[overview.RunLine]:
        """The RunLines of ``item``'s runs of ``prompt`` by ``model``: from the
        item's cached runs, else from every run of the prompt and model."""
        item_id = self._item_ids.get(item)
        if item_id is not None and item_id in self._by_item:
            lines = (self._lines.get(i) for i in self._by_item[item_id])
            return [x for x in lines if x is not None and x.prompt == prompt and x.model == model]
        return [self._lines[i] for i in self._by_group.get((prompt, model), []) if self._lines[i].item == item]

    def rescore(self) -> list[int] | None:
        """Compute the queued (prompt, model, item) rows again from the cache
        (once the summary is in); returns the indexes of the rows changed
        ([] when none), or None when a row appeared and every row was
        computed again."""
        if not self._complete or not self._dirty_keys or self._score_rows is None:
            return []
        keys, self._dirty_keys = self._dirty_keys, set()
        config = repo_config.current_config(self.project)
        changed, new = [], False
        for prompt, model, item in keys:
            if item == "*":  # the pooled sums, kept run by run: no walk over every run of the prompt
                pools = self._pools.get((prompt, model))
                if pools is None:
                    lines = [self._lines[i] for i in self._by_group.get((prompt, model), [])]
                    pools = self._pools[(prompt, model)] = (
                        Pool(x.auto for x in lines),
                        Pool(x.reviewed for x in lines),
                    )
                if not pools[0].runs:
                    continue
                auto = pooled_verdict(prompt, item, pools[0], config, model)
                reviewed = pooled_verdict(prompt, item, pools[1], config, model)
            else:
                lines = self._item_lines(prompt, model, item)
                if not lines:
                    continue
                auto = pooled_verdict(prompt, item, Pool(x.auto for x in lines), config, model)
                reviewed = pooled_verdict(prompt, item, Pool(x.reviewed for x in lines), config, model)
            row = self._score_index.get(auto.key())
            if row is None:
                new = True
                continue
            self._score_rows[row] = (auto, reviewed)
            changed.append(row)
        if new:
            self._score_rows = rows_of(self._lines.values(), repo_config.current_config(self.project))
            self._score_index = {a.key(): k for k, (a, _) in enumerate(self._score_rows)}
            return None
        return sorted(changed)
