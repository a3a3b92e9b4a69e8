"""Proposed boxes on the canvas (docs/window.md, "Proposed boxes"): *Use
this run's boxes* makes each of the run's boxes a proposal with the text the
run read (reviewer.core.cards.pre_annotation.proposals_from_run); none is
ground truth until it is accepted. One proposal is current (drawn thick,
its chosen edge in yellow, its text above it):

* Tab / Shift+Tab: the next / previous proposal (brought into view);
* Enter: accept it (AcceptProposedBox: the card gets the box, or is added);
* arrows: move the chosen edge (the bottom one first: a model's box often
  covers only a card's top line) by 2 screen pixels, Shift+arrows by 20; an
  arrow across the chosen edge chooses the edge it points at;
* Delete or Backspace: drop it.

Every edit is a core command (reviewer.core.box_commands), undoable. The
status bar says how many proposals are left. The keys are the canvas's only
while the item has proposals and nothing is being drawn or typed.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QLabel

from reviewer.core.box_commands import AcceptProposedBox, AdjustProposedBox, DropProposedBox, ProposeBoxes, moved_edge
from reviewer.core.cards.pre_annotation import ProposedBox
from reviewer.qt.palette import SELECTED_COLOR
from reviewer.qt.text import cell

PROPOSAL_COLOR = "#00E5FF"
#: Screen pixels an arrow moves an edge; Shift+arrow moves it FAR_PX.
STEP_PX, FAR_PX = 2.0, 20.0
_ARROW_EDGE = {Qt.Key.Key_Left: "left", Qt.Key.Key_Right: "right", Qt.Key.Key_Up: "top", Qt.Key.Key_Down: "bottom"}
_KEYS = {
    Qt.Key.Key_Tab,
    Qt.Key.Key_Backtab,
    Qt.Key.Key_Return,
    Qt.Key.Key_Enter,
    Qt.Key.Key_Delete,
    Qt.Key.Key_Backspace,
    *_ARROW_EDGE,
}


def left_text(n: int) -> str:
    """The status line for ``n`` proposals left ('' for none)."""
    if not n:
        return ""
    return (
        f"{n} proposed box{'es' if n != 1 else ''} left · Tab next · Enter accepts · arrows move an edge · Delete drops"
    )


class ProposalItem(QGraphicsItem):
    """Draws the item's proposed boxes over the photo (scene pixels)."""

    def __init__(self, owner: ProposedBoxes):
        super().__init__()
        self.owner = owner
        self.setZValue(15)  # over the overlay (10), under the canvas message (20)

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt)
        """The photo with a wide margin (labels sit above the boxes)."""
        r = self.owner.canvas.image_rect()
        m = 0.2 * max(r.width(), r.height(), 1.0)
        return r.adjusted(-m, -m, m, m)

    def paint(self, painter: QPainter, _option, _widget=None) -> None:
        """Every proposal dashed; the current one solid, its chosen edge yellow, its text above it."""
        current = self.owner.current_box()
        for b in self.owner.boxes():
            rect = QRectF(b.box.x_min, b.box.y_min, b.box.x_max - b.box.x_min, b.box.y_max - b.box.y_min)
            chosen = current is not None and b.id == current.id
            pen = QPen(
                QColor(PROPOSAL_COLOR), 3 if chosen else 2, Qt.PenStyle.SolidLine if chosen else Qt.PenStyle.DashLine
            )
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(rect)
        if current is not None:
            self._chosen(painter, current)

    def _chosen(self, painter: QPainter, b: ProposedBox) -> None:
        x0, y0, x1, y1 = b.box.x_min, b.box.y_min, b.box.x_max, b.box.y_max
        edge = {
            "left": ((x0, y0), (x0, y1)),
            "right": ((x1, y0), (x1, y1)),
            "top": ((x0, y0), (x1, y0)),
            "bottom": ((x0, y1), (x1, y1)),
        }[self.owner.edge]
        pen = QPen(QColor(SELECTED_COLOR), 5)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.drawLine(QPointF(*edge[0]), QPointF(*edge[1]))
        # the text as the run read it, above the box, in screen pixels (plain text)
        where = painter.transform().map(QPointF(x0, y0))
        painter.save()
        painter.resetTransform()
        font = QFont(painter.font())
        font.setPointSize(10)
        painter.setFont(font)
        text = f"{cell(b.text)}  ·  proposed"
        metrics = QFontMetricsF(font)
        w, h = metrics.horizontalAdvance(text) + 10, metrics.height() + 4
        device = painter.device()
        right = float(device.width()) if device is not None else where.x() + w
        # above the box, inside the view (never running off its edge); in its top edge when no room is above
        x = min(max(where.x(), 0.0), max(right - w, 0.0))
        y = where.y() - h - 2 if where.y() - h - 2 >= 0 else where.y() + 2
        box = QRectF(x, y, w, h)
        painter.fillRect(box, QColor(0, 0, 0, 200))
        painter.setPen(QColor(PROPOSAL_COLOR))
        painter.drawText(box.adjusted(5, 2, -5, -2), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
        painter.restore()


class ProposedBoxes(QObject):
    """The proposed boxes of the window's current item (module doc): reads
    them from the project after every edit, holds which one is current and
    which edge is chosen (view state), and ends every key in one command."""

    def __init__(self, window):
        super().__init__(window)
        self.session, self.canvas = window.session, window.canvas
        self.current: int | None = None  # id of the current proposal
        self.edge = "bottom"
        self._boxes: list[ProposedBox] | None = None
        self._at = 0  # where the current one was, for the one after it once it is gone
        self.item = ProposalItem(self)
        self.canvas.scene().addItem(self.item)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setStyleSheet("QLabel { background: #D8F6FA; color: #003C44; padding: 1px 6px; }")
        self.label.hide()
        window.statusBar().addPermanentWidget(self.label)
        self.canvas.installEventFilter(self)
        s = self.session
        for signal in (s.projectChanged, s.itemChanged, s.undoChanged):
            signal.connect(self.reload)
        s.groundTruthChanged.connect(lambda _item: self.reload())
        self.canvas.imageShown.connect(lambda _stage: self.reload())  # the photo's size is known: redraw
        s.walked.connect(self._walked)

    # -- reading ----------------------------------------------------------------------------
    def boxes(self) -> list[ProposedBox]:
        """The current item's proposed boxes (read once after each change)."""
        if self._boxes is None:
            s, item = self.session, self.session.item()
            ok = item is not None and item.id is not None and item.kind == "photo"
            self._boxes = s.reads.proposed_boxes(item.id) if item is not None and item.id is not None and ok else []
        return self._boxes

    def current_box(self) -> ProposedBox | None:
        """The current proposal (None when the item has none)."""
        return next((b for b in self.boxes() if b.id == self.current), None)

    def reload(self) -> None:
        """Read the proposals again; keep the current one, or take the one at its place."""
        self._boxes = None
        boxes = self.boxes()
        ids = [b.id for b in boxes]
        if self.current in ids:
            self._at = ids.index(self.current)
        elif boxes:
            self.current = ids[min(self._at, len(ids) - 1)]
        else:
            self.current, self._at = None, 0
        self.label.setText(left_text(len(boxes)))
        self.label.setVisible(bool(boxes))
        self.item.prepareGeometryChange()
        self.item.update()

    def _walked(self, command) -> None:
        """Undo or redo of a proposal edit: show its item, the proposal it touched current."""
        if not isinstance(command, (ProposeBoxes, AdjustProposedBox, DropProposedBox, AcceptProposedBox)):
            return
        if command.item_id != self.session.item_id:
            self.session.set_item(command.item_id)
        touched = getattr(command, "proposal_id", None) or getattr(getattr(command, "proposal", None), "id", None)
        if touched is not None and touched in {b.id for b in self.boxes()}:
            self.current = touched
            self.reload()

    def active(self) -> bool:
        """The proposal keys apply: proposals, and nothing drawn or typed on the canvas."""
        return bool(self.boxes()) and self.canvas.inline_editor() is None and not self.canvas.tool().busy()

    # -- keys -----------------------------------------------------------------------------------
    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt)
        """Take Tab, Enter, the arrows and Delete from the canvas (and from the window's
        shortcuts) while the proposal keys apply."""
        if watched is not self.canvas or event.type() not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        key, mods = event.key(), event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if (
            key not in _KEYS
            or mods & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier)
            or not self.active()
        ):
            return False
        if event.type() == QEvent.Type.ShortcutOverride:
            event.accept()  # no window shortcut: the key press follows, handled below
            return True
        far = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        if key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            self.step(-1 if key == Qt.Key.Key_Backtab or far else 1)
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.accept()
        elif key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.drop()
        else:
            self.arrow(_ARROW_EDGE[key], far)
        return True

    def step(self, delta: int) -> None:
        """Make the next (1) or previous (-1) proposal current and bring it into view."""
        boxes = self.boxes()
        if not boxes:
            return
        ids = [b.id for b in boxes]
        at = ids.index(self.current) if self.current in ids else -1
        self._at = (at + delta) % len(ids)
        self.current = ids[self._at]
        b = boxes[self._at].box
        self.canvas.ensure_visible(QRectF(b.x_min, b.y_min, b.x_max - b.x_min, b.y_max - b.y_min))
        self.session.message.emit(f"proposed box {self._at + 1} of {len(ids)}: “{cell(boxes[self._at].text)}”")
        self.item.update()

    def accept(self) -> bool:
        """Accept the current proposal into the ground truth (one command)."""
        b = self.current_box()
        s = self.session
        if b is None or s.item_id is None:
            return False
        return s.execute(AcceptProposedBox(s.item_id, b, s.ground_truth()))

    def drop(self) -> bool:
        """Drop the current proposal (one command)."""
        b = self.current_box()
        if b is None or self.session.item_id is None:
            return False
        return self.session.execute(DropProposedBox(self.session.item_id, b.id))

    def arrow(self, edge: str, far: bool) -> bool:
        """An arrow pointing at ``edge``: along the chosen edge's axis move it
        (out for right/down, by STEP_PX or FAR_PX screen pixels), else choose ``edge``."""
        b = self.current_box()
        if b is None or self.session.item_id is None:
            return False
        horizontal = {"left", "right"}
        if (edge in horizontal) != (self.edge in horizontal):
            self.edge = edge
            self.session.message.emit(f"the {edge} edge: arrows move it, Shift+arrows further")
            self.item.update()
            return True
        sign = 1 if edge in ("right", "bottom") else -1
        delta = sign * self.canvas.px(FAR_PX if far else STEP_PX)
        box = moved_edge(b.box, self.edge, delta)
        return self.session.execute(AdjustProposedBox(self.session.item_id, b.id, box, f"move the {self.edge} edge"))


__all__ = ["FAR_PX", "PROPOSAL_COLOR", "STEP_PX", "ProposalItem", "ProposedBoxes", "left_text"]
