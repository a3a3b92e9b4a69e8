"""Selective judging's escalation: a verdict whose confidence is below its
judge's trust threshold goes to people as a *low-confidence* dispute
(docs/judging.md#disputes).

The trust threshold of a judge, dimension and confidence source is the one
selective judging finds (reviewer.core.judging.selective.select_threshold:
the lowest confidence from which the judge's agreement with people reaches
the target with a one-sided bound). Where a verdict has confidences of
several sources, the first source in :data:`reviewer.core.judging.
verdict_confidence.SOURCES` order (logprob, stated, imported) that has a
threshold decides. No threshold (too few labels, or none reaches the
target): no low-confidence dispute for that judge and dimension; the queue
would otherwise hold every verdict.

Severity: ``SEVERITY_CAP * (threshold - confidence) / threshold``, so the
least confident come first and a low-confidence verdict never ranks above
a flip or a contradiction (severity 1). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reviewer.core.judging.verdict_confidence import SOURCES
from reviewer.core.judging.verdicts import Dispute, DisputeKind, Verdict
from reviewer.core.text import natural_key

__all__ = ["SEVERITY_CAP", "low_confidence_disputes"]

#: Highest severity of a low-confidence dispute (a confidence of 0).
SEVERITY_CAP = 0.5


def low_confidence_disputes(
    entries: Iterable[tuple[Verdict, str, str, str, float]],
    thresholds: Mapping[tuple[str, str, str], float],
    confidence_used: Mapping[tuple[str, str, str], str] | None = None,
) -> list[Dispute]:
    """The low-confidence disputes (module doc).

    Args:
        entries: (verdict, judge name, dimension, source, confidence 0-1)
            for each stored confidence of a judge's primary verdict whose
            dimension has a decided value.
        thresholds: {(judge name, dimension, source): trust threshold 0-1}.
        confidence_used: {(judge name, dimension, source): which confidence
            the entries and thresholds are on, e.g. 'calibrated (isotonic,
            fitted on 60 dev verdicts)'}; 'raw' where absent. The detail
            names it.

    Returns:
        One dispute per verdict and dimension whose deciding confidence is
        below its threshold, on the verdict's subject and dimension, naming
        that verdict; most severe first.
    """
    chosen: dict[tuple[int, str], tuple[int, Verdict, str, str, float, float]] = {}
    for v, judge, dim, source, c in entries:
        t = thresholds.get((judge, dim, source))
        if t is None or v.id is None:
            continue
        rank = SOURCES.index(source) if source in SOURCES else len(SOURCES)
        key = (v.id, dim)
        if key not in chosen or rank < chosen[key][0]:
            chosen[key] = (rank, v, judge, source, float(c), float(t))
    out = []
    for _, v, judge, source, c, t in chosen.values():
        if c >= t:
            continue
        severity = SEVERITY_CAP * (t - c) / t if t > 0 else 0.0
        out.append(
            Dispute(
                kind=DisputeKind.LOW_CONFIDENCE,
                subject=v.subject,
                dimension=dim,
                verdict_ids=[v.id],
                severity=round(severity, 6),
                detail=f"{judge}: {source} confidence {c:.2f} below its trust threshold {t:.2f} "
                f"({(confidence_used or {}).get((judge, dim, source), 'raw')})",
            )
        )
    out.sort(key=lambda d: (-d.severity, natural_key(d.subject), d.dimension))
    return out
