"""The toy workflow's window layer: its perspective, in one registration."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from reviewer.qt.registry import QtWorkflow, register
from tests.helpers.toy_workflow.core import RIDDLES


class RiddleView(QLabel):
    """The centre: the current riddle's text, plain."""

    def __init__(self, session):
        super().__init__()
        self.setObjectName("RiddleView")
        self.setTextFormat(self.textFormat().PlainText)
        self.session = session
        session.itemChanged.connect(self.refresh)

    def refresh(self) -> None:
        item = self.session.item()
        self.setText(item.text or "" if item is not None else "")


class RiddleScores(QLabel):
    """The score panel: how many guesses were right, read through the Session's project."""

    def __init__(self, session):
        super().__init__()
        self.setObjectName("RiddleScores")
        self.session = session
        session.itemChanged.connect(self.refresh)

    def refresh(self) -> None:
        from tests.helpers.toy_workflow.storage import table

        rows = table(self.session.project) if self.session.project is not None else []
        self.setText("; ".join(f"{m}: {c} of {n} right" for m, c, n in rows))


PARTS = QtWorkflow(
    RIDDLES,
    center=RiddleView,
    score_panel=RiddleScores,
    score_title="Riddle scores",
    keys=(("G", "Say the guess is right"),),
    status_line=lambda status, runs: f"riddle · {runs}",
    output_text=lambda output: f"guess: {output}" if output.startswith("a ") else None,
)


def register_qt() -> None:
    """The window registration."""
    register(PARTS)
