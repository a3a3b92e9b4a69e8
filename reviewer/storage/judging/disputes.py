"""Disputes and agreement statistics of a project's judge verdicts:
:func:`verdict_disputes` finds the disputes over every verdict;
:func:`verdict_agreement` computes the agreement statistics with
:mod:`reviewer.core.judging.agreement_table` (whose docstring defines the raters,
the treatment of ties and garbage, and every statistic). The dispute queue
adds the annotators' disputes and stores them
(reviewer.storage.dispute_queue; decision record "dispute-queue-composed").
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewer.core.judging.agreement_table import AgreementRow, agreement_rows
from reviewer.core.judging.disputes import find_disputes
from reviewer.core.judging.verdicts import Dispute, Verdict
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.epochs import epoch_subjects
from reviewer.storage.judging.low_confidence import project_low_confidence
from reviewer.storage.judging.rubric_rules import project_rules
from reviewer.storage.project.db import Project

__all__ = ["metrics_with_findings", "verdict_agreement", "verdict_disputes"]


def metrics_with_findings(project: Project, verdicts: Sequence[Verdict] | None = None) -> dict[str, dict]:
    """Subject metrics (judging.subject_metrics) plus, for subjects of
    verdicts on one card-reading run, ``halluc_findings``: the run's HALLUC
    findings that are not rejected (final code when reviewed)."""
    metrics = {k: dict(v) for k, v in judging.subject_metrics(project).items()}
    counts = dict(
        project.db.execute(
            "SELECT run_id, count(*) FROM findings WHERE coalesce(final_code, code) = 'HALLUC' "
            "AND status != 'rejected' GROUP BY run_id"
        ).fetchall()
    )
    if counts:
        for v in verdicts if verdicts is not None else judging.verdicts(project):
            if v.run_id in counts and v.other_run_id is None:
                metrics.setdefault(v.subject, {})["halluc_findings"] = counts[v.run_id]
    return metrics


def verdict_disputes(project: Project) -> list[Dispute]:
    """The disputes over every verdict of the project (with the subject
    metrics and HALLUC findings, :func:`metrics_with_findings`, checking the
    project's rubric rules, reviewer.storage.judging.rubric_rules, and the
    epochs of inspect samples, reviewer.storage.judging.epochs), in the
    order reviewer.core.judging.disputes.find_disputes gives, then the
    low-confidence disputes (reviewer.storage.judging.low_confidence). Not stored."""
    vs = judging.verdicts(project)
    found = find_disputes(
        vs, metrics_with_findings(project, vs), rules=project_rules(project), epochs=epoch_subjects(project)
    )
    return found + project_low_confidence(project)


def verdict_agreement(project: Project, subjects: set[str] | None = None) -> list[AgreementRow]:
    """The agreement statistics of every verdict and adjudication of the
    project (:func:`agreement_rows`); ``subjects``: of these subjects only
    (a slice, reviewer.storage.repo.item_metadata.subject_slices). Reads only."""
    vs, adjudications = judging.verdicts(project), judging.adjudications(project)
    if subjects is not None:
        vs = [v for v in vs if v.subject in subjects]
        adjudications = [a for a in adjudications if a.subject in subjects]
    return agreement_rows(vs, adjudications)
