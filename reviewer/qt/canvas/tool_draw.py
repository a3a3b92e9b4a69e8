"""The drawing tools of the canvas: a pile region (a dragged rectangle, or a
polygon of Shift-clicks closed by Enter or a double-click) and a
ground-truth card's box (a new card, or an unplaced card's box); an inline
editor asks for the pile's label or the card's text."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reviewer.core.commands import AddCard, AddPile, EditCards, draw_card
from reviewer.qt.canvas import hittest as ht
from reviewer.qt.canvas.model import Rect, Shape, bbox_of, polygon_rect
from reviewer.qt.canvas.tool_base import Canvas, Tool, preview_shape
from reviewer.qt.palette import SELECTED_COLOR

MIN_BOX_PX = 4.0  # smaller drawn rectangles are dropped


class _DrawTool(Tool):
    """Drag a rectangle, then ask for a text (pile label, card text)."""

    placeholder = ""
    offers = False  # list the texts offered for a card under the editor (canvas.text_choices)

    def __init__(self, canvas: Canvas):
        super().__init__(canvas)
        self.reset()

    def reset(self) -> None:
        """Forget the drag, the polygon's vertices and any question."""
        self.state: str | None = None  # 'drag', 'polygon', 'ask'
        self.start = self.now = (0.0, 0.0)
        self.points: list[tuple[float, float]] = []

    def busy(self) -> bool:
        """A drag, polygon or question is under way."""
        return self.state is not None

    def rect(self) -> Rect:
        """The dragged rectangle, normalized (scene pixels)."""
        return ht.normalized(*self.start, *self.now)

    def press(self, x, y, modifiers) -> None:
        """Start a drag at (x, y), unless the editor is asking for the text."""
        if self.state == "ask":
            return
        self.state, self.start, self.now = "drag", (x, y), (x, y)

    def move(self, x, y) -> None:
        """Track the point; repaint while dragging or drawing a polygon."""
        self.now = (x, y)
        if self.state in ("drag", "polygon"):
            self.canvas.refresh()

    def release(self, x, y) -> None:
        """End a drag: drop a rectangle with a side under MIN_BOX_PX screen pixels, else hand it
        to ``drawn``."""
        if self.state != "drag":
            return
        self.now = (x, y)
        if not ht.size_ok(self.rect(), self.canvas.px(MIN_BOX_PX)):
            self.reset()
            self.canvas.refresh()
            return
        self.drawn(self.rect())

    def drawn(self, rect: Rect) -> None:
        """A rectangle was drawn: by default ask for its text."""
        self.ask(rect)

    def ask(self, rect: Rect) -> None:
        """Keep the shape as the preview and ask for its text in the inline editor; a non-empty
        text goes to ``commit``, Escape or an empty text cancels."""
        self.state = "ask"
        self.canvas.refresh()
        choices = self.canvas.text_choices(rect) if self.offers else []
        self.canvas.ask_text(rect, "", self.placeholder, self._done, self.cancel, choices)

    def _done(self, text: str) -> None:
        shape = self.preview()
        self.reset()
        if text.strip() and shape:
            self.commit(text.strip(), shape[0])
        self.canvas.refresh()

    def commit(self, text: str, shape: Shape) -> None:
        """Execute the command for the drawn ``shape`` with ``text``; nothing here (subclasses)."""

    def preview(self) -> list[Shape]:
        """The polygon (following the mouse while open, else closed) or the dragged rectangle."""
        if self.points:
            pts = self.points + ([self.now] if self.state == "polygon" else [self.points[0]])
            return [Shape("preview", polygon_rect(pts), SELECTED_COLOR, polygon=tuple(pts))]
        return [preview_shape(self.rect())] if self.state in ("drag", "ask") else []


class PileTool(_DrawTool):
    """Draw a pile region: a rectangle, or a polygon with Shift-clicks."""

    placeholder = "pile label, Enter"

    def press(self, x, y, modifiers) -> None:
        """A Shift-click (or any click while a polygon is open) adds a polygon vertex; else start
        a rectangle drag. Ignored while the label is asked for."""
        if self.state == "ask":
            return
        if self.state == "polygon" or modifiers & Qt.KeyboardModifier.ShiftModifier:
            self.state, self.now = "polygon", (x, y)
            if not self.points or self.points[-1] != (x, y):
                self.points.append((x, y))
            self.canvas.refresh()
            return
        super().press(x, y, modifiers)

    def double_click(self, x, y) -> None:
        """Close an open polygon (see ``finish``)."""
        self.finish()

    def finish(self) -> bool:
        """Close the open polygon and ask for its label (under 3 vertices cancels it); True when
        a polygon was open."""
        if self.state != "polygon":
            return False
        if len(self.points) < 3:
            return self.cancel()
        self.ask(polygon_rect(self.points))
        return True

    def commit(self, text: str, shape: Shape) -> None:
        """Execute AddPile labelled ``text`` with the polygon, or the rectangle's four corners
        (scene pixels rounded to 0.1)."""
        if shape.polygon:
            region = [[round(x, 1), round(y, 1)] for x, y in shape.polygon[:-1]]
        else:
            x0, y0, x1, y1 = (round(v, 1) for v in shape.rect)
            region = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
        self.session.execute(AddPile(self.session.item_id, text, region=region))


class CardTool(_DrawTool):
    """Draw a ground-truth card's box (a new card, or an unplaced one's)."""

    placeholder = "card text, Enter"
    offers = True

    def drawn(self, rect: Rect) -> None:
        """Make ``rect`` the box of the first selected unplaced card (one EditCards, no question);
        with none selected, ask for a new card's text."""
        unplaced = [c for c in self.session.selected_cards if c in self.canvas.overlay().unplaced]
        if not unplaced:
            self.ask(rect)
            return
        self.reset()
        self.session.execute(EditCards({unplaced[0]: {"bbox": bbox_of(rect)}}, text="place card"))
        self.canvas.refresh()

    def commit(self, text: str, shape: Shape) -> None:
        """Execute core.commands.draw_card with ``text``, the box and the pile whose region holds
        the box's centre (none if no region does): an unplaced card with that text (§1 equality)
        gets the box, else a new card is added; then select the card."""
        pile = ht.pile_at(self.canvas.overlay().piles, *ht.center(shape.rect))
        command = draw_card(
            self.session.item_id, self.session.ground_truth(), text, pile.label if pile else None, bbox_of(shape.rect)
        )
        if not self.session.execute(command):
            return
        if isinstance(command, AddCard):
            if command.card.id is not None:  # queued: no id yet
                self.session.select_cards([command.card.id])
        else:
            assert isinstance(command, EditCards)  # draw_card adds a card or edits one
            self.session.select_cards(list(command.changes))
