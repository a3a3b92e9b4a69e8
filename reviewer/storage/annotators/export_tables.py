"""The annotators' rows of the analysts' export (decision record
"workflow-registries"; their registration names them): the agreement of
every pair of annotators, after the judges' rows of the same table."""

from __future__ import annotations

from reviewer.storage.annotators.ground_truth import gt_agreement_rows
from reviewer.storage.export_schema import AGREEMENT_COLUMNS
from reviewer.storage.project.db import Project


def agreement(project: Project) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The annotators' rows of the ``agreement`` table (AGREEMENT_COLUMNS)."""
    return [("agreement", AGREEMENT_COLUMNS, None, [r.as_tuple() for r in gt_agreement_rows(project)])]
