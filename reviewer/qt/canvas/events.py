"""The mouse, wheel and key handling of the canvas. ``CanvasView`` forwards
its Qt event handlers to one ``CanvasEvents``, which zooms and pans the view
and feeds the current mouse tool (tools.py) scene points (upright image
pixels); it holds the state of a press, a pan and a held Space."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt

from reviewer.core.commands import DeleteCards


class CanvasEvents:
    """The event handling of one CanvasView ``view``: ``pressed`` while the
    left button is down for the tool, ``pan`` (viewport point) while
    panning, ``space`` while Space is held."""

    def __init__(self, view):
        self.view = view
        self.pressed = False
        self.space = False
        self.pan: QPointF | None = None

    def wheel(self, event) -> None:
        """Zoom about the mouse (1.0015 per wheel unit, about 1.2x a notch) instead of scrolling."""
        delta = event.angleDelta().y() or event.pixelDelta().y()
        if delta:
            self.view.zoom_by(1.0015**delta, event.position())
        event.accept()

    def key_press(self, event) -> bool:
        """+/= and -/_ zoom, F fits, 1 is actual size, Space held pans, Delete/Backspace deletes the
        selected cards, Enter finishes and Escape cancels the tool's operation (an idle Escape is
        ignored, for the window). False for other keys (the view gives them to QGraphicsView)."""
        view = self.view
        key, mods = event.key(), event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        plain = mods in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier)
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal) and plain:
            view.zoom_by(1.25)
        elif key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore) and plain:
            view.zoom_by(0.8)
        elif key == Qt.Key.Key_F and mods == Qt.KeyboardModifier.NoModifier:
            view.fit()
        elif key == Qt.Key.Key_1 and mods == Qt.KeyboardModifier.NoModifier:
            view.actual_size()
        elif key == Qt.Key.Key_Space and mods == Qt.KeyboardModifier.NoModifier:
            if not event.isAutoRepeat():
                self.space = True
                view.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
        elif key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and view.session.selected_cards:
            live = {c.id for c in view.session.ground_truth().cards}
            ids = [i for i in view.session.selected_cards if i in live]
            if ids and view.session.execute(DeleteCards(ids)):
                view.session.select_cards([])
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and view.tool().finish():
            pass
        elif key == Qt.Key.Key_Escape:
            if not view.tool().cancel():
                event.ignore()  # the main window's Escape (back to select)
            return True
        else:
            return False
        event.accept()
        return True

    def key_release(self, event) -> bool:
        """Releasing Space (not auto-repeat) ends pan mode; False for other keys (the view gives
        them to QGraphicsView)."""
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self.space = False
            self.view.viewport().unsetCursor()
            event.accept()
            return True
        return False

    def mouse_press(self, event) -> None:
        """Take the focus; the middle button (or left with Space held) starts panning, the left
        button goes to the tool's ``press`` in scene pixels; QGraphicsView never sees it."""
        view = self.view
        view.setFocus(Qt.FocusReason.MouseFocusReason)
        button = event.button()
        if button == Qt.MouseButton.MiddleButton or (button == Qt.MouseButton.LeftButton and self.space):
            self.pan = event.position()
            view.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
        elif button == Qt.MouseButton.LeftButton:
            p = view._to_scene(event.position())
            self.pressed = True
            view.tool().press(p.x(), p.y(), event.modifiers())
        event.accept()

    def mouse_move(self, event) -> None:
        """Pan while panning, else feed the tool's ``move`` while the left button is down, else
        set the tool's cursor for the point and tag the model box under it (not while Space is held)."""
        view = self.view
        if self.pan is not None:
            view._scroll(event.position() - self.pan)
            self.pan = event.position()
            return
        p = view._to_scene(event.position())
        if self.pressed:
            view.tool().move(p.x(), p.y())
        elif not self.space:
            view.viewport().setCursor(view.tool().cursor_at(p.x(), p.y()))
            view.labels.hover(view._model, p.x(), p.y())

    def mouse_release(self, event) -> None:
        """End panning, or give a pressed left button's release to the tool's ``release``."""
        view = self.view
        if self.pan is not None and event.button() in (Qt.MouseButton.MiddleButton, Qt.MouseButton.LeftButton):
            self.pan = None
            view.viewport().setCursor(Qt.CursorShape.OpenHandCursor if self.space else Qt.CursorShape.ArrowCursor)
        elif event.button() == Qt.MouseButton.LeftButton and self.pressed:
            self.pressed = False
            p = view._to_scene(event.position())
            view.tool().release(p.x(), p.y())
        event.accept()

    def mouse_double_click(self, event) -> None:
        """Give a left double-click (not while Space is held) to the tool's ``double_click``."""
        view = self.view
        if event.button() == Qt.MouseButton.LeftButton and not self.space:
            p = view._to_scene(event.position())
            view.tool().double_click(p.x(), p.y())
        event.accept()
