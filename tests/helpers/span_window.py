"""Open the review window on span sources at one item, shown and active."""

from __future__ import annotations

from reviewer.qt.app import build
from reviewer.storage.importers import import_source
from reviewer.storage.project.db import open_project


def open_span_window(qtbot, tmp_path, monkeypatch, sources, item):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    for src in sources:
        import_source(p, src)
    p.close()
    w = build(db, ask_name=False, item=item, mode="review")
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow, timeout=5000)
    return w
