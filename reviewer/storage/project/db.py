"""The project database: one SQLite file (sqlite-utils, WAL, foreign keys,
busy timeout, migrations), with an audit table of every change.

Media stay where they are; their paths are stored relative to the project
file. Every change runs in one transaction (``Project.transaction``).

Writers wait their turn: the connection never opens a transaction by itself
(``isolation_level=None``); every write transaction starts with ``BEGIN
IMMEDIATE``, so a reader never has to become a writer half-way (which SQLite
refuses at once, whatever the busy timeout). Taking the write lock is
retried every few milliseconds for up to BUSY_TIMEOUT_S; long writers
(imports, scoring) use ``Project.batched`` and commit every BATCH_S, pausing
YIELD_S, so another process's writes (a decision in the window) get in
between. A project that cannot be written (read-only file or folder) is
read into memory and opened there: reading commands work, derived data
(scores, disputes) is computed but not saved, and anything else that would
write raises ReadOnlyProject.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlite_utils

from reviewer.storage.project.recognise import look, read_only_reason, read_only_uri, repair_sidecars, sidecars
from reviewer.storage.project.schema import MIGRATIONS

#: Seconds a writer waits for another process's lock before giving up.
BUSY_TIMEOUT_S = 10.0
#: Longest a batched writer (import, score) holds the write lock, seconds.
BATCH_S = 0.1
#: Pause after a full batch, so a writer waiting for the lock gets it, seconds.
YIELD_S = 0.012
#: How long one try at the write lock may wait inside SQLite, milliseconds,
#: and the range of pauses between tries, seconds.
_TRY_MS = 2
_PAUSE_S = (0.001, 0.004)
#: Seconds of waiting for the write lock before ``on_wait`` is told.
WAIT_NOTICE_S = 0.2


#: (device, inode) of each project file this process holds a connection to,
#: with how many: such a file (and its -wal / -shm) is read only through
#: SQLite, never copied or hashed with OS calls (reviewer.storage.project.recognise).
_LIVE: dict[tuple[int, int], int] = {}
_LIVE_LOCK = threading.Lock()


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)  # stat opens no descriptor
    except OSError:
        return None
    return st.st_dev, st.st_ino


def open_here(path: os.PathLike | str) -> bool:
    """True when this process holds a connection to the file at ``path``
    (or to the project whose -wal / -shm ``path`` is): it must then be read
    only through SQLite (reviewer.storage.project.recognise, module doc)."""
    path = Path(path)
    candidates = [path]
    for suffix in ("-wal", "-shm"):
        if path.name.endswith(suffix):
            candidates.append(path.with_name(path.name[: -len(suffix)]))
    return any(_LIVE.get(_file_id(p) or (-1, -1)) for p in candidates)


class ProjectError(Exception):
    """A project cannot be opened or used; the message is for the user."""


class DiskFull(ProjectError):
    """A write failed because the disk is full: the message names the file
    and the space left (disk_full_message)."""


def is_disk_full(exc: BaseException) -> bool:
    """True for SQLite's SQLITE_FULL ('database or disk is full') and an
    OSError ENOSPC ('No space left on device')."""
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        return code == sqlite3.SQLITE_FULL or "database or disk is full" in str(exc)
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC


def disk_full_message(path: os.PathLike | str) -> str:
    """'cannot write PATH: the disk is full (N free on FOLDER)': the free
    space of the file system holding ``path`` (shutil.disk_usage of its
    nearest existing folder), in bytes, KB, MB or GB."""
    folder = Path(os.path.abspath(path)).parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        free = _size_text(shutil.disk_usage(folder).free)
    except OSError:
        free = "unknown space"
    return f"cannot write {path}: the disk is full ({free} free on {folder})"


def _size_text(n: int) -> str:
    for unit, size in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


class NewerProjectError(ProjectError):
    """The project was written by a newer version of reviewer."""


class ProjectBusy(ProjectError):
    """Another program held the project's write lock for longer than the
    caller would wait; nothing was written."""


class ReadOnlyProject(ProjectError):
    """A write was asked of a project opened read-only; nothing was written."""


def now() -> str:
    """The current UTC time as ISO 8601 text, as stored in every table."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The row id an INSERT through ``cursor`` gave its new row. sqlite3 types
    ``lastrowid`` as optional (None before any INSERT); after one it is the
    new row's id, so None here is a programming error (RuntimeError)."""
    if cursor.lastrowid is None:
        raise RuntimeError("no row id: the cursor ran no INSERT")
    return cursor.lastrowid


def default_actor() -> str:
    """Who is making changes: $REVIEWER_NAME, else the login name."""
    return os.environ.get("REVIEWER_NAME") or os.environ.get("USER") or "unknown"


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc)
    return "locked" in text or "busy" in text


class Project:
    """An open project file. Use ``open_project`` to get one.

    ``db``: the sqlite_utils.Database; ``path``: the project file;
    ``root``: its folder, against which media paths are resolved;
    ``read_only``: None, or why the project could not be opened for writing
    (then ``db`` is an in-memory copy; see ReadOnlyProject).
    """

    def __init__(self, path: Path, db: sqlite_utils.Database, read_only: str | None = None):
        self.path = path
        self.root = path.parent
        self.db = db
        self.read_only = read_only
        self._depth = 0
        self._batch: Batch | None = None
        self._live: tuple[int, int] | None = None
        if read_only is None:
            self._live = _file_id(path)
            if self._live is not None:
                with _LIVE_LOCK:
                    _LIVE[self._live] = _LIVE.get(self._live, 0) + 1

    # -- transactions and audit -------------------------------------------
    def require_writable(self, action: str = "write to it") -> None:
        """Raise ReadOnlyProject ("cannot import: p.db is read-only (the file
        is not writable)") when the project was opened read-only."""
        if self.read_only:
            raise ReadOnlyProject(f"cannot {action}: {self.path} is read-only ({self.read_only})")

    def _begin(self, timeout: float | None, on_wait: Callable[[float], None] | None) -> None:
        """BEGIN IMMEDIATE, trying every few milliseconds until ``timeout``
        seconds (BUSY_TIMEOUT_S by default) have passed; ``on_wait(seconds)``
        is called once after WAIT_NOTICE_S of waiting. ProjectBusy when the
        lock did not come."""
        conn = self.db.conn
        limit = BUSY_TIMEOUT_S if timeout is None else timeout
        start = time.monotonic()
        told = False
        conn.execute(f"PRAGMA busy_timeout = {_TRY_MS}")
        try:
            while True:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if not _is_busy(exc):
                        raise
                waited = time.monotonic() - start
                if waited >= limit:
                    raise ProjectBusy(
                        f"the project {self.path} is locked by another program (waited {waited:.1f} s); try again"
                    )
                if on_wait is not None and not told and waited >= WAIT_NOTICE_S:
                    told = True
                    on_wait(waited)
                time.sleep(min(random.uniform(*_PAUSE_S), max(0.0, limit - waited)))
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")

    def _end(self, commit: bool) -> None:
        """COMMIT (``commit``) or ROLLBACK the open transaction. A failed
        COMMIT is rolled back and its own error raised, as a one-line
        DiskFull when the disk is full; SQLite may have rolled back itself
        (a full disk does), so a ROLLBACK is sent only while a transaction
        is still open and never hides the error that ended it."""
        conn = self.db.conn
        if not conn.in_transaction:
            return
        if commit:
            try:
                conn.execute("COMMIT")
                return
            except sqlite3.Error as exc:
                self._rollback_quietly()
                raise self.cause(exc) from exc
        conn.execute("ROLLBACK")

    def _rollback_quietly(self) -> None:
        conn = self.db.conn
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):  # the error that ended the transaction is the one to report
                conn.execute("ROLLBACK")

    def cause(self, exc: BaseException) -> BaseException:
        """The error to report for ``exc`` raised while writing the project:
        DiskFull (naming the project and the free space) for SQLite's
        'database or disk is full', else ``exc`` itself."""
        if is_disk_full(exc):
            return DiskFull(disk_full_message(self.path))
        return exc

    @contextmanager
    def transaction(
        self,
        *,
        derived: bool = False,
        timeout: float | None = None,
        on_wait: Callable[[float], None] | None = None,
    ) -> Iterator[sqlite_utils.Database]:
        """One write transaction (BEGIN IMMEDIATE); nested uses join the
        outer one. Commits on exit, rolls back on an exception.

        ``timeout``: seconds to wait for another program's write lock
        (default BUSY_TIMEOUT_S; 0: one try), then ProjectBusy; ``on_wait``:
        called once with the seconds waited when the lock is slow to come.
        ``derived``: the writes are data computed from the project (scores,
        disputes), allowed in a read-only project (in its in-memory copy);
        other writes there raise ReadOnlyProject.
        """
        if self._depth:
            self._depth += 1
            try:
                yield self.db
            finally:
                self._depth -= 1
            if self._depth == 1 and self._batch is not None and self._batch.auto:
                self._batch.tick()  # a whole nested write is done: a batch may end here
            return
        if not derived:
            self.require_writable()
        self._begin(timeout, on_wait)
        self._depth = 1
        try:
            yield self.db
        except BaseException as exc:
            self._depth = 0
            self._rollback_quietly()
            cause = self.cause(exc)
            if cause is not exc:
                raise cause from exc
            raise
        self._depth = 0
        self._end(commit=True)

    @contextmanager
    def batched(self, *, derived: bool = False, auto: bool = False) -> Iterator[Batch]:
        """A long write as a series of short transactions: yields a Batch
        whose ``tick()`` (call it between units of work) commits and starts
        a new transaction once BATCH_S has passed, pausing YIELD_S in
        between so other writers get in. With ``auto``, the end of every
        nested ``transaction()`` (each repo write: an item, a run with its
        audit row) is such a point too. Inside an outer transaction it joins
        that one and never commits early. ``derived`` as in transaction()."""
        with self.transaction(derived=derived):
            batch = Batch(self, own=self._depth == 1, auto=auto)
            outer, self._batch = self._batch, (batch if batch.own else self._batch)
            try:
                yield batch
            finally:
                self._batch = outer

    def audit(
        self,
        action: str,
        table: str,
        row_id: Any,
        before: Any = None,
        after: Any = None,
        actor: str | None = None,
    ) -> None:
        """Record who changed what, when, from what to what (JSON values)."""
        self.db.execute(
            "INSERT INTO audit (at, actor, action, table_name, row_id, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)",
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
    def meta(self, key: str, default: str | None = None) -> str | None:
        """A value of the ``meta`` table (text), or ``default``."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the ``meta`` table."""
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [key, value],
        )

    def close(self) -> None:
        """Close the connection (checkpoints the WAL when it is the last)."""
        self.db.close()
        if self._live is not None:
            with _LIVE_LOCK:
                left = _LIVE.get(self._live, 0) - 1
                if left > 0:
                    _LIVE[self._live] = left
                else:
                    _LIVE.pop(self._live, None)
            self._live = None


class Batch:
    """The handle of ``Project.batched``: ``tick()`` between units of work."""

    def __init__(self, project: Project, own: bool, auto: bool = False):
        self.project = project
        self.own = own
        self.auto = auto
        self.started = time.monotonic()
        self.commits = 0

    def tick(self) -> None:
        """Commit and begin again when the batch has held the write lock for
        BATCH_S or more (only when the batch owns its transaction)."""
        if not self.own or time.monotonic() - self.started < BATCH_S:
            return
        p = self.project
        p._end(commit=True)
        self.commits += 1
        time.sleep(YIELD_S)
        p._begin(None, None)
        self.started = time.monotonic()


def connect(target: str, uri: bool = False) -> sqlite_utils.Database:
    """A connection with no implicit transactions, the busy timeout and
    foreign keys on."""
    conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False, uri=uri)
    db = sqlite_utils.Database(conn)
    db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    db.execute("PRAGMA foreign_keys = ON")
    return db


def second_connection(project: Project) -> Project:
    """The same project through a connection of its own, for writing work
    on another thread (a connection never crosses threads; the close of a
    second SQLite connection keeps the first one's locks, SQLite tracks them
    per file). ``project`` itself when it lives in memory (opened
    read-only): there is no file to connect to. The caller closes what it
    got unless it is ``project``."""
    if project.read_only or not project.path.exists():
        return project
    return Project(project.path, connect(str(project.path)))


def open_project(path: os.PathLike | str, create: bool = False, read_only: bool = False) -> Project:
    """Open (or with ``create``, make) the project file at ``path`` and bring
    its schema up to date.

    The file is first looked at read-only (reviewer.storage.project.recognise), so a
    file that is not a project is never changed. A project that cannot be
    written (read-only file or folder, see ``read_only_reason``), or any
    project with ``read_only``, is copied into memory: ``Project.read_only``
    says why, nothing is written to or created beside the file.

    Raises ProjectError with a one-line message when the file is missing
    (and not ``create``), is a symbolic link that leads nowhere, is not an
    SQLite database, is corrupt, or is not a
    project; NewerProjectError when a newer reviewer wrote it; ProjectBusy
    when another program holds the lock while the schema must change.
    """
    path = Path(path)
    if path.is_dir():
        raise ProjectError(f"{path} is a folder, not a project file")
    if path.is_symlink() and not path.exists():
        raise ProjectError(
            f"{path} is a dangling symbolic link (to {os.readlink(path)}, which does not exist); "
            "give the project file itself"
        )
    if not path.exists():
        if not create:
            raise ProjectError(f"no project at {path} (make one with 'reviewer init {path}')")
        path.parent.mkdir(parents=True, exist_ok=True)
        folder = path.resolve().parent
        if not os.access(folder, os.W_OK):
            raise ProjectError(f"cannot make {path}: its folder is not writable")
        return _open_writable(path, create=True)
    found = look(path)
    if found.kind == "unreadable":
        raise ProjectError(f"{path} is not a reviewer project ({found.problem})")
    if found.kind == "foreign":
        raise ProjectError(f"{path} is an SQLite database but not a reviewer project")
    if found.kind == "empty" and not create:
        raise ProjectError(f"{path} is empty, not a reviewer project")
    if found.unknown:
        raise NewerProjectError(
            f"{path} was written by a newer version of reviewer "
            f"(schema {found.unknown[-1]}); update reviewer to open it"
        )
    repair_sidecars(path)
    why = "opened read-only" if read_only else read_only_reason(path)
    if why:
        if found.kind == "empty":
            raise ReadOnlyProject(f"cannot make a project in {path}: it is read-only ({why})")
        return _open_copy(path, why)
    return _open_writable(path, create=found.kind == "empty")


def _open_writable(path: Path, create: bool) -> Project:
    db = project = None
    try:
        db = connect(str(path))
        project = Project(path, db)
        _enable_wal(db)
        if create or MIGRATIONS.pending(db):
            with project.transaction():  # checked again under the write lock
                tables = set(db.table_names())
                if tables and "meta" not in tables:  # made by another program meanwhile
                    raise ProjectError(f"{path} is an SQLite database but not a reviewer project")
                _check_version(db, path)
                MIGRATIONS.apply(db)
        return project
    except (ProjectError, sqlite3.DatabaseError) as exc:
        if project is not None:
            project.close()
        elif db is not None:
            db.close()
        if isinstance(exc, ProjectError):
            raise
        if is_disk_full(exc):
            raise DiskFull(disk_full_message(path)) from exc
        if _is_busy(exc):
            raise ProjectBusy(f"the project {path} is locked by another program; try again") from exc
        raise ProjectError(f"{path} is not a reviewer project ({exc})") from exc


def _enable_wal(db: sqlite_utils.Database) -> None:
    """Put the file in WAL mode (once: the mode is kept in the file). Changing
    the journal mode does not wait on SQLite's busy handler, so while another
    program creates the same project it is retried for up to BUSY_TIMEOUT_S,
    like every other write."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            if db.journal_mode != "wal":
                db.enable_wal()
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0.001, 0.004))


def _open_copy(path: Path, why: str) -> Project:
    """The project at ``path`` copied into memory, creating nothing beside
    it: read through an immutable read-only connection, or, when a -wal with
    content is there, from a copy of the file and its -wal in a temporary
    folder (SQLite replays the -wal there). A file this process holds a
    connection to is never copied with OS calls (that would drop SQLite's
    locks, see open_here): it is read through a read-only connection that
    uses its -wal and -shm."""
    mem = connect(":memory:")
    wal, _ = sidecars(path)
    try:
        if wal.exists() and wal.stat().st_size and not open_here(path):
            with tempfile.TemporaryDirectory(prefix="reviewer-ro-") as tmp:
                copy = Path(tmp) / path.name
                shutil.copyfile(path, copy)
                shutil.copyfile(wal, Path(tmp) / wal.name)
                src = sqlite3.connect(str(copy))
                try:
                    src.backup(mem.conn)
                finally:
                    src.close()
        else:  # a file this process holds open has its -wal and -shm: read them, no copy (open_here)
            src = sqlite3.connect(read_only_uri(path, immutable=not open_here(path)), uri=True)
            try:
                src.backup(mem.conn)
            finally:
                src.close()
        project = Project(path, mem, read_only=why)
        if MIGRATIONS.pending(mem):
            with project.transaction(derived=True):
                MIGRATIONS.apply(mem)
        return project
    except (OSError, sqlite3.Error) as exc:
        mem.close()
        raise ProjectError(f"cannot read {path} ({why}): {exc}") from exc


def _check_version(db: sqlite_utils.Database, path: Path) -> None:
    """Refuse a project that has migrations this version does not know."""
    if "_sqlite_migrations" not in db.table_names():
        return
    known = {m.name for m in MIGRATIONS._migrations}
    applied = {m.name for m in MIGRATIONS.applied(db)}
    unknown = sorted(applied - known)
    if unknown:
        raise NewerProjectError(
            f"{path} was written by a newer version of reviewer (schema {unknown[-1]}); update reviewer to open it"
        )
