"""Shared test set-up: Qt offscreen by default, each test its own record of
written files, and the fixtures that test modules in several folders use.
Paths to the samples and the real data are in tests/helpers/paths.py."""

from __future__ import annotations

import os
import tempfile

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("REVIEWER_NAME", "tester")
# reviewer's record of the files it wrote (reviewer.storage.files.written): never the user's own
os.environ["REVIEWER_DATA_DIR"] = tempfile.mkdtemp(prefix="reviewer-test-data-")


@pytest.fixture(autouse=True)
def own_record_of_written_files(tmp_path_factory, monkeypatch):
    """Each test starts with an empty record of the files reviewer wrote."""
    monkeypatch.setenv("REVIEWER_DATA_DIR", str(tmp_path_factory.mktemp("reviewer-data")))


@pytest.fixture
def project(tmp_path):
    """An empty project in a temporary folder."""
    from reviewer.storage.project.db import open_project

    p = open_project(tmp_path / "p.db", create=True)
    yield p
    p.close()


@pytest.fixture
def make_window(qtbot, tmp_path, monkeypatch):
    """A factory of review windows, each on a new project of ``n`` text items
    (tests/helpers/runs.py), settings in ``tmp_path``; the runner of each is
    shut down at the end."""
    from reviewer.qt.app import build
    from tests.helpers.runs import KEY, text_project

    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    made = []

    def make(n=6):
        db = text_project(tmp_path, n=n)
        w = build(db, ask_name=False)
        qtbot.addWidget(w)
        w.resize(1200, 800)
        w.show()
        qtbot.waitExposed(w)
        made.append(w)
        return w, db

    yield make
    for w in made:
        w.runner.shutdown()


@pytest.fixture
def card_window(qtbot, tmp_path, monkeypatch):
    """The review window on the scored card sample at table-01's
    spatial-grouping run, 1400x900, its photo shown; settings in ``tmp_path``."""
    from tests.helpers.window import open_window, scored_sample

    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    w = open_window(qtbot, scored_sample(tmp_path / "p.db"), item="table-01", prompt="spatial-grouping")
    yield w
    w.canvas.loader.wait()
