"""The rows the case view's tables show (no Qt): the checks that count for
a case's category with their outcome on one answer, and the scores of the
metrics that count, automatic and reviewed side by side.

Which checks count: the checks of the metrics the case's category weighs
above 0 (core.cases.scoring.counted_metrics; the seed's evaluator makes a
case's overall score per category: a citation case of citationAccuracy
alone, a theory case of theoryCoherence and citationAccuracy ...). The
others still run and are stored, but they are no findings to review and
do not move the case score, so the case view leaves them out.
"""

from __future__ import annotations

from typing import NamedTuple

from reviewer.core.cases.metrics import MetricSet
from reviewer.core.cases.scoring import CaseScore, counted_metrics


class Row(NamedTuple):
    """One table row: its cells' texts and the tooltip of the row."""

    cells: tuple[str, ...]
    tip: str


CHECK_COLUMNS = ("check", "severity", "outcome", "message", "checks")
SCORE_COLUMNS = ("metric", "automatic", "reviewed", "weight")


def outcome_word(o: dict) -> str:
    """A stored check outcome in one word: off (its condition does not
    hold for the case), not run (out of time), FIRED or passed."""
    if not o["on"]:
        return "off"
    if not o.get("ran", True):
        return "not run"
    return "FIRED" if o["fired"] else "passed"


def check_rows(outcomes: list[dict], metrics: MetricSet, category: str) -> list[Row]:
    """The rows of the checks of the metrics that count for ``category``
    (module doc), in the metric set's order: 'metric/check', severity,
    outcome (:func:`outcome_word`), message (a fired check's message, a
    not-run check's note, else ''), what the check is about; the tooltip is
    the message (or note) and what the check is about. ``outcomes``: the stored
    outcomes of one answer (storage.cases.cases.check_outcomes)."""
    counted = counted_metrics(metrics, category)
    about = {(m.name, c.id): c.about for m in metrics.metrics for c in m.checks}
    rows = []
    for o in outcomes:
        if o["metric"] not in counted:
            continue
        ran = o.get("ran", True)
        what = about.get((o["metric"], o["check"]), "")
        word = outcome_word(o)
        message = o["message"] if word == "FIRED" else o.get("note", "") if word == "not run" else ""
        said = o["message"] if ran else o.get("note", "")
        tip = "\n".join(t for t in (said, f"checks: {what}" if what else "") if t)
        rows.append(Row((f"{o['metric']}/{o['check']}", o["severity"], word, message, what), tip))
    return rows


def score_rows(auto: CaseScore, reviewed: CaseScore, metrics: MetricSet) -> list[Row]:
    """The scores of the metrics that count for the case's category
    (weighted; module doc), then the case score with pass or fail, each
    automatic and reviewed: metric, automatic, reviewed, weight."""
    weights = metrics.scoring.categories.get(auto.category, {})
    rows = [
        Row(
            (name, f"{m.score:.2f}", f"{reviewed.metrics[name].score:.2f}", f"{weights[name]:g}"),
            f"weight {weights[name]:g} in the case score of a {auto.category} case",
        )
        for name, m in auto.metrics.items()
        if weights.get(name)
    ]
    rows.append(
        Row(
            (
                "case score",
                f"{auto.score:.2f} {'pass' if auto.passed else 'fail'}",
                f"{reviewed.score:.2f} {'pass' if reviewed.passed else 'fail'}",
                "",
            ),
            f"the weighted sum of the metric scores; a case passes at {metrics.scoring.pass_mark:g} or more",
        )
    )
    return rows


__all__ = ["CHECK_COLUMNS", "SCORE_COLUMNS", "Row", "check_rows", "outcome_word", "score_rows"]
