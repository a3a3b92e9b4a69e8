"""Reliability: files that are not ours, read-only projects, corrupt files
(issue "A project that nothing can break", items 5, 6 and 7).

Tests run as root, for whom chmod does not stop a write; reviewer treats a
file or folder without write permission bits as read-only for everybody
(reviewer.storage.project.recognise.read_only_reason), so these tests check the
same behaviour a user sees: reading commands work, writing ones say
'read-only', and nothing is written or left beside the project.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.storage.project.db import ReadOnlyProject, open_project
from tests.helpers.paths import SAMPLES

COMMANDS = [
    ("score",),
    ("report",),
    ("report", "--format", "csv"),
    ("agreement",),
    ("export", "{out}"),
    ("import", "{samples}"),
    ("init",),
]


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def checksum(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def listing(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def foreign_db(path: Path, meta: bool, wal: bool = False) -> Path:
    con = sqlite3.connect(path)
    if wal:
        con.execute("PRAGMA journal_mode = wal")
    if meta:
        con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
        con.execute("INSERT INTO meta VALUES ('owner', 'another program')")
    con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    con.execute("INSERT INTO notes (text) VALUES ('precious')")
    con.commit()
    con.close()
    return path


@pytest.mark.parametrize("meta", [True, False], ids=["with-meta", "without-meta"])
@pytest.mark.parametrize("wal", [False, True], ids=["rollback-journal", "wal"])
def test_a_foreign_database_is_never_changed(tmp_path, meta, wal):
    folder = tmp_path / "f"
    folder.mkdir()
    db = foreign_db(folder / "other.db", meta, wal)
    before, files = checksum(db), listing(folder)
    for command in COMMANDS:
        args = [a.format(out=tmp_path / "out.db", samples=SAMPLES) for a in command]
        result = invoke(args[0], db, *args[1:])
        assert result.exit_code == 1, (command, result.output)
        assert len(result.output.strip().splitlines()) == 1, result.output
        if command != ("init",):
            assert "not a reviewer project" in result.output, result.output
        assert checksum(db) == before, command
        assert listing(folder) == files, command  # no -wal, -shm or journal left
    assert not (tmp_path / "out.db").exists()


@pytest.fixture
def scored(tmp_path):
    """A scored project with judge verdicts in its own folder, closed."""
    folder = tmp_path / "proj"
    folder.mkdir()
    db = folder / "p.db"
    assert invoke("import", db, SAMPLES, "--model", "vlm").exit_code == 0
    assert invoke("score", db).exit_code == 0
    return db


def _check_reading_works(db: Path, out: Path) -> None:
    for args in (("report",), ("report", "--format", "csv"), ("agreement",), ("score",)):
        result = invoke(args[0], db, *args[1:])
        assert result.exit_code == 0, (args, result.output)
        assert "read-only" in result.output  # the note says why nothing is saved
    md = invoke("report", db).output
    assert "| spatial-grouping | vlm | all |" in md
    result = invoke("export", db, out)
    assert result.exit_code == 0, result.output
    assert sqlite3.connect(out).execute("SELECT count(*) FROM runs").fetchone()[0] == 14


def test_a_read_only_project_file(scored, tmp_path):
    db = scored
    os.chmod(db, 0o444)
    before, files = checksum(db), listing(db.parent)
    try:
        _check_reading_works(db, tmp_path / "out.db")
        result = invoke("import", db, SAMPLES, "--model", "other")
        assert result.exit_code == 1 and "read-only (the file is not writable)" in result.output
        assert len(result.output.strip().splitlines()) == 1
        with pytest.raises(ReadOnlyProject):
            p = open_project(db)
            try:
                with p.transaction():
                    pass
            finally:
                p.close()
        assert checksum(db) == before
        assert listing(db.parent) == files  # no -shm / -wal left behind
    finally:
        os.chmod(db, 0o644)
    assert invoke("import", db, SAMPLES, "--model", "other").exit_code == 0  # writable again: works


def test_a_project_in_a_read_only_folder(scored, tmp_path):
    db = scored
    folder = db.parent
    os.chmod(folder, 0o555)
    try:
        files, before = listing(folder), checksum(db)
        _check_reading_works(db, tmp_path / "out.db")
        result = invoke("import", db, SAMPLES, "--model", "other")
        assert result.exit_code == 1 and "its folder is not writable" in result.output
        assert "not a reviewer project" not in result.output
        assert listing(folder) == files and checksum(db) == before
    finally:
        os.chmod(folder, 0o755)
    assert invoke("import", db, SAMPLES, "--model", "other").exit_code == 0


def test_a_read_only_project_with_a_wal_left_by_a_killed_writer(scored, tmp_path):
    """A read-only copy whose -wal still holds committed changes (the writer
    was killed): the changes are read, nothing is created beside it."""
    db = scored
    holder = sqlite3.connect(db)
    holder.execute("PRAGMA wal_autocheckpoint = 0")
    holder.execute("UPDATE meta SET value = 'from the wal' WHERE key = 'scoring_config'")
    holder.commit()
    copy_dir = tmp_path / "copy"
    copy_dir.mkdir()
    shutil.copyfile(db, copy_dir / "p.db")
    shutil.copyfile(db.with_name("p.db-wal"), copy_dir / "p.db-wal")  # as a kill leaves it (no -shm)
    holder.close()
    copy = copy_dir / "p.db"
    os.chmod(copy, 0o444)
    files = listing(copy_dir)
    p = open_project(copy)
    try:
        assert p.read_only == "the file is not writable"
        assert p.meta("scoring_config") == "from the wal"
    finally:
        p.close()
    assert listing(copy_dir) == files


def test_a_stray_read_only_shm_does_not_block_the_project(scored):
    """A 0444 -shm left by an old read-only reader is given the file's mode."""
    db = scored
    shm = db.with_name("p.db-shm")
    shm.write_bytes(b"")
    os.chmod(shm, 0o444)
    assert invoke("import", db, SAMPLES, "--model", "other").exit_code == 0
    assert not shm.exists() or stat.S_IMODE(shm.stat().st_mode) & stat.S_IWUSR


def test_a_corrupt_project_gives_one_line(tmp_path):
    db = tmp_path / "p.db"
    assert invoke("import", db, SAMPLES, "--model", "vlm").exit_code == 0
    data = bytearray(db.read_bytes())
    data[100 : 4096 * 3] = b"\xff" * (4096 * 3 - 100)  # the schema page and more
    db.write_bytes(bytes(data))
    for args in (("score",), ("report",), ("export", tmp_path / "o.db"), ("agreement",)):
        result = invoke(args[0], db, *args[1:])
        assert result.exit_code == 1, result.output
        assert result.output.startswith("Error: ") and len(result.output.strip().splitlines()) == 1
