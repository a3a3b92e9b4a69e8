"""The calibration maps stored by ``reviewer calibration --fit`` (table
``calibration_maps``, one per judge, dimension, confidence source and
rubric version; reviewer.storage.judging.calibration_fit writes them).
Reads only."""

from __future__ import annotations

import json

from reviewer.core.judging.calibration_fit import CalibrationMap
from reviewer.storage.judging import test_reuse
from reviewer.storage.project.db import Project

__all__ = ["stored_map"]


def stored_map(project: Project, judge: str, dimension: str, source: str) -> CalibrationMap | None:
    """The map stored for the judge's current rubric version, or None."""
    version = test_reuse.rubric_version(project, judge, dimension)
    row = project.db.execute(
        "SELECT method, params, n FROM calibration_maps WHERE judge = ? AND dimension = ? AND source = ? "
        "AND rubric_version = ?",
        [judge, dimension, source, version],
    ).fetchone()
    return None if row is None else CalibrationMap(row[0], json.loads(row[1]), int(row[2]))
