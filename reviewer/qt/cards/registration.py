"""The card perspective's registration (decision record "workflow-registries"):
the photo in the centre, the T-P1 score panel, its docks and tools, the T-P5
codes; every key of the '?' sheet is its own."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from reviewer.core.models import CODE_ORDER
from reviewer.core.workflows import Workflow
from reviewer.qt.registry import QtWorkflow, ScorePanel, lazy, register

if TYPE_CHECKING:
    from reviewer.qt.canvas.view import CanvasView
    from reviewer.qt.session import Session

_H, _V = Qt.Orientation.Horizontal, Qt.Orientation.Vertical


def canvas(session: Session) -> CanvasView:
    """The centre: the photo with its cards (reviewer.qt.canvas), drawing
    the ground truth its annotator view shows (``annotators``: whose, the
    annotator switch, docs/window.md) and offering a right reading in one
    key (reviewer.qt.cards.text_choices)."""
    from reviewer.qt.canvas.view import CanvasView
    from reviewer.qt.cards.annotators import AnnotatorView
    from reviewer.qt.cards.text_choices import card_text_choices

    view = CanvasView(session)
    view.set_annotators(AnnotatorView(session, view))
    view.offer_texts = partial(card_text_choices, session)
    return view


PARTS = register(
    QtWorkflow(
        Workflow.CARDS,
        center=canvas,
        center_name="canvas",
        score_panels=(ScorePanel("scores", "Scores (T-P1)", lazy("reviewer.qt.panels.scores", "ScoresPanel")),),
        docks=("items", "piles", "unplaced", "legend", "findings", "output", "runs"),
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
