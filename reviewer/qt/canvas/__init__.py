"""The canvas of the review window: the item's photo with ground truth,
predicted boxes and findings drawn over it, and the tools that draw ground
truth. ``CanvasView`` is the widget; the other modules are plain functions
and small classes it uses (overlay model, painting, hit-testing, image
loading, mouse tools)."""

from __future__ import annotations

from reviewer.qt.canvas.view import CanvasView

__all__ = ["CanvasView"]
