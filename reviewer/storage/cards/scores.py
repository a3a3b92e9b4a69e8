"""Score the runs of a project and read back their metrics and verdicts.

Scoring a run again (a new config, edited ground truth) keeps the review
decisions: a new automatic finding with the same key (code, ground-truth
card, model card) as a stored one keeps its id, status, final code, reason
and reviewer; stored automatic findings that no longer arise are deleted if
still proposed, and kept with their detail marked (STALE) if decided; human
findings are never touched.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field

from pydantic import TypeAdapter
from pydantic_core import PydanticSerializationError

from reviewer.core.cards.metrics import prompt_verdicts, run_metrics
from reviewer.core.cards.prompts import prompt_example
from reviewer.core.cards.scoring import RunFacts, RunScore, score_run
from reviewer.core.models import (
    STALE_PREFIX,
    AnswerSchema,
    CaseCode,
    Finding,
    ModelCard,
    PromptVerdict,
    ScoringConfig,
    Source,
)
from reviewer.storage.cards.metric_rows import code_counts, iter_metric_rows
from reviewer.storage.cards.scored import (  # noqa: F401  (ScoredRun and its readers, long imported from here)
    LeanMetrics,
    ScoredRun,
    iter_scored_runs,
    lean_metrics,
    lean_metrics_of,
    metrics_of,
    scored_runs,
)
from reviewer.storage.project.db import Project, now
from reviewer.storage.repo import config as repo_config
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

Progress = Callable[[int, int], None]
STALE = STALE_PREFIX


#: Runs scored and written per transaction (a window's decision gets in between).
CHUNK = 400
#: Below this many runs a process pool costs more than it saves.
POOL_MIN_RUNS = 5000

_INSERT_FINDING = (
    "INSERT INTO findings (id, run_id, code, final_code, status, source, gt_card_id, gt_card, "
    "model_index, model_card, detail, reason, reviewer, decided_at, config_version, created_at, "
    "verdict_id, attrs) VALUES (:id, :run_id, :code, :final_code, :status, :source, :gt_card_id, "
    ":gt_card, :model_index, :model_card, :detail, :reason, :reviewer, :decided_at, "
    ":config_version, :created_at, :verdict_id, :attrs)"
)
_INSERT_AUDIT = (
    "INSERT INTO audit (at, actor, action, table_name, row_id, before, after) "
    "VALUES (?, 'scorer', ?, 'findings', ?, ?, ?)"
)
_UPSERT_SCORE = (
    "INSERT INTO run_scores (run_id, config_version, strict, facts, cards, scored_at, auto_metrics, "
    "reviewed_metrics) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET "
    "config_version = excluded.config_version, strict = excluded.strict, "
    "facts = excluded.facts, cards = excluded.cards, scored_at = excluded.scored_at, "
    "auto_metrics = excluded.auto_metrics, reviewed_metrics = excluded.reviewed_metrics"
)


def metrics_json(facts: RunFacts, findings: list[Finding]) -> tuple[str, str]:
    """The automatic and reviewed RunMetrics of a run (run_metrics, T-P5
    step 6) as the JSON stored in run_scores. While no finding is decided,
    reclassified or stale both are the same, computed once."""
    auto = run_metrics(facts, findings).model_dump_json()
    untouched = all(f.status.value == "proposed" and f.final_code is None and not f.stale for f in findings)
    return auto, auto if untouched else run_metrics(facts, findings, reviewed=True).model_dump_json()


#: The model cards of a run as stored JSON, serialised in one call.
_CARDS = TypeAdapter(list[ModelCard])


def _cards_json(cards: list[ModelCard]) -> str:
    """The stored JSON of a run's model cards (one pydantic call; json.dumps
    for text pydantic cannot encode, such as a lone surrogate)."""
    try:
        return _CARDS.dump_json(cards).decode()
    except PydanticSerializationError:
        return json.dumps([c.model_dump(mode="json") for c in cards])


def _insert_row(f: Finding, finding_id: int, run_id: int, version: str, stamp: str) -> dict:
    """The findings row of a new finding of the scorer (_INSERT_FINDING's
    parameters), read off its fields (a model_dump per finding cost a
    third of the writing)."""
    return {
        "id": finding_id,
        "run_id": run_id,
        "code": f.code.value,
        "final_code": f.final_code.value if f.final_code is not None else None,
        "status": f.status.value,
        "source": f.source.value,
        "gt_card_id": f.gt_card_id,
        "gt_card": f.gt_card,
        "model_index": f.model_index,
        "model_card": f.model_card,
        "detail": f.detail,
        "reason": f.reason,
        "reviewer": f.reviewer,
        "decided_at": f.decided_at.isoformat() if f.decided_at else None,
        "config_version": version,
        "created_at": stamp,
        "verdict_id": f.verdict_id,
        "attrs": json.dumps(f.attrs, default=str) if f.attrs else "{}",
    }


def _write_chunk(
    project: Project, runs: list[dict], scores: list[RunScore], config: ScoringConfig, strict: bool
) -> None:
    """Write the scores of ``runs`` in the caller's transaction, keeping
    decisions (module doc): one read of the runs' findings, then one
    executemany per kind of write (new findings, changed details,
    deletions, stale marks, run_scores with the runs' metrics). Audited:
    each deleted finding with what it was, and the chunk's new findings in
    one row (actor 'scorer', row_id 'first-last' of their ids)."""
    old_by_run, others = _stored_findings(project, [r["id"] for r in runs])
    next_id = project.db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM findings").fetchone()[0]
    writes = _ChunkWrites(stamp=now(), version=config.version, next_id=next_id)
    for run, score in zip(runs, scores):
        final = writes.merge(run["id"], score.findings, old_by_run.get(run["id"], []), others.get(run["id"], ()))
        auto_json, reviewed_json = metrics_json(score.facts, final)
        writes.score_rows.append(
            [
                run["id"],
                config.version,
                int(strict),
                score.facts.model_dump_json(by_alias=True),
                _cards_json(score.cards),
                writes.stamp,
                auto_json,
                reviewed_json,
            ]
        )
    writes.execute(project.db.conn, len(runs))


def _stored_findings(project: Project, ids: list[int]) -> tuple[dict[int, list[Finding]], dict[int, list[Finding]]]:
    """The stored findings of the runs ``ids`` in one read, by run id: (the scorer's own,
    which a new score replaces; the others, human findings and test-case checks, kept as they are)."""
    old_by_run: dict[int, list[Finding]] = {}
    others: dict[int, list[Finding]] = {}  # human findings, test-case checks: kept as they are
    for f in repo_findings.findings_of_runs(project, ids):
        # test-case checks are written by storage.cases.cases
        mine = f.source == Source.AUTO and not isinstance(f.code, CaseCode)
        assert f.run_id is not None  # stored findings belong to a run
        (old_by_run if mine else others).setdefault(f.run_id, []).append(f)
    return old_by_run, others


@dataclass
class _ChunkWrites:
    """The rows a chunk writes, collected per kind for one executemany each: new findings
    (``inserts``, ids from ``next_id`` on), changed ``details``, ``deletes``, ``stale`` marks,
    ``audits`` and ``score_rows``; ``stamp`` and ``version``: the time and scoring
    config version written."""

    stamp: str
    version: str
    next_id: int
    inserts: list[dict] = field(default_factory=list)
    audits: list[list] = field(default_factory=list)
    details: list[list] = field(default_factory=list)
    deletes: list[list] = field(default_factory=list)
    stale: list[list] = field(default_factory=list)
    score_rows: list[list] = field(default_factory=list)

    def merge(self, run_id: int, found: list[Finding], old: list[Finding], others: Iterable[Finding]) -> list[Finding]:
        """Merge the scorer's new findings ``found`` of a run with its stored ones ``old``
        (matched by ``Finding.key``, in order): a match keeps the stored finding and its
        decision (its detail updated), the rest are inserted; unmatched stored ones are
        retired (``_retire``). Returns the run's findings once written, ``others`` first."""
        by_key: dict[tuple, list[Finding]] = {}
        for f in old:
            by_key.setdefault(f.key(), []).append(f)
        final = list(others)  # the run's findings once this chunk is written
        for f in found:
            same = by_key.get(f.key()) if by_key else None
            if same:
                kept = same.pop(0)
                if kept.detail != f.detail:
                    self.details.append([f.detail, self.version, kept.id])
                    kept = kept.model_copy(update={"detail": f.detail})
                final.append(kept)
                continue
            final.append(f)
            self.inserts.append(_insert_row(f, self.next_id, run_id, self.version, self.stamp))
            self.next_id += 1
        for rest in by_key.values():
            for f in rest:
                final += self._retire(f)
        return final

    def _retire(self, f: Finding) -> list[Finding]:
        """A stored finding the scorer no longer finds: deleted (and audited) while only
        proposed; a decision is kept, its detail marked STALE once. Returns what stays."""
        if f.status.value == "proposed":
            self.deletes.append([f.id])
            self.audits.append(
                [self.stamp, "delete", str(f.id), json.dumps(f.model_dump(mode="json"), default=str), None]
            )
            return []
        if not f.detail.startswith(STALE):
            # a decision is never thrown away: keep it, marked, until the
            # scorer finds the same error again (e.g. a deleted card comes back)
            self.stale.append([STALE + f.detail, f.id])
            return [f.model_copy(update={"detail": STALE + f.detail})]
        return [f]

    def execute(self, db: sqlite3.Connection, n_runs: int) -> None:
        """Run the writes on the connection ``db``: deletions, inserts, changed details,
        stale marks, then the audit rows (one for the chunk's ``n_runs`` runs' new
        findings: the first-last of their ids) and the run_scores upserts."""
        if self.deletes:
            db.executemany("DELETE FROM findings WHERE id = ?", self.deletes)
        if self.inserts:
            db.executemany(_INSERT_FINDING, self.inserts)
        if self.details:
            db.executemany("UPDATE findings SET detail = ?, config_version = ? WHERE id = ?", self.details)
        if self.stale:
            db.executemany("UPDATE findings SET detail = ? WHERE id = ?", self.stale)
        if self.inserts:
            # one audit row for the chunk's new findings: their ids (the rows hold what they say)
            first, last = self.inserts[0]["id"], self.inserts[-1]["id"]
            self.audits.append(
                [
                    self.stamp,
                    "insert",
                    f"{first}-{last}" if last != first else str(first),
                    None,
                    json.dumps(
                        {
                            "ids": [first, last],
                            "findings": len(self.inserts),
                            "runs": n_runs,
                            "config_version": self.version,
                        }
                    ),
                ]
            )
        if self.audits:
            db.executemany(_INSERT_AUDIT, self.audits)
        db.executemany(_UPSERT_SCORE, self.score_rows)


_WORKER: dict = {}


def _worker_init(context: dict) -> None:
    _WORKER.clear()
    _WORKER.update(context)


def _score_one(output: str, prompt_id: int, item_id: int) -> RunScore:
    c = _WORKER
    item = c["items"][item_id]
    return score_run(
        output,
        c["prompts"][prompt_id],
        c["gts"][item_id],
        c["config"],
        width=item.width,
        height=item.height,
        orientation=item.orientation,
        example=c["examples"][prompt_id],
        strict=c["strict"],
    )


def _score_chunk(project: Project, ids: list[int]) -> int:
    """Read, score and write the runs ``ids`` (one CHUNK) with the scoring
    context in _WORKER; the writes in one short transaction. Returns the
    number of runs."""
    c = _WORKER
    runs = repo_runs.run_rows(project, ids)
    for run in runs:
        if run["item_id"] not in c["gts"]:
            c["gts"][run["item_id"]] = repo_ground_truth.ground_truth(project, run["item_id"])
    scores = [_score_one(r["output"], r["prompt_id"], r["item_id"]) for r in runs]
    with project.transaction(derived=True):
        _write_chunk(project, runs, scores, c["config"], c["strict"])
    return len(runs)


@contextmanager
def _derived_sync(project: Project) -> Iterator[None]:
    """Scores are derived data: while scoring, commits do not wait for the
    disk (WAL with synchronous=NORMAL). A commit still survives a crash or a
    kill of the program; after a power cut the last chunks may be missing
    and are scored again (their runs have no score of this config). The
    connection's setting is restored after."""
    conn = project.db.conn
    before = conn.execute("PRAGMA synchronous").fetchone()[0]
    conn.execute("PRAGMA synchronous = NORMAL")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA synchronous = {int(before)}")


def _score_chunk_in_worker(ids: list[int]) -> int:
    """In a pool worker: _score_chunk through the worker's own connection
    to the project (opened at its first chunk)."""
    project = _WORKER.get("project")
    if project is None:
        from reviewer.storage.project.db import open_project

        project = _WORKER["project"] = open_project(_WORKER["path"])
        project.db.execute("PRAGMA synchronous = NORMAL")  # derived data: see _derived_sync
    gc.disable()
    try:
        return _score_chunk(project, ids)
    finally:
        gc.enable()


def default_jobs() -> int:
    """The CPU cores this process may use (its affinity mask where the
    platform has one): the command line's default number of scoring
    workers."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


#: The pool's start method; None: fork where it is safe, else spawn (_pool).
START_METHOD: str | None = None


def _pool(workers: int, context: dict) -> ProcessPoolExecutor:
    """Scoring workers. Forked where the platform can and this process runs
    no other thread (the context is inherited, nothing is imported again),
    else spawned (the context is pickled once per worker)."""
    fork = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    method = START_METHOD or ("fork" if fork else "spawn")
    _worker_init(context)
    return ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context(method), initializer=_worker_init, initargs=(context,)
    )


def score_runs(
    project: Project,
    config: ScoringConfig | None = None,
    *,
    strict: bool = False,
    run_ids: Iterable[int] | None = None,
    only_stale: bool = False,
    progress: Progress | None = None,
    jobs: int | None = None,
) -> int:
    """Score runs of the project (all, or ``run_ids``) against their cards with ``config`` (the
    project's current one by default). Runs are read and scored in chunks of
    CHUNK, and each chunk is written in one short transaction with
    executemany (findings and their audit rows), so memory stays O(chunk)
    and other writers, such as a decision in the window, get in between.
    Scores are derived data: in a read-only project they go to its
    in-memory copy.

    ``only_stale``: skip runs already scored with this config and strictness.
    ``jobs``: worker processes for scoring (default 1: in this process; the
    command line passes default_jobs()). A pool is used only from
    POOL_MIN_RUNS runs on and for a project on disk that can be written:
    each worker reads, scores and writes whole chunks through its own
    connection (SQLite serialises the short write transactions), so no
    scored run crosses between processes.
    ``progress(done, total)`` is called after each chunk. Returns the number
    of runs scored.
    """
    config = config or repo_config.current_config(project)
    if (
        repo_config.stored_config_version(project) != config.version
        or not project.db.execute("SELECT 1 FROM scoring_config WHERE version = ?", [config.version]).fetchone()
    ):
        repo_config.save_config(project, config)
    if only_stale and run_ids is None and _all_scored(project, config, strict):
        ids = []  # opening a big project asks this: two counts from indexes
    elif only_stale and run_ids is None:
        # one query for the runs not scored with this config
        stale = {
            r[0]
            for r in project.db.execute(
                "SELECT r.id FROM runs r LEFT JOIN run_scores s ON s.run_id = r.id "
                "AND s.config_version = ? AND s.strict = ? WHERE s.run_id IS NULL",
                [config.version, int(strict)],
            )
        }
        ids = repo_runs.run_ids(project, stale) if stale else []
    else:
        ids = repo_runs.run_ids(project, run_ids)
        if only_stale:
            fresh = {
                r[0]
                for r in project.db.execute(
                    "SELECT run_id FROM run_scores WHERE config_version = ? AND strict = ?",
                    [config.version, int(strict)],
                ).fetchall()
            }
            ids = [i for i in ids if i not in fresh]
    if not ids:
        return 0
    prompts = {p.id: p for p in repo_items.prompts(project)}
    items = {i.id: i for i in repo_items.items(project)}
    context = {
        "prompts": prompts,
        "examples": {pid: prompt_example(p.text) for pid, p in prompts.items()},
        "items": items,
        "gts": {},
        "config": config,
        "strict": strict,
    }
    chunks = [ids[start : start + CHUNK] for start in range(0, len(ids), CHUNK)]
    workers = min(jobs or 1, len(chunks))
    if workers > 1 and len(ids) >= POOL_MIN_RUNS and not project.read_only:
        _score_in_pool(project, chunks, context, workers, progress)
    else:
        _score_here(project, chunks, context, progress)
    return len(ids)


def _all_scored(project: Project, config: ScoringConfig, strict: bool) -> bool:
    """Every run has a score of ``config`` and ``strict`` (a run has at most
    one score, so the counts tell): idx_run_scores_config and the runs'
    smallest index answer it without reading a row."""
    scored = project.db.execute(
        "SELECT count(*) FROM run_scores WHERE config_version = ? AND strict = ?", [config.version, int(strict)]
    ).fetchone()[0]
    return scored == project.db.execute("SELECT count(*) FROM runs").fetchone()[0]


def _score_here(project: Project, chunks: list[list[int]], context: dict, progress: Progress | None) -> None:
    """score_runs's chunks in this process."""
    _worker_init(context)
    total = sum(map(len, chunks))
    done = 0
    gc_on = gc.isenabled()
    gc.disable()  # the chunk's garbage is collected young, after each chunk (_collect_young)
    try:
        with _derived_sync(project):
            for k, part in enumerate(chunks):
                done += _score_chunk(project, part)
                if gc_on:
                    _collect_young(k)
                if progress:
                    progress(done, total)
    finally:
        if gc_on:
            gc.enable()
        _WORKER.clear()


def _score_in_pool(
    project: Project, chunks: list[list[int]], context: dict, workers: int, progress: Progress | None
) -> None:
    """score_runs's chunks in ``workers`` processes (score_runs doc);
    the ground truth of every item is read here once and handed over. When
    a worker dies (killed, out of memory), the chunks not written yet are
    scored in this process: every written chunk is committed whole."""
    context = {
        **context,
        "path": str(project.path),
        "gts": {item_id: repo_ground_truth.ground_truth(project, item_id) for item_id in context["items"]},
    }
    total = sum(map(len, chunks))
    done = 0
    pool = _pool(workers, context)
    futures: dict = {}
    left: list[list[int]] = []
    try:
        futures = {pool.submit(_score_chunk_in_worker, part): k for k, part in enumerate(chunks)}
        for future in as_completed(futures):
            try:
                done += future.result()
            except BrokenProcessPool:
                left.append(chunks[futures[future]])
                continue
            if progress:
                progress(done, total)
    finally:
        for future in futures:  # after an error or an interrupt: start no further chunk
            future.cancel()
        pool.shutdown()
        _WORKER.clear()
    if left:
        _score_here(project, left, context, (lambda n, _: progress(done + n, total)) if progress else None)


#: Every this many chunks a full collection runs (cycles that outlived a chunk).
_FULL_GC_CHUNKS = 25


def _collect_young(chunk: int) -> None:
    """With the automatic collector paused: collect the young generations
    after a chunk (its garbage), and everything every _FULL_GC_CHUNKS
    chunks. The automatic collector's full collections scan every
    long-lived object, the scorer's caches included; measured on 10,000
    runs they cost 1.7 s of 5.7 s of CPU."""
    gc.collect(2 if chunk % _FULL_GC_CHUNKS == _FULL_GC_CHUNKS - 1 else 1)


def _verdict_rows(runs: Iterable[ScoredRun], reviewed: bool) -> Iterator[tuple]:
    for r in runs:
        if r.run["schema"] != AnswerSchema.FREE.value:
            yield r.run["prompt"], r.run["item"], r.reviewed if reviewed else r.auto, r.run["model"]


def verdicts(
    project: Project,
    reviewed: bool = False,
    runs: list[ScoredRun] | None = None,
    config: ScoringConfig | None = None,
) -> list[PromptVerdict]:
    """T-P1 verdicts per prompt and model, per item and over all items ('*'),
    from the automatic or the reviewed metrics. Free-text prompts are left
    out. Without ``runs``, the metrics stored with the runs are read
    (metric_rows.iter_metric_rows)."""
    config = config or repo_config.current_config(project)
    if runs is not None:
        return prompt_verdicts(_verdict_rows(runs, reviewed), config)
    return prompt_verdicts(
        (
            (r.prompt, r.item, lean_metrics_of(r.reviewed if reviewed else r.auto), r.model)
            for r in iter_metric_rows(project)
            if r.schema != AnswerSchema.FREE.value
        ),
        config,
    )


@dataclass
class CardSummary:
    """What the score and report commands show of all scored runs:
    ``runs`` scored, the prompts of free-text runs (not scored), both sets
    of verdicts, and per prompt (in the order the runs first show them) its
    findings counted by final code (for report.code_count_table)."""

    runs: int
    free_prompts: list[str]
    auto: list[PromptVerdict]
    reviewed: list[PromptVerdict]
    code_counts: list[tuple[str, dict[str, int]]]


def summarize(project: Project, config: ScoringConfig | None = None) -> CardSummary:
    """The Summary of every scored run from the metrics stored with the runs
    (metric_rows: one query, the few runs whose findings changed since
    scoring recomputed first) and one aggregate of the findings' final
    codes: memory holds two small metric tuples per run, never the runs,
    their answers or their findings."""
    config = config or repo_config.current_config(project)
    auto_rows, reviewed_rows = [], []
    free: set[str] = set()
    prompts: dict[str, None] = {}  # in the order the runs first show them
    n = 0
    for r in iter_metric_rows(project):
        n += 1
        prompts.setdefault(r.prompt)
        if r.schema == AnswerSchema.FREE.value:
            free.add(r.prompt)
            continue
        auto_rows.append((r.prompt, r.item, lean_metrics_of(r.auto), r.model))
        reviewed_rows.append((r.prompt, r.item, lean_metrics_of(r.reviewed), r.model))
    counts = code_counts(project)
    return CardSummary(
        runs=n,
        free_prompts=sorted(free),
        auto=prompt_verdicts(auto_rows, config),
        reviewed=prompt_verdicts(reviewed_rows, config),
        code_counts=[(prompt, counts.get(prompt, {})) for prompt in prompts],
    )
