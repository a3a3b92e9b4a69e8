"""The test-case perspective's registration (decision record "workflow-registries"):
the case beside its answer in the centre, its score panel and docks, the check
codes and keys, and its line in the items list."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reviewer.core.models import CASE_CODE_ORDER
from reviewer.core.workflows import Workflow
from reviewer.qt.registry import QtWorkflow, ScorePanel, lazy, register

_H, _V = Qt.Orientation.Horizontal, Qt.Orientation.Vertical


def status_line(status: object, runs: str) -> str:
    """A test case's line in the items list: 'test case · 2 runs, no findings'."""
    return f"test case · {runs}"


PARTS = register(
    QtWorkflow(
        Workflow.CASE,
        center=lazy("reviewer.qt.cases.view", "CaseView"),
        center_name="case",
        score_panels=(ScorePanel("case_scores", "Case scores", lazy("reviewer.qt.cases.scores", "CaseScoresPanel")),),
        status_line=status_line,
        docks=("items", "findings", "runs"),
        codes=CASE_CODE_ORDER,
        keys=(
            ("1-2", "reclassify a check as ERROR, WARNING"),
            ("A", "add a check the metrics missed"),
        ),
        sizes=(
            (("items",), (300,), _H),
            (("findings",), (420,), _H),
            (("runs",), (200,), _V),
            (("runs", "case_scores"), (600, 1000), _H),
        ),
    )
)
