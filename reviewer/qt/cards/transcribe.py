"""Cards to transcribe: ground-truth cards with a box but no text yet (a
rectangle imported without a transcription, as object-detection boxes
are). Scoring leaves them out until they have text
(reviewer.core.cards.scoring.to_transcribe).

T / Shift+T (``step``) select the next / previous one of the item, bring it
into view and open the inline editor on it: the text typed (Enter) is one
EditCards, so it is undoable and written at once.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF

from reviewer.core.cards.scoring import to_transcribe
from reviewer.core.commands import EditCards
from reviewer.core.models import GroundTruth
from reviewer.qt.host import TranscribeHost


def transcribe_ids(gt: GroundTruth) -> list[int]:
    """Ids of the cards of ground truth ``gt`` that have no text yet, in ground-truth order."""
    return [c.id for c in gt.cards if c.id is not None and to_transcribe(c)]


def step(window: TranscribeHost, delta: int) -> None:
    """Select the next (``delta`` 1) or previous (-1) card to transcribe of
    the item (wrapping around), bring it into view and ask for its text; a
    status message when the item has none."""
    s, canvas = window.session, window.canvas
    gt = s.ground_truth()
    ids = transcribe_ids(gt)
    if not ids:
        s.message.emit("no card to transcribe on this item")
        return
    current = s.selected_cards[-1] if s.selected_cards else None
    index = (ids.index(current) + delta) % len(ids) if current in ids else (0 if delta > 0 else len(ids) - 1)
    card_id = ids[index]
    s.select_cards([card_id])
    card = next(c for c in gt.cards if c.id == card_id)
    s.message.emit(f"card to transcribe {index + 1} of {len(ids)}: type its text, Enter")
    if card.bbox is None:
        return  # no place on the photo: the Unplaced cards panel lists it
    b = card.bbox
    canvas.ensure_visible(QRectF(b.x_min, b.y_min, b.x_max - b.x_min, b.y_max - b.y_min))

    def done(text: str) -> None:
        """Write the transcription (one EditCards) when it is not empty."""
        if text.strip():
            s.execute(EditCards({card_id: {"text": text.strip()}}, text="transcribe card"))

    rect = (b.x_min, b.y_min, b.x_max, b.y_max)
    canvas.ask_text(rect, "", "card text, Enter", done, lambda: None, canvas.text_choices(rect, card_id))
