"""Open the real review window in a pytest-qt test (shared by the GUI tests)."""

from __future__ import annotations

from reviewer.qt.app import build


def open_window(qtbot, db, size=(1400, 900), wait_canvas: bool = True, **kw):
    """The window on project ``db`` (build's keywords: item, prompt, mode,
    ask_name defaults to False), resized to ``size``, shown and exposed; with
    ``wait_canvas`` also until the canvas shows the current item."""
    w = build(db, ask_name=kw.pop("ask_name", False), **kw)
    qtbot.addWidget(w)
    if size:
        w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    if wait_canvas:
        qtbot.waitUntil(lambda: w.canvas.ready, timeout=10_000)
    return w
