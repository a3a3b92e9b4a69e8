"""Messages name the cause: a full disk (with the path and the free space),
a dangling symbolic link, JSON nested past the reader's limit (with its
depth and the file); and a full disk leaves nothing beside an export.

A full disk is made by SQLite itself: ``PRAGMA max_page_count`` makes every
write past it fail with SQLITE_FULL ('database or disk is full'), the error
a real full disk gives."""

from __future__ import annotations

import errno
import json
import os
import sqlite3

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.storage.files import safe_write
from reviewer.storage.project import db as db_module
from reviewer.storage.project.db import DiskFull
from tests.helpers.paths import SAMPLES


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_error_line(result) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error:")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    return errors[0]


def test_a_full_disk_during_import_says_so_with_the_path_and_the_free_space(tmp_path, monkeypatch):
    project = tmp_path / "p.db"
    assert cli("init", project).exit_code == 0
    connect = db_module.connect

    def small(target, uri=False):
        db = connect(target, uri=uri)
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0] + 2}")
        return db

    monkeypatch.setattr(db_module, "connect", small)
    result = cli("import", project, SAMPLES)
    assert result.exit_code == 1, result.output
    line = one_error_line(result)
    assert f"cannot write {project}: the disk is full (" in line and " free on " in line, line
    assert "rollback" not in line and "no transaction" not in line


def test_a_full_disk_during_report_says_so(tmp_path, monkeypatch):
    project = tmp_path / "p.db"
    assert cli("import", project, SAMPLES, "--create").exit_code == 0  # imported, not scored yet
    connect = db_module.connect

    def small(target, uri=False):
        db = connect(target, uri=uri)
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        return db

    monkeypatch.setattr(db_module, "connect", small)
    result = cli("report", project)
    assert result.exit_code == 1, result.output
    line = one_error_line(result)
    assert "the disk is full" in line and str(project) in line and "rollback" not in line, line


def test_a_full_disk_during_export_says_so_and_leaves_nothing_beside_the_target(tmp_path, monkeypatch):
    project = tmp_path / "p.db"
    assert cli("import", project, SAMPLES, "--create").exit_code == 0
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    import sqlite_utils

    from reviewer.storage import export

    class Small(sqlite_utils.Database):
        """The export's own new database (opened by its path) can hold 8 pages."""

        def __init__(self, target, *args, **kwargs):
            super().__init__(target, *args, **kwargs)
            if not isinstance(target, sqlite3.Connection):
                self.execute("PRAGMA max_page_count = 8")

    monkeypatch.setattr(export.sqlite_utils, "Database", Small)
    result = cli("export", project, out_dir / "out.db")
    assert result.exit_code == 1, result.output
    line = one_error_line(result)
    assert "the disk is full" in line and "out.db" in line, line
    assert sorted(os.listdir(out_dir)) == []  # no .out.db.*.tmp, no -journal


def test_a_journal_left_by_a_failed_write_is_removed_with_the_temporary_file(tmp_path):
    target = tmp_path / "out.db"
    fmt = safe_write.FileFormat("test database", lambda p: True, sqlite=True)
    with pytest.raises(DiskFull, match=r"the disk is full \(.* free on "), safe_write.replacing(target, fmt) as tmp:
        (tmp.parent / (tmp.name + "-journal")).write_bytes(b"x" * 512)  # what SQLite leaves on a full disk
        raise OSError(errno.ENOSPC, "No space left on device")
    assert os.listdir(tmp_path) == []


def test_a_dangling_link_as_the_project_is_named_as_one(tmp_path):
    link = tmp_path / "p.db"
    link.symlink_to(tmp_path / "gone" / "p.db")
    for args in (["import", link, SAMPLES, "--create"], ["init", link], ["report", link]):
        result = cli(*args)
        assert result.exit_code == 1, result.output
        line = one_error_line(result)
        assert "is a dangling symbolic link" in line and "gone" in line, line
        assert "not writable" not in line
    assert link.is_symlink() and not (tmp_path / "gone").exists()


def _llmbar(folder, dataset, result):
    folder.mkdir(parents=True)
    (folder / "dataset.json").write_text(dataset)
    (folder / "result_GPT-4_Vanilla.json").write_text(result)


DEEP = "[" * 200_000 + "]" * 200_000
PAIR = json.dumps([{"input": "Which is right?", "output_1": "a", "output_2": "b", "label": 1}])


def test_json_nested_past_the_readers_limit_names_its_depth_and_the_file(tmp_path):
    _llmbar(tmp_path / "a" / "Natural", PAIR, DEEP)
    result = cli("import", tmp_path / "a.db", tmp_path / "a" / "Natural", "--create")
    assert result.exit_code == 0, result.output
    assert "skipped result_GPT-4_Vanilla.json: nested 200,000 levels deep, past the reader's limit" in result.output
    _llmbar(tmp_path / "b" / "Natural", DEEP, PAIR)
    result = cli("import", tmp_path / "b.db", tmp_path / "b" / "Natural", "--create", "--format", "pairwise-llmbar")
    assert result.exit_code == 0 and "0 runs" not in result.output, result.output
    assert "skipped dataset.json: nested 200,000 levels deep" in result.output
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP)
    result = cli("import", tmp_path / "c.db", deep, "--create")
    assert result.exit_code == 1
    line = one_error_line(result)
    assert f"cannot tell the format of {deep}: it is JSON nested 200,000 levels deep" in line, line
