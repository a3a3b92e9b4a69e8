"""Zoom and pan of the canvas (a mixin of CanvasView): fit, zoom about a
point, actual size, and bringing a scene rectangle (the selected finding)
into view. Scene coordinates are upright image pixels; the view calls
``_zoomed`` after every change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QTransform

if TYPE_CHECKING:
    from PySide6.QtWidgets import QGraphicsView

    from reviewer.qt.canvas.model import Overlay

    _View = QGraphicsView  # the type checker sees the view this is mixed into
else:
    _View = object

MIN_ZOOM, MAX_ZOOM = 0.01, 40.0


class Navigation(_View):
    """Zoom and pan over a QGraphicsView that has ``image_rect()``,
    ``zoom()`` and ``_zoomed()`` and a ``_fitted`` flag."""

    if TYPE_CHECKING:  # what the view provides
        _fitted: bool

        def image_rect(self) -> QRectF: ...
        def zoom(self) -> float: ...
        def _zoomed(self) -> None: ...
        def overlay(self) -> Overlay: ...

    def fit(self) -> None:
        """Show the whole photo."""
        self._fitted = True
        rect = self.image_rect()
        if not rect.isEmpty():
            m = 0.02 * max(rect.width(), rect.height())
            self.fitInView(rect.adjusted(-m, -m, m, m), Qt.AspectRatioMode.KeepAspectRatio)
            self._zoomed()

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        """Zoom by ``factor`` keeping the scene point under ``anchor``
        (viewport pixels; the centre by default) in place."""
        target = min(MAX_ZOOM, max(MIN_ZOOM, self.zoom() * factor))
        factor = target / self.zoom()
        if abs(factor - 1.0) < 1e-9:
            return
        self._fitted = False
        anchor = QPointF(anchor) if anchor is not None else QPointF(self.viewport().rect().center())
        before = self._to_scene(anchor)
        self.scale(factor, factor)
        after = self.viewportTransform().map(before)
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        h.setValue(h.value() + round(after.x() - anchor.x()))
        v.setValue(v.value() + round(after.y() - anchor.y()))
        self._zoomed()

    def visible_rect(self) -> QRectF:
        """The part of the scene the viewport shows now (scene pixels)."""
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def show_selection(self) -> None:
        """Bring the selected findings' cards or boxes into view (see ``ensure_visible``)."""
        rect = self.overlay().selected_findings_rect()
        if rect is not None:
            self.ensure_visible(QRectF(rect[0], rect[1], rect[2] - rect[0], rect[3] - rect[1]))

    def ensure_visible(self, rect: QRectF, margin: float = 24.0) -> None:
        """Pan so ``rect`` (scene pixels) is in view with ``margin`` screen
        pixels around it, zooming out first when it is larger than the
        viewport at this zoom; nothing when it is in view already."""
        view = self.viewport().rect()
        if rect.isEmpty() or view.width() <= 2 * margin or view.height() <= 2 * margin:
            return
        if self.visible_rect().contains(rect):
            return
        fits = min((view.width() - 2 * margin) / rect.width(), (view.height() - 2 * margin) / rect.height())
        if self.zoom() > fits:
            self._fitted = False
            zoom = max(MIN_ZOOM, fits)
            self.setTransform(QTransform.fromScale(zoom, zoom))
        self.centerOn(rect.center())
        self._zoomed()

    def actual_size(self) -> None:
        """One image pixel per screen pixel, around the centre."""
        self.zoom_by(1.0 / self.zoom())

    def _to_scene(self, pos: QPointF) -> QPointF:
        return self.viewportTransform().inverted()[0].map(QPointF(pos))

    def _scroll(self, delta: QPointF) -> None:
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        h.setValue(h.value() - round(delta.x()))
        v.setValue(v.value() - round(delta.y()))
