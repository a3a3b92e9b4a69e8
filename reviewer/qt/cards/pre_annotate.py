"""Ground truth from the current run (the Ground truth menu): the core
commands of reviewer.core.commands (``use_run_boxes``, ``accept_run_cards``)
built from what the session holds and done through ``Session.execute``, so
each is one undoable edit written at once. When a command does not apply,
the status bar says why."""

from __future__ import annotations

from reviewer.core.commands import accept_run_cards, use_run_boxes
from reviewer.qt.session import Session


def _run_name(run) -> str:
    r = run.run
    return f"{r['prompt']} · {r['model']} #{r['repetition']}"


def use_boxes(session: Session) -> bool:
    """'Use this run's boxes as ground truth': the matched cards' predicted
    boxes become the boxes of ground-truth cards that have none (converted
    from the run's box convention to upright pixels). True when done."""
    run, item = session.run(), session.item()
    if run is None or item is None or item.kind != "photo":
        session.message.emit("select a run on a photo first")
        return False
    convention = session.convention()
    if convention is None:
        session.message.emit("this run gave no boxes")
        return False
    command = use_run_boxes(
        item.id,
        session.ground_truth(),
        run.facts.outcomes,
        run.cards,
        convention,
        item.width,
        item.height,
        _run_name(run),
    )
    if command is None:
        session.message.emit("no ground-truth card without a box was matched to a card with a box in this run")
        return False
    return session.execute(command)


def accept_cards(session: Session) -> bool:
    """'Accept this run's cards as draft ground truth' on a photo without
    ground-truth cards: piles and cards (with boxes when the run gave them)
    from the run, one undoable edit. True when done."""
    run, item = session.run(), session.item()
    if run is None or item is None:
        session.message.emit("select a run first")
        return False
    if session.ground_truth().cards:
        session.message.emit(f"'{item.name}' has ground truth already; 'Use this run's boxes' fills missing boxes")
        return False
    command = accept_run_cards(
        item.id, session.ground_truth(), run.cards, session.convention(), item.width, item.height, _run_name(run)
    )
    if command is None:
        session.message.emit("this run reported no cards")
        return False
    return session.execute(command)
