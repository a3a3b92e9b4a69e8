"""Mouse tools of the canvas: small state machines in scene coordinates.

The view turns mouse events into ``press``/``move``/``release``/
``double_click`` calls with scene points (upright image pixels); a tool
reads the overlay model, hit-tests it (hittest.py), shows what it is doing
through ``preview()`` shapes, and ends every edit in exactly one command
through ``session.execute`` (so it is undoable and written at once).

- select: click selects a card (Shift adds, Ctrl toggles), a rubber band
  selects several; dragging a selected card moves every selected card,
  dragging a handle resizes that card; double-click edits the text inline.
- pile: drag a rectangle, or Shift-click vertices of a polygon (Enter or
  double-click closes it); an inline editor then asks for the label.
- card: drag a rectangle; an inline editor asks for the text, and the card
  goes to the pile whose region holds the rectangle's centre. When an
  unplaced card (one without a box) is selected, the rectangle becomes its
  box instead, with no question; typing the text of an unplaced card (§1
  equality) also places that card instead of adding another.
"""

from __future__ import annotations

from typing import Callable, Optional, Protocol

from PySide6.QtCore import Qt

from reviewer.core.commands import AddCard, AddPile, EditCards, draw_card
from reviewer.qt.canvas import hittest as ht
from reviewer.qt.canvas.overlay import Overlay, Rect, Shape, bbox_of, polygon_rect
from reviewer.qt.palette import SELECTED_COLOR

DRAG_PX = 3.0  # a press that moves less than this (screen px) is a click
HANDLE_HIT_PX = 6.0  # how near a handle a press must be
MIN_BOX_PX = 4.0  # smaller drawn rectangles are dropped

_HANDLE_CURSORS = (
    Qt.SizeFDiagCursor,
    Qt.SizeVerCursor,
    Qt.SizeBDiagCursor,
    Qt.SizeHorCursor,
    Qt.SizeFDiagCursor,
    Qt.SizeVerCursor,
    Qt.SizeBDiagCursor,
    Qt.SizeHorCursor,
)


class Canvas(Protocol):
    """What a tool needs from the view."""

    session: object

    def overlay(self) -> Overlay:
        """The overlay model drawn now (what the tool hit-tests)."""

    def px(self, n: float) -> float:
        """``n`` screen pixels in scene units (image pixels at the current zoom)."""

    def refresh(self) -> None:
        """Repaint: the preview changed."""

    def ask_text(
        self, rect: Rect, text: str, placeholder: str, done: Callable[[str], None], cancelled: Callable[[], None]
    ) -> None:
        """Open the inline editor under ``rect`` (scene) with ``text``; ``done(text)`` on commit,
        ``cancelled()`` on Escape or an empty text."""


def _preview(rect: Rect) -> Shape:
    return Shape("preview", rect, SELECTED_COLOR)


class Tool:
    """Base tool: does nothing. ``busy()``: an operation is under way that
    Escape would cancel."""

    def __init__(self, canvas: Canvas):
        self.canvas = canvas

    @property
    def session(self):
        """The canvas's Session (selection, ground truth; edits go through its ``execute``)."""
        return self.canvas.session

    def press(self, x: float, y: float, modifiers: Qt.KeyboardModifier) -> None:
        """Left button pressed at scene point (x, y) with ``modifiers``; ignored here."""

    def move(self, x: float, y: float) -> None:
        """The mouse moved to (x, y) with the left button down; ignored here."""

    def release(self, x: float, y: float) -> None:
        """Left button released at (x, y); ignored here."""

    def double_click(self, x: float, y: float) -> None:
        """Left double-click at (x, y); ignored here."""

    def finish(self) -> bool:
        """Enter: complete the operation; True when there was one."""
        return False

    def cancel(self) -> bool:
        """Escape: drop the operation; True when there was one."""
        busy = self.busy()
        self.reset()
        self.canvas.refresh()
        return busy

    def reset(self) -> None:
        """Forget the operation under way (no repaint); nothing to forget here."""

    def busy(self) -> bool:
        """An operation is under way that Escape would cancel; never here."""
        return False

    def preview(self) -> list[Shape]:
        """Shapes showing the operation under way (scene pixels); none here."""
        return []

    def cursor_at(self, x: float, y: float) -> Qt.CursorShape:
        """The mouse cursor over scene point (x, y); a cross here."""
        return Qt.CrossCursor


class SelectTool(Tool):
    """Select, move, resize and rename ground-truth cards."""

    def __init__(self, canvas: Canvas):
        super().__init__(canvas)
        self.reset()

    def reset(self) -> None:
        """Forget any press, move, resize or rubber band."""
        self.state: Optional[str] = None  # 'press', 'move', 'resize', 'band'
        self.start = (0.0, 0.0)
        self.now = (0.0, 0.0)
        self.card: Optional[Shape] = None
        self.handle = -1
        self.base: list[int] = []
        self.narrow: list[int] = []

    def busy(self) -> bool:
        """A move, resize or rubber band is under way."""
        return self.state in ("move", "resize", "band")

    def press(self, x, y, modifiers) -> None:
        """On a selected card's handle start a resize; on a card select it (Shift adds, Ctrl
        toggles) ready to drag; elsewhere start a rubber band (clearing unless Shift/Ctrl)."""
        o, s = self.canvas.overlay(), self.session
        self.start = self.now = (x, y)
        add, toggle = bool(modifiers & Qt.ShiftModifier), bool(modifiers & Qt.ControlModifier)
        hit = ht.selected_handle_at(o, x, y, self.canvas.px(HANDLE_HIT_PX)) if o.handles else None
        if hit and not (add or toggle):
            self.state, (self.card, self.handle) = "resize", hit
            return
        card = ht.card_at(o, x, y)
        if card is None:
            self.state, self.base = "band", list(s.selected_cards) if (add or toggle) else []
            if not (add or toggle) and s.selected_cards:
                s.select_cards([])
            return
        chosen = list(s.selected_cards)
        if toggle:
            chosen = [c for c in chosen if c != card.card_id] if card.card_id in chosen else chosen + [card.card_id]
        elif add:
            chosen = chosen if card.card_id in chosen else chosen + [card.card_id]
        elif card.card_id not in chosen:
            chosen = [card.card_id]
        # a plain click on one of several selected cards narrows to it on
        # release, unless it becomes a drag that moves them all
        self.narrow = [card.card_id] if not (add or toggle) and len(chosen) > 1 else []
        if chosen != list(s.selected_cards):
            s.select_cards(chosen)
        self.state = "press" if card.card_id in chosen else None

    def move(self, x, y) -> None:
        """Track the point; a press becomes a move past DRAG_PX screen pixels; repaint while dragging."""
        self.now = (x, y)
        if self.state == "press" and max(abs(x - self.start[0]), abs(y - self.start[1])) >= self.canvas.px(DRAG_PX):
            self.state = "move"
        if self.state in ("move", "resize", "band"):
            self.canvas.refresh()

    def _moved(self) -> list[tuple[int, Rect]]:
        dx, dy = self.now[0] - self.start[0], self.now[1] - self.start[1]
        return [(c.card_id, ht.moved(c.rect, dx, dy)) for c in self.canvas.overlay().selected_cards()]

    def _band(self) -> Rect:
        return ht.normalized(*self.start, *self.now)

    def _resized(self) -> Rect:
        return ht.resized(self.card.rect, self.handle, *self.now)

    def release(self, x, y) -> None:
        """End the operation: narrow a plain click to its card, execute one move or resize
        EditCards, or select the cards inside the band (plus those kept); then reset."""
        self.now = (x, y)
        state, s = self.state, self.session
        if state == "press" and self.narrow:
            s.select_cards(self.narrow)
        elif state == "move" and self.now != self.start:
            moved = self._moved()
            if moved:
                s.execute(EditCards({cid: {"bbox": bbox_of(r)} for cid, r in moved}, text=f"move {len(moved)} card(s)"))
        elif state == "resize":
            rect = self._resized()
            if rect != self.card.rect and ht.size_ok(rect, self.canvas.px(2)):
                s.execute(EditCards({self.card.card_id: {"bbox": bbox_of(rect)}}, text="resize card"))
        elif state == "band":
            if not ht.size_ok(self._band(), 0) or self.start == self.now:
                ids = self.base
            else:
                ids = self.base + [i for i in ht.cards_in(self.canvas.overlay(), self._band()) if i not in self.base]
            if ids != list(s.selected_cards):
                s.select_cards(ids)
        self.reset()
        self.canvas.refresh()

    def double_click(self, x, y) -> None:
        """Edit the text of the card under the point in the inline editor (one EditCards)."""
        card = ht.card_at(self.canvas.overlay(), x, y)
        self.reset()
        if card is None:
            return
        gt = self.session.ground_truth()
        text = next((c.text for c in gt.cards if c.id == card.card_id), "")
        cid = card.card_id

        def done(new: str) -> None:
            """Execute the text edit when the stripped text is non-empty and changed."""
            if new.strip() and new.strip() != text:
                self.session.execute(EditCards({cid: {"text": new.strip()}}, text="edit card text"))

        self.canvas.ask_text(card.rect, text, "card text", done, lambda: None)

    def preview(self) -> list[Shape]:
        """The moved boxes, the resized box or the rubber band."""
        if self.state == "move":
            return [_preview(r) for _, r in self._moved()]
        if self.state == "resize":
            return [_preview(self._resized())]
        if self.state == "band":
            return [_preview(self._band())]
        return []

    def cursor_at(self, x, y) -> Qt.CursorShape:
        """A resize cursor on a handle, move on a selected card, pointing hand on another card,
        else an arrow."""
        o = self.canvas.overlay()
        hit = ht.selected_handle_at(o, x, y, self.canvas.px(HANDLE_HIT_PX)) if o.handles else None
        if hit:
            return _HANDLE_CURSORS[hit[1]]
        card = ht.card_at(o, x, y)
        if card is None:
            return Qt.ArrowCursor
        return Qt.SizeAllCursor if card.selected else Qt.PointingHandCursor


class _DrawTool(Tool):
    """Drag a rectangle, then ask for a text (pile label, card text)."""

    placeholder = ""

    def __init__(self, canvas: Canvas):
        super().__init__(canvas)
        self.reset()

    def reset(self) -> None:
        """Forget the drag, the polygon's vertices and any question."""
        self.state: Optional[str] = None  # 'drag', 'polygon', 'ask'
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
        self.canvas.ask_text(rect, "", self.placeholder, self._done, self.cancel)

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
        return [_preview(self.rect())] if self.state in ("drag", "ask") else []


class PileTool(_DrawTool):
    """Draw a pile region: a rectangle, or a polygon with Shift-clicks."""

    placeholder = "pile label, Enter"

    def press(self, x, y, modifiers) -> None:
        """A Shift-click (or any click while a polygon is open) adds a polygon vertex; else start
        a rectangle drag. Ignored while the label is asked for."""
        if self.state == "ask":
            return
        if self.state == "polygon" or modifiers & Qt.ShiftModifier:
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
            self.session.select_cards(list(command.changes))


TOOLS: dict[str, type[Tool]] = {"select": SelectTool, "pile": PileTool, "card": CardTool}
