"""The perspectives of the two judging workflows, judged output and
pairwise (decision record "workflow-registries"): the input and output
beside the verdicts in the centre (one widget, which both show), and their
score docks (a judged output shows the Failter table when its runs have
Failter verdicts, else the rubric distribution: the two are tabbed in one
place), and their lines in the items list. They have no findings, so no
codes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from reviewer.core.workflows import Workflow
from reviewer.qt.registry import QtWorkflow, ScorePanel, lazy, register
from reviewer.qt.text import plural

if TYPE_CHECKING:
    from reviewer.qt.session import ItemStatus, Session

_H, _V = Qt.Orientation.Horizontal, Qt.Orientation.Vertical


def verdicts_line(status: ItemStatus, runs: str) -> str | None:
    """A judged or pairwise item's line when people gave verdicts on its
    runs: 'GT gold label · ...' (a benchmark's label), 'GT 2 gold labels ·
    ...' or 'GT 3 human verdicts · ...'; None without (the shared line)."""
    if not status.human_verdicts:
        return None
    if status.gold_labels == status.human_verdicts:
        labels = "gold label" if status.gold_labels == 1 else plural(status.gold_labels, "gold label")
        return f"GT {labels} · {runs}"
    return f"GT {plural(status.human_verdicts, 'human verdict')} · {runs}"


def judged_line(status: ItemStatus, runs: str) -> str | None:
    """A judged output's line: 'ground-truth file · ...' (a Failter
    experiment's ground-truth file), else as ``verdicts_line``."""
    if status.references:
        return f"ground-truth file · {runs}"
    return verdicts_line(status, runs)


def judged_score_docks(session: Session) -> tuple[str, ...]:
    """The score dock the current item shows: the Failter table when its
    runs have Failter verdicts (read once per project, off the GUI thread
    on a big one: Session.has_failter_verdicts), else the rubric distribution."""
    item = session.item()
    failter = item is not None and item.id is not None and session.has_failter_verdicts(item.id)
    return ("failter_scores",) if failter else ("rubric_scores",)


#: The centre both show (one widget, made once): the input, the output beside the ground truth, the verdicts.
JUDGED_VIEW = lazy("reviewer.qt.judging.judged_view", "JudgedView")

JUDGED = register(
    QtWorkflow(
        Workflow.JUDGED,
        center=JUDGED_VIEW,
        center_name="judged",
        score_panels=(
            ScorePanel(
                "failter_scores", "Failter scores", lazy("reviewer.qt.judging.failter_scores", "FailterScoresPanel")
            ),
            ScorePanel(
                "rubric_scores", "Rubric distribution", lazy("reviewer.qt.judging.rubric_scores", "RubricScoresPanel")
            ),
        ),
        docks=("items", "runs"),
        variant_docks=("failter_scores", "rubric_scores"),
        item_docks=judged_score_docks,
        status_line=judged_line,
        sizes=(
            (("items",), (320,), _H),
            (("runs",), (320,), _V),  # the rubric chart needs its height
            (("runs", "failter_scores"), (500, 1100), _H),
            (("runs", "rubric_scores"), (500, 1100), _H),
        ),
    )
)

PAIRWISE = register(
    QtWorkflow(
        Workflow.PAIRWISE,
        center=JUDGED_VIEW,
        center_name="judged",
        score_panels=(
            ScorePanel(
                "pairwise_scores", "Pairwise scores", lazy("reviewer.qt.judging.pairwise_scores", "PairwiseScoresPanel")
            ),
        ),
        docks=("items", "runs"),
        status_line=verdicts_line,
        sizes=(
            (("items",), (320,), _H),
            (("runs",), (230,), _V),
            (("runs", "pairwise_scores"), (600, 1000), _H),
        ),
    )
)
