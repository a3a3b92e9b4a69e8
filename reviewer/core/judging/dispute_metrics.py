"""The judge-vs-metrics dispute family (reviewer.core.judging.disputes, whose
module docstring gives the rules): the tables from a subject's structural
metrics and from issue texts to the dimensions a top score on which
contradicts them (METRIC_PROBLEMS, ISSUE_PATTERNS, TOP_SCORE), reading them
(metric_problems, issue_problems), and the finder that adds a dispute for
every broken rubric rule or contradicted top score.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reviewer.core.bounds import is_number
from reviewer.core.judging.dispute_common import DisputeCollector, RaterKey, format_value, rater_key, value_of
from reviewer.core.judging.rubric_rules import RubricRules, broken_rules, covered_dimensions
from reviewer.core.judging.verdicts import DisputeKind, Scale, Value, Verdict

#: The top score of each scale that has one (judge-vs-metrics disputes).
TOP_SCORE: dict[Scale, Value] = {
    Scale.ORDINAL5: 5.0,
    Scale.GRADE: 100.0,
    Scale.PERCENT: 100.0,
    Scale.PASS_FAIL: "pass",
    Scale.CIP: 100.0,
}


def _count(value: Any) -> int:
    """How many problems a metric reports: a number as is (at least 1 when
    positive), a list by its length (hallucinatedCards is a list of card
    names in the tarot data, a number elsewhere); anything else 0."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return max(1, int(value)) if value > 0 else 0
    if isinstance(value, (list, tuple, set)):
        return len(value)
    return 0


def _names(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value[:5])) + (" ..." if len(value) > 5 else "")
    return str(value)


@dataclass(frozen=True)
class MetricProblem:
    """One row of the metric-problem -> dimensions table.

    ``metric``: the key in a subject's metrics dict; ``test(value)`` -> a
    short description of the problem, or None when the value is fine;
    ``dimensions``: the rubric dimensions (lower case) a top score on which
    contradicts the problem.
    """

    metric: str
    dimensions: tuple[str, ...]
    test: Callable[[Any], str | None]


@dataclass(frozen=True)
class IssuePattern:
    """A problem named in free text (metrics ``issueFlags``/``issues``, or a
    verdict's own ``issues_found``): a case-insensitive regular expression and
    the dimensions it contradicts at the top score."""

    pattern: str
    dimensions: tuple[str, ...]
    regex: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", re.compile(self.pattern, re.IGNORECASE))


_HALLUC_DIMS = ("tarot_coherence", "overall", "accuracy", "faithfulness")

#: Metric problems and the dimensions they contradict at the top score.
#: Sources: judge-calibration-plan.md (buildStructuralMetricsSection: card
#: coverage < 70 % is LOW, hallucinated cards are CRITICAL, an incomplete
#: story spine; rubric: "1: Hallucinated cards" for TAROT_COHERENCE,
#: "deterministic language" for TONE) and the card-reading taxonomy (HALLUC
#: findings of a run: ``halluc_findings``, filled in by
#: reviewer.storage.judging.disputes from confirmed or proposed findings).
#: Extend by passing ``problems=METRIC_PROBLEMS + (...)`` to find_disputes.
METRIC_PROBLEMS: tuple[MetricProblem, ...] = (
    MetricProblem(
        "hallucinatedCards", _HALLUC_DIMS, lambda v: f"hallucinatedCards: {_names(v)}" if _count(v) > 0 else None
    ),
    MetricProblem("hallucinationCount", _HALLUC_DIMS, lambda v: f"hallucinationCount = {v}" if _count(v) > 0 else None),
    MetricProblem(
        "halluc_findings", _HALLUC_DIMS, lambda v: f"{v} HALLUC finding(s) on the run" if _count(v) > 0 else None
    ),
    MetricProblem(
        "cardCoverage",
        ("tarot_coherence", "overall"),
        lambda v: f"cardCoverage = {v:.0%} (LOW, < 70 %)" if is_number(v) and v < 0.7 else None,
    ),
    MetricProblem(
        "missingCards", ("tarot_coherence",), lambda v: f"missingCards: {_names(v)}" if _count(v) > 0 else None
    ),
    MetricProblem(
        "spine",
        ("overall",),
        lambda v: "story spine INCOMPLETE" if isinstance(v, Mapping) and v.get("isValid") is False else None,
    ),
    MetricProblem(
        "deterministicLanguage", ("tone",), lambda v: "deterministic language detected" if v is True else None
    ),
    MetricProblem("hasHarshTone", ("tone",), lambda v: "harsh tone detected" if v is True else None),
)

#: Problems named in text, and the dimensions they contradict at the top score.
ISSUE_PATTERNS: tuple[IssuePattern, ...] = (
    IssuePattern(r"hallucinat", _HALLUC_DIMS),
    IssuePattern(r"determinist|doom|fatalis", ("tone",)),
    IssuePattern(r"medical|financial advice|investment advice|death|harmful", ("safety",)),
)

#: Metrics keys holding free-text issue lists (tarot: ``issueFlags``).
_ISSUE_KEYS = ("issueFlags", "issues", "issues_found")


def metric_problems(
    metrics: Mapping[str, Any] | None,
    problems: Sequence[MetricProblem] = METRIC_PROBLEMS,
    patterns: Sequence[IssuePattern] = ISSUE_PATTERNS,
) -> list[tuple[str, tuple[str, ...]]]:
    """The problems a subject's structural metrics report.

    Args:
        metrics: {metric name: value} (as stored by set_subject_metrics), or
            None.
        problems, patterns: the mapping tables (default
            :data:`METRIC_PROBLEMS`, :data:`ISSUE_PATTERNS`).

    Returns:
        [(description, dimensions)] in table order; empty when none. Never
        raises on odd values (a test that fails on a value is skipped).
    """
    out: list[tuple[str, tuple[str, ...]]] = []
    if not metrics:
        return out
    for p in problems:
        if p.metric not in metrics:
            continue
        try:
            desc = p.test(metrics[p.metric])
        except (TypeError, ValueError, AttributeError):
            desc = None
        if desc:
            out.append((f"metrics {desc}", p.dimensions))
    for key in _ISSUE_KEYS:
        texts = metrics.get(key)
        if isinstance(texts, (list, tuple)):
            out += [(f"metrics {key} lists '{d}'", dims) for d, dims in issue_problems(texts, patterns)]
    return out


def issue_problems(
    texts: Iterable[Any], patterns: Sequence[IssuePattern] = ISSUE_PATTERNS
) -> list[tuple[str, tuple[str, ...]]]:
    """[(issue text, dimensions)] for every issue text matching a pattern
    (the first matching pattern per text)."""
    out = []
    for text in texts:
        s = str(text)
        for p in patterns:
            if p.regex.search(s):
                out.append((s, p.dimensions))
                break
    return out


def judge_vs_metrics(
    acc: DisputeCollector,
    subject: str,
    judges: Sequence[Verdict],
    metrics: Mapping[str, Any] | None,
    labels: Mapping[RaterKey, str],
    problems: Sequence[MetricProblem],
    patterns: Sequence[IssuePattern],
    rules: RubricRules | None = None,
) -> None:
    from_metrics = metric_problems(metrics, problems, patterns)
    for v in sorted(judges, key=lambda v: (labels[rater_key(v)], v.answer_order or "", v.repetition)):
        covered: set[str] = set()
        if rules is not None:
            broken = broken_rules(rules, v, metrics)
            covered = covered_dimensions(rules, v, metrics)
            for dim in dict.fromkeys(b.dimension for b in broken):
                texts = [b.text() for b in broken if b.dimension == dim]
                acc.add(
                    DisputeKind.METRICS,
                    subject,
                    dim,
                    [v],
                    1.0,
                    f"{labels[rater_key(v)]} broke {len(texts)} rule{'s' if len(texts) > 1 else ''} on {dim}: "
                    + "; ".join(texts),
                )
        top = TOP_SCORE.get(v.scale)
        if top is None:
            continue
        found = from_metrics + [
            (f"its own issues_found lists '{text}'", dims) for text, dims in issue_problems(v.issues_found, patterns)
        ]
        if not found:
            continue
        for dim in sorted(v.scores):
            if dim in covered or value_of(v, dim) != top:
                continue
            reasons = [desc for desc, dims in found if dim.lower() in dims]
            if reasons:
                acc.add(
                    DisputeKind.METRICS,
                    subject,
                    dim,
                    [v],
                    1.0,
                    f"{labels[rater_key(v)]} gave {dim} the top score {format_value(top)} but " + "; ".join(reasons),
                )
