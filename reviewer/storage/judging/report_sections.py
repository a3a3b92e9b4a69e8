"""The judging workflows' sections of ``reviewer report`` (their
registration names these functions; decision record "workflow-registries"):
the judge report (verdict table, agreement, disputes, calibration, the
rubric rules; the charts written when asked), the Failter table and the
open failed calls.

The judge report is built once per report and shared by the Markdown or
CSV of the judges and of the rubric rules. What it needs of the other
workflows the report composes and hands over as inputs of the
ReportContext: ``disputes``, the dispute queue just refreshed
(reviewer.storage.dispute_queue), and ``span_confidences``, the spans'
confidences for the calibration (reviewer.storage.spans.confidences)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from reviewer.storage.judging.failter_report import (
    FailterRow,
    failed_markdown,
    failter_csv,
    failter_markdown,
    failter_objects,
    failter_rows,
)
from reviewer.storage.judging.report import (
    JudgeReport,
    build_judge_report,
    has_verdicts,
    judge_report_csv,
    judge_report_markdown,
)
from reviewer.storage.judging.rubric_report import rubric_csv, rubric_objects
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.registry import ReportContext

#: The note when charts were asked of a project without verdicts.
NO_CHARTS = "no charts: the project has no judge verdicts"


def has_data(project: Project, context: ReportContext) -> bool:
    """Whether the project has judge verdicts."""
    return has_verdicts(project)


def judge_report(project: Project, context: ReportContext) -> JudgeReport | None:
    """The judge report of this report, built once, or None without verdicts.
    In Markdown and CSV it writes the charts when asked (``charts_dir``;
    ProjectError, one line, when they cannot be written) and calibrates the
    spans' confidences too; the JSON report writes no chart."""

    def make() -> JudgeReport | None:
        options = context.options
        if not has_verdicts(project):
            if options.charts_dir is not None and context.fmt != "json":
                context.notes.append(NO_CHARTS)
            return None
        if context.fmt == "json":
            return build_judge_report(project, context.input("disputes"), options.weights)
        try:
            return build_judge_report(
                project,
                context.input("disputes"),
                options.weights,
                options.charts_dir,
                context.input("span_confidences"),
                force=options.force,
            )
        except OSError as exc:
            raise ProjectError(f"cannot write the charts to {options.charts_dir}: {exc}") from None

    return context.once("judging:report", make)


def judges_markdown(project: Project, context: ReportContext) -> str:
    """The judge report in Markdown, '' without verdicts."""
    jr = judge_report(project, context)
    return judge_report_markdown(jr) if jr else ""


def judges_csv(project: Project, context: ReportContext) -> str:
    """Tables judge_verdicts, judge_agreement, judge_disputes, then
    rubric_gate and rubric_disputes when the rubric section is shown; ''
    without verdicts."""
    jr = judge_report(project, context)
    if not jr:
        return ""
    rubric = [rubric_csv(jr.rubric)] if jr.rubric is not None and jr.rubric.shown else []
    return "\n".join([judge_report_csv(jr)] + rubric)


def judges_json(project: Project, context: ReportContext) -> dict[str, Any] | None:
    """The judge tables (weights, verdict table, agreement, disputes by
    kind, inflation warnings, the rubric section), or None without verdicts."""
    jr = judge_report(project, context)
    if not jr:
        return None
    return {
        "weights": list(jr.weights),
        "verdicts": [asdict(r) for r in jr.verdict_rows],
        "agreement": [r.as_dict() for r in jr.agreement],
        "disputes": jr.disputes_by_kind,
        "warnings": list(jr.warnings),
        "rubric": rubric_objects(jr.rubric) if jr.rubric is not None else None,
    }


def _failter_rows(project: Project, context: ReportContext) -> list[FailterRow]:
    """The Failter table's rows with the report's weights and prices, read once."""
    return context.once("judging:failter", lambda: failter_rows(project, context.options.weights, context.prices))


def failter_section_markdown(project: Project, context: ReportContext) -> str:
    """The Failter table in Markdown, '' without trials."""
    rows = _failter_rows(project, context)
    return failter_markdown(rows, context.options.weights, context.prices is not None) if rows else ""


def failter_section_csv(project: Project, context: ReportContext) -> str:
    """Table failter, '' without trials."""
    return failter_csv(_failter_rows(project, context))


def failter_section_json(project: Project, context: ReportContext) -> list[dict[str, Any]] | None:
    """The Failter table, one object per model and prompt, or None."""
    return failter_objects(_failter_rows(project, context)) or None


def failed_section_markdown(project: Project) -> str:
    """The open failed calls in Markdown (failter_report.failed_markdown), '' when none."""
    return failed_markdown(project)
