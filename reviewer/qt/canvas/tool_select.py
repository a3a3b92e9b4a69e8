"""The select tool of the canvas: click selects a card (Shift adds, Ctrl
toggles), a rubber band selects several; dragging a selected card moves
every selected card, dragging a handle resizes that card; double-click
(or Enter with one card selected) edits the text inline, the texts offered
for the card listed. Each edit is one EditCards."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reviewer.core.commands import EditCards
from reviewer.qt.canvas import hittest as ht
from reviewer.qt.canvas.model import Rect, Shape, bbox_of
from reviewer.qt.canvas.tool_base import Canvas, Tool, preview_shape

DRAG_PX = 3.0  # a press that moves less than this (screen px) is a click
HANDLE_HIT_PX = 6.0  # how near a handle a press must be

_HANDLE_CURSORS = (
    Qt.CursorShape.SizeFDiagCursor,
    Qt.CursorShape.SizeVerCursor,
    Qt.CursorShape.SizeBDiagCursor,
    Qt.CursorShape.SizeHorCursor,
    Qt.CursorShape.SizeFDiagCursor,
    Qt.CursorShape.SizeVerCursor,
    Qt.CursorShape.SizeBDiagCursor,
    Qt.CursorShape.SizeHorCursor,
)


class SelectTool(Tool):
    """Select, move, resize and rename ground-truth cards."""

    def __init__(self, canvas: Canvas):
        super().__init__(canvas)
        self.reset()

    def reset(self) -> None:
        """Forget any press, move, resize or rubber band."""
        self.state: str | None = None  # 'press', 'move', 'resize', 'band'
        self.start = (0.0, 0.0)
        self.now = (0.0, 0.0)
        self.card: Shape | None = None
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
        add, toggle = (
            bool(modifiers & Qt.KeyboardModifier.ShiftModifier),
            bool(modifiers & Qt.KeyboardModifier.ControlModifier),
        )
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
        assert card.card_id is not None  # card shapes carry their card's id
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
        return [
            (c.card_id, ht.moved(c.rect, dx, dy))
            for c in self.canvas.overlay().selected_cards()
            if c.card_id is not None
        ]

    def _band(self) -> Rect:
        return ht.normalized(*self.start, *self.now)

    def _resized(self) -> Rect:
        assert self.card is not None  # set with the resize state
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
            assert self.card is not None and self.card.card_id is not None  # set with the resize state
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
        if card is not None:
            self.edit_text(card)

    def finish(self) -> bool:
        """Enter with one card selected (nothing under way): edit its text, the texts offered
        listed (as a double-click). False otherwise."""
        chosen = self.canvas.overlay().selected_cards()
        if self.state is not None or len(chosen) != 1 or len(self.session.selected_cards) != 1:
            return False
        self.edit_text(chosen[0])
        return True

    def edit_text(self, card: Shape) -> None:
        """Edit the text of ground-truth card ``card`` in the inline editor under it, the texts
        offered for it listed (none chosen: Enter keeps the text); a changed text is one EditCards."""
        gt = self.session.ground_truth()
        text = next((c.text for c in gt.cards if c.id == card.card_id), "")
        cid = card.card_id
        assert cid is not None  # card shapes carry their card's id

        def done(new: str) -> None:
            """Execute the text edit when the stripped text is non-empty and changed."""
            if new.strip() and new.strip() != text:
                self.session.execute(EditCards({cid: {"text": new.strip()}}, text="edit card text"))

        self.canvas.ask_text(card.rect, text, "card text", done, lambda: None, self.canvas.text_choices(card.rect, cid))

    def preview(self) -> list[Shape]:
        """The moved boxes, the resized box or the rubber band."""
        if self.state == "move":
            return [preview_shape(r) for _, r in self._moved()]
        if self.state == "resize":
            return [preview_shape(self._resized())]
        if self.state == "band":
            return [preview_shape(self._band())]
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
            return Qt.CursorShape.ArrowCursor
        return Qt.CursorShape.SizeAllCursor if card.selected else Qt.CursorShape.PointingHandCursor
