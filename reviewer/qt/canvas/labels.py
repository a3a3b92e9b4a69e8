"""Model-card labels on the canvas (docs/window.md, key L): the text a model
read, tagged beside each of its boxes. They go outside the box so they never
cover the handwriting they name; where no free place is left they are shown
when the mouse is over the box. L cycles on / on hover / off. Shift+L cycles
the finding and card tags: near the selected finding / all (TAG_MODES)."""

from __future__ import annotations

from reviewer.qt.canvas.hittest import contains
from reviewer.qt.canvas.model import Overlay, Shape
from reviewer.qt.canvas.painting import LABEL_MODES, TAG_MODES, OverlayItem


def model_box_at(overlay: Overlay, x: float, y: float) -> Shape | None:
    """The smallest model box (kind 'predicted') containing scene point
    ``(x, y)``, or None."""
    hits = [s for s in overlay.predicted if contains(s.rect, x, y)]
    return min(hits, key=lambda s: (s.rect[2] - s.rect[0]) * (s.rect[3] - s.rect[1]), default=None)


class ModelLabels:
    """The label mode and the hovered model box of one OverlayItem."""

    def __init__(self, item: OverlayItem):
        self.item = item

    @property
    def mode(self) -> str:
        """'on', 'hover' or 'off' (painting.LABEL_MODES)."""
        return self.item.model_labels

    def set_mode(self, mode: str) -> None:
        """Show model-card labels as ``mode`` (one of LABEL_MODES; ValueError otherwise)."""
        if mode not in LABEL_MODES:
            raise ValueError(f"label mode must be one of {', '.join(LABEL_MODES)}, not {mode!r}")
        self.item.model_labels = mode
        self.item.update()

    def cycle(self) -> str:
        """The next mode (on -> on hover -> off -> on); returns it."""
        self.set_mode(LABEL_MODES[(LABEL_MODES.index(self.mode) + 1) % len(LABEL_MODES)])
        return self.mode

    @property
    def tags(self) -> str:
        """'near' or 'all' (painting.TAG_MODES)."""
        return self.item.tags

    def cycle_tags(self) -> str:
        """The next tag mode (near -> all -> near); returns it."""
        self.item.tags = TAG_MODES[(TAG_MODES.index(self.item.tags) + 1) % len(TAG_MODES)]
        self.item.update()
        return self.item.tags

    def hover(self, overlay: Overlay | None, x: float, y: float) -> None:
        """The mouse is at scene point ``(x, y)``: tag the model box under it
        (None: no overlay yet, or labels off) and the ground-truth card under
        it (its finding and card tags show)."""
        shape = model_box_at(overlay, x, y) if overlay is not None and self.mode != "off" else None
        cards = [s for s in overlay.cards if contains(s.rect, x, y)] if overlay is not None else []
        card = min(cards, key=lambda s: (s.rect[2] - s.rect[0]) * (s.rect[3] - s.rect[1]), default=None)
        card_id = card.card_id if card is not None else None
        if shape is not self.item.hovered or card_id != self.item.hovered_card:
            self.item.hovered = shape
            self.item.hovered_card = card_id
            self.item.update()

    def forget(self) -> None:
        """The overlay was rebuilt: no box is hovered until the mouse moves."""
        self.item.hovered = None
        self.item.hovered_card = None
