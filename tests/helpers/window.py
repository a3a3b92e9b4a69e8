"""Open the real review window in a pytest-qt test (shared by the GUI tests)."""

from __future__ import annotations

from pathlib import Path

from reviewer.qt.app import build
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.scoring import score_project


def scored_sample(db: Path, model: str = "m") -> Path:
    """Project ``db`` made from the bundled card sample (its runs named
    ``model``), scored and closed; returns ``db``."""
    from tests.helpers.paths import SAMPLES

    p = open_project(db, create=True)
    import_source(p, SAMPLES, options=ImportOptions(model=model))
    score_project(p)
    p.close()
    return db


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
