"""Where the findings of a span judge are stored: one module for the
span-snapshot importer (a judge result in an imported snapshot) and for the
judge pipeline (a span judge asked over HTTP). The judge's error lists become
findings of the labelled run (reviewer.core.spans.snapshots.judge_findings:
one per error, with exactly one SpanCode), each tied to the judge's verdict.
"""

from __future__ import annotations

from collections.abc import Mapping

from reviewer.core.spans.snapshots import judge_findings
from reviewer.storage.project.db import Project
from reviewer.storage.repo import findings as repo_findings

__all__ = ["store_judge_findings"]


def store_judge_findings(
    project: Project, run_id: int, verdict_id: int, judge_result: Mapping | None, actor: str | None
) -> int:
    """Store the findings of one span-judge result (``judge_result``: the
    judge's JSON object, None or empty for none) on run ``run_id``, each
    tied to verdict ``verdict_id`` and recorded by ``actor``. Returns how
    many were stored."""
    found = judge_findings(judge_result or {})
    for finding in found:
        repo_findings.insert_finding(
            project, run_id, finding.model_copy(update={"verdict_id": verdict_id}), actor=actor
        )
    return len(found)
