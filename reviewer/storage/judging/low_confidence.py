"""Low-confidence disputes of a project: each judge verdict whose stored
confidence is below the trust threshold that selective judging finds for
its judge, dimension and confidence source (reviewer.storage.judging.
calibration_report.calibration_rows with the default settings: accuracy
>= 0.8 at a one-sided 95 % bound, at least 50 labelled verdicts above a
threshold) becomes a dispute of kind low-confidence
(reviewer.core.judging.low_confidence). With ``calibrated`` settings the
confidences and thresholds are on the calibration map that ``reviewer
calibration --fit`` stored, where there is one, and each dispute's detail
says which confidence it used. Reads only; the dispute queue
stores them with the other disputes.
"""

from __future__ import annotations

from reviewer.core.judging.dispute_common import is_human, primary_verdicts, rater_labels, value_of
from reviewer.core.judging.low_confidence import low_confidence_disputes
from reviewer.core.judging.verdicts import Dispute
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.calibration_maps import stored_map
from reviewer.storage.judging.calibration_report import CalibrationSettings, calibration_rows
from reviewer.storage.judging.confidences import confidences
from reviewer.storage.project.db import Project

__all__ = ["project_low_confidence"]


#: The settings the queue's trust thresholds are found with (the defaults).
QUEUE_SETTINGS = CalibrationSettings()


def project_low_confidence(project: Project, settings: CalibrationSettings = QUEUE_SETTINGS) -> list[Dispute]:
    """The low-confidence disputes of the project (module doc), most severe
    first; [] at once when no verdict has a confidence."""
    if project.db.execute("SELECT 1 FROM verdict_confidences LIMIT 1").fetchone() is None:
        return []
    rows = [
        r for r in calibration_rows(project, settings) if r.selection is not None and r.selection.threshold is not None
    ]
    thresholds = {
        (r.judge, r.dimension, r.source): r.selection.threshold
        for r in rows
        if r.selection is not None and r.selection.threshold is not None
    }
    used = {(r.judge, r.dimension, r.source): r.confidence_used for r in rows}
    maps = {}
    if settings.calibrated:
        for r in rows:
            m = stored_map(project, r.judge, r.dimension, r.source)
            if m is not None:
                maps[(r.judge, r.dimension, r.source)] = m
    if not thresholds:
        return []
    judges = [v for v in judging.verdicts(project) if not is_human(v)]
    labels = rater_labels(judges)
    stored = confidences(project)
    entries = []
    for (_, rater), v in primary_verdicts(judges).items():
        for source, dims in stored.get(v.id, {}).items() if v.id is not None else ():
            for dim, c in dims.items():
                if value_of(v, dim) is not None:
                    m = maps.get((labels[rater], dim, source))
                    entries.append((v, labels[rater], dim, source, c if m is None else float(m.apply([c])[0])))
    return low_confidence_disputes(entries, thresholds, used)
