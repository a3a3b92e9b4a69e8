"""The card window's details (docs/window.md): `--screenshot` leaves the user's
settings alone, the Run form after Cancel, the label key L, Esc on the key
sheet, search and the photo, a toolbar that stays put, columns that elide."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from reviewer.pipeline.execute import Summary
from reviewer.qt.app import run
from reviewer.qt.runner.controller import cancelled_text
from reviewer.storage.db import open_project
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.scoring import score_project
from tests.conftest import SAMPLES
from tests.helpers.window import open_window

pytestmark = pytest.mark.gui


def sample_project(tmp_path):
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    import_source(p, SAMPLES, options=ImportOptions(model="m"))
    score_project(p)
    p.close()
    return db


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = open_window(qtbot, sample_project(tmp_path), size=(1600, 1000), item="table-01", prompt="spatial-grouping")
    yield w
    w.canvas.loader.wait()


def test_screenshot_leaves_the_users_settings_byte_identical(qtbot, tmp_path, monkeypatch):
    config = tmp_path / "config"
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(config))
    db = sample_project(tmp_path)
    user = QSettings(str(config / "reviewer.ini"), QSettings.IniFormat)
    user.setValue("recent", [str(tmp_path / "elsewhere.db")])
    user.setValue("reviewer_name", "ann")
    user.sync()
    del user
    before = (config / "reviewer.ini").read_bytes()
    png = tmp_path / "shot.png"
    assert run(db, screenshot=png) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    assert (config / "reviewer.ini").read_bytes() == before
    assert sorted(p.name for p in config.iterdir()) == ["reviewer.ini"]


def test_a_cancelled_run_says_how_far_it_got_and_that_start_resumes():
    s = Summary(planned=10, skipped=2, asked=3, answered=2, failed=1, cancelled=True)
    text = cancelled_text(s)
    assert text.startswith("Cancelled after 5 of 10; Start resumes")
    assert "100" not in text and "command" not in text
