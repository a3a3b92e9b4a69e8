"""Ground-truth disputes on the dispute screen (docs/window.md#adjudication-mode): the two
annotators' sides of a difference (card text, pile and box, plain text),
the photo with both boxes marked, and the side-picker: 1 / 2 (or its
buttons) side with annotator A or B.

Siding is the same core command as ``reviewer adjudicate-gt``
(reviewer.storage.gt_adjudication.adjudication_command: the adjudication and
the consensus edit, one undo step) done through ``Session.execute``, so
the item's runs are re-scored and Ctrl+Z takes it back. Nothing here keeps
domain state: the difference is read again from the project each time.
"""

from __future__ import annotations

from typing import TypeGuard

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from reviewer.core.annotators import GT_KINDS, find_difference
from reviewer.core.cards.gt_agreement import SUBJECT_PREFIX, Difference, shown
from reviewer.core.commands import Adjudicate, Batch, Command
from reviewer.core.judging.verdicts import Dispute
from reviewer.qt.session.reads import ProjectError
from reviewer.qt.text import cell


def is_ground_truth(dispute: Dispute | None) -> TypeGuard[Dispute]:
    """True for a ground-truth dispute (gt-missing-card, gt-text-differs, gt-pile-differs, gt-box-differs)."""
    return dispute is not None and dispute.kind in GT_KINDS


def difference_of(session, dispute: Dispute) -> Difference | None:
    """The difference behind a ground-truth dispute, read from the project
    now; None when it is gone (the annotators agree now) or not found."""
    if not session.has_project() or not is_ground_truth(dispute):
        return None
    name = dispute.subject[len(SUBJECT_PREFIX) :]
    item = session.item_named(name)
    if item is None:
        return None
    return find_difference(session.reads.item_comparisons(item.id), dispute.subject, dispute.dimension)


def side_text(difference: Difference, annotator: str) -> str:
    """What ``annotator``'s side says (plain text): the card's text, pile
    and box, or that it has no such card."""
    card = difference.card_of(annotator)
    if card is None:
        return f"{shown(annotator)} has no such card"
    b = card.bbox
    box = "no box" if b is None else f"{b.x_min:g}, {b.y_min:g} – {b.x_max:g}, {b.y_max:g} px"
    return f"text: {card.text}\npile: {card.pile or '(none)'}\nbox: {box}"


def adjudication_of(command: Command) -> Adjudicate | None:
    """The Adjudicate of a command (itself, or the first in a Batch), else None."""
    if isinstance(command, Adjudicate):
        return command
    if isinstance(command, Batch):
        return next((c for c in command.commands if isinstance(c, Adjudicate)), None)
    return None


def side_with(session, dispute: Dispute, annotator: str, rationale: str = "") -> Command | None:
    """Side with ``annotator`` on the ground-truth ``dispute`` (see module
    doc); the command done, or None when it could not be (said on the
    session's error signal)."""
    if not session.has_project() or dispute.id is None:
        return None
    try:
        command, _item_id = session.reads.gt_adjudication(dispute.id, annotator, session.reviewer, rationale)
    except ProjectError as exc:
        session.error.emit(str(exc))
        return None
    return command if session.execute(command) else None


class SidePicker(QWidget):
    """Two buttons, '1 · side with A' and '2 · side with B';
    ``picked(n)`` (1 or 2) when one is clicked. Shown for ground-truth
    disputes only."""

    picked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.buttons = [QPushButton(), QPushButton()]
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        for n, button in enumerate(self.buttons, 1):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay with the queue
            button.clicked.connect(lambda _=False, n=n: self.picked.emit(n))
            layout.addWidget(button)
        layout.addStretch(1)

    def set_sides(self, names: list[str], chosen: str | None = None) -> None:
        """Name the two sides (``chosen``: the side already taken, marked)."""
        for n, (button, name) in enumerate(zip(self.buttons, names), 1):
            mark = " ✓" if name == chosen else ""
            button.setText(f"{n} · side with {cell(name)}{mark}")
