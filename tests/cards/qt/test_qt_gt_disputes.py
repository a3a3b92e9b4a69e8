"""Ground-truth disputes (docs/window.md#adjudication-mode) sit in the adjudication queue beside
judge disputes: the window opens on them and walks the queue without
verdicts to show."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.storage.dispute_queue import refresh_disputes
from tests.helpers.window import open_window

pytestmark = pytest.mark.gui


def test_the_queue_shows_ground_truth_disputes(qtbot, two, tmp_path, monkeypatch):
    assert len(refresh_disputes(two)) == 3
    path = two.path
    two.close()
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = open_window(qtbot, path, size=(1600, 1000), wait_canvas=False, mode="adjudication")
    assert w.adjudication.queue.view.model().rowCount() == 3
    for _ in range(4):
        qtbot.keyClick(QApplication.focusWidget() or w, Qt.Key_J)
    w.close()
