"""The dispute queue and the agreement table of a project, composed of two
workflows: the judging workflow's verdict disputes and agreement
(reviewer.storage.judging.disputes) and the annotators' ground-truth
disputes and agreement (reviewer.storage.annotators.ground_truth). This is
where the queue gets its data; the table itself is the judging workflow's
(reviewer.storage.judging.verdicts.replace_disputes). Decision record
"dispute-queue-composed".
"""

from __future__ import annotations

from reviewer.core.judging.agreement_intervals import with_intervals
from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from reviewer.core.judging.verdicts import Dispute
from reviewer.storage.annotators.ground_truth import gt_agreement_rows, gt_disputes
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.disputes import verdict_agreement, verdict_disputes
from reviewer.storage.project.db import Project

__all__ = ["agreement_table", "agreement_with_intervals", "refresh_disputes"]


def refresh_disputes(project: Project) -> list[Dispute]:
    """Find the disputes over every verdict of the project
    (reviewer.storage.judging.disputes.verdict_disputes) and the
    ground-truth disputes of the annotators
    (reviewer.storage.annotators.ground_truth.gt_disputes), and store them
    with :func:`reviewer.storage.judging.verdicts.replace_disputes` (ids of
    disputes found before are kept; disputes gone are deleted). Returns them
    with ids, most severe first (stable: each finder's own order within a
    severity)."""
    found = verdict_disputes(project) + gt_disputes(project)
    found.sort(key=lambda d: -d.severity)
    return judging.replace_disputes(project, found)


def agreement_table(project: Project) -> list[AgreementRow]:
    """The agreement statistics of every verdict and adjudication of the
    project (reviewer.storage.judging.disputes.verdict_agreement), then those
    of the ground-truth annotators (reviewer.core.annotators). Reads only."""
    return verdict_agreement(project) + gt_agreement_rows(project)


def agreement_with_intervals(
    project: Project, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> list[AgreementRow]:
    """The agreement table (:func:`agreement_table`) with 95 % bootstrap
    intervals and prevalence (reviewer.core.judging.agreement_intervals.with_intervals)."""
    return with_intervals(agreement_table(project), n_resamples=n_resamples, seed=seed)
