"""Span figures after review: the span judge's missed elements that are
still missed once people have decided on them.

A span judge's missed elements become MISSED findings of the labelled run
(reviewer.storage.spans.judge_findings); the report counts them by severity
from the snapshot as the judge said them (reviewer.core.spans.diagnostics.
missed_by_severity). After review, a finding counts when its effective code
(reviewer.core.models.Finding.effective_code: rejected and stale findings
count as nothing, a reclassified one as its new code) is still MISSED, so
rejecting a missed element takes it out and a finding added by hand as
MISSED puts one in; its severity is the judge's (``attrs['severity']``), and
a finding with no known severity is not counted, as in the report.
"""

from __future__ import annotations

from reviewer.core.models import SpanCode
from reviewer.core.spans.diagnostics import SEVERITIES
from reviewer.storage.project.db import Project
from reviewer.storage.repo import findings as repo_findings

__all__ = ["missed_after_review"]


def missed_after_review(project: Project) -> dict[str, dict[str, int]]:
    """{snapshot name: {severity: count}} (every severity of SEVERITIES
    present) of the MISSED findings still MISSED after review on the runs
    each stored snapshot's results became (module doc); snapshots in import
    order, {} without snapshots."""
    out: dict[str, dict[str, int]] = {}
    snapshots = project.db.execute(
        "SELECT s.id, s.name FROM span_snapshots s ORDER BY s.id",
    ).fetchall()
    for snapshot_id, name in snapshots:
        run_ids = [
            r[0]
            for r in project.db.execute(
                "SELECT DISTINCT run_id FROM span_snapshot_runs WHERE snapshot_id = ? AND run_id IS NOT NULL "
                "ORDER BY run_id",
                [snapshot_id],
            )
        ]
        counts = dict.fromkeys(SEVERITIES, 0)
        for finding in repo_findings.findings_of_runs(project, run_ids):
            severity = finding.attrs.get("severity")
            if finding.effective_code == SpanCode.MISSED and severity in counts:
                counts[severity] += 1
        out[name] = counts
    return out
