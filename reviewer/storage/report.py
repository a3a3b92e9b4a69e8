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

The registered workflows' sections (decision record "workflow-registries")
follow the built-in ones in Markdown and CSV, in registration order.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping, Optional

from reviewer.core.cards.report import code_count_table, code_counts_csv, verdict_rows, verdicts_csv
from reviewer.core.tables import markdown_table
from reviewer.storage.annotators.ground_truth import gt_agreement_rows
from reviewer.storage.cards.scores import summarize
from reviewer.storage.cases import report as case_report
from reviewer.storage.cases.cases import has_cases
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.dispute_queue import refresh_disputes
from reviewer.storage import registry
from reviewer.storage.judging.failter_report import (
    failed_markdown,
    failter_csv,
    failter_markdown,
    failter_objects,
    failter_rows,
    load_prices,
)
from reviewer.storage.judging.report import (
    agreement_csv,
    build_judge_report,
    has_verdicts,
    judge_report_csv,
    judge_report_markdown,
)
from reviewer.storage.judging.verdict_table import DEFAULT_WEIGHTS
from reviewer.storage.judging.rubric_report import rubric_csv, rubric_objects
from reviewer.storage.scoring import score_project
from reviewer.storage.spans import spans as span_store
from reviewer.storage.spans.confidences import span_confidences
from reviewer.storage.spans.report import report_csv as span_csv
from reviewer.storage.spans.report import report_json as span_json

__all__ = ["FORMATS", "BuiltReport", "ReportOptions", "build_report", "project_report", "project_report_json"]

#: The report's output formats.
FORMATS = ("md", "csv", "json")
#: The columns of the ground-truth agreement table in Markdown.
GT_AGREEMENT_HEADER = ["raters", "dimension", "statistic", "value", "n", "note"]


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
    charts_dir: Optional[Path] = None
    prices: Optional[Path] = None
    compare: Optional[tuple[str, str]] = None
    basis: str = "auto"
    title: str = ""
    force: bool = False


@dataclass
class BuiltReport:
    """The report's ``text`` (printed as it is) and ``notes`` for the user
    (one line each, for the error stream)."""

    text: str
    notes: list[str] = field(default_factory=list)


def _shows_cards(project: Project, has_verdicts_of_cards: bool) -> bool:
    """Whether the report has the card section: when a run is scored against
    cards, or when the project has none of the other workflows' sections
    (judge verdicts, test cases, the registered workflows'); the same in
    every format."""
    if has_verdicts_of_cards:
        return True
    return not (has_verdicts(project) or has_cases(project) or any(_registered(project, "csv")))


def _cards(project: Project) -> Optional[dict[str, Any]]:
    """The card verdicts (automatic and reviewed) and final codes per
    prompt, or None when the report has no card section (_shows_cards) or
    no run is scored against cards."""
    summary = summarize(project)
    if not summary.auto and not summary.code_counts:
        return None
    if not _shows_cards(project, bool(summary.auto)):
        return None
    return {
        "verdicts": {
            "auto": [v.model_dump(mode="json") for v in summary.auto],
            "reviewed": [v.model_dump(mode="json") for v in summary.reviewed],
        },
        "code_counts": [{"prompt": p, "codes": dict(c)} for p, c in summary.code_counts if c],
        "free_prompts": summary.free_prompts,
    }


def _judges(project: Project, weights: tuple[float, float]) -> Optional[dict[str, Any]]:
    """The judge tables (verdict table, agreement, disputes by kind,
    inflation warnings), or None without verdicts."""
    if not has_verdicts(project):
        return None
    jr = build_judge_report(project, refresh_disputes(project), weights)
    return {
        "weights": list(jr.weights),
        "verdicts": [asdict(r) for r in jr.verdict_rows],
        "agreement": [r.as_dict() for r in jr.agreement],
        "disputes": jr.disputes_by_kind,
        "warnings": list(jr.warnings),
        "rubric": rubric_objects(jr.rubric) if jr.rubric is not None else None,
    }


def project_report(
    project: Project,
    weights: tuple[float, float] = DEFAULT_WEIGHTS,
    prices: Optional[Mapping[str, Mapping[str, float]]] = None,
    basis: str = "auto",
) -> dict[str, Any]:
    """The sections of ``project`` as the module docstring shows them;
    ``prices`` ({model: {input, output}} per token) fill the Failter
    table's avg_cost; ``basis`` ('auto' or 'reviewed') is that of the
    test-case reports. Scores nothing: the caller scores stale runs first."""
    gt = gt_agreement_rows(project)
    return {
        "project": project.path.name,
        "test_cases": json.loads(case_report.case_report_json(project, basis)) if has_cases(project) else None,
        "cards": _cards(project),
        "judges": _judges(project, weights),
        "spans": span_json(project),
        "failter": failter_objects(failter_rows(project, weights, prices)) or None,
        "ground_truth_agreement": [r.as_dict() for r in gt] or None,
        "workflows": _registered_json(project),
    }


def _registered_json(project: Project) -> Optional[dict[str, Any]]:
    """{workflow: its JSON section} of the registered workflows that have data, or None."""
    out = {}
    for parts in registry.registered():
        section = parts.report.json(project) if parts.report else None
        if section is not None:
            out[parts.workflow] = section
    return out or None


def _registered(project: Project, fmt: str) -> list[str]:
    """The registered workflows' sections in ``fmt`` ('md' or 'csv'), those with data."""
    texts = [
        (parts.report.markdown if fmt == "md" else parts.report.csv)(project)
        for parts in registry.registered()
        if parts.report is not None
    ]
    return [t for t in texts if t]


def project_report_json(
    project: Project,
    weights: tuple[float, float] = DEFAULT_WEIGHTS,
    prices: Optional[Mapping[str, Mapping[str, float]]] = None,
    basis: str = "auto",
) -> str:
    """The JSON report as indented text: ``project_report``, except that a
    project whose only section is the test cases gets their list in the
    seed's shape alone (decision record "case-report-keeps-the-seed-shape")."""
    report = project_report(project, weights, prices, basis)
    others = [k for k, v in report.items() if k not in ("project", "test_cases") and v is not None]
    if report["test_cases"] is not None and not others:
        return json.dumps(report["test_cases"], indent=2, default=str)
    return json.dumps(report, indent=2, default=str)


def _prices(options: ReportOptions) -> Optional[dict[str, dict[str, float]]]:
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
    if options.fmt == "json":
        return BuiltReport(project_report_json(project, options.weights, _prices(options), options.basis) + "\n")
    weights = options.weights
    summary = summarize(project)
    auto, rev = summary.auto, summary.reviewed
    judged = has_verdicts(project)
    try:
        jr = (
            build_judge_report(
                project,
                refresh_disputes(project),
                weights,
                options.charts_dir,
                span_confidences(project),
                force=options.force,
            )
            if judged
            else None
        )
    except OSError as exc:
        raise ProjectError(f"cannot write the charts to {options.charts_dir}: {exc}") from None
    price_table = _prices(options)
    notes = ["no charts: the project has no judge verdicts"] if not jr and options.charts_dir is not None else []
    span_rows = span_csv(project) if options.fmt == "csv" else ""
    extra = _registered(project, options.fmt)
    cards = _shows_cards(project, bool(auto))
    trials = failter_rows(project, weights, price_table)
    gt_rows = gt_agreement_rows(project)
    if options.fmt == "csv":
        failter_part = failter_csv(trials)
        findings = code_counts_csv(summary.code_counts) if cards else ""
        cases_csv = case_report.case_report_csv(project, options.compare)
        parts = (
            ([verdicts_csv(auto, rev)] if cards else [])
            + ([findings] if findings else [])
            + ([cases_csv] if cases_csv else [])
            + ([judge_report_csv(jr)] if jr else [])
            + ([rubric_csv(jr.rubric)] if jr and jr.rubric is not None and jr.rubric.shown else [])
            + ([agreement_csv("gt_agreement", gt_rows)] if gt_rows else [])
            + ([failter_part] if failter_part else [])
            + ([span_rows] if span_rows else [])
            + extra
        )
        return BuiltReport("\n".join(parts), notes)
    failed = failed_markdown(project)
    cases_md = case_report.case_report_markdown(project, options.compare)
    span_md = span_store.report_markdown(project) if span_store.has_span_data(project) else ""
    out = [f"# reviewer report: {options.title}\n\n"]
    if cards:
        out += [
            "## T-P1 verdicts\n\n",
            markdown_table(*verdict_rows(auto, rev)) + "\n",
            "\n## Findings per code (final codes)\n\n",
            markdown_table(*code_count_table(summary.code_counts)) + "\n",
        ]
    if cases_md:
        out.append(("\n" if cards else "") + cases_md)
    if jr:
        out.append(("\n" if cards or cases_md else "") + judge_report_markdown(jr))
    if gt_rows:
        out += [
            "\n## Ground-truth agreement\n\n",
            markdown_table(
                GT_AGREEMENT_HEADER,
                [[r.raters, r.dimension, r.statistic, r.formatted(), str(r.n), r.note] for r in gt_rows],
            )
            + "\n",
        ]
    if trials:
        out.append("\n" + failter_markdown(trials, weights, price_table is not None))
    if failed:
        out.append("\n" + failed)
    if span_md:
        out.append("\n" + span_md)
    out += [("\n" if len(out) > 1 else "") + text for text in extra]
    return BuiltReport("".join(out), notes)
