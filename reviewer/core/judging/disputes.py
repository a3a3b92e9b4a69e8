"""Finding disputes among judge verdicts (CONTEXT.md: *dispute*).

:func:`find_disputes` reads verdicts (and, optionally, the structural metrics
of their subjects) and returns the disputes a person should settle, most
severe first. Six kinds (:class:`~reviewer.core.judging.verdicts.DisputeKind`):

``judges-disagree``
    Two or more non-human judges scored the same dimension of a subject
    further apart than the scale's tolerance. Each judge counts once: its
    *primary* verdict (:func:`primary_verdicts`: answer order 'ab', else the
    only order it used; its latest repetition).
``position-flip``
    A pairwise judge saw the same pair in both orders ('ab' and 'ba', latest
    repetition of each) and its two decided values differ (beyond tolerance
    for numeric scales). Winners are stored in the original order, so '1'
    then '2' is a flip.
``repeat-spread``
    One judge scored the same subject, dimension and answer order in several
    repetitions and the values spread beyond the tolerance.
``epochs-disagree``
    One judge's primary values on the epochs of one sample differ beyond
    the tolerance: inspect_ai runs a sample several times (epochs), each
    epoch's output a run of its own subject (``epochs``: {subject: (sample,
    epoch)}, given by the storage layer that knows the runs). Every epoch's
    subject gets a dispute naming each epoch's value, so a person settles
    each epoch's output on its own (decision record
    "inspect-epochs-and-letters").
``judge-vs-human``
    A judge's primary value differs from the human reference: the 'gold'
    label when a human verdict by judge 'gold' exists, else the majority of
    the human raters (:func:`reviewer.core.judging.agreement.majority`; a tie among
    them means no reference and no dispute). Nominal scales: any difference;
    numeric scales: beyond the tolerance.
``judge-vs-metrics``
    A judge's verdict breaks one or more *rubric rules* on a dimension or
    flag (:mod:`reviewer.core.judging.rubric_rules`, e.g. the tarot plan's
    "hallucinated cards require TAROT_COHERENCE <= 1 and SAFETY_FLAG true"
    and a reading's expected caps): one dispute per subject and dimension
    listing every broken rule with its evidence. On dimensions no rule
    checks for the subject: the judge gave the *top* score of its scale (5
    on 1-5, A / 100 on A-F, 100 on 0-100, 'pass') while the subject's
    structural metrics, or the judge's own ``issues_found``, report a
    problem for that dimension (:data:`METRIC_PROBLEMS`,
    :data:`ISSUE_PATTERNS`).
``low-confidence``
    Not found here: a verdict whose confidence is below its judge's trust
    threshold (:mod:`reviewer.core.judging.low_confidence`, selective
    judging), added by the storage layer that knows the confidences.

Severity, in [0, 1] (larger first in the queue): for numeric scales the
spread of the disputed values divided by the scale's range
(:data:`SCALE_RANGE`: 4 for 1-5, 100 for A-F and 0-100); for nominal scales
1.0 when the values differ, except a pairwise 'tie' against a winner, which is
half a flip (0.5). A position flip '1' vs '2' and a contradiction with the
metrics are 1.0.

The database allows one dispute per (kind, subject, dimension), so several
judges in the same situation (e.g. two judges flipping on one pair) make one
dispute naming all of them: the verdict ids are merged, the severity is the
largest, the details are joined with '; '.

Values that are missing or not on the scale (``None``: undecided, garbage)
never make a dispute: there is nothing to compare. Human verdicts (method
'human', or judge 'gold') are never judges here. Pure Python: no SQL, Qt or HTTP.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from reviewer.core.judging.dispute_common import (
    DisputeCollector,
    RaterKey,
    is_human,
    latest_by_order,
    primary_verdicts,
    rater_labels,
)
from reviewer.core.judging.dispute_disagreements import (
    epochs_disagree,
    judge_vs_human,
    judges_disagree,
    position_flips,
    repeat_spread,
)
from reviewer.core.judging.dispute_metrics import (
    ISSUE_PATTERNS,
    METRIC_PROBLEMS,
    IssuePattern,
    MetricProblem,
    judge_vs_metrics,
)
from reviewer.core.judging.rubric_rules import RubricRules
from reviewer.core.judging.verdicts import TOLERANCE, Dispute, Scale, Verdict

#: The shared pieces are in dispute_common, the families in
#: dispute_disagreements and dispute_metrics; callers import their names
#: from there.
__all__ = [
    "find_disputes",
]


def find_disputes(
    verdicts: Iterable[Verdict],
    subject_metrics: Mapping[str, Mapping[str, Any]] | None = None,
    tolerance: Mapping[Scale, float] = TOLERANCE,
    *,
    problems: Sequence[MetricProblem] = METRIC_PROBLEMS,
    patterns: Sequence[IssuePattern] = ISSUE_PATTERNS,
    rules: RubricRules | None = None,
    epochs: Mapping[str, tuple[str, int]] | None = None,
) -> list[Dispute]:
    """Every dispute among ``verdicts`` (rules: module docstring).

    Args:
        verdicts: verdicts of any subjects, judges and humans (ids are copied
            into the disputes' ``verdict_ids``; verdicts without id are
            compared but not listed).
        subject_metrics: {subject: structural metrics} for judge-vs-metrics
            disputes (e.g. tarot ``hallucinatedCards``, ``cardCoverage``;
            card-reading ``halluc_findings``); None for none.
        tolerance: {scale: largest difference that is not a dispute} for
            numeric scales (default :data:`reviewer.core.judging.verdicts.TOLERANCE`:
            1 point on 1-5, 20 points on A-F and 0-100); scales left out use
            the default. Nominal scales dispute any difference.
        problems, patterns: the metric-problem tables (extensible).
        rules: the rubric rules checked for judge-vs-metrics disputes (e.g.
            resources/tarot-rules.toml as read by reviewer.storage); None:
            the top-score rule alone.
        epochs: {subject: (sample, epoch)} of the subjects that are epochs
            of one sample, for epochs-disagree disputes; None for none.

    Returns:
        Disputes with ``id=None``, one per (kind, subject, dimension), most
        severe first, then by kind (the order of DisputeKind), subject
        (natural order) and dimension: deterministic for the same input.
    """
    by_subject: dict[str, list[Verdict]] = {}
    for v in verdicts:
        by_subject.setdefault(v.subject, []).append(v)
    labels = rater_labels(v for vs in by_subject.values() for v in vs)
    metrics = subject_metrics or {}
    acc = DisputeCollector()
    primaries: dict[tuple[str, RaterKey], Verdict] = {}
    for subject, vs in by_subject.items():
        judges = [v for v in vs if not is_human(v)]
        humans = [v for v in vs if is_human(v)]
        if not judges:
            continue
        primary = primary_verdicts(judges)
        primaries.update(primary)
        latest = latest_by_order(judges)
        judges_disagree(acc, subject, primary, labels, tolerance)
        position_flips(acc, subject, latest, labels, tolerance)
        repeat_spread(acc, subject, judges, labels, tolerance)
        if humans:
            judge_vs_human(acc, subject, primary, humans, labels, tolerance)
        judge_vs_metrics(acc, subject, judges, metrics.get(subject), labels, problems, patterns, rules)
    if epochs:
        epochs_disagree(acc, primaries, epochs, labels, tolerance)
    return acc.disputes()
