"""SQLite's locks are never dropped: nothing in a process that holds a
connection to a project opens and closes the file with plain OS calls
(reviewer.storage.project.recognise). POSIX advisory locks belong to the process:
closing any descriptor of the file drops every lock SQLite holds on it, and
another program that then opens and closes the project takes itself for the
last user, checkpoints and deletes the -wal under the open connections
("How To Corrupt An SQLite Database File", §2.2)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest

from reviewer.storage.project.db import open_here, open_project
from reviewer.storage.project.recognise import sidecars

OUTSIDE_READ = (
    "import sqlite3, sys\n"
    "con = sqlite3.connect(sys.argv[1])\n"
    "print(con.execute(sys.argv[2]).fetchone()[0])\n"
    "con.close()\n"
)


def outside_read(db, sql="SELECT count(*) FROM meta") -> str:
    """Another program opens the project, reads and closes it (as `sqlite3 P "select ..."`)."""
    done = subprocess.run(
        [sys.executable, "-c", OUTSIDE_READ, str(db), sql], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def integrity(db) -> str:
    con = sqlite3.connect(db)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def test_an_outside_read_keeps_the_wal_of_a_project_opened_twice(tmp_path):
    for trial in range(20):
        db = tmp_path / f"p{trial}.db"
        first = open_project(db, create=True)
        with first.transaction():
            first.set_meta("k", "before")
        second = open_project(db)  # a worker opens it again: recognising it must not drop the first's locks
        try:
            assert open_here(db) and open_here(sidecars(db)[0])
            outside_read(db)
            wal, shm = sidecars(db)
            assert wal.exists() and shm.exists(), f"trial {trial}: the outside reader deleted the -wal"
            with second.transaction():  # the next write lands
                second.set_meta("k", f"after {trial}")
            assert first.meta("k") == f"after {trial}"
        finally:
            second.close()
            first.close()
        assert not open_here(db)
        assert integrity(db) == "ok"
        assert outside_read(db, "SELECT value FROM meta WHERE key = 'k'") == f"after {trial}"


def test_a_read_only_look_at_a_project_open_here_copies_nothing(tmp_path, monkeypatch):
    """A project opened read-only while this process holds it open is read
    through SQLite, not copied with OS calls (the -wal has content)."""
    import shutil

    db = tmp_path / "p.db"
    first = open_project(db, create=True)
    try:
        with first.transaction():
            first.set_meta("k", "v")
        monkeypatch.setattr(shutil, "copyfile", lambda *a, **k: pytest.fail("copied a project open here"))
        copy = open_project(db, read_only=True)
        assert copy.read_only and copy.meta("k") == "v"
        copy.close()
        outside_read(db)
        assert sidecars(db)[0].exists()
        with first.transaction():
            first.set_meta("k", "w")
    finally:
        first.close()
    assert integrity(db) == "ok"


def test_importing_a_project_into_itself_reads_nothing_with_os_calls(tmp_path):
    from reviewer.storage.importers import import_source
    from reviewer.storage.project.db import ProjectError

    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    try:
        with p.transaction():
            p.set_meta("k", "v")
        for source in (db, sidecars(db)[0]):
            with pytest.raises(ProjectError) as refused:
                import_source(p, source)
            outside_read(db)
            assert sidecars(db)[0].exists(), "detecting the format of the project read it with open()"
            assert "is a project open here" in str(refused.value)
        with p.transaction():
            p.set_meta("k", "w")
    finally:
        p.close()
    assert integrity(db) == "ok"


@pytest.mark.gui
def test_the_window_runner_survives_an_outside_read_cancel_and_a_second_start(qtbot, make_window):
    from PySide6.QtCore import Qt

    from tests.helpers.fake_openai import FakeOpenAI
    from tests.helpers.runner_form import fill, model_runs

    window, db = make_window(n=10)
    runner = window.runner
    with FakeOpenAI(delay=0.1) as fake:
        form = runner.show_form("run")
        fill(form, fake.base_url, "m", concurrency=1)
        form.start()  # the worker opens the project beside the window's connection
        qtbot.waitUntil(lambda: len(model_runs(window, "m")) >= 2, timeout=30_000)
        assert int(outside_read(db, "SELECT count(*) FROM runs")) >= 2  # `sqlite3 P "select count(*) from runs"`
        assert sidecars(db)[0].exists(), "an outside read deleted the -wal while the window has the project open"
        qtbot.mouseClick(form.cancel_button, Qt.LeftButton)
        qtbot.waitUntil(lambda: not runner.running(), timeout=10_000)
        outside_read(db, "SELECT count(*) FROM runs")
        assert sidecars(db)[0].exists()
        form.start()
        qtbot.waitUntil(lambda: not runner.running(), timeout=30_000)
        qtbot.waitUntil(lambda: runner.summary is not None or runner.error is not None, timeout=5_000)
    assert runner.error is None, runner.error
    assert not runner.summary.cancelled
    assert len(model_runs(window, "m")) == 10
    window.close()  # quit: the session closes the project
    assert window.session.project is None and not open_here(db)
    assert integrity(db) == "ok"
    p = open_project(db)
    try:
        assert p.db.execute("SELECT count(*) FROM runs WHERE model = 'm'").fetchone()[0] == 10
        assert p.db.execute("SELECT count(*) FROM reservations").fetchone()[0] == 0
    finally:
        p.close()


@pytest.mark.gui
def test_the_windows_file_dialogs_and_path_completion_never_read_the_project(qtbot, make_window):
    """Qt's file system model reads every file of a folder it shows to tell
    its type (MIME sniffing) unless told otherwise: shown the project's
    folder, it dropped the window's locks."""
    from reviewer.qt import file_dialogs

    window, db = make_window(n=3)
    window.import_dialog()  # the import bar's path completer watches the file system
    model = window.import_bar.path.completer().model()
    window.import_bar.path.setText(str(db.parent) + "/")
    model.fetchMore(model.index(str(db.parent)))
    qtbot.waitUntil(lambda: model.index(str(db)).isValid(), timeout=10_000)
    model.data(model.index(str(db)))
    qtbot.wait(500)  # the model's gatherer thread fetches icons and types meanwhile
    outside_read(db)
    assert sidecars(db)[0].exists(), "the completer's model read the project"
    for accept in (file_dialogs.QFileDialog.AcceptMode.AcceptOpen, file_dialogs.QFileDialog.AcceptMode.AcceptSave):
        d = file_dialogs.dialog(window, "pick", str(db.parent), accept=accept)
        d.setViewMode(file_dialogs.QFileDialog.ViewMode.Detail)  # the Type column too
        d.show()
        qtbot.wait(1000)
        d.reject()
        outside_read(db)
        assert sidecars(db)[0].exists(), "a file dialog read the project"
    with window.session.project.transaction():
        window.session.project.set_meta("k", "written after")
    assert integrity(db) == "ok"
