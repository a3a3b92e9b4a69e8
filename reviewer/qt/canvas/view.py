"""The canvas: the current item's photo with every overlay, zoom, pan and the
ground-truth drawing tools. It holds no domain state: it observes the session,
draws the overlay model (overlay.py) with one scene item (painting.py), and the
mouse tools (tools.py) end every edit in one command. Scene coordinates are
upright image pixels. Nothing is painted over the photo but the overlay
(the run's details are in the findings panel); selecting a finding pans
(and zooms out when needed) so its card or box is in view. Given an
annotator view (``set_annotators``, reviewer.qt.cards.annotators) it draws whose
ground truth that view shows and pans to its highlighted difference. Zoom
and pan are in navigation.py, the mouse, wheel and key handling in
events.py."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsTextItem, QGraphicsView, QWidget

from reviewer.qt.canvas.editor import EditorHost, InlineEditor
from reviewer.qt.canvas.events import CanvasEvents
from reviewer.qt.canvas.images import Decoded, ImageLoader, PhotoItem, TextPaper, neighbour_photos
from reviewer.qt.canvas.labels import ModelLabels
from reviewer.qt.canvas.model import Overlay, Rect
from reviewer.qt.canvas.navigation import Navigation
from reviewer.qt.canvas.overlay import build_overlay
from reviewer.qt.canvas.painting import OverlayItem
from reviewer.qt.canvas.tool_base import Tool
from reviewer.qt.canvas.tools import TOOLS
from reviewer.qt.choices import Choice
from reviewer.qt.text import cell, line, paper

PLACEHOLDER_SIZE = (1200.0, 800.0)  # scene size when a photo's size is unknown
BACKGROUND = "#2B2B2B"


class CanvasView(Navigation, QGraphicsView):
    """The canvas (see module doc). ``ready`` is True once the current item
    is fully shown (full photo, text, or the message why not)."""

    imageShown = Signal(str)  # 'reduced', 'full', 'error', 'text' or 'none'
    readyChanged = Signal(bool)
    zoomChanged = Signal(float)

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.ready = False
        self.paint_count = 0
        self._key: tuple | None = None
        self._size: tuple[float, float] | None = None
        self._model: Overlay | None = None
        self.annotators: QObject | None = None  # the annotator view (set_annotators); None: the consensus only
        self._fitted = True
        self._events = CanvasEvents(self)  # mouse, wheel and keys
        self._editors = EditorHost(self)
        #: (rect, card id) -> the texts offered for a card (reviewer.qt.cards.text_choices; None: none)
        self.offer_texts: Callable[[Rect, int | None], list[Choice]] | None = None
        self._tools: dict[str, Tool] = {name: cls(self) for name, cls in TOOLS.items()}
        scene = QGraphicsScene(self)
        scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.setScene(scene)
        self.photo = PhotoItem()
        self._defer_overlay = False
        self.overlay_item = OverlayItem(lambda: (self._overlay_for_paint(), self.tool().preview()))
        self.overlay_item.setZValue(10)
        self.labels = ModelLabels(self.overlay_item)  # model-card labels: on / on hover / off (key L)
        self._paper = TextPaper()
        self._message = QGraphicsTextItem()
        self._message.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        self._message.setDefaultTextColor(QColor("#FFD400"))
        self._message.setFont(QFont(self.font().family(), 11))
        self._message.setZValue(20)
        for item in (self.photo, self.overlay_item, self._paper, self._message):
            scene.addItem(item)
        self.loader = ImageLoader(self)
        self.loader.decoded.connect(self._show)
        self.setBackgroundBrush(QBrush(QColor(BACKGROUND)))
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # pan by dragging; F fits
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        s = session
        s.projectChanged.connect(self._load)
        s.itemChanged.connect(self._load)
        s.groundTruthChanged.connect(lambda item_id: self._invalidate() if item_id == s.item_id else None)
        for signal in (
            s.runChanged,
            s.findingsChanged,
            s.findingSelectionChanged,
            s.cardSelectionChanged,
            s.conventionChanged,
        ):
            signal.connect(self._invalidate)
        s.toolChanged.connect(self._tool_changed)
        s.findingSelectionChanged.connect(self.show_selection)
        self._load()

    # -- reading (tests, other widgets) -----------------------------------------------------
    def overlay(self) -> Overlay:
        """The overlay model drawn now (rebuilt lazily after session signals)."""
        if self._model is None:
            item = self.session.item()
            w = (item.width if item else None) or (self._size[0] if self._size else None)
            h = (item.height if item else None) or (self._size[1] if self._size else None)
            self._model = (
                build_overlay(self.session, w, h, self.annotators)
                if item is not None and item.kind == "photo"
                else Overlay()
            )
        return self._model

    def set_annotators(self, view) -> None:
        """Draw the ground truth ``view`` (an AnnotatorView) shows, and bring
        its highlighted difference into view whenever it changes."""
        self.annotators = view
        view.changed.connect(self._annotators_changed)
        self._invalidate()

    def _annotators_changed(self) -> None:
        self._invalidate()
        rects = [s.rect for s in self.overlay().differences if s.selected]
        if rects:
            x0, y0 = min(r[0] for r in rects), min(r[1] for r in rects)
            self.ensure_visible(QRectF(x0, y0, max(r[2] for r in rects) - x0, max(r[3] for r in rects) - y0))

    def _overlay_for_paint(self) -> Overlay | None:
        """None right after the item changed (the photo paints first; the overlay follows next turn)."""
        if self._model is None and self._defer_overlay:
            self._defer_overlay = False
            QTimer.singleShot(0, lambda: (self.overlay(), self.overlay_item.update()))
            return None
        return self.overlay()

    def predicted_rects(self) -> list[QRectF]:
        """The current run's predicted boxes in scene pixels, as drawn."""
        return [QRectF(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in (s.rect for s in self.overlay().predicted)]

    def is_ready(self) -> bool:
        """The current item is fully shown (see ``ready``)."""
        return self.ready

    def message(self) -> str:
        """The message shown on the canvas instead of the photo ('' if none)."""
        return self._message.toPlainText() if self._message.isVisible() else ""

    def inline_editor(self) -> InlineEditor | None:
        """The open inline editor, if any."""
        return self._editors.editor

    def tool(self) -> Tool:
        """The mouse tool of the session's current tool name."""
        return self._tools.get(self.session.tool, self._tools["select"])

    def image_rect(self) -> QRectF:
        """The photo (or text) in scene coordinates."""
        return QRectF(0, 0, *self._size) if self._size else QRectF()

    def zoom(self) -> float:
        """Screen pixels per image pixel."""
        return self.transform().m11()

    def px(self, n: float) -> float:
        """``n`` screen pixels in scene units."""
        return n / max(self.zoom(), 1e-9)

    # -- loading ----------------------------------------------------------------------------------
    def _load(self) -> None:
        item = self.session.item()
        path = self.session.image_path(item) if item is not None and item.kind == "photo" else None
        key = (id(self.session.project), item.id, item.kind, str(path), item.text) if item is not None else None
        self._invalidate()
        if key == self._key:
            return
        self._key = key
        self._defer_overlay = True
        self._cancel_tool()
        self._set_ready(False)
        self.photo.clear()
        self._paper.hide()
        self._message.hide()
        self._size = None
        if item is None or item.kind == "text" or path is None:
            self.loader.cancel()  # a photo still decoding for the item before must not show behind this one
        if item is None:
            self._resize_scene(None)
            return self._finish("none")
        if item.kind == "text":
            self._paper.setPlainText(
                paper(item.text) if item.text else f"(no text is stored for the text item '{cell(item.name)}')"
            )
            self._paper.setTextWidth(900)
            self._paper.show()
            r = self._paper.boundingRect()
            self._resize_scene((r.width(), r.height()))
            return self._finish("text")
        self._resize_scene((item.width, item.height) if item.width and item.height else PLACEHOLDER_SIZE)
        if path is None:
            return self._fail(f"the item '{cell(item.name)}' has no photo path", "")
        if item.image_note:  # what import found wrong with the photo, shown over it
            self.show_notice(f"⚠ {line(item.image_note)}")
        data = self.session.preview(item)
        hit = self.loader.load(
            path, (data, (item.width, item.height)) if data and item.width else None, item.orientation or 1
        )
        if hit is not None:
            self._show(hit)
        self.prefetch(neighbour_photos(self.session, item.id))

    def prefetch(self, paths) -> None:
        """Decode reduced images of ``paths`` (next/previous items) ahead."""
        self.loader.prefetch(paths)

    def _show(self, decoded: Decoded) -> None:
        if self._key is None or self._key[2] != "photo" or self._key[3] != decoded.path:
            return  # a decode for an item no longer shown
        if decoded.error:
            if decoded.size:
                self._resize_scene(decoded.size)
            return self._fail(decoded.path, decoded.error)
        self.photo.show_decoded(decoded)
        if decoded.size and decoded.size != self._size:
            self._resize_scene(decoded.size)
        self._finish("reduced" if decoded.reduced else "full", ready=not decoded.reduced)

    def show_notice(self, text: str) -> None:
        """Show ``text`` (plain, one line or a few) where the photo would be,
        e.g. why a project could not be opened; the next item hides it."""
        self._message.setPlainText(text)
        self._message.show()
        self._zoomed()

    def _fail(self, path: str, reason: str) -> None:
        item = self.session.item()
        note = f"\n⚠ {line(item.image_note)}" if item is not None and item.image_note else ""
        self._message.setPlainText(f"Cannot show the photo\n{path}\n{reason}".rstrip() + note)
        self._message.show()
        self._zoomed()
        self._finish("error")

    def _finish(self, stage: str, ready: bool = True) -> None:
        self.viewport().update()  # the overlay model is rebuilt only if the size changed
        self.imageShown.emit(stage)
        if ready:
            self._set_ready(True)

    def _set_ready(self, ready: bool) -> None:
        if ready != self.ready:
            self.ready = ready
            self.readyChanged.emit(ready)

    def _resize_scene(self, size: tuple[float, float] | None) -> None:
        self._size = (float(size[0]), float(size[1])) if size else None
        rect = self.image_rect()
        self.photo.set_size(rect.width(), rect.height())
        m = 0.05 * max(rect.width(), rect.height())
        self.setSceneRect(rect.adjusted(-m, -m, m, m))
        self.overlay_item.set_rect(rect.adjusted(-10 * m, -10 * m, 10 * m, 10 * m))
        self._model = None
        if self._fitted:
            self.fit()

    def _invalidate(self) -> None:
        self._model = None
        self.labels.forget()
        self.overlay_item.update()
        self.viewport().update()

    # -- zoom and pan ------------------------------------------------------------------------
    def _zoomed(self) -> None:
        self._editors.place()
        self._message.setPos(self.image_rect().topLeft() + QPointF(self.px(12), self.px(12)))
        self.zoomChanged.emit(self.zoom())

    # -- events (handled by events.CanvasEvents) -------------------------------------------------
    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Zoom about the mouse instead of scrolling (CanvasEvents.wheel)."""
        self._events.wheel(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Zoom, fit, pan, delete the selected cards, finish or cancel the tool's operation
        (CanvasEvents.key_press); other keys go to QGraphicsView."""
        if not self._events.key_press(event):
            super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Releasing Space ends pan mode (CanvasEvents.key_release); other keys go to QGraphicsView."""
        if not self._events.key_release(event):
            super().keyReleaseEvent(event)

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Start panning or give the press to the tool (CanvasEvents.mouse_press); QGraphicsView
        never sees it."""
        self._events.mouse_press(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Pan, drag with the tool, or set the cursor and tag the model box under the mouse
        (CanvasEvents.mouse_move)."""
        self._events.mouse_move(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 (Qt)
        """End panning or the tool's drag (CanvasEvents.mouse_release)."""
        self._events.mouse_release(event)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Give a left double-click to the tool (CanvasEvents.mouse_double_click)."""
        self._events.mouse_double_click(event)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Resize as usual, refit the photo if it was fitted, and move the inline editor along."""
        super().resizeEvent(event)
        if self._fitted:
            self.fit()
        self._editors.place()

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802 (Qt)
        """Scroll as usual and move the inline editor along."""
        super().scrollContentsBy(dx, dy)
        self._editors.place()

    def paintEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Paint as usual and count it in ``paint_count`` (tests, benchmarks)."""
        super().paintEvent(event)
        self.paint_count += 1

    # -- tools ------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """A tool's preview changed."""
        self.overlay_item.update()

    def ask_text(
        self,
        rect: Rect,
        text: str,
        placeholder: str,
        done: Callable[[str], None],
        cancelled: Callable[[], object],
        choices: Sequence[Choice] = (),
    ) -> None:
        """Open the inline editor under ``rect`` (scene) with ``choices`` listed; ``done(text)``
        on Enter, ``cancelled()`` on Escape or an empty text."""
        self._editors.open(rect, text, placeholder, done, cancelled, choices)

    def text_choices(self, rect: Rect, card_id: int | None = None) -> list[Choice]:
        """The texts offered for a ground-truth card with box ``rect`` (card ``card_id`` when it
        exists): what ``offer_texts`` gives (the window sets it; none by default)."""
        return self.offer_texts(rect, card_id) if self.offer_texts is not None else []

    def _cancel_tool(self) -> None:
        self._editors.close()
        for tool in self._tools.values():
            tool.reset()
        self._events.pressed = False

    def _tool_changed(self, _name: str) -> None:
        self._cancel_tool()
        self._invalidate()
