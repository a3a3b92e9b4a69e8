"""Reliability: the window opens every project the hostile imports leave
behind (issue "Every input bounded and confined": bad values, paths
outside the source), and a project that already holds NaN or infinity in
its ground truth: every item shown and its canvas painted, no crash, no
hang over 5 s (pytest-qt, offscreen)."""

from __future__ import annotations

import math
import sqlite3
import time

import pytest

from reviewer.storage.importers import import_source
from reviewer.storage.project.db import open_project
from tests.helpers import hostile_imports as h
from tests.helpers.paths import SAMPLES
from tests.helpers.window import open_window

pytestmark = pytest.mark.gui


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")


def _stored_nan(tmp_path):
    """The bundled sample with NaN and infinity written into its ground
    truth the way an import before the checks left them."""
    p = open_project(tmp_path / "p.db", create=True)
    import_source(p, SAMPLES)
    p.close()
    con = sqlite3.connect(tmp_path / "p.db")
    con.execute("UPDATE piles SET region = '[[NaN, 20], [300, Infinity], [1e309, 5]]'")
    con.execute("UPDATE cards SET x_max = ? WHERE id % 2 = 0", [float("inf")])
    con.execute("UPDATE cards SET y_min = ? WHERE id % 3 = 0", [float("-inf")])
    con.execute("UPDATE cards SET y_max = NULL WHERE id % 5 = 0")  # a NaN is stored as NULL
    con.commit()
    con.close()
    return tmp_path / "p.db"


def _imported(tmp_path, name):
    p = open_project(tmp_path / "p.db", create=True)
    try:
        import_source(p, h.HOSTILE[name](tmp_path))
    finally:
        p.close()
    return tmp_path / "p.db"


@pytest.mark.parametrize("name", [*h.HOSTILE, "stored-nan"])
def test_the_window_opens_every_project_the_hostile_imports_leave(qtbot, tmp_path, config, name):
    db = _stored_nan(tmp_path) if name == "stored-nan" else _imported(tmp_path, name)
    p = open_project(db)
    has_items = bool(p.db.execute("SELECT count(*) FROM items").fetchone()[0])
    p.close()
    t0 = time.monotonic()
    w = open_window(qtbot, db, wait_canvas=has_items)  # a project left empty shows no canvas to wait for
    s = w.session
    coordinates = []
    for status in s.items():
        s.set_item(status.item.id)
        qtbot.waitUntil(lambda: w.canvas.ready, timeout=5_000)
        w.grab()  # paints the window, the canvas and its overlay
        coordinates += [v for shape in w.canvas.overlay().shapes() for v in (*shape.rect, *sum(shape.polygon, ()))]
    took = time.monotonic() - t0
    assert took < 5.0, took
    assert not w.errors, w.errors
    assert all(math.isfinite(v) for v in coordinates)
    if name == "stored-nan":
        assert coordinates  # the good boxes are still drawn
