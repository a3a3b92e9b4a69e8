"""The base of the canvas's mouse tools (tools.py describes them): what a
tool needs from the view (``Canvas``) and ``Tool``, which does nothing; a
tool turns ``press``/``move``/``release``/``double_click`` calls in scene
points (upright image pixels) into ``preview()`` shapes and one command."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from PySide6.QtCore import Qt

from reviewer.qt.canvas.model import Overlay, Rect, Shape
from reviewer.qt.choices import Choice
from reviewer.qt.palette import SELECTED_COLOR


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
        self,
        rect: Rect,
        text: str,
        placeholder: str,
        done: Callable[[str], None],
        cancelled: Callable[[], object],
        choices: Sequence[Choice] = (),
    ) -> None:
        """Open the inline editor under ``rect`` (scene) with ``text`` and ``choices`` listed;
        ``done(text)`` on commit, ``cancelled()`` on Escape or an empty text."""

    def text_choices(self, rect: Rect, card_id: int | None = None) -> list[Choice]:
        """The texts offered for a ground-truth card with box ``rect`` (card ``card_id``, if any)."""


def preview_shape(rect: Rect) -> Shape:
    """The shape a tool shows while ``rect`` is dragged (the selected colour)."""
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
        return Qt.CursorShape.CrossCursor
