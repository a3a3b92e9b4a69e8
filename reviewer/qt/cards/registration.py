"""The card perspective's registration (decision record "workflow-registries"):
the photo in the centre, its docks and tools, the T-P5 codes; every key of
the '?' sheet is its own."""

from __future__ import annotations

from reviewer.core.models import CODE_ORDER
from reviewer.core.workflows import Workflow
from PySide6.QtCore import Qt

from reviewer.qt.registry import QtWorkflow, register

_H, _V = Qt.Orientation.Horizontal, Qt.Orientation.Vertical

PARTS = register(
    QtWorkflow(
        Workflow.CARDS,
        center_name="canvas",
        docks=("items", "piles", "unplaced", "legend", "findings", "output", "runs", "scores"),
        codes=CODE_ORDER,
        card_tools=True,
        sizes=(
            (("items",), (230,), _H),
            (("items", "piles"), (300, 380), _V),  # photos in view beside the piles
            (("findings",), (560,), _H),
            (("findings", "output"), (430, 230), _V),
            (("runs",), (230,), _V),
            (("runs", "scores"), (700, 900), _H),
        ),
    )
)
