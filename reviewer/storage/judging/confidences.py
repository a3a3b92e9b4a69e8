"""A judge's confidence per verdict and dimension, with its source
('logprob', 'stated' or 'imported'; table ``verdict_confidences``,
migration 0022). Written with a new verdict (reviewer.storage.judging.
add_verdict), read by the calibration report and the export. SQL
parameters only."""

from __future__ import annotations

import math
from collections.abc import Mapping

from reviewer.core.judging.verdict_confidence import SOURCES
from reviewer.storage.project.db import Project

__all__ = ["EXPORT_COLUMNS", "confidences", "export_tables", "put_confidences"]

EXPORT_COLUMNS = {"verdict_id": int, "dimension": str, "source": str, "confidence": float}


def put_confidences(project: Project, verdict_id: int, by_source: Mapping[str, Mapping[str, float]]) -> int:
    """Store ``{source: {dimension: confidence}}`` of one verdict (a value
    already stored for the same verdict, dimension and source is replaced).
    Values that are not finite numbers within [0, 1] and unknown sources are
    left out. Joins the caller's transaction. Returns the rows written."""
    rows = []
    for source, dims in by_source.items():
        if source not in SOURCES or not isinstance(dims, Mapping):
            continue
        for dim, value in dims.items():
            if (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
                and 0.0 <= value <= 1.0
            ):
                rows.append((verdict_id, str(dim), source, float(value)))
    if rows:
        with project.transaction():
            project.db.conn.executemany(
                "INSERT OR REPLACE INTO verdict_confidences (verdict_id, dimension, source, "
                "confidence) VALUES (?, ?, ?, ?)",
                rows,
            )
    return len(rows)


def confidences(project: Project, verdict_id: int | None = None) -> dict[int, dict[str, dict[str, float]]]:
    """{verdict id: {source: {dimension: confidence}}} of every verdict
    (or one) that has a confidence."""
    sql = "SELECT verdict_id, dimension, source, confidence FROM verdict_confidences"
    params: list = []
    if verdict_id is not None:
        sql += " WHERE verdict_id = ?"
        params = [verdict_id]
    out: dict[int, dict[str, dict[str, float]]] = {}
    for vid, dim, source, value in project.db.execute(sql + " ORDER BY verdict_id, source, dimension", params):
        out.setdefault(vid, {}).setdefault(source, {})[dim] = value
    return out


def export_tables(project: Project) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The export's ``verdict_confidences`` table: one row per verdict,
    dimension and source (join verdicts on verdict_id and dimension)."""
    rows = [
        tuple(r)
        for r in project.db.execute(
            "SELECT verdict_id, dimension, source, confidence FROM verdict_confidences "
            "ORDER BY verdict_id, dimension, source"
        )
    ]
    return [("verdict_confidences", EXPORT_COLUMNS, None, rows)]
