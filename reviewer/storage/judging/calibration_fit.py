"""Calibration fitted on dev, reported on test (reviewer.core.judging.calibration_fit),
for a project: per judge, dimension and confidence source
(reviewer.storage.judging.calibration_report.calibration_rows), the map is
fitted on the labelled verdicts of the dev split and ECE, adaptive ECE and
Brier are given before and after it on the test split (the splits of
`reviewer alignment`). On a writable project the map is stored with the
judge's rubric version (table ``calibration_maps``) and the fit is recorded
as a read of the test split (reviewer.storage.judging.test_reuse); on a
read-only project nothing is written and the result says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from reviewer.core.judging.calibration_fit import CalibrationMap, fit_map
from reviewer.core.judging.confidence import Calibration, calibration
from reviewer.core.judging.test_reuse import reuse_line
from reviewer.storage.judging import test_reuse
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.calibration_report import CalibrationSettings, calibration_rows
from reviewer.storage.judging.validation import people_and_splits, split_seed_of
from reviewer.storage.project.db import Project, now

__all__ = ["Fit", "fit_calibrations", "fit_json", "fit_text"]


@dataclass(frozen=True)
class Fit:
    """One group's fit: ``dev`` and ``test`` labelled verdicts; ``before``
    and ``after`` the calibration on the test split (None without test
    verdicts or without a map); ``note`` why there is no map; ``reads``:
    the test-split line."""

    judge: str
    dimension: str
    source: str
    rubric_version: str
    dev: int
    test: int
    fitted: CalibrationMap | None
    before: Calibration | None
    after: Calibration | None
    note: str
    reads: str


def fit_calibrations(project: Project, method: str, settings: CalibrationSettings | None = None) -> list[Fit]:
    """Fit ``method`` per group (module doc); ``settings``: of the
    calibration rows (default CalibrationSettings()). Raises ValueError for
    an unknown method, NeedsScikitLearn for Platt or isotonic without
    scikit-learn."""
    settings = settings or CalibrationSettings()
    vs = judging.verdicts(project)
    adjudications = judging.adjudications(project)
    seed = split_seed_of(project)
    _, split_of = people_and_splits(project, vs, adjudications, seed)
    out = []
    for r in calibration_rows(project, replace(settings, calibrated=False), None, vs, adjudications):
        version = test_reuse.rubric_version(project, r.judge, r.dimension)
        dev = [i for i, s in enumerate(r.subjects) if split_of(s) == "dev"]
        test = [i for i, s in enumerate(r.subjects) if split_of(s) == "test"]
        fitted: CalibrationMap | None = None
        note = ""
        try:
            fitted = fit_map(method, [r.confidence[i] for i in dev], [r.correct[i] for i in dev])
        except ValueError as exc:
            if "calibration method" in str(exc):
                raise
            note = f"no map: {exc}" if dev else "no map: no labelled verdict in the dev split"
        before = after = None
        conf, right = [r.confidence[i] for i in test], [r.correct[i] for i in test]
        if test:
            before = calibration(conf, right)
            if fitted is not None:
                after = calibration([float(x) for x in fitted.apply(conf)], right)
        if fitted is not None and not project.read_only:
            _store(project, r.judge, r.dimension, r.source, version, fitted, seed)
            test_reuse.record_read(project, "fit", r.judge, r.dimension, seed)
        count = test_reuse.read_count(project, r.judge, r.dimension, version)
        line = reuse_line(count, version, seed)
        if fitted is not None and project.read_only:
            line += "; read-only project: the map is not stored and this read is not recorded"
        out.append(Fit(r.judge, r.dimension, r.source, version, len(dev), len(test), fitted, before, after, note, line))
    return out


def _store(
    project: Project, judge: str, dimension: str, source: str, version: str, m: CalibrationMap, seed: int
) -> None:
    with project.transaction():
        project.db.execute(
            "INSERT INTO calibration_maps (judge, dimension, source, rubric_version, method, params, n, split_seed, "
            "fitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (judge, dimension, source, rubric_version) "
            "DO UPDATE SET method = excluded.method, params = excluded.params, n = excluded.n, "
            "split_seed = excluded.split_seed, fitted_at = excluded.fitted_at",
            [judge, dimension, source, version, m.method, json.dumps(m.params), m.n, seed, now()],
        )


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def fit_text(fits: list[Fit], method: str) -> str:
    """Plain text per group: the map, and ECE, adaptive ECE and Brier before and after on test."""
    if not fits:
        return "no calibration fit: no judge verdict with a confidence on a subject people labelled\n"
    lines = []
    for f in fits:
        lines.append(f"{f.judge} / {f.dimension} / {f.source} (rubric {f.rubric_version or 'unversioned'})")
        if f.fitted is None:
            lines.append(f"  {f.note}")
        else:
            lines.append(f"  {method} fitted on {f.dev} dev verdicts: {f.fitted.text()}")
        if f.before is None:
            lines.append("  test split: no labelled verdict")
        else:
            b, a = f.before, f.after
            lines.append(
                f"  test split (n = {f.test}): ECE {_f(b.ece)} -> {_f(a.ece if a else None)}, adaptive ECE "
                f"{_f(b.adaptive_ece)} -> {_f(a.adaptive_ece if a else None)}, Brier {_f(b.brier)} -> "
                f"{_f(a.brier if a else None)} (15 bins)"
            )
        lines.append(f"  {f.reads}")
        lines.append("")
    return "\n".join(lines)


def fit_json(fits: list[Fit], method: str) -> dict:
    """JSON-ready."""

    def cal(c: Calibration | None) -> dict | None:
        return None if c is None else {"n": c.n, "ece": c.ece, "adaptive_ece": c.adaptive_ece, "brier": c.brier}

    return {
        "method": method,
        "fitted_on": "dev",
        "reported_on": "test",
        "fits": [
            {
                "judge": f.judge,
                "dimension": f.dimension,
                "source": f.source,
                "rubric_version": f.rubric_version,
                "dev": f.dev,
                "test": f.test,
                "map": None if f.fitted is None else f.fitted.as_dict(),
                "note": f.note,
                "before": cal(f.before),
                "after": cal(f.after),
                "test_split_reads": f.reads,
            }
            for f in fits
        ],
    }
