"""The texts the canvas offers for a ground-truth card while it is drawn
(C), transcribed (T) or its text edited (double-click): the model card whose
box lies on it, the unplaced cards, every model reading of the photo
(reviewer.core.cards.text_choices), gathered from the session's runs of
the current item with their boxes in upright pixels. The window sets
``offer_texts`` of the canvas to ``card_text_choices``."""

from __future__ import annotations

from reviewer.core.cards.boxes import to_pixels
from reviewer.core.cards.text_choices import Reading, text_choices
from reviewer.core.models import BBox
from reviewer.qt.choices import Choice
from reviewer.qt.session import Session


def _box(rect: tuple[float, float, float, float]) -> BBox:
    x0, y0, x1, y1 = rect
    return BBox(x_min=min(x0, x1), y_min=min(y0, y1), x_max=max(x0, x1), y_max=max(y0, y1))


def readings(session: Session) -> list[Reading]:
    """Every model card of the current item's runs, the run shown first, with
    its box in upright pixels (each run in its detected box convention, the
    run shown in the convention chosen for it)."""
    item, shown = session.item(), session.run()
    if item is None or item.kind != "photo":
        return []
    width, height = item.width, item.height
    runs = session.runs()
    if shown is not None:
        runs = [shown] + [r for r in runs if r.run["id"] != shown.run["id"]]
    out: list[Reading] = []
    for run in runs:
        convention = session.convention() if run is shown else run.facts.box_convention
        source = f"{run.run['prompt']} · {run.run['model']} #{run.run['repetition']}"
        for card in run.cards:
            box = None
            if card.bbox is not None and convention is not None and width and height:
                box = to_pixels(card.bbox, convention, int(width), int(height))
            out.append(Reading(card.text, box, source))
    return out


def card_text_choices(
    session: Session, rect: tuple[float, float, float, float] | None, card_id: int | None = None
) -> list[Choice]:
    """(shown line, text) of every text offered for a card with box ``rect``
    (scene pixels; None: no box), card ``card_id`` when it exists, in the
    order of reviewer.core.cards.text_choices.text_choices."""
    box = _box(rect) if rect is not None else None
    choices = text_choices(box, session.ground_truth(), readings(session), exclude=card_id)
    return [(f"{c.text}   ·   {c.why}" + (f" · {c.source}" if c.source else ""), c.text) for c in choices]


__all__ = ["card_text_choices", "readings"]
