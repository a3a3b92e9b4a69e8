"""The card workflow's section of ``reviewer report`` (its registration
names these functions; decision record "workflow-registries"): the T-P1
verdicts, automatic and reviewed, and the findings per final code of each
prompt. It is the report's fallback section: shown when a run is scored
against cards, or when no other section has data (then its tables are empty)."""

from __future__ import annotations

from typing import Any

from reviewer.core.cards.report import code_count_table, code_counts_csv, verdict_rows, verdicts_csv
from reviewer.core.tables import markdown_table
from reviewer.storage.cards.scores import CardSummary, summarize
from reviewer.storage.project.db import Project
from reviewer.storage.registry import ReportContext


def _summary(project: Project, context: ReportContext) -> CardSummary:
    """The card summary of the project, read once per report."""
    return context.once("cards:summary", lambda: summarize(project))


def has_data(project: Project, context: ReportContext) -> bool:
    """Whether a run is scored against cards."""
    return bool(_summary(project, context).auto)


def markdown(project: Project, context: ReportContext) -> str:
    """The verdict table and the findings per code."""
    summary = _summary(project, context)
    return (
        "## T-P1 verdicts\n\n"
        + markdown_table(*verdict_rows(summary.auto, summary.reviewed))
        + "\n"
        + "\n## Findings per code (final codes)\n\n"
        + markdown_table(*code_count_table(summary.code_counts))
        + "\n"
    )


def csv(project: Project, context: ReportContext) -> str:
    """Tables card_verdicts and (with findings) card_findings."""
    summary = _summary(project, context)
    findings = code_counts_csv(summary.code_counts)
    return "\n".join([verdicts_csv(summary.auto, summary.reviewed)] + ([findings] if findings else []))


def as_json(project: Project, context: ReportContext) -> dict[str, Any] | None:
    """The card verdicts (automatic and reviewed) and final codes per
    prompt, or None when no run is scored against cards and nothing has a code."""
    summary = _summary(project, context)
    if not summary.auto and not summary.code_counts:
        return None
    return {
        "verdicts": {
            "auto": [v.model_dump(mode="json") for v in summary.auto],
            "reviewed": [v.model_dump(mode="json") for v in summary.reviewed],
        },
        "code_counts": [{"prompt": p, "codes": dict(c)} for p, c in summary.code_counts if c],
        "free_prompts": summary.free_prompts,
    }
