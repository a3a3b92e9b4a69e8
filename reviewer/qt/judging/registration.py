"""The perspectives of the two judging workflows, judged output and
pairwise (decision record "workflow-registries"): the input and output
beside the verdicts in the centre, and their score docks. They have no
findings, so no codes."""

from __future__ import annotations

from reviewer.core.workflows import Workflow
from PySide6.QtCore import Qt

from reviewer.qt.registry import QtWorkflow, register

_H, _V = Qt.Orientation.Horizontal, Qt.Orientation.Vertical

JUDGED = register(
    QtWorkflow(
        Workflow.JUDGED,
        center_name="judged",
        docks=("items", "runs", "failter_scores", "rubric_scores"),
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
        center_name="judged",
        docks=("items", "runs", "pairwise_scores"),
        sizes=(
            (("items",), (320,), _H),
            (("runs",), (230,), _V),
            (("runs", "pairwise_scores"), (600, 1000), _H),
        ),
    )
)
