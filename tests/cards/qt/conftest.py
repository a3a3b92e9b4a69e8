"""Fixtures of the window tests."""

from __future__ import annotations

import pytest

from tests.helpers.window import open_window, scored_sample


@pytest.fixture
def card_window(qtbot, tmp_path, monkeypatch):
    """The review window on the scored card sample at table-01's
    spatial-grouping run, 1400x900, its photo shown; settings in ``tmp_path``."""
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    w = open_window(qtbot, scored_sample(tmp_path / "p.db"), item="table-01", prompt="spatial-grouping")
    yield w
    w.canvas.loader.wait()
