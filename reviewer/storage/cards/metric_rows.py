"""The stored metrics of scored runs, read in one pass (decision: stored-metrics-never-stale).

Scoring stores each run's automatic and reviewed RunMetrics with its facts
(run_scores.auto_metrics / reviewed_metrics, migration 0011). Any change to
a run's findings (a decision, a human finding, a re-scoring) empties them
through triggers, so they are a cache that is never stale: a reader first
recomputes the emptied ones (run_metrics over the stored facts and
findings, T-P5 step 6) and writes them back in one transaction per chunk,
then reads every run's metrics with one query, without building a pydantic
object per run or per finding.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from typing import NamedTuple

from reviewer.core.models import STALE_PREFIX
from reviewer.storage.cards.scored import iter_scored_runs
from reviewer.storage.project.db import Project

#: Runs whose metrics are recomputed per write transaction.
CHUNK = 400

_ORDER = " ORDER BY i.name, p.name, r.model, r.repetition"


class MetricRow(NamedTuple):
    """One scored run: who made it, and its metrics as stored (RunMetrics
    fields as a dict, shared by the runs with the same metrics: read it,
    do not change it; ``box_convention`` is its string value).
    ``parse_error`` is read only when asked for (else None)."""

    run_id: int
    item: str
    prompt: str
    schema: str
    model: str
    repetition: int
    timestamp: str | None
    config_version: str
    parse_error: str | None
    auto: dict
    reviewed: dict


def fill_missing_metrics(project: Project) -> int:
    """Recompute the stored metrics of the scored runs that have none (scored
    before migration 0011, or a finding changed since) and store them. Each
    chunk is read and written in one write transaction, so no decision can
    slip in between the read and the write. Returns the runs recomputed."""
    missing = [r[0] for r in project.db.execute("SELECT run_id FROM run_scores WHERE auto_metrics IS NULL")]
    for start in range(0, len(missing), CHUNK):
        part = missing[start : start + CHUNK]
        with project.transaction(derived=True):
            rows = [
                (r.auto.model_dump_json(), r.reviewed.model_dump_json(), r.run["id"])
                for r in iter_scored_runs(project, part, with_cards=False, with_output=False)
            ]
            project.db.conn.executemany(
                "UPDATE run_scores SET auto_metrics = ?, reviewed_metrics = ? WHERE run_id = ?", rows
            )
    return len(missing)


def iter_metric_rows(project: Project, with_parse_error: bool = False) -> Iterator[MetricRow]:
    """Every scored run with its stored metrics, in the order of
    repo.runs.run_rows (item, prompt, model, repetition), streamed from one
    query. Missing metrics are filled first (fill_missing_metrics); a run
    whose findings change while this reads is recomputed on the spot."""
    fill_missing_metrics(project)
    parse_error = "json_extract(s.facts, '$.parse_error')" if with_parse_error else "NULL"
    cur = project.db.execute(
        "SELECT r.id, i.name, p.name, p.schema, r.model, r.repetition, r.timestamp, s.config_version, "
        f"{parse_error}, s.auto_metrics, s.reviewed_metrics FROM runs r "
        "JOIN run_scores s ON s.run_id = r.id JOIN items i ON i.id = r.item_id "
        "JOIN prompts p ON p.id = r.prompt_id" + _ORDER
    )
    parsed: dict[str, dict] = {}  # runs share few distinct metric texts: each is parsed once

    def loads(text: str) -> dict:
        found = parsed.get(text)
        if found is None:
            found = parsed[text] = json.loads(text)
        return found

    for row in cur:
        auto, reviewed = row[9], row[10]
        if auto is None or reviewed is None:  # another program changed a finding meanwhile
            auto, reviewed = _recompute(project, row[0])
        yield MetricRow._make((*row[:9], loads(auto), loads(reviewed)))


def _recompute(project: Project, run_id: int) -> tuple[str, str]:
    for r in iter_scored_runs(project, [run_id], with_cards=False, with_output=False):
        return r.auto.model_dump_json(), r.reviewed.model_dump_json()
    raise KeyError(f"run {run_id} is no longer scored")


def finding_counts(project: Project) -> dict[int, tuple[int, int]]:
    """Per scored run: (findings, findings still proposed), from the
    covering index of findings by run and status."""
    return {
        r[0]: (r[1], r[2])
        for r in project.db.execute("SELECT run_id, count(*), sum(status = 'proposed') FROM findings GROUP BY run_id")
    }


def code_counts(project: Project) -> dict[str, dict[str, int]]:
    """Per prompt, the findings of scored runs by the code they count as
    after review (Finding.effective_code: rejected and stale findings left
    out): {prompt: {code: count}}."""
    out: dict[str, dict[str, int]] = {}
    for prompt, code, n in project.db.execute(
        "SELECT p.name, coalesce(f.final_code, f.code), count(*) FROM findings f "
        "JOIN run_scores s ON s.run_id = f.run_id JOIN runs r ON r.id = f.run_id "
        "JOIN prompts p ON p.id = r.prompt_id "
        "WHERE f.status != 'rejected' AND substr(f.detail, 1, ?) != ? GROUP BY 1, 2",
        [len(STALE_PREFIX), STALE_PREFIX],
    ):
        out.setdefault(prompt, {})[code] = n
    return out


def finding_export_rows(project: Project) -> Iterator[tuple]:
    """The findings of scored runs as rows of the export's findings table
    (export.FINDING_COLUMNS): final_code is the code the finding counts as
    (NULL when rejected), decided_at in ISO 8601."""
    cur = project.db.execute(
        "SELECT f.id, f.run_id, f.code, CASE WHEN f.status = 'rejected' THEN NULL "
        "ELSE coalesce(f.final_code, f.code) END, f.status, f.source, f.gt_card, f.model_card, f.detail, "
        "f.reason, f.reviewer, f.decided_at FROM findings f JOIN run_scores s ON s.run_id = f.run_id"
    )
    for row in cur:
        decided = row[11]
        if decided is not None:
            row = row[:11] + (datetime.fromisoformat(decided).isoformat(),)
        yield row
