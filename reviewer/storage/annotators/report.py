"""The annotators' section of ``reviewer report`` (their registration names
these functions; decision record "workflow-registries"): the agreement of
the annotators' ground truth (reviewer.storage.annotators.ground_truth)."""

from __future__ import annotations

from typing import Any

from reviewer.core.judging.agreement_table import agreement_csv
from reviewer.core.tables import markdown_table
from reviewer.storage.annotators.ground_truth import gt_agreement_rows
from reviewer.storage.project.db import Project

#: The columns of the ground-truth agreement table in Markdown.
GT_AGREEMENT_HEADER = ["raters", "dimension", "statistic", "value", "n", "note"]


def markdown(project: Project) -> str:
    """The ground-truth agreement table, '' without it."""
    rows = gt_agreement_rows(project)
    if not rows:
        return ""
    return (
        "## Ground-truth agreement\n\n"
        + markdown_table(
            GT_AGREEMENT_HEADER,
            [[r.raters, r.dimension, r.statistic, r.formatted(), str(r.n), r.note] for r in rows],
        )
        + "\n"
    )


def csv(project: Project) -> str:
    """Table gt_agreement, '' without it."""
    rows = gt_agreement_rows(project)
    return agreement_csv("gt_agreement", rows) if rows else ""


def as_json(project: Project) -> list[dict[str, Any]] | None:
    """The agreement rows as objects, or None."""
    return [r.as_dict() for r in gt_agreement_rows(project)] or None
