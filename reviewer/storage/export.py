"""Export scored runs to an SQLite database for analysts (Datasette, pandas).

Tables (column docs in docs/export-schema.md): items, runs, findings,
prompt_verdicts and scoring_config, which every export has; then each
registered workflow's tables (reviewer.storage.registry, ``export_parts``,
decision record "workflow-registries"): verdicts, disputes, adjudications,
agreement, failter, rubric_gate, rubric_disputes, verdict_confidences (the
judging workflows); case_results and case_scores (test cases); the span
tables and span_runs; gt_piles and gt_cards (ground truth of every
annotator and the consensus); human_labels (the judging workflows);
views code_counts and auto_code_counts; _tables and _columns describing
them all, with their foreign keys (reviewer.storage.export_schema), and a
Datasette metadata file beside the database.
The export and its metadata file are written to a temporary file and moved
into place (reviewer.storage.files.safe_write), so a failed export never leaves a
half-written database behind; the target must be an earlier export (or
new), never a project, another program's database or a file inside what
the project was imported from, unless ``force`` (the metadata file: earlier
Datasette metadata or new, the same way).
"""

from __future__ import annotations

import gc
import importlib
import itertools
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import sqlite_utils

from reviewer.core.cards.metrics import prompt_verdicts
from reviewer.core.models import AnswerSchema
from reviewer.storage import registry
from reviewer.storage.annotators.ground_truth import annotators
from reviewer.storage.cards.metric_rows import MetricRow, finding_counts, finding_export_rows, iter_metric_rows
from reviewer.storage.cards.scored import lean_metrics_of
from reviewer.storage.dispute_queue import refresh_disputes
from reviewer.storage.export_schema import (
    METADATA_FORMAT,
    doc_tables,
    foreign_keys,
    metadata_path,
    write_metadata,
)
from reviewer.storage.files import safe_write
from reviewer.storage.judging.calls import run_calls
from reviewer.storage.judging.report import has_verdicts
from reviewer.storage.project.db import DiskFull, Project, ProjectError, disk_full_message, is_disk_full
from reviewer.storage.project.recognise import read_only_uri
from reviewer.storage.repo import config as repo_config
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo.sources import import_sources
from reviewer.storage.scoring import score_project
from reviewer.storage.workflows import item_workflows

RUN_COLUMNS = {
    "run_id": int,
    "item": str,
    "prompt": str,
    "schema": str,
    "model": str,
    "repetition": int,
    "timestamp": str,
    "config_version": str,
    "json_valid": int,
    "repaired": int,
    "box_convention": str,
    "cards_visible": int,
    "cards_reported": int,
    "cards_correct": int,
    "text_accuracy": float,
    "spatial_accuracy": float,
    "hallucinations": int,
    "auto_cards_correct": int,
    "auto_text_accuracy": float,
    "auto_spatial_accuracy": float,
    "auto_hallucinations": int,
    "findings": int,
    "reviewed": int,
    "parse_error": str,
    "latency_ms": float,
    "prompt_tokens": int,
    "completion_tokens": int,
    "total_tokens": int,
    "finish_reason": str,
    "truncated": int,
    "cost": float,
}
FINDING_COLUMNS = {
    "finding_id": int,
    "run_id": int,
    "code": str,
    "final_code": str,
    "status": str,
    "source": str,
    "gt_card": str,
    "model_card": str,
    "detail": str,
    "reason": str,
    "reviewer": str,
    "decided_at": str,
}
VERDICT_COLUMNS = {
    "prompt": str,
    "model": str,
    "item": str,
    "basis": str,
    "runs": int,
    "cards_visible": int,
    "cards_correct": int,
    "text_accuracy": float,
    "spatial_accuracy": float,
    "hallucination_runs": int,
    "json_valid_runs": int,
    "verdict": str,
    "spatial_ok": int,
    "json_ok": int,
    "reasons": str,
}

_VIEWS = {
    "code_counts": """
        SELECT r.prompt, coalesce(f.final_code, f.code) AS code, count(*) AS findings,
               count(DISTINCT f.run_id) AS runs
        FROM findings f JOIN runs r ON r.run_id = f.run_id
        WHERE f.status != 'rejected'
        GROUP BY r.prompt, coalesce(f.final_code, f.code) ORDER BY r.prompt, code""",
    "auto_code_counts": """
        SELECT r.prompt, f.code, count(*) AS findings, count(DISTINCT f.run_id) AS runs
        FROM findings f JOIN runs r ON r.run_id = f.run_id
        WHERE f.source = 'auto'
        GROUP BY r.prompt, f.code ORDER BY r.prompt, f.code""",
}


def _bool(v: bool | None) -> int | None:
    return None if v is None else int(v)


def collect_tables(
    project: Project,
    prices: dict[str, dict[str, float]] | None = None,
) -> list[tuple[str, dict, str | None, Iterable[tuple]]]:
    """Every table of the export as (name, columns, primary key, rows as
    tuples in column order). The runs and findings are generators, read
    while write_tables writes them (memory O(chunk), not O(project)); the
    prompt_verdicts rows are pooled from what the runs left (two small
    metric tuples per run), so write the tables in this order. ``prices``:
    {model: {"input": price per token, "output": price per token}} for the
    runs' cost (failter_report.load_prices)."""
    config = repo_config.current_config(project)
    counts = finding_counts(project)
    calls = run_calls(project)
    metric_rows: dict[str, list] = {"auto": [], "reviewed": []}
    runs_read = []

    def run_rows() -> Iterator[tuple]:
        for r in iter_metric_rows(project, with_parse_error=True):
            yield _run_row(r, counts.get(r.run_id, (0, 0)), calls.get(r.run_id), (prices or {}).get(r.model))
            if r.schema != AnswerSchema.FREE.value:
                metric_rows["auto"].append((r.prompt, r.item, lean_metrics_of(r.auto), r.model))
                metric_rows["reviewed"].append((r.prompt, r.item, lean_metrics_of(r.reviewed), r.model))
        runs_read.append(True)

    def verdict_rows() -> Iterator[tuple]:
        if not runs_read:
            raise RuntimeError("prompt_verdicts are pooled from the runs: write the runs table first")
        for basis in ("auto", "reviewed"):
            for v in prompt_verdicts(metric_rows[basis], config):
                row = {
                    **v.model_dump(mode="json", exclude={"reasons", "spatial_ok", "json_ok"}),
                    "basis": basis,
                    "spatial_ok": _bool(v.spatial_ok),
                    "json_ok": _bool(v.json_ok),
                    "reasons": "; ".join(v.reasons),
                }
                yield tuple(row[c] for c in VERDICT_COLUMNS)

    item_columns = {
        "item": str,
        "kind": str,
        "path": str,
        "width": int,
        "height": int,
        "orientation": int,
        "sha256": str,
        "workflow": str,
    }
    items = repo_items.items(project)
    flows = item_workflows(project, items)
    return [
        (
            "items",
            item_columns,
            "item",
            [
                (i.name, i.kind, i.path, i.width, i.height, i.orientation, i.sha256, flows[i.id].value)
                for i in items
                if i.id is not None
            ],
        ),
        ("runs", RUN_COLUMNS, "run_id", run_rows()),
        ("findings", FINDING_COLUMNS, "finding_id", finding_export_rows(project)),
        ("prompt_verdicts", VERDICT_COLUMNS, None, verdict_rows()),
        (
            "scoring_config",
            {"version": str, "name": str, "value": str},
            None,
            [(config.version, k, str(v)) for k, v in config.model_dump(mode="json").items()],
        ),
        *workflow_tables(project, prices),
        *(table for parts in registry.registered() if parts.export for table in parts.export(project)),
    ]


def workflow_tables(
    project: Project, prices: dict[str, dict[str, float]] | None = None
) -> list[tuple[str, dict, str | None, Iterable[tuple]]]:
    """The registered workflows' tables of the export (reviewer.storage.registry,
    ``export_parts``: the judges', the test cases', the spans', the
    annotators'), in their parts' rank order; a table two parts give is
    one table, the later part's rows after the earlier's. ``prices`` go to
    the parts that take them."""
    parts = sorted((p for w in registry.registered() for p in w.export_parts), key=lambda p: p.rank)
    tables: dict[str, tuple[str, dict, str | None, Iterable[tuple]]] = {}
    for part in parts:
        function = getattr(importlib.import_module(part.module), part.function)
        for name, columns, pk, rows in function(project, prices) if part.prices else function(project):
            if name in tables:
                first = tables[name]
                tables[name] = (name, first[1], first[2], itertools.chain(first[3], rows))
            else:
                tables[name] = (name, columns, pk, rows)
    return list(tables.values())


#: Tables every export has: an existing file without them is not an export.
EXPORT_TABLES = {"items", "runs", "findings", "prompt_verdicts", "scoring_config"}


def _is_export(path: Path) -> bool:
    """True when the SQLite file at ``path`` is an earlier export: it has
    EXPORT_TABLES and its runs have run_id and config_version (read through
    SQLite, read-only; an MLflow store also has a runs table)."""
    try:
        con = sqlite3.connect(read_only_uri(path, immutable=True), uri=True)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            cols = {r[1] for r in con.execute("PRAGMA table_info(runs)")}
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return tables >= EXPORT_TABLES and {"run_id", "config_version"} <= cols


#: What ``reviewer export`` writes, for safe_write's check of the target.
EXPORT_FORMAT = safe_write.FileFormat("reviewer export (SQLite)", _is_export, sqlite=True)


def write_tables(
    out: Path, tables, views: dict[str, str] | None = None, check: bool = False, sources=(), force: bool = False
) -> dict[str, int]:
    """Write ``tables`` (as collect_tables gives them) and ``views`` to a new
    database at ``out``, through a temporary file in its folder moved into
    place (safe_write.replacing; with ``check``, the target is checked
    first: TargetRefused). Tables are made with sqlite-utils, with the
    foreign keys of export_schema.foreign_keys() to tables made before them; rows go in
    with one executemany per table in one transaction. Returns rows per
    table; ProjectError when ``out`` cannot be written (the previous file
    is left as it was)."""
    out = Path(out)
    fmt = EXPORT_FORMAT if check else None
    with safe_write.replacing(out, fmt, sources=sources, force=force) as tmp:
        db = sqlite_utils.Database(tmp)
        try:
            counts = {}
            made: set[str] = set()
            links = foreign_keys()
            with db.atomic():
                for name, columns, pk, rows in tables:
                    keys = [fk for fk in links.get(name, ()) if fk[1] in made]
                    db.table(name).create(columns, pk=pk, foreign_keys=keys or None)  # a table, never a view
                    made.add(name)
                    marks = ", ".join("?" * len(columns))
                    counts[name] = max(0, db.conn.executemany(f"INSERT INTO [{name}] VALUES ({marks})", rows).rowcount)
                for name, sql in (views or {}).items():
                    db.create_view(name, sql, replace=True)
        except sqlite3.Error as exc:
            if is_disk_full(exc):
                raise DiskFull(disk_full_message(out)) from exc
            raise ProjectError(f"cannot write {out}: {exc}") from exc
        finally:
            db.close()
    return counts


def export_project(
    project: Project,
    out: Path,
    progress: Callable[[str], None] | None = None,
    timings: dict[str, float] | None = None,
    prices: dict[str, dict[str, float]] | None = None,
    force: bool = False,
) -> dict[str, int]:
    """Score stale runs, refresh the judge disputes (when there are verdicts
    or disputes), then write the analysts' database to ``out``
    (replacing it), with its ``_tables`` and ``_columns`` descriptions and
    foreign keys (export_schema), and a Datasette metadata file beside it
    (``<out>.metadata.json``). ``prices``: per-token prices per model for the
    runs' cost. Returns the number of rows per table; fills ``timings``
    with the seconds spent scoring, gathering and writing when given.
    Raises TargetRefused (before any work) when ``out`` or its metadata
    file is not a file an export may replace (module doc; ``force``
    replaces any but the project itself), ProjectError when it cannot be
    written."""
    sources = import_sources(project)
    safe_write.check_target(out, EXPORT_FORMAT, sources=sources, force=force)
    safe_write.check_target(metadata_path(Path(out)), METADATA_FORMAT, sources=sources, force=force)
    t0 = time.perf_counter()
    score_project(project, only_stale=True)
    if has_verdicts(project) or project.db.execute("SELECT 1 FROM disputes LIMIT 1").fetchone() or annotators(project):
        refresh_disputes(project)
    t1 = time.perf_counter()
    enabled = gc.isenabled()
    gc.disable()  # many live rows, no reference cycles: no collector passes over them
    try:
        tables = collect_tables(project, prices)
        doc = doc_tables(tables, _VIEWS)
        t2 = time.perf_counter()
        counts = write_tables(out, tables + doc, _VIEWS, check=True, sources=sources, force=force)
        write_metadata(Path(out), doc, sources=sources, force=force)
    finally:
        if enabled:
            gc.enable()
    t3 = time.perf_counter()
    if timings is not None:  # runs and findings are read while written: their reading counts as writing
        timings.update(score=t1 - t0, gather=t2 - t1, write=t3 - t2)
    if progress:
        progress(f"wrote {sum(counts.values())} rows")
    return counts


def _run_row(
    r: MetricRow, counts: tuple[int, int], call: dict | None = None, price: dict[str, float] | None = None
) -> tuple:
    """The export's row of one run (RUN_COLUMNS): reviewed metrics, with the
    automatic ones beside them; ``counts`` = (findings, still proposed);
    ``call``: the runner's facts of the answer (calls.run_calls; None for
    imported runs); ``price``: {"input", "output"} per token of its model."""
    rev, auto = r.reviewed, r.auto
    call = call or {}
    cost = None
    if price is not None and call.get("prompt_tokens") is not None and call.get("completion_tokens") is not None:
        cost = call["prompt_tokens"] * price["input"] + call["completion_tokens"] * price["output"]
    scored, auto_scored = rev["scored"], auto["scored"]
    row = {
        "run_id": r.run_id,
        "item": r.item,
        "prompt": r.prompt,
        "schema": r.schema,
        "model": r.model,
        "repetition": r.repetition,
        "timestamp": r.timestamp,
        "config_version": r.config_version,
        "json_valid": int(rev["json_valid"]),
        "repaired": int(rev["repaired"]),
        "box_convention": rev["box_convention"],
        "cards_visible": rev["cards_visible"] if scored else None,
        "cards_reported": rev["cards_reported"],
        "cards_correct": rev["cards_correct"] if scored else None,
        "text_accuracy": rev["text_accuracy"],
        "spatial_accuracy": rev["spatial_accuracy"],
        "hallucinations": rev["hallucinations"] if scored else None,
        "auto_cards_correct": auto["cards_correct"] if auto_scored else None,
        "auto_text_accuracy": auto["text_accuracy"],
        "auto_spatial_accuracy": auto["spatial_accuracy"],
        "auto_hallucinations": auto["hallucinations"] if auto_scored else None,
        "findings": counts[0],
        "reviewed": int(counts[0] > 0 and counts[1] == 0),
        "parse_error": r.parse_error,
        "latency_ms": call.get("latency_ms"),
        "prompt_tokens": call.get("prompt_tokens"),
        "completion_tokens": call.get("completion_tokens"),
        "total_tokens": call.get("total_tokens"),
        "finish_reason": call.get("finish_reason"),
        "truncated": int(call["truncated"]) if "truncated" in call else None,
        "cost": cost,
    }
    return tuple(row[c] for c in RUN_COLUMNS)
