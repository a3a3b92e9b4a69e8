"""The test-case part of ``reviewer report`` (docs/test-cases.md): per model the
seed's figures (automatic and reviewed), failures by check and a comparison
of two models or two dates with the cases that flipped, in Markdown and CSV;
and the seed's report shape as JSON (``--format json``)."""

from __future__ import annotations

import csv
import io
import json
import re

from reviewer.core.cases.report import (
    compare,
    comparison_rows,
    failure_rows,
    failures_by_check,
    seed_reports,
    summary_rows,
)
from reviewer.core.tables import csv_row, markdown_table
from reviewer.storage.cases.cases import case_results, has_cases, not_run_notes, project_metrics
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.registry import ReportContext

_DATE = re.compile(r"^\d{4}(-\d{2}){0,2}$")


def parse_compare(text: str) -> tuple[str, str]:
    """'A,B' (two models or two dates) as (A, B); ValueError otherwise."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"expected two models or two dates as A,B, got '{text}'")
    return parts[0], parts[1]


def _comparison(project: Project, results, metrics, pair: tuple[str, str] | None, basis: str):
    models = sorted({r.run["model"] for r in results})
    if pair is None:
        if len(models) != 2:
            return None
        pair = (models[0], models[1])
    a, b = pair
    if a in models and b in models:
        by = "model"
    elif _DATE.match(a) and _DATE.match(b):
        by = "date"
    else:
        raise ProjectError(
            f"cannot compare '{a}' with '{b}': give two of the models ({', '.join(models)}) or two dates (YYYY-MM-DD)"
        )
    return compare(results, metrics, a, b, by=by, basis=basis)


def case_report_markdown(project: Project, pair: tuple[str, str] | None = None) -> str:
    """The Markdown sections of the test-case report ('' when
    the project has no test case)."""
    if not has_cases(project):
        return ""
    metrics = project_metrics(project)
    results = case_results(project, metrics)
    out = ["## Test cases (seed report per model)\n"]
    if not results:
        out.append("no scored answer of a test case yet (import answers as JSONL, then `reviewer score`)\n")
        return "\n".join(out)
    auto, rev = seed_reports(results, metrics, "auto"), seed_reports(results, metrics, "reviewed")
    out.append(markdown_table(*summary_rows(auto, rev, metrics)))
    out.append("\n## Failures by check (reviewed)\n")
    failures = failures_by_check(results, "reviewed")
    out.append(markdown_table(*failure_rows(failures)) if failures else "no check fired")
    comparison = _comparison(project, results, metrics, pair, "reviewed")
    if comparison is not None:
        figures, cases = comparison_rows(comparison)
        out.append(f"\n## Comparison by {comparison.by}: {comparison.a} vs {comparison.b} (reviewed)\n")
        out.append(markdown_table(*figures))
        out.append(f"\nflipped: {', '.join(comparison.flipped) or 'none'}\n")
        out.append(markdown_table(*cases))
    return "\n".join(out) + "\n"


def case_report_json(project: Project, basis: str = "auto") -> str:
    """The seed's report shape, one EvaluationReport per model,
    as a JSON list ([] without test-case answers)."""
    metrics = project_metrics(project)
    results = case_results(project, metrics) if has_cases(project) else []
    return json.dumps(
        [r.model_dump(mode="json", exclude_none=True) for r in seed_reports(results, metrics, basis)], indent=2
    )


def case_report_csv(project: Project, pair: tuple[str, str] | None = None) -> str:
    """The test-case report as CSV, the figures of case_report_markdown in
    raw numbers; each table with a first column ``table`` naming it, tables
    separated by a blank line ('' without a scored answer of a test case):

    - ``case_reports``: model, basis (auto, reviewed), totalCases,
      passedCases, failedCases, averageScore, then one column per metric
      of the metric set (its average): the seed's figures per model;
    - ``case_failures``: model, check, severity, answers (reviewed), when a
      check fired;
    - ``case_comparison``: by (model or date), a, b, figure, value_a,
      value_b, and ``case_comparison_cases``: case, score_a, passed_a,
      score_b, passed_b (empty for a side without answers), flipped (1 or
      0); when two models or ``pair`` are compared (reviewed).

    Text cells are formula-safe (core.tables.csv_row)."""
    if not has_cases(project):
        return ""
    metrics = project_metrics(project)
    results = case_results(project, metrics)
    if not results:
        return ""
    names = [m.name for m in metrics.metrics]
    tables: list[tuple[str, list[str], list[list]]] = []
    reports = []
    for a, r in zip(seed_reports(results, metrics, "auto"), seed_reports(results, metrics, "reviewed")):
        for basis, rep in (("auto", a), ("reviewed", r)):
            avg = rep.metricAverages.model_dump()
            reports.append(
                [rep.modelInfo.modelId, basis, rep.totalCases, rep.passedCases, rep.failedCases, rep.averageScore]
                + [avg.get(n, 0.0) for n in names]
            )
    head = ["model", "basis", "totalCases", "passedCases", "failedCases", "averageScore", *names]
    tables.append(("case_reports", head, reports))
    failures = failures_by_check(results, "reviewed")
    if failures:
        tables.append(("case_failures", ["model", "check", "severity", "answers"], [list(f) for f in failures]))
    c = _comparison(project, results, metrics, pair, "reviewed")
    if c is not None:
        figures = [[c.by, c.a, c.b, k, x, y] for k, (x, y) in c.summary.items()]
        tables.append(("case_comparison", ["by", "a", "b", "figure", "value_a", "value_b"], figures))
        cases = [
            [case_id]
            + [v for side in (x, y) for v in (("", "") if side is None else (side.score, int(side.passed)))]
            + [int(case_id in c.flipped)]
            for case_id, (x, y) in c.cases.items()
        ]
        head = ["case", "score_a", "passed_a", "score_b", "passed_b", "flipped"]
        tables.append(("case_comparison_cases", head, cases))
    parts = []
    for name, columns, rows in tables:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["table", *columns])
        for row in rows:
            writer.writerow(csv_row([name, *row]))
        parts.append(buf.getvalue())
    return "\n".join(parts)


def case_score_lines(project: Project) -> list[str]:
    """What ``reviewer score`` prints about test cases: one line per model
    (its answers, the cases they answer, passed and average score,
    automatic and reviewed), one line when no answer is scored yet, []
    without test cases."""
    if not has_cases(project):
        return []
    metrics = project_metrics(project)
    results = case_results(project, metrics)
    if not results:
        return ["test cases: no answer scored yet ('reviewer run' asks the models, or import answers as JSONL)"]
    lines = []
    for a, r in zip(seed_reports(results, metrics, "auto"), seed_reports(results, metrics, "reviewed")):
        model = a.modelInfo.modelId
        answered = len({x.case.id for x in results if x.run["model"] == model})
        lines.append(
            f"test cases, {model}: {a.totalCases} answers to {answered} cases scored by the rule metrics "
            f"'{metrics.name}': passed {a.passedCases}/{a.totalCases}, average {a.averageScore:.2f} "
            f"(reviewed: passed {r.passedCases}/{r.totalCases}, average {r.averageScore:.2f})"
        )
    return lines + not_run_notes(project)


def section_has_data(project: Project, context: ReportContext) -> bool:
    """Whether the project has a test case (the report's test-case section)."""
    return has_cases(project)


def section_markdown(project: Project, context: ReportContext) -> str:
    """The report's test-case section in Markdown (its registration names it):
    case_report_markdown with the report's ``--compare`` pair."""
    return case_report_markdown(project, context.options.compare)


def section_csv(project: Project, context: ReportContext) -> str:
    """The report's test-case tables: case_report_csv with the ``--compare`` pair."""
    return case_report_csv(project, context.options.compare)


def section_json(project: Project, context: ReportContext) -> list | None:
    """The seed's reports, one per model, with the report's ``--basis``, or
    None when the project has no test case."""
    return json.loads(case_report_json(project, context.options.basis)) if has_cases(project) else None
