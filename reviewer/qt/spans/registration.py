"""The span perspective's registration (decision record "workflow-registries"):
the labelled text in the centre, its docks, the span codes and its editing keys."""

from __future__ import annotations

from reviewer.core.models import SPAN_CODE_ORDER
from reviewer.core.workflows import Workflow
from PySide6.QtCore import Qt

from reviewer.qt.registry import QtWorkflow, register

_H, _V = Qt.Orientation.Horizontal, Qt.Orientation.Vertical

PARTS = register(
    QtWorkflow(
        Workflow.SPANS,
        center_name="spans",
        docks=("items", "legend", "findings", "output", "runs", "span_scores"),
        codes=SPAN_CODE_ORDER,
        keys=(
            ("1-4", "reclassify as MISSED, FALSE_POSITIVE, TAXONOMY, GRANULARITY"),
            ("A", "add a finding on the span at the cursor"),
            ("W / S", "grow the selection by a word / a sentence"),
            (
                "L, Enter",
                "label the selected text: type a role (listed as you type, Up/Down choose), Enter (Shift+Enter: the last role)",
            ),
            ("Delete, Backspace", "delete the golden span at the cursor"),
        ),
        sizes=(
            (("items",), (320,), _H),
            (("findings",), (520,), _H),
            (("findings", "output"), (420, 240), _V),
            (("runs",), (230,), _V),
            (("runs", "span_scores"), (600, 1000), _H),
        ),
    )
)
