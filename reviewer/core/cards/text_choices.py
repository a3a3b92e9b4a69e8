"""The texts offered for a ground-truth card while it is drawn or its text
edited (docs/window.md, "A right reading in one key"): what the models read
there and the cards still without a place, so a right reading costs one key.

Pure: the window gathers the readings of the photo's runs (boxes already in
upright pixels) and shows the choices in order; Enter takes the first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from reviewer.core.cards.boxes import lies_on
from reviewer.core.cards.readings import squashed
from reviewer.core.models import BBox, GroundTruth

#: Why a text is offered, in the order the choices come.
ON_THE_BOX, UNPLACED, READ = "on the box", "unplaced card", "read on this photo"


@dataclass(frozen=True)
class Reading:
    """One model card of a run of the photo: its text as read, its box in
    upright image pixels (None: the run gave no box) and who read it
    (e.g. 'bounding-boxes · qwen #1')."""

    text: str
    box: BBox | None
    source: str


@dataclass(frozen=True)
class TextChoice:
    """A text offered for a card: ``text`` exactly as read or stored,
    ``why`` (ON_THE_BOX, UNPLACED or READ) and ``source`` (the run, or the
    unplaced card's pile)."""

    text: str
    why: str
    source: str = ""


def text_choices(
    box: BBox | None, gt: GroundTruth, readings: Iterable[Reading], exclude: int | None = None
) -> list[TextChoice]:
    """The texts offered for a ground-truth card with ``box`` (upright
    pixels; None: no box yet), in this order:

    1. the text of every model card whose box lies on ``box``
       (card-scoring-rules.md §6: overlap >= half the smaller box's area),
       in the order of ``readings`` (the run shown first);
    2. the ground-truth cards of ``gt`` without a box (unplaced), in
       ground-truth order, except card ``exclude`` (the card being edited);
    3. every other reading of the photo, in the order of ``readings``,
       except texts a ground-truth card with a box already has.

    A text comes once (§1 equality: case, punctuation and spacing aside),
    at its first place; blank texts are left out."""
    readings = list(readings)
    seen: set[str] = set()
    out: list[TextChoice] = []

    def offer(text: str, why: str, source: str) -> None:
        key = squashed(text)
        if key and key not in seen:
            seen.add(key)
            out.append(TextChoice(text, why, source))

    if box is not None:
        for r in readings:
            if r.box is not None and lies_on(r.box, box):
                offer(r.text, ON_THE_BOX, r.source)
    for card in gt.cards:
        if card.bbox is None and card.id != exclude:
            offer(card.text, UNPLACED, card.pile or "")
    placed = {squashed(c.text) for c in gt.cards if c.bbox is not None and c.id != exclude}
    seen |= placed
    for r in readings:
        offer(r.text, READ, r.source)
    return out


def matching(choices: Sequence[TextChoice], typed: str) -> list[TextChoice]:
    """The ``choices`` whose text holds ``typed`` (case-insensitive, spacing
    squeezed), in their order; all of them when ``typed`` is blank."""
    needle = " ".join(typed.split()).lower()
    return [c for c in choices if needle in " ".join(c.text.split()).lower()] if needle else list(choices)


__all__ = ["ON_THE_BOX", "READ", "UNPLACED", "Reading", "TextChoice", "matching", "text_choices"]
