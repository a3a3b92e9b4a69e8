"""Test-split reuse recorded and counted (reviewer.core.judging.test_reuse;
table ``test_split_reads``, migration 0028).

A judge's *rubric version* is the prompt version of its latest verdict on
the dimension ('' when its verdicts name none). The count of a judge,
dimension and rubric version is the number of 'gate' and 'fit' reads
recorded since the last 'resplit'. Only `reviewer gate` and `reviewer
calibration --fit` record; `reviewer alignment` and the window only read
the count. A read-only project records nothing (the caller says so).
Counted, not prevented: decision record test-split-reads-counted.
"""

from __future__ import annotations

import json

from reviewer.storage.project.db import Project, now

__all__ = ["READ_ACTIONS", "read_count", "record_read", "resplit", "rubric_version"]

#: The actions that read the test split.
READ_ACTIONS = ("gate", "fit")


def rubric_version(project: Project, judge: str, dimension: str) -> str:
    """The prompt version of ``judge``'s latest verdict scoring
    ``dimension`` ('' when none names one); a judge named 'name (method)'
    (two methods under one name) is looked up by its name."""
    if judge.endswith(")") and " (" in judge and not _has_judge(project, judge):
        judge = judge[: judge.rindex(" (")]
    row = project.db.execute(
        "SELECT prompt_version FROM verdicts WHERE judge = ? AND json_extract(scores, '$.' || json_quote(?)) "
        "IS NOT NULL ORDER BY id DESC LIMIT 1",
        [judge, dimension],
    ).fetchone()
    return (row[0] or "") if row else ""


def _has_judge(project: Project, judge: str) -> bool:
    return project.db.execute("SELECT 1 FROM verdicts WHERE judge = ? LIMIT 1", [judge]).fetchone() is not None


def _last_resplit(project: Project) -> int:
    row = project.db.execute("SELECT max(id) FROM test_split_reads WHERE action = 'resplit'").fetchone()
    return int(row[0] or 0)


def read_count(project: Project, judge: str, dimension: str, version: str) -> int:
    """Gate runs and fits recorded on ``judge``, ``dimension`` and rubric
    ``version`` since the last resplit."""
    row = project.db.execute(
        "SELECT count(*) FROM test_split_reads WHERE action IN ('gate', 'fit') AND judge = ? AND dimension = ? "
        "AND rubric_version = ? AND id > ?",
        [judge, dimension, version, _last_resplit(project)],
    ).fetchone()
    return int(row[0])


def record_read(project: Project, action: str, judge: str, dimension: str, split_seed: int) -> bool:
    """Record one read of the test split ('gate' or 'fit') of the judge's
    current rubric version; False (nothing written) on a read-only
    project. Raises ValueError on another action."""
    if action not in READ_ACTIONS:
        raise ValueError(f"action must be one of {READ_ACTIONS}, got {action!r}")
    if project.read_only:
        return False
    version = rubric_version(project, judge, dimension)
    with project.transaction():
        project.db.execute(
            "INSERT INTO test_split_reads (action, judge, dimension, rubric_version, split_seed, at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [action, judge, dimension, version, split_seed, now()],
        )
    return True


def resplit(project: Project, seed: int) -> None:
    """Draw new hash splits: set ``alignment.split_seed`` to ``seed`` and
    record the resplit, which restarts every count. Raises
    ReadOnlyProject on a read-only project."""
    project.require_writable("draw a new split")
    with project.transaction():
        project.db.execute(
            "INSERT INTO meta (key, value) VALUES ('alignment.split_seed', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [json.dumps(seed)],
        )
        project.db.execute(
            "INSERT INTO test_split_reads (action, split_seed, at) VALUES ('resplit', ?, ?)", [seed, now()]
        )
