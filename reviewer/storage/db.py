"""The project database: one SQLite file (sqlite-utils, WAL, foreign keys,
busy timeout, migrations), with an audit table of every change.

Media stay where they are; their paths are stored relative to the project
file. Every change runs in one transaction (``Project.transaction``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Optional

import sqlite_utils

from reviewer.storage.schema import MIGRATIONS

#: Seconds a writer waits for another process's lock before giving up.
BUSY_TIMEOUT_S = 10.0


class ProjectError(Exception):
    """A project cannot be opened or used; the message is for the user."""


class NewerProjectError(ProjectError):
    """The project was written by a newer version of reviewer."""


def now() -> str:
    """The current UTC time as ISO 8601 text, as stored in every table."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def default_actor() -> str:
    """Who is making changes: $REVIEWER_NAME, else the login name."""
    return os.environ.get("REVIEWER_NAME") or os.environ.get("USER") or "unknown"


class Project:
    """An open project file. Use ``open_project`` to get one.

    ``db``: the sqlite_utils.Database; ``path``: the project file;
    ``root``: its folder, against which media paths are resolved.
    """

    def __init__(self, path: Path, db: sqlite_utils.Database):
        self.path = path
        self.root = path.parent
        self.db = db
        self._depth = 0

    # -- transactions and audit -------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[sqlite_utils.Database]:
        """One transaction; nested uses join the outer one. Commits on exit,
        rolls back on an exception."""
        if self._depth:
            self._depth += 1
            try:
                yield self.db
            finally:
                self._depth -= 1
            return
        self._depth = 1
        try:
            with self.db.atomic():
                yield self.db
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise ProjectError(
                    f"the project {self.path} is locked by another program; try again"
                ) from exc
            raise
        finally:
            self._depth = 0

    def audit(
        self,
        action: str,
        table: str,
        row_id: Any,
        before: Any = None,
        after: Any = None,
        actor: Optional[str] = None,
    ) -> None:
        """Record who changed what, when, from what to what (JSON values)."""
        self.db.execute(
            "INSERT INTO audit (at, actor, action, table_name, row_id, before, after) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                now(),
                actor or default_actor(),
                action,
                table,
                None if row_id is None else str(row_id),
                None if before is None else json.dumps(before, default=str),
                None if after is None else json.dumps(after, default=str),
            ],
        )

    # -- media paths --------------------------------------------------------
    def relative(self, media: Path) -> str:
        """``media`` as a path relative to the project folder (POSIX text)."""
        return Path(os.path.relpath(Path(media).resolve(), self.root.resolve())).as_posix()

    def resolve(self, stored: str) -> Path:
        """A stored media path made absolute against the project folder."""
        p = Path(stored)
        return p if p.is_absolute() else (self.root / p)

    # -- settings -------------------------------------------------------------
    def meta(self, key: str, default: Optional[str] = None) -> Optional[str]:
        """A value of the ``meta`` table (text), or ``default``."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the ``meta`` table."""
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [key, value],
        )

    def close(self) -> None:
        """Close the connection (checkpoints the WAL)."""
        self.db.close()


def _connect(path: Path) -> sqlite_utils.Database:
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    db = sqlite_utils.Database(conn)
    db.execute("PRAGMA foreign_keys = ON")
    db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    return db


def open_project(path: os.PathLike | str, create: bool = False) -> Project:
    """Open (or with ``create``, make) the project file at ``path`` and bring
    its schema up to date.

    Raises ProjectError with a one-line message when the file is missing
    (and not ``create``), is not an SQLite database, or is not a project;
    NewerProjectError when a newer reviewer wrote it.
    """
    path = Path(path)
    if not path.exists() and not create:
        raise ProjectError(f"no project at {path} (make one with 'reviewer init {path}')")
    if path.is_dir():
        raise ProjectError(f"{path} is a folder, not a project file")
    if create:
        path.parent.mkdir(parents=True, exist_ok=True)
    db = None
    try:
        db = _connect(path)
        tables = set(db.table_names())
        if path.stat().st_size and tables and "meta" not in tables:
            raise ProjectError(f"{path} is an SQLite database but not a reviewer project")
        if not tables and not create and path.stat().st_size == 0:
            raise ProjectError(f"{path} is empty, not a reviewer project")
        db.enable_wal()
        _check_version(db, path)
        MIGRATIONS.apply(db)
    except (ProjectError, sqlite3.DatabaseError) as exc:
        if db is not None:
            db.close()
        if isinstance(exc, ProjectError):
            raise
        raise ProjectError(f"{path} is not a reviewer project ({exc})") from exc
    return Project(path, db)


def _check_version(db: sqlite_utils.Database, path: Path) -> None:
    """Refuse a project that has migrations this version does not know."""
    if "_sqlite_migrations" not in db.table_names():
        return
    known = {m.name for m in MIGRATIONS._migrations}
    applied = {m.name for m in MIGRATIONS.applied(db)}
    unknown = sorted(applied - known)
    if unknown:
        raise NewerProjectError(
            f"{path} was written by a newer version of reviewer "
            f"(schema {unknown[-1]}); update reviewer to open it"
        )
