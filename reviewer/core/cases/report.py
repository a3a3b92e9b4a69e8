"""Reports of test-case answers (docs/test-cases.md; test-case-evaluation-framework.md,
"Evaluation Reports").

Per model, the seed's report: totalCases (answers scored), passedCases,
failedCases, averageScore and metricAverages, with every answer's result
(EvaluationResult). Beside it: failures by check, and a comparison of two
models or two dates with the cases whose pass flipped. Everything is
computed on a *basis*: 'auto' (the checks as fired) or 'reviewed' (after the
decisions).

The results given are objects with ``case`` (TestCase), ``run`` (a dict
with id, model, output, timestamp), ``date`` (text), ``auto`` and
``reviewed`` (CaseScore), as storage.cases.cases.CaseResult.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from reviewer.core.cases.metrics import MetricSet
from reviewer.core.cases.model import TestCase
from reviewer.core.cases.scoring import CaseScore, citations

SEED_METRICS = ("citationAccuracy", "theoryCoherence", "storyCoherence", "overallCorrectness")


class Result(Protocol):
    """What a report reads of one scored answer."""

    case: TestCase
    run: dict
    auto: CaseScore
    reviewed: CaseScore

    @property
    def date(self) -> str:
        """When the answer was made (or imported)."""


# -- the seed's report shape (types.ts) ------------------------------------------------------
class ResultDetails(BaseModel):
    """seed: EvaluationResult.details."""

    model_config = ConfigDict(extra="forbid")
    response: str
    citationsFound: int
    episodesReferenced: list[str]
    errors: list[str]
    warnings: list[str]


class ResultMetrics(BaseModel):
    """seed: EvaluationResult.metrics (a custom metric set adds its own names)."""

    model_config = ConfigDict(extra="allow")
    citationAccuracy: float | None = None
    theoryCoherence: float | None = None
    storyCoherence: float | None = None
    overallCorrectness: float | None = None


class EvaluationResult(BaseModel):
    """seed: EvaluationResult, one per scored answer."""

    model_config = ConfigDict(extra="forbid")
    caseId: str
    passed: bool
    score: float = Field(ge=0, le=1)
    metrics: ResultMetrics
    details: ResultDetails
    timestamp: str


class MetricAverages(BaseModel):
    """seed: EvaluationReport.metricAverages (0 when no answer has the metric)."""

    model_config = ConfigDict(extra="allow")
    citationAccuracy: float
    theoryCoherence: float
    storyCoherence: float
    overallCorrectness: float


class ModelInfo(BaseModel):
    """seed: EvaluationReport.modelInfo."""

    model_config = ConfigDict(extra="forbid")
    modelId: str
    temperature: float | None = None
    maxTokens: int | None = None


class EvaluationReport(BaseModel):
    """seed: EvaluationReport, one per model."""

    model_config = ConfigDict(extra="forbid")
    runId: str
    timestamp: str
    totalCases: int
    passedCases: int
    failedCases: int
    averageScore: float
    metricAverages: MetricAverages
    results: list[EvaluationResult]
    modelInfo: ModelInfo


def _score(r: Result, basis: str) -> CaseScore:
    return r.reviewed if basis == "reviewed" else r.auto


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 10) if values else 0.0


def evaluation_result(r: Result, metrics: MetricSet, basis: str = "auto") -> EvaluationResult:
    """seed evaluator.evaluateCase: one answer's result (errors and warnings
    of all metrics, citations found by the set's citation pattern)."""
    s = _score(r, basis)
    found, episodes = citations(metrics, r.run.get("output") or "")
    return EvaluationResult(
        caseId=r.case.id,
        passed=s.passed,
        score=min(1.0, max(0.0, s.score)),
        metrics=ResultMetrics(**{m: v.score for m, v in s.metrics.items()}),
        details=ResultDetails(
            response=r.run.get("output") or "",
            citationsFound=found,
            episodesReferenced=episodes,
            errors=[e for v in s.metrics.values() for e in v.errors],
            warnings=[w for v in s.metrics.values() for w in v.warnings],
        ),
        timestamp=r.date or "",
    )


def seed_report(
    results: Iterable[Result], model: str, metrics: MetricSet, basis: str = "auto", timestamp: str | None = None
) -> EvaluationReport:
    """seed evaluator.evaluateDataset: the report of one model's answers:
    totalCases = answers, passed and failed, averageScore and the average of
    each metric over the answers."""
    rs = [r for r in results if r.run["model"] == model]
    evaluated = [evaluation_result(r, metrics, basis) for r in rs]
    passed = sum(e.passed for e in evaluated)
    names = [m.name for m in metrics.metrics]
    averages = {
        n: _mean([_score(r, basis).metrics[n].score for r in rs if n in _score(r, basis).metrics])
        for n in dict.fromkeys([*SEED_METRICS, *names])
    }
    return EvaluationReport(
        runId=f"reviewer-{model}-{basis}",
        timestamp=timestamp or datetime.now(UTC).isoformat(),
        totalCases=len(evaluated),
        passedCases=passed,
        failedCases=len(evaluated) - passed,
        averageScore=_mean([e.score for e in evaluated]),
        metricAverages=MetricAverages(**averages),
        results=evaluated,
        modelInfo=ModelInfo(modelId=model),
    )


def seed_reports(
    results: Sequence[Result], metrics: MetricSet, basis: str = "auto", timestamp: str | None = None
) -> list[EvaluationReport]:
    """The seed's report per model (by model name)."""
    models = sorted({r.run["model"] for r in results})
    return [seed_report(results, m, metrics, basis, timestamp) for m in models]


# -- beside it ----------------------------------------------------------------------------------
def failures_by_check(results: Iterable[Result], basis: str = "auto") -> list[tuple[str, str, str, int]]:
    """(model, check 'metric/check', severity, answers it
    fired on), most first. A check a person added counts as 'added by
    reviewer'."""
    counts: Counter = Counter()
    for r in results:
        s = _score(r, basis)
        for m in s.metrics.values():
            for severity, details in (("error", m.errors), ("warning", m.warnings)):
                for check in {d.split(":", 1)[0] for d in details}:
                    counts[(r.run["model"], check, severity)] += 1
    return [(*k, n) for k, n in sorted(counts.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1]))]


class CaseSide(BaseModel):
    """One case on one side of a comparison: mean score over its answers there, and passed."""

    score: float
    passed: bool
    answers: int


class Comparison(BaseModel):
    """Two sides (models, or dates of the answers) side by side: the seed's
    figures of each and every case with both sides' score; ``flipped``: the
    cases whose pass differs."""

    by: str
    a: str
    b: str
    summary: dict[str, tuple[float, float]]
    cases: dict[str, tuple[CaseSide | None, CaseSide | None]]
    flipped: list[str]


def _side(results: Sequence[Result], by: str, value: str) -> list[Result]:
    if by == "model":
        return [r for r in results if r.run["model"] == value]
    return [r for r in results if (r.date or "").startswith(value)]


def compare(
    results: Sequence[Result], metrics: MetricSet, a: str, b: str, by: str = "model", basis: str = "auto"
) -> Comparison:
    """Compare side ``a`` with ``b`` (two model names, or two
    dates as YYYY-MM-DD prefixes of the answers' time): pass rate, average
    score and metric averages of each, per case the mean score over its
    answers on each side (passed: mean >= pass mark), and the cases that
    flipped."""
    sides = (_side(results, by, a), _side(results, by, b))
    summary: dict[str, tuple[float, float]] = {}

    def figures(rs: list[Result]) -> dict[str, float]:
        scores = [_score(r, basis) for r in rs]
        out = {
            "answers": float(len(rs)),
            "passed": float(sum(s.passed for s in scores)),
            "averageScore": _mean([s.score for s in scores]),
        }
        for m in metrics.metrics:
            out[m.name] = _mean([s.metrics[m.name].score for s in scores if m.name in s.metrics])
        return out

    fa, fb = figures(sides[0]), figures(sides[1])
    for key in fa:
        summary[key] = (fa[key], fb[key])
    per_case: dict[str, list[CaseSide | None]] = defaultdict(lambda: [None, None])
    for i, rs in enumerate(sides):
        grouped: dict[str, list[float]] = defaultdict(list)
        for r in rs:
            grouped[r.case.id].append(_score(r, basis).score)
        for case_id, scores in grouped.items():
            mean = _mean(scores)
            per_case[case_id][i] = CaseSide(
                score=mean, passed=mean >= metrics.scoring.pass_mark - 1e-9, answers=len(scores)
            )
    cases = {c: (v[0], v[1]) for c, v in sorted(per_case.items())}
    flipped = [c for c, (x, y) in cases.items() if x is not None and y is not None and x.passed != y.passed]
    return Comparison(by=by, a=a, b=b, summary=summary, cases=cases, flipped=flipped)


# -- tables (header, rows) for the Markdown and text report ------------------------------------
def _num(value: float) -> str:
    return f"{value:.2f}"


def summary_rows(
    auto: Sequence[EvaluationReport], reviewed: Sequence[EvaluationReport], metrics: MetricSet
) -> tuple[list[str], list[list[str]]]:
    """Per model the seed's figures, automatic and reviewed
    side by side (one row each)."""
    names = [m.name for m in metrics.metrics]
    header = ["model", "basis", "totalCases", "passedCases", "failedCases", "averageScore", *names]
    rows = []
    for a, r in zip(auto, reviewed):
        for basis, rep in (("auto", a), ("reviewed", r)):
            avg = rep.metricAverages.model_dump()
            rows.append(
                [
                    rep.modelInfo.modelId,
                    basis,
                    str(rep.totalCases),
                    str(rep.passedCases),
                    str(rep.failedCases),
                    _num(rep.averageScore),
                    *[_num(avg.get(n, 0.0)) for n in names],
                ]
            )
    return header, rows


def failure_rows(failures: Sequence[tuple[str, str, str, int]]) -> tuple[list[str], list[list[str]]]:
    """Failures by check as a table."""
    return ["model", "check", "severity", "answers"], [[m, c, s, str(n)] for m, c, s, n in failures]


def comparison_rows(c: Comparison) -> tuple[tuple[list[str], list[list[str]]], tuple[list[str], list[list[str]]]]:
    """The comparison as two tables: the figures side by side,
    and the cases (flipped ones marked)."""
    figures = (
        ["figure", c.a, c.b],
        [
            [
                k,
                _num(x) if k not in ("answers", "passed") else str(int(x)),
                _num(y) if k not in ("answers", "passed") else str(int(y)),
            ]
            for k, (x, y) in c.summary.items()
        ],
    )

    def cell(side: CaseSide | None) -> str:
        return "-" if side is None else f"{_num(side.score)} {'pass' if side.passed else 'fail'}"

    cases = (
        ["case", c.a, c.b, "flipped"],
        [[case_id, cell(x), cell(y), "yes" if case_id in c.flipped else ""] for case_id, (x, y) in c.cases.items()],
    )
    return figures, cases
