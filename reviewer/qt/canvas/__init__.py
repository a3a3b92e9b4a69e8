"""The canvas of the review window: the item's photo with ground truth,
predicted boxes and findings drawn over it, and the tools that draw ground
truth. ``CanvasView`` is the widget; the other modules are plain functions
and small classes it uses (overlay model, painting, hit-testing, image
loading, mouse tools)."""

from __future__ import annotations

import sys


def guard_pyside_refcounts() -> bool:
    """Work around a shiboken6 defect that aborts Python 3.11 processes.

    PySide6/shiboken6 6.12.0 on CPython < 3.12 drops one reference to None
    on every call of a Qt method that returns nothing (and to True/False on
    some bool returns): after a few thousand calls (a few seconds of
    painting) the interpreter aborts with "none_dealloc: deallocating None".
    6.11.3 does not; CPython 3.12+ is immune (these objects are immortal).
    When a probe shows the defect, give None, True and False a reference
    count that cannot reach zero, as CPython 3.12 does. Returns True when
    the guard was applied. Belongs in reviewer.qt (the whole GUI needs it)
    until PySide6 is pinned away from the broken release.
    """
    if sys.version_info >= (3, 12) or hasattr(sys, "gettotalrefcount"):
        return False  # immortal singletons, or a debug build's object layout
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(64):
        probe.setObjectName("probe")
    if sys.getrefcount(None) - before > -32:
        return False
    import ctypes

    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40
    return True


PYSIDE_GUARDED = guard_pyside_refcounts()

from reviewer.qt.canvas.view import CanvasView  # noqa: E402

__all__ = ["CanvasView", "PYSIDE_GUARDED", "guard_pyside_refcounts"]
