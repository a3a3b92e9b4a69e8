"""Recognise a project file without writing to it.

Before reviewer opens a file for writing (which would switch it to WAL mode
and add a migrations table), it looks at it through a read-only connection:
``mode=ro``, and also ``immutable=1`` unless the file has both a ``-wal``
and a ``-shm`` beside it (a live or interrupted writer; a read-only
connection then uses them and creates nothing). So looking at another
program's database, a read-only file or a file in a read-only folder never
changes a byte of it and leaves no ``-wal`` / ``-shm`` behind.

A file is a project when it has a ``meta`` table and its
``_sqlite_migrations`` table records reviewer's first migration.

SQLite's locks are kept: the file is read only through SQLite, never with
``open()`` (nor are its -wal and -shm). POSIX advisory locks belong to the
process, so closing *any* descriptor of the file would drop every lock the
process's SQLite connections hold on it; another program would then take
itself for the last user, checkpoint and delete the -wal under them
("How To Corrupt An SQLite Database File", §2.2). SQLite keeps a descriptor
it closes open while another of its connections in the process holds a lock
(its inode table), so a connection is safe where ``open()`` is not. ``stat``
and ``access`` open no descriptor and are used freely. ``look`` is the one
path that tells what a file is; everything that needs to know (opening a
project, refusing an export target) asks it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.storage.project.schema import MIGRATIONS

FIRST_MIGRATION = "0001_initial"


@dataclass
class FileLook:
    """What a read-only look at a file found.

    ``kind``: 'project', 'empty' (no bytes or no tables), 'foreign' (an
    SQLite database of another program) or 'unreadable' (not SQLite, or
    corrupt; ``problem`` says why). ``pending`` / ``unknown``: reviewer
    migrations not yet applied / applied but unknown to this version (a
    newer reviewer wrote the file).
    """

    kind: str
    pending: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    problem: str = ""


def sidecars(path: Path) -> tuple[Path, Path]:
    """The ``-wal`` and ``-shm`` files SQLite keeps beside ``path``."""
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def read_only_uri(path: Path, immutable: bool | None = None) -> str:
    """A ``file:`` URI opening ``path`` read-only (``mode=ro``); with
    ``immutable`` (by default: unless both a -wal and a -shm exist) also
    ``immutable=1``, so SQLite takes no locks and creates no files."""
    if immutable is None:
        wal, shm = sidecars(path)
        immutable = not (wal.exists() and shm.exists())
    return Path(path).resolve().as_uri() + "?mode=ro" + ("&immutable=1" if immutable else "")


def look(path: Path) -> FileLook:
    """Look at the file at ``path`` (which exists) without writing to it and
    say what it is (see FileLook), through SQLite only (module doc: no
    descriptor of the file is opened and closed outside SQLite). Never
    raises for a bad file: sqlite3 and OS errors become kind 'unreadable'
    with the message in ``problem`` ('file is not a database' for a file
    that is not SQLite)."""
    try:
        size = Path(path).stat().st_size  # stat opens no descriptor (module doc)
    except OSError as exc:
        return FileLook("unreadable", problem=exc.strerror or str(exc))
    if not size:
        return FileLook("empty")
    try:
        con = sqlite3.connect(read_only_uri(path), uri=True)
    except sqlite3.Error as exc:
        return FileLook("unreadable", problem=str(exc))
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return FileLook("empty")
        applied: list[str] = []
        if "_sqlite_migrations" in tables:
            applied = [
                r[0]
                for r in con.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = ?", [MIGRATIONS.name])
            ]
    except sqlite3.Error as exc:
        return FileLook("unreadable", problem=str(exc))
    finally:
        con.close()
    if "meta" not in tables or FIRST_MIGRATION not in applied:
        return FileLook("foreign")
    known = [m.name for m in MIGRATIONS._migrations]
    return FileLook(
        "project", pending=[n for n in known if n not in applied], unknown=sorted(set(applied) - set(known))
    )


def _no_write_bits(p: Path) -> bool:
    return not p.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)


def read_only_reason(path: Path) -> str | None:
    """Why the project at ``path`` must be opened read-only, or None when it
    can be written: the file or its folder is not writable for this user, or
    has no write permission bits at all (so a read-only file stays read-only
    for root too, who may write anything), or a -wal / -shm beside it cannot
    be written (a reader that cannot write them would fail)."""
    path = Path(path)
    folder = path.resolve().parent
    if not os.access(path, os.W_OK) or _no_write_bits(path):
        return "the file is not writable"
    if not os.access(folder, os.W_OK) or _no_write_bits(folder):
        return "its folder is not writable"
    for side in sidecars(path):
        if side.exists() and not os.access(side, os.W_OK):
            return f"{side.name} is not writable"
    return None


def repair_sidecars(path: Path) -> None:
    """Give a -wal / -shm beside a writable ``path`` the file's permission
    bits when it has no write bits (left by a read-only reader of an older
    reviewer, or another tool); such a -shm would make every later write
    fail. Errors are ignored (the open then reports them)."""
    mode = stat.S_IMODE(path.stat().st_mode)
    for side in sidecars(path):
        try:
            if side.exists() and _no_write_bits(side):
                os.chmod(side, mode)
        except OSError:
            pass
