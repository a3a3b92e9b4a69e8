"""Every edit survives a kill: start the app in a subprocess, make an edit,
SIGKILL it, reopen the project and find the edit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from reviewer.storage.project.db import open_project
from reviewer.storage.repo import findings as repo_findings
from tests.helpers.paths import ROOT
from tests.helpers.window import scored_sample

pytestmark = pytest.mark.gui


def test_edit_survives_sigkill(tmp_path):
    db = scored_sample(tmp_path / "p.db")
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "REVIEWER_CONFIG_DIR": str(tmp_path),
        "REVIEWER_NAME": "killer",
        "PYTHONPATH": str(ROOT),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.edit_then_hang", str(db)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("EDITED"), line + proc.stderr.read() if proc.poll() is not None else line
        finding_id = int(line.split()[1])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    again = open_project(db)
    f = repo_findings.finding(again, finding_id)
    assert f.status.value == "confirmed" and f.reviewer == "killer"
    again.close()
