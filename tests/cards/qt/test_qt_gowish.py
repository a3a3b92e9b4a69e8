"""The review window (docs/window.md) on the real go-wish-spike data (skipped when absent):
the 02-angled photo upright with the bounding-boxes run's predicted boxes
(0-1000) over the notes and its findings; the --screenshot path works."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PIL import Image

from reviewer.qt.app import build
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.project.db import open_project
from tests.helpers.paths import ROOT, shared

pytestmark = pytest.mark.gui


@pytest.fixture
def gowish_db(tmp_path):
    data = shared("go-wish-spike")
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    import_source(p, data, options=ImportOptions(model="qwen3-vl-2b-q4km"))
    p.close()
    return db


def test_angled_photo_with_predicted_boxes(qtbot, gowish_db, monkeypatch, tmp_path):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path))
    w = build(gowish_db, ask_name=False, item="02-angled", prompt="bounding-boxes")
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitUntil(lambda: w.canvas.ready, timeout=20_000)
    rect = w.canvas.image_rect()
    assert (rect.width(), rect.height()) == (4508, 3381)  # upright, landscape
    run = w.session.run()
    assert run.run["prompt"] == "bounding-boxes" and run.facts.box_convention.value == "0-1000"
    boxes = w.canvas.predicted_rects()
    assert len(boxes) == 8
    # the notes sit in two rows across the middle of the photo
    assert all(rect.contains(b) for b in boxes)
    assert min(b.top() for b in boxes) > 0.2 * rect.height()
    assert [f.code.value for f in run.findings] == ["FORMAT"]
    # a FORMAT finding concerns no card: it is listed in the canvas legend
    assert any("FORMAT" in text and "0-1000" in text for text, _ in w.canvas.overlay().legend)
    w.canvas.loader.wait()


def test_screenshot_command(gowish_db, tmp_path):
    png = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "REVIEWER_CONFIG_DIR": str(tmp_path), "REVIEWER_NAME": "ann"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "reviewer.cli",
            "open",
            str(gowish_db),
            "--item",
            "02-angled",
            "--prompt",
            "bounding-boxes",
            "--screenshot",
            str(png),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    with Image.open(png) as im:
        assert im.size == (1600, 1000)
