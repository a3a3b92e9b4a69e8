"""Reliability of the window (issue "A project that nothing can break", GUI
half): decisions queued while the project is busy, untrusted text of any
length, corrupt and read-only projects, photos upright in every format, a
text item cancelling a photo load, `reviewer open --screenshot` that does not
wait for nothing."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from reviewer.core.models import Status
from reviewer.qt.app import build
from reviewer.storage import repo
from reviewer.storage.db import open_project
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.scores import score_project
from tests.conftest import ROOT, SAMPLES

pytestmark = pytest.mark.gui


def make_project(path: Path, copies: int = 1) -> Path:
    p = open_project(path, create=True)
    for copy in range(copies):
        import_source(p, SAMPLES, options=ImportOptions(model=f"m{copy}" if copies > 1 else "m"))
    score_project(p)
    p.close()
    return path


def open_window(qtbot, db: Path, **kw):
    w = build(db, ask_name=False, **kw)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.canvas.ready, timeout=10_000)
    return w


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")


def statuses(db: Path, ids) -> dict[int, Status]:
    p = open_project(db)
    try:
        return {i: repo.finding(p, i).status for i in ids}
    finally:
        p.close()


def press(qtbot, window, key, modifier=Qt.NoModifier):
    qtbot.keyClick(window.findings_panel.view, key, modifier)


# -- 1. decisions wait for a busy project, never refused -------------------------------
def test_decisions_wait_for_a_locked_project_and_undo_works_on_them(qtbot, tmp_path, config):
    """Another program holds the write lock: N and Y are taken at once (the
    view shows them, the status bar says '2 decisions waiting: project
    locked by another program'), Ctrl+Z undoes the waiting Y; once the lock
    goes, the project holds exactly the first rejection."""
    db = make_project(tmp_path / "p.db")
    w = open_window(qtbot, db, item="table-01", prompt="spatial-grouping")
    s = w.session
    ids = [f.id for f in s.run().findings]
    assert len(ids) >= 3
    s.select_findings([ids[0]])
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program writing
    try:
        t0 = time.monotonic()
        press(qtbot, w, Qt.Key_N)
        press(qtbot, w, Qt.Key_Y)
        assert time.monotonic() - t0 < 1.0  # the window did not wait for the lock
        assert not w.errors
        assert s.history.pending == 2, (s.history.pending, w.errors, w.message_label.text())
        assert w.waiting_label.isVisible()
        assert w.waiting_label.text() == "2 decisions waiting: project locked by another program"
        shown = {f.id: f.status for f in s.run().findings}
        assert shown[ids[0]] == Status.REJECTED and shown[ids[1]] == Status.CONFIRMED  # shown as made
        assert s.selected_findings == [ids[2]]  # the review went on
        assert statuses(db, ids[:2]) == {ids[0]: Status.PROPOSED, ids[1]: Status.PROPOSED}
        assert s.stack.undo_text() == "confirm 1 finding(s)"
        qtbot.keyClick(w, Qt.Key_Z, Qt.ControlModifier)  # undo the waiting confirmation
        assert {f.id: f.status for f in s.run().findings}[ids[1]] == Status.PROPOSED
        assert w.waiting_label.text().startswith("3 decisions waiting")
        qtbot.wait(400)  # the timer tries meanwhile: still locked, nothing lost
        assert s.history.pending == 3
    finally:
        other.execute("ROLLBACK")
        other.close()
    qtbot.waitUntil(lambda: s.history.pending == 0, timeout=3000)
    assert not w.waiting_label.isVisible()
    assert statuses(db, ids[:2]) == {ids[0]: Status.REJECTED, ids[1]: Status.PROPOSED}
    assert s.stack.undo_text() == "reject 1 finding(s)"
    qtbot.keyClick(w, Qt.Key_Z, Qt.ControlModifier)  # undo the rejection, now written
    assert statuses(db, ids[:1]) == {ids[0]: Status.PROPOSED}
    assert not w.errors


def test_100_decisions_by_keys_while_reviewer_score_loops(qtbot, tmp_path, config):
    """100 decisions by keys while another process runs `reviewer score` on
    the project in a loop: 100 of 100 recorded, each within 1 s, none
    refused."""
    db = make_project(tmp_path / "p.db", copies=7)  # 119 findings
    w = open_window(qtbot, db)
    s = w.session
    w.review.auto_advance = True
    script = ("import subprocess, sys\n"
              "while True:\n"
              "    subprocess.run([sys.executable, '-m', 'reviewer', 'score', sys.argv[1]],\n"
              "                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    loop = subprocess.Popen([sys.executable, "-c", script, str(db)], env=env)
    decided: dict[int, float] = {}
    try:
        time.sleep(1.5)  # the scorer is writing
        qtbot.keyClick(w, Qt.Key_J, Qt.ShiftModifier)  # the first run needing review
        for n in range(100):
            assert s.selected_findings, n
            fid = s.selected_findings[0]
            assert fid not in decided
            press(qtbot, w, Qt.Key_N if n % 2 else Qt.Key_Y)
            decided[fid] = time.monotonic()
            qtbot.wait(20)
        deadline = time.monotonic() + 5
        while s.history.pending and time.monotonic() < deadline:
            qtbot.wait(20)
        assert s.history.pending == 0
    finally:
        loop.kill()
        loop.wait()
    assert not [e for e in w.errors if "could not" in e], w.errors
    p = open_project(db)
    try:
        rows = {fid: repo.finding(p, fid) for fid in decided}
        recorded = {fid: f for fid, f in rows.items() if f.status != Status.PROPOSED}
        assert len(recorded) == 100
        lag = [(p.db.execute("SELECT min(at) FROM audit WHERE table_name = 'findings' AND row_id = ? "
                             "AND action = 'update' AND actor = 'ann'", [str(fid)]).fetchone()[0], fid) for fid in decided]
    finally:
        p.close()
    assert all(at for at, _ in lag)
    # each decision is in the project within 1 s of its key press (audit time vs wall clock)
    from datetime import datetime
    offsets = [datetime.fromisoformat(at).timestamp() for at, _ in lag]
    wall = [decided[fid] for _, fid in lag]
    shift = time.time() - time.monotonic()
    delays = [o - (t + shift) for o, t in zip(offsets, wall)]
    assert max(delays) < 1.0, max(delays)
