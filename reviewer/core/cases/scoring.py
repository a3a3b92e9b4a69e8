"""Scores of a test-case answer, automatic and reviewed (docs/test-cases.md).

Every fired check is a finding with code ERROR or WARNING; its ``attrs``
name the metric and the check and hold the matched spans. A metric's score
comes from the findings that count for it (Metric.score: the seed's
scoring); the case's score is the weighted sum of metric scores of its
category (CaseScoring), and it passes at >= the pass mark.

Automatic scores count every automatic finding with its proposed code.
Reviewed scores count the final codes: a rejected finding is no error or
warning, a reclassified one counts as its new severity, and a check a
person added counts for the metric named in its attrs (else the case
category's primary metric).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import regex as timed_re
from pydantic import BaseModel, Field

from reviewer.core.cases.metrics import CheckOutcome, MetricSet
from reviewer.core.cases.model import TestCase
from reviewer.core.models import CaseCode, Finding, Source


class MetricScore(BaseModel):
    """One metric's score of one answer and the messages that made it."""

    metric: str
    score: float
    errors: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class CaseScore(BaseModel):
    """A case's score of one answer (seed: EvaluationResult score, passed,
    metrics), on one basis: 'auto' or 'reviewed'."""

    case_id: str
    category: str
    basis: str
    score: float
    passed: bool
    metrics: dict[str, MetricScore]


def check_detail(outcome: CheckOutcome) -> str:
    """The detail of a fired check's finding: 'metric/check: message' (the
    rule that decided it first, as for cards)."""
    return f"{outcome.metric}/{outcome.check}: {outcome.message}"


def counted_metrics(metrics: MetricSet, category: str) -> set[str]:
    """The metrics that count in the score of a case of ``category``: those
    its category weighs above 0 (seed evaluator: the overall score is made
    per category, citation cases of citationAccuracy alone ...); none for
    an unknown category."""
    return {name for name, weight in (metrics.scoring.categories.get(category) or {}).items() if weight}


def findings_of(
    outcomes: Iterable[CheckOutcome], answer: str = "", counted: Iterable[str] | None = None
) -> list[Finding]:
    """Each fired check as an automatic finding (ERROR or
    WARNING, the check's message and id, the metric; the first matched text
    as the model column; every matched span in attrs). ``counted``: the
    metrics that count for the case (:func:`counted_metrics`); a fired check
    of another metric is no finding to review (it stays in the outcomes and
    in the seed report's errors and warnings)."""
    keep = None if counted is None else set(counted)
    out = []
    for o in outcomes:
        if not o.fired or (keep is not None and o.metric not in keep):
            continue
        first = answer[o.spans[0][0] : o.spans[0][1]] if o.spans and answer else None
        out.append(
            Finding(
                code=CaseCode(o.severity.upper()),
                model_card=first,
                detail=check_detail(o),
                source=Source.AUTO,
                attrs={"metric": o.metric, "check": o.check, "spans": [list(s) for s in o.spans]},
            )
        )
    return out


def _severity(finding: Finding, reviewed: bool) -> CaseCode | None:
    if finding.stale:
        return None
    if not reviewed:
        return finding.code if finding.source == Source.AUTO and isinstance(finding.code, CaseCode) else None
    code = finding.effective_code
    return code if isinstance(code, CaseCode) else None


def metric_of(finding: Finding, case: TestCase, metrics: MetricSet) -> str:
    """The metric a finding counts for: its attrs' metric, else (a check a
    person added) the primary metric of the case's category."""
    name = finding.attrs.get("metric") if finding.attrs else None
    if name in {m.name for m in metrics.metrics}:
        return name
    return metrics.primary_metric(case.category)


def _outcome(o: CheckOutcome | Mapping) -> CheckOutcome:
    return o if isinstance(o, CheckOutcome) else CheckOutcome.model_validate(o)


def case_score(
    case: TestCase,
    findings: Iterable[Finding],
    metrics: MetricSet,
    reviewed: bool = False,
    outcomes: Iterable[CheckOutcome | Mapping] | None = None,
) -> CaseScore:
    """seed evaluator: the metric scores of one answer from its findings
    (automatic: proposed codes; reviewed: final codes, rejected ignored),
    the case score (category weights; an unknown category scores 0) and
    passed (score >= pass mark). With ``outcomes`` (the stored check
    outcomes), a metric that does not count for the case's category
    (:func:`counted_metrics`) is scored from its fired checks, the same on
    both bases (they are no findings to review), and automatic findings of
    such a metric left from older scoring are not counted again."""
    errors: dict[str, list[str]] = {m.name: [] for m in metrics.metrics}
    warnings: dict[str, list[str]] = {m.name: [] for m in metrics.metrics}
    counted = counted_metrics(metrics, case.category) if outcomes is not None else None
    for f in findings:
        code = _severity(f, reviewed)
        if code is None:
            continue
        metric = metric_of(f, case, metrics)
        if counted is not None and metric not in counted and f.source == Source.AUTO:
            continue
        bucket = errors if code == CaseCode.ERROR else warnings
        bucket[metric].append(f.detail)
    for o in map(_outcome, outcomes or ()):
        if o.fired and counted is not None and o.metric not in counted and o.metric in errors:
            (errors if o.severity == "error" else warnings)[o.metric].append(check_detail(o))
    scores = {
        m.name: MetricScore(
            metric=m.name,
            score=m.score(len(errors[m.name]), len(warnings[m.name])),
            errors=errors[m.name],
            warnings=warnings[m.name],
        )
        for m in metrics.metrics
    }
    weights = metrics.scoring.categories.get(case.category, {})
    total = round(sum(w * scores[name].score for name, w in weights.items()), 10)
    return CaseScore(
        case_id=case.id,
        category=case.category,
        basis="reviewed" if reviewed else "auto",
        score=total,
        passed=total >= metrics.scoring.pass_mark - 1e-9,
        metrics=scores,
    )


def citations(metrics: MetricSet, answer: str) -> tuple[int, list[str]]:
    """seed details: citationsFound and episodesReferenced (distinct, in
    order) of an answer, by the set's citation pattern ((0, []) without one,
    or when it runs out of the set's regex_timeout on this answer)."""
    if not metrics.citation or metrics.citation not in metrics.patterns:
        return 0, []
    rx = timed_re.compile(metrics.patterns[metrics.citation], timed_re.IGNORECASE)
    try:
        found = list(rx.finditer(answer, timeout=metrics.regex_timeout))
    except TimeoutError:  # the set's time limit, as for its checks: nothing counted
        return 0, []
    episodes: list[str] = []
    for m in found:
        try:
            value = m.group(metrics.episode_group)
        except IndexError:  # the pattern has no such group
            value = None
        if value and value.strip() not in episodes:
            episodes.append(value.strip())
    return len(found), episodes
