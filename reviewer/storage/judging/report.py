"""The judge part of ``reviewer report``: verdict table, agreement, disputes,
calibration and charts (docs/judging.md; ground-truth-judge-proposal.md §3.2, §4.2).

The verdict table (one row per model x prompt x scale x judge family, its
rules in the module docstring there) is made by
reviewer.storage.judging.verdict_table and the chart files are written by
reviewer.storage.judging.report_charts; their public names are re-exported
here. This module gathers the whole judge report (build_judge_report) and
writes it as Markdown or CSV.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.core.judging.agreement_intervals import with_intervals
from reviewer.core.judging.agreement_raters import undecided_counts
from reviewer.core.judging.agreement_table import AgreementRow, agreement_csv, agreement_rows
from reviewer.core.judging.calibration import (
    EXPECTED_DISTRIBUTION,
    EXPECTED_MEAN,
    SCORES,
    ConfusionMatrix,
    Distribution,
    expected_for,
    inflation_warning,
    judge_vs_reference,
    score_distribution,
)
from reviewer.core.judging.verdicts import POINTS_NOTE, Dispute, DisputeKind
from reviewer.core.tables import csv_row, markdown_table, md_text
from reviewer.core.text import natural_key
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.calibration_report import (
    SpanConfidences,
    calibration_markdown,
    calibration_rows,
    write_reliability_charts,
)
from reviewer.storage.judging.report_charts import write_charts
from reviewer.storage.judging.rubric_report import (
    RubricSection,
    build_rubric_section,
    rubric_markdown,
    rubric_verdicts_markdown,
)
from reviewer.storage.judging.rubric_rules import project_rules, rules_source
from reviewer.storage.judging.validation import (
    AGREEMENT_HEADER,
    agreement_markdown_rows,
    alignment_markdown,
    project_alignments,
)
from reviewer.storage.judging.verdict_table import (
    DEFAULT_WEIGHTS,
    SCORE_DIMENSIONS,
    VERDICT_HEADER,
    VerdictRow,
    parse_weights,
    verdict_score,
    verdict_table,
)
from reviewer.storage.project.db import Project
from reviewer.storage.repo import runs as repo_runs

__all__ = [
    "DEFAULT_WEIGHTS",
    "SCORE_DIMENSIONS",
    "JudgeReport",
    "VerdictRow",
    "build_judge_report",
    "has_verdicts",
    "judge_report_csv",
    "judge_report_markdown",
    "parse_weights",
    "verdict_score",
    "verdict_table",
    "write_charts",
    "VERDICT_HEADER",
]


# ---------------------------------------------------------------------------
# the whole judge report


@dataclass
class JudgeReport:
    """Everything the judge sections of the report show."""

    weights: tuple[float, float]
    verdict_rows: list[VerdictRow]
    agreement: list[AgreementRow]
    disputes: list[Dispute]
    distributions: list[Distribution]
    warnings: list[str]
    confusions: list[ConfusionMatrix]
    undecided: Counter
    charts: list[Path] = field(default_factory=list)
    expected: dict = field(default_factory=dict)  # {dimension: configured 1-5 distribution}
    rubric: RubricSection | None = None  # rubric rules, judge gate, rubric verdicts
    alignment: str = ""  # the '## Alignment with people' section (reviewer.storage.judging.validation)
    calibration: str = (
        ""  # the '## Calibration of judge confidence' section (reviewer.storage.judging.calibration_report)
    )

    @property
    def disputes_by_kind(self) -> dict[str, int]:
        """{kind: count} in DisputeKind order, every kind present."""
        c = Counter(d.kind.value for d in self.disputes)
        return {k.value: c.get(k.value, 0) for k in DisputeKind}


def configured_expected(project: Project) -> dict:
    """Expected 1-5 distributions configured in the project (meta key
    ``calibration.expected``: JSON {dimension: {score: share}}), {} when none
    or unreadable (span dimensions get one only when configured; decision: calibration-per-rubric)."""
    row = project.db.execute("SELECT value FROM meta WHERE key = 'calibration.expected'").fetchone()
    try:
        data = json.loads(row[0]) if row else {}
        return {str(d): {int(k): float(v) for k, v in dist.items()} for d, dist in data.items()}
    except (TypeError, ValueError, AttributeError):
        return {}


def has_verdicts(project: Project) -> bool:
    """True when the project has at least one verdict."""
    return project.db.execute("SELECT 1 FROM verdicts LIMIT 1").fetchone() is not None


def build_judge_report(
    project: Project,
    disputes: Sequence[Dispute],
    weights: tuple[float, float] = DEFAULT_WEIGHTS,
    charts_dir: Path | None = None,
    span_confidences: SpanConfidences | None = None,
    force: bool = False,
) -> JudgeReport:
    """With the project's ``disputes`` as the dispute queue just refreshed
    them (reviewer.storage.dispute_queue.refresh_disputes: verdict and
    ground-truth disputes, most severe first), compute the verdict table, agreement,
    calibration and confusion matrices, and (with ``charts_dir``) write the
    charts there as SVG and PNG (the folder is made when missing).

    The calibration of judge confidence (reviewer.storage.judging.
    calibration_report) takes the spans' confidences the caller passes
    (reviewer.storage.spans.confidences.span_confidences) as source 'span'.

    The rubric section (reviewer.storage.judging.rubric_report) measures the judge
    gate and lists the disputes under the project's rubric rules.

    Confusion matrices: each judge against the adjudicated values and against
    the human reference (gold, else the human majority), per dimension, when
    such values exist. Chart files: ``distribution-<judge>-<dimension>`` and
    ``confusion-<judge>-<dimension>-<reference>`` with ``.svg`` and ``.png``;
    names are made of letters, digits, '.', '_' and '-' only (judge names
    are untrusted), numbered when two would clash. Raises OSError when the
    folder or a file cannot be written.
    """
    if span_confidences is None:
        span_confidences = {}
    disputes = list(disputes)
    vs = judging.verdicts(project)
    adjudications = judging.adjudications(project)
    run_ids = {v.run_id for v in vs if v.run_id is not None}
    runs = {r["id"]: r for r in repo_runs.run_rows(project, run_ids)} if run_ids else {}
    dists = score_distribution(vs)
    configured = configured_expected(project)
    warnings = [w for w in (inflation_warning(d, expected_for(d.dimension, configured)) for d in dists) if w]
    confusions = judge_vs_reference(vs, adjudications, "adjudicated") + judge_vs_reference(vs, (), "human")
    report = JudgeReport(
        weights=weights,
        verdict_rows=verdict_table(vs, runs, weights),
        agreement=with_intervals(agreement_rows(vs, adjudications)),
        disputes=disputes,
        distributions=dists,
        warnings=warnings,
        confusions=confusions,
        undecided=undecided_counts(vs),
        expected=configured,
        rubric=build_rubric_section(
            project_rules(project), rules_source(project), vs, judging.subject_metrics(project), disputes, runs
        ),
        alignment=alignment_markdown(project_alignments(project, verdicts=vs, adjudications=adjudications)),
    )
    calibrated = calibration_rows(project, span_confidences=span_confidences, verdicts=vs, adjudications=adjudications)
    report.calibration = calibration_markdown(calibrated)
    if charts_dir is not None:
        report.charts = write_charts(Path(charts_dir), dists, confusions, force=force)
        report.charts += write_reliability_charts(Path(charts_dir), calibrated, force=force)
    return report


def _pct(x: float) -> str:
    return f"{x:.0%}"


def judge_report_markdown(report: JudgeReport) -> str:
    """The judge sections of the Markdown report (no top title)."""
    w_rules, w_gt = report.weights
    out = [
        "## Judge verdicts",
        "",
        f"Avg_Score per run: rules-based and ground-truth judges weighted "
        f"{w_rules:g} x Rules_Score + {w_gt:g} x GT_Score (--weights rules:gt) when a run has both, "
        f"else the one score it has; every score in points 0-100 ({POINTS_NOTE}).",
        "",
    ]
    if report.verdict_rows:
        out.append(markdown_table(VERDICT_HEADER, [r.cells() for r in report.verdict_rows]))
    else:
        out.append("No scored (numeric) judge verdicts; pairwise judges are in the agreement table.")
    out += ["", "## Agreement", ""]
    if report.agreement:
        out.append(markdown_table(AGREEMENT_HEADER, agreement_markdown_rows(report.agreement)))
        out += [
            "",
            "95 % CI: bootstrap over subjects (2,000 resamples, seeded; BCa where defined, else "
            "percentile). Strength: Landis & Koch's words for kappa, alpha and AC1. Prevalence: share of "
            "each class among the values the statistic rests on.",
        ]
    else:
        out.append("No two raters share a subject.")
    if report.undecided:
        out += [
            "",
            "Undecided (missing or garbage) values per judge: "
            + ", ".join(
                f"{md_text(j)} {n}" for j, n in sorted(report.undecided.items(), key=lambda kv: natural_key(kv[0]))
            ),
        ]
    out += ["", "## Disputes", ""]
    by_kind = report.disputes_by_kind
    out.append(
        markdown_table(
            ["kind", "disputes"], [[k, str(n)] for k, n in by_kind.items()] + [["total", str(sum(by_kind.values()))]]
        )
    )
    if report.rubric is not None:
        for part in (rubric_markdown(report.rubric), rubric_verdicts_markdown(report.rubric)):
            if part:
                out += ["", part.rstrip()]
    out += ["", "## Calibration (1-5 scores)", ""]
    if report.distributions:
        header = ["judge", "dimension", "n"] + [f"{s}" for s in SCORES] + ["mean", "inflated"]
        warned = {
            (d.judge, d.dimension)
            for d in report.distributions
            if inflation_warning(d, expected_for(d.dimension, report.expected))
        }
        rows = [
            ["expected (plan)", "", ""]
            + [_pct(EXPECTED_DISTRIBUTION[s]) for s in SCORES]
            + [f"{EXPECTED_MEAN:.2f}", ""]
        ]
        for d in report.distributions:
            expected = expected_for(d.dimension, report.expected)
            flag = ("yes" if (d.judge, d.dimension) in warned else "") if expected is not None else "no expected"
            rows.append(
                [d.judge, d.dimension, str(d.n)]
                + [_pct(d.shares[s]) for s in SCORES]
                + ["-" if d.mean is None else f"{d.mean:.2f}", flag]
            )
        out.append(markdown_table(header, rows))
        out += [
            "",
            "Each rubric is compared with its own expected distribution: the plan's is the tarot "
            "rubric's; the span-labeling judge's dimensions have none (\"no expected\") unless one is "
            "configured (meta key calibration.expected); totalScore (0-25) is not a 1-5 score.",
        ]
        if report.warnings:
            out += [
                "",
                "Inflation warnings (share of 5s > 10 % + 5 %, or mean > 3.4 + 0.5, with 5 or more scores):",
                "",
            ]
            out += [f"- {md_text(w)}" for w in report.warnings]
    else:
        out.append("No 1-5 judge scores.")
    confusions = [c for c in report.confusions if c.n]
    if confusions:
        out += [
            "",
            "## Judge vs reference",
            "",
            "Rows: the judge's value; columns: the adjudicated value or the human reference "
            "(gold, else the human majority).",
        ]
        for c in confusions:
            labels = [_label(x) for x in c.labels]
            out += [
                "",
                f"**{md_text(c.judge)} vs {md_text(c.reference)} / {md_text(c.dimension)}** (n = {c.n}, same value "
                f"{c.agreement:.0%})",
                "",
                markdown_table(
                    [f"{c.judge} \\ {c.reference}"] + labels,
                    [[labels[i]] + [str(x) for x in row] for i, row in enumerate(c.counts)],
                ),
            ]
    if report.alignment:
        out += ["", report.alignment.rstrip()]
    if report.calibration:
        out += ["", report.calibration.rstrip()]
    if report.charts:
        out += ["", "## Charts", ""] + [f"- {md_text(str(p))}" for p in report.charts]
    return "\n".join(out).rstrip() + "\n"


def _label(x) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


def judge_report_csv(report: JudgeReport) -> str:
    """The judge tables as CSV, each with a first column ``table`` naming
    it, separated by a blank line: ``judge_verdicts`` (VERDICT_HEADER
    columns; scores with 4 decimals, empty when none), ``judge_agreement``
    (raters, dimension, statistic, value, n, note, ci_low, ci_high,
    ci_method, prevalence) when there are agreement rows, and
    ``judge_disputes`` (kind, disputes: every kind, the Markdown's Disputes
    table without its total). Text cells are made visible
    and formula-safe (core.text.csv_row)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(csv_row(["table", *VERDICT_HEADER]))
    f = lambda x: "" if x is None else f"{x:.4f}"  # noqa: E731
    for r in report.verdict_rows:
        writer.writerow(
            csv_row(
                [
                    "judge_verdicts",
                    r.model,
                    r.prompt,
                    r.judge,
                    r.eval_method,
                    r.scale,
                    r.runs,
                    f(r.avg_score),
                    f(r.rules_score),
                    f(r.gt_score),
                ]
            )
        )
    if report.agreement:
        buf.write("\n")
        buf.write(agreement_csv("judge_agreement", report.agreement))
    buf.write("\n")
    writer.writerow(["table", "kind", "disputes"])
    for kind, n in report.disputes_by_kind.items():
        writer.writerow(csv_row(["judge_disputes", kind, n]))
    return buf.getvalue()
