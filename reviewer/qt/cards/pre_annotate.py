"""Ground truth from the current run (the Ground truth menu): the core
commands built from what the session holds and done through
``Session.execute``, so each is one undoable edit written at once. When a
command does not apply, the status bar says why.

*Use this run's boxes* proposes the run's boxes (reviewer.core.box_commands.ProposeBoxes):
each is confirmed, moved or dropped on the canvas (reviewer.qt.cards.proposed_boxes)
and is never ground truth until it is accepted. *Accept this run's cards*
makes a draft ground truth of a photo without one
(reviewer.core.commands.accept_run_cards)."""

from __future__ import annotations

from reviewer.core.box_commands import ProposeBoxes
from reviewer.core.cards.pre_annotation import proposals_from_run
from reviewer.core.commands import accept_run_cards
from reviewer.qt.session import Session


def _run_name(run) -> str:
    r = run.run
    return f"{r['prompt']} · {r['model']} #{r['repetition']}"


def use_boxes(session: Session) -> bool:
    """'Use this run's boxes': every box of the run that is not ground truth
    already (its matched card has a box) becomes a proposed box with the
    text the run read, converted from the run's box convention to upright
    pixels; one undoable edit. True when done."""
    run, item = session.run(), session.item()
    if run is None or item is None or item.id is None or item.kind != "photo" or not session.has_project():
        session.message.emit("select a run on a photo first")
        return False
    convention = session.convention()
    if convention is None:
        session.message.emit("this run gave no boxes")
        return False
    name = _run_name(run)
    if any(b.source == name for b in session.reads.proposed_boxes(item.id)):
        session.message.emit(f"{name}'s boxes are proposed already: Tab, Enter, arrows, Delete on the photo")
        return False
    boxes = proposals_from_run(
        session.ground_truth(), run.facts.outcomes, run.cards, convention, item.width, item.height, name
    )
    if not boxes:
        session.message.emit("every box of this run is on a ground-truth card that has a box already")
        return False
    if not session.execute(ProposeBoxes(item.id, boxes, text=f"propose {name}'s {len(boxes)} box(es)")):
        return False
    session.message.emit(
        f"{len(boxes)} proposed boxes: Tab next, Enter accepts, arrows move an edge (Shift: further), Delete drops"
    )
    return True


def accept_cards(session: Session) -> bool:
    """'Accept this run's cards as draft ground truth' on a photo without
    ground-truth cards: piles and cards (with boxes when the run gave them)
    from the run, one undoable edit. True when done."""
    run, item = session.run(), session.item()
    if run is None or item is None or item.id is None:
        session.message.emit("select a run first")
        return False
    if session.ground_truth().cards:
        session.message.emit(f"'{item.name}' has ground truth already; 'Use this run's boxes' proposes missing boxes")
        return False
    command = accept_run_cards(
        item.id, session.ground_truth(), run.cards, session.convention(), item.width, item.height, _run_name(run)
    )
    if command is None:
        session.message.emit("this run reported no cards")
        return False
    return session.execute(command)
