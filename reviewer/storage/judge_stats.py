"""Disputes and agreement statistics of a project's judge verdicts (docs/judging.md):
:func:`refresh_disputes` finds the disputes over every verdict and stores
them; :func:`agreement_table` computes the agreement statistics with
:mod:`reviewer.core.judging.agreement_table` (whose docstring defines the raters,
the treatment of ties and garbage, and every statistic).
"""

from __future__ import annotations

from typing import Optional, Sequence

from reviewer.core.judging.agreement_table import ADJUDICATED, AgreementRow, agreement_rows, undecided_counts
from reviewer.core.judging.disputes import find_disputes
from reviewer.core.judging.verdicts import Dispute, Verdict
from reviewer.storage import judging
from reviewer.storage.db import Project
from reviewer.storage.gt_annotators import gt_agreement_rows, gt_disputes
from reviewer.storage.rubric_rules import project_rules

__all__ = [
    "ADJUDICATED",
    "AgreementRow",
    "agreement_rows",
    "agreement_table",
    "metrics_with_findings",
    "refresh_disputes",
    "undecided_counts",
]


def metrics_with_findings(project: Project, verdicts: Optional[Sequence[Verdict]] = None) -> dict[str, dict]:
    """Subject metrics (judging.subject_metrics) plus, for subjects of
    verdicts on one card-reading run, ``halluc_findings``: the run's HALLUC
    findings that are not rejected (final code when reviewed)."""
    metrics = {k: dict(v) for k, v in judging.subject_metrics(project).items()}
    counts = dict(project.db.execute(
        "SELECT run_id, count(*) FROM findings WHERE coalesce(final_code, code) = 'HALLUC' "
        "AND status != 'rejected' GROUP BY run_id").fetchall())
    if counts:
        for v in verdicts if verdicts is not None else judging.verdicts(project):
            if v.run_id in counts and v.other_run_id is None:
                metrics.setdefault(v.subject, {})["halluc_findings"] = counts[v.run_id]
    return metrics


def refresh_disputes(project: Project) -> list[Dispute]:
    """Find the disputes over every verdict of the project (with the subject
    metrics and HALLUC findings, :func:`metrics_with_findings`, checking the
    project's rubric rules, reviewer.storage.rubric_rules) and the
    ground-truth disputes of the annotators (docs/cards.md#several-annotators,
    reviewer.storage.gt_annotators), and store them with
    :func:`reviewer.storage.judging.replace_disputes` (ids of disputes found
    before are kept; disputes gone are deleted). Returns them with ids, most
    severe first."""
    vs = judging.verdicts(project)
    found = find_disputes(vs, metrics_with_findings(project, vs), rules=project_rules(project)) + gt_disputes(project)
    found.sort(key=lambda d: -d.severity)  # stable: each finder's own order within a severity
    return judging.replace_disputes(project, found)


# ---------------------------------------------------------------------------
# agreement


def agreement_table(project: Project) -> list[AgreementRow]:
    """The agreement statistics of every verdict and adjudication of the
    project (:func:`agreement_rows`), then those of the ground-truth
    annotators (reviewer.core.annotators). Reads only."""
    return agreement_rows(judging.verdicts(project), judging.adjudications(project)) + gt_agreement_rows(project)
