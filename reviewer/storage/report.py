"""`reviewer report`: the project's report assembled from the workflows'
sections in one place, :func:`build_report` (decision record
"report-assembled-in-storage"); the command line only reads its options and
prints the text.

Markdown: a title, then the sections the project has data for: card
verdicts and findings per code (cards), the test-case report (cases), the
judge report (judging; the dispute queue refreshed first), the ground-truth
agreement (annotators), the Failter table and the open failed calls
(judging), the span section (spans). CSV: the same sections as tables,
each with a first column ``table`` naming it, separated by one blank line:
card_verdicts and card_findings, the test-case tables (case_reports,
case_failures, case_comparison, case_comparison_cases), judge_verdicts,
judge_agreement, judge_disputes, rubric_gate and rubric_disputes,
gt_agreement, failter and the span tables (spans.report.report_tables).
JSON: the object below; a project whose only section is its test cases
gets the seed's list alone (decision record
"case-report-keeps-the-seed-shape").

JSON shape (every key always present; a section the project has no data
for is null):

    {"project": "<file name>",
     "test_cases": [EvaluationReport...] (the seed's reports, one per model,
                   case_report.case_report_json),
     "cards": {"verdicts": {"auto": [PromptVerdict...], "reviewed": [...]},
               "code_counts": [{"prompt": p, "codes": {code: findings}}...],
               "free_prompts": [...]},
     "judges": {"weights": [rules, gt], "verdicts": [VerdictRow...],
                "agreement": [AgreementRow...], "disputes": {kind: count},
                "warnings": [...],
                "rubric": the rubric rules section or null
                          (judging.rubric_report.rubric_objects)},
     "spans": {table: [row...]} (the CSV's span tables, rows as objects),
     "failter": [{model, prompt, eval_method, trials, errors, model_errors,
                  judge_errors, avg_score, rules_score, gt_score, avg_time_s,
                  avg_tokens, avg_cost}...] (the Failter table, one object per
                  model and prompt: failter_report.JSON_KEYS),
     "ground_truth_agreement": [AgreementRow...],
     "workflows": {workflow: section} (the registered workflows' sections,
                  reviewer.storage.registry; null when none has data)}

Every section is a workflow's, registered from its own package
(reviewer.storage.registry.ReportSection, decision record
"workflow-registries"): cards (storage/cards/report.py), test cases
(storage/cases/report.py), the judges, the Failter table and the failed
calls (storage/judging/report_sections.py), the ground-truth agreement
(storage/annotators/report.py) and spans (storage/spans/report.py). This
module loops over them: their order (rank), the card section shown when
nothing else is (``fallback``), one blank line between sections, the JSON's
keys and the test cases alone in it (``alone_in_json``). A workflow beyond
the five registers its sections the same way; one without a ``key`` goes
after the built-in ones in Markdown and CSV, in registration order, and
under ``workflows`` in the JSON.

What sections of several workflows share is composed here and handed to
them as the ReportContext's inputs: the dispute queue, refreshed once
(reviewer.storage.dispute_queue), and the spans' confidences the judges'
calibration takes (reviewer.storage.spans.confidences).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reviewer.storage import registry
from reviewer.storage.dispute_queue import refresh_disputes
from reviewer.storage.judging.failter_report import load_prices
from reviewer.storage.judging.report import DEFAULT_WEIGHTS
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.registry import ReportContext, ReportSection
from reviewer.storage.scoring import score_project
from reviewer.storage.spans.confidences import span_confidences

__all__ = ["FORMATS", "BuiltReport", "ReportOptions", "build_report", "project_report", "project_report_json"]

#: The report's output formats.
FORMATS = ("md", "csv", "json")


@dataclass(frozen=True)
class ReportOptions:
    """What `reviewer report` was asked for. ``fmt``: one of FORMATS;
    ``weights``: (rules, gt) of the dual judges, normalised to sum 1;
    ``charts_dir``: where the judge charts go (SVG and PNG), None for none;
    ``prices``: a JSON or YAML file {model: {input, output}} per token for
    the Failter table's avg_cost; ``compare``: two models or dates (A, B)
    of the test-case report; ``basis``: 'auto' or 'reviewed' checks in the
    test-case JSON; ``title``: the name in the Markdown title; ``force``:
    replace charts not in reviewer's record of the files it wrote."""

    fmt: str = "md"
    weights: tuple[float, float] = DEFAULT_WEIGHTS
    charts_dir: Path | None = None
    prices: Path | None = None
    compare: tuple[str, str] | None = None
    basis: str = "auto"
    title: str = ""
    force: bool = False


@dataclass
class BuiltReport:
    """The report's ``text`` (printed as it is) and ``notes`` for the user
    (one line each, for the error stream)."""

    text: str
    notes: list[str] = field(default_factory=list)


def _inputs(project: Project) -> dict[str, Callable[[], Any]]:
    """The inputs sections of several workflows share (ReportContext.input):
    ``disputes``, the dispute queue refreshed (verdict and ground-truth
    disputes, most severe first), and ``span_confidences``, the spans'
    confidences for the judges' calibration."""
    return {"disputes": lambda: refresh_disputes(project), "span_confidences": lambda: span_confidences(project)}


def _context(
    project: Project, options: ReportOptions, prices: Mapping[str, Mapping[str, float]] | None
) -> ReportContext:
    return ReportContext(project, options.fmt, options, prices, _inputs(project))


def _has_data(section: ReportSection, context: ReportContext) -> bool:
    """Whether the project has data of ``section``: its ``has_data``, or its CSV not empty."""
    if section.has_data is not None:
        return bool(section.call(section.has_data, context.project, context))
    return bool(section.call(section.csv, context.project, context))


def _shown(context: ReportContext) -> list[tuple[str, ReportSection]]:
    """The registered sections (workflow, section) in rank order, but a
    ``fallback`` section (the cards') with no data of its own when another
    section that hides it has data; the same in every format."""
    sections = registry.report_sections()
    others: bool | None = None
    shown = []
    for workflow, section in sections:
        if section.fallback and not _has_data(section, context):
            if others is None:
                others = any(_has_data(s, context) for _, s in sections if s.hides_fallback and not s.fallback)
            if others:
                continue
        shown.append((workflow, section))
    return shown


def _texts(context: ReportContext) -> list[str]:
    """The shown sections' Markdown or CSV (context.fmt), those with data."""
    texts = []
    for _, section in _shown(context):
        text = section.call(section.markdown if context.fmt == "md" else section.csv, context.project, context)
        if text:
            texts.append(text)
    return texts


def _report(context: ReportContext) -> dict[str, Any]:
    """The JSON object (module docstring): the sections with a key in their
    JSON order, null when not shown or without data, then ``workflows``."""
    shown = {id(section) for _, section in _shown(context)}
    keyed = sorted(
        (s for _, s in registry.report_sections() if s.key),
        key=lambda s: s.rank if s.json_rank is None else s.json_rank,
    )
    report: dict[str, Any] = {"project": context.project.path.name}
    for section in keyed:
        report[section.key] = section.call(section.json, context.project, context) if id(section) in shown else None
    workflows = {}
    for workflow, section in registry.report_sections():
        if not section.key and id(section) in shown:
            value = section.call(section.json, context.project, context)
            if value is not None:
                workflows[workflow] = value
    report["workflows"] = workflows or None
    return report


def _json_text(context: ReportContext) -> str:
    """The JSON report as indented text; a section ``alone_in_json`` that is
    the only one with data gets its object alone (decision record
    "case-report-keeps-the-seed-shape")."""
    report = _report(context)
    with_data = [k for k, v in report.items() if k != "project" and v is not None]
    for _, section in registry.report_sections():
        if section.alone_in_json and with_data == [section.key]:
            return json.dumps(report[section.key], indent=2, default=str)
    return json.dumps(report, indent=2, default=str)


def project_report(
    project: Project,
    weights: tuple[float, float] = DEFAULT_WEIGHTS,
    prices: Mapping[str, Mapping[str, float]] | None = None,
    basis: str = "auto",
) -> dict[str, Any]:
    """The sections of ``project`` as the module docstring shows them;
    ``prices`` ({model: {input, output}} per token) fill the Failter
    table's avg_cost; ``basis`` ('auto' or 'reviewed') is that of the
    test-case reports. Scores nothing: the caller scores stale runs first."""
    return _report(_context(project, ReportOptions(fmt="json", weights=weights, basis=basis), prices))


def project_report_json(
    project: Project,
    weights: tuple[float, float] = DEFAULT_WEIGHTS,
    prices: Mapping[str, Mapping[str, float]] | None = None,
    basis: str = "auto",
) -> str:
    """The JSON report as indented text: ``project_report``, except that a
    project whose only section is the test cases gets their list in the
    seed's shape alone (decision record "case-report-keeps-the-seed-shape")."""
    return _json_text(_context(project, ReportOptions(fmt="json", weights=weights, basis=basis), prices))


def _prices(options: ReportOptions) -> dict[str, dict[str, float]] | None:
    """The price table of ``options.prices``; ProjectError (one line) when unusable."""
    try:
        return load_prices(options.prices) if options.prices else None
    except ValueError as exc:
        raise ProjectError(str(exc)) from None


def build_report(project: Project, options: ReportOptions) -> BuiltReport:
    """The report of ``project`` as ``options`` ask (module docstring: the
    sections and formats). Scores stale runs first (reviewer.storage.scoring)
    and refreshes the dispute queue (reviewer.storage.dispute_queue) when
    there are verdicts; writes the charts when ``options.charts_dir`` is set.
    ProjectError (one line) when the prices file is unusable or the charts
    cannot be written."""
    score_project(project, only_stale=True)
    context = _context(project, options, _prices(options))
    if options.fmt == "json":
        return BuiltReport(_json_text(context) + "\n")
    texts = _texts(context)
    if options.fmt == "csv":
        return BuiltReport("\n".join(texts), context.notes)
    return BuiltReport(f"# reviewer report: {options.title}\n\n" + "\n".join(texts), context.notes)
