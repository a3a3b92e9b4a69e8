"""reviewer's record of the files it wrote: each file's path and sha256, so a
writer replaces a file only when reviewer wrote it and nobody changed it
since (decision record written-files-recorded-per-user).

The record is an SQLite file, ``written.db``, in reviewer's user data
folder: ``$REVIEWER_DATA_DIR`` when set, else ``$XDG_DATA_HOME/reviewer``,
else ``~/.local/share/reviewer``. One row per file, keyed by its absolute
path with symbolic links resolved: ``(path, sha256, size, written_at)``.
Nothing is added to the written files themselves, so an export's bytes do
not depend on the record.

``safe_write`` calls ``remember`` after every file it puts in place and
``owned`` before it replaces one. A record that cannot be read or written
(a read-only home) never fails a write: the file is written and not
recorded, so the next write to it asks for ``--force``.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

#: The record's file name in the data folder.
RECORD_NAME = "written.db"
#: Seconds a writer waits for another one's lock on the record.
_BUSY_S = 10.0
_CHUNK = 1 << 20


def data_folder() -> Path:
    """reviewer's user data folder (module doc): $REVIEWER_DATA_DIR, else
    $XDG_DATA_HOME/reviewer, else ~/.local/share/reviewer."""
    given = os.environ.get("REVIEWER_DATA_DIR")
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else Path.home() / ".local" / "share") / "reviewer"


def record_path() -> Path:
    """Where the record of written files is kept."""
    return data_folder() / RECORD_NAME


def key(path: os.PathLike | str) -> str:
    """The record's key of ``path``: absolute, symbolic links resolved."""
    return os.path.realpath(os.path.abspath(path))


def sha256_file(path: os.PathLike | str) -> str:
    """The hex sha256 of the file at ``path`` (read in 1 MB chunks). Raises OSError."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def _connect(create: bool) -> sqlite3.Connection | None:
    path = record_path()
    if not create and not path.exists():
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path, timeout=_BUSY_S, isolation_level=None)
    con.execute(
        "CREATE TABLE IF NOT EXISTS written (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, "
        "size INTEGER NOT NULL, written_at TEXT NOT NULL)"
    )
    return con


def remember(path: os.PathLike | str, sha256: str, size: int) -> bool:
    """Record that reviewer just wrote ``path`` with content ``sha256`` of
    ``size`` bytes (replacing an earlier row). Returns False, recording
    nothing, when the record cannot be written (module doc)."""
    try:
        con = _connect(create=True)
        assert con is not None
        try:
            con.execute(
                "INSERT INTO written (path, sha256, size, written_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(path) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size, "
                "written_at = excluded.written_at",
                [key(path), sha256, size, datetime.now(UTC).isoformat(timespec="seconds")],
            )
        finally:
            con.close()
    except (OSError, sqlite3.Error):
        return False
    return True


def owned(path: os.PathLike | str) -> bool:
    """True when the record lists the regular file at ``path`` with its
    current size and sha256 (it is hashed only when the size agrees);
    False when it is not listed, was changed since, or the record cannot
    be read."""
    try:
        con = _connect(create=False)
        if con is None:
            return False
        try:
            row = con.execute("SELECT sha256, size FROM written WHERE path = ?", [key(path)]).fetchone()
        finally:
            con.close()
        if row is None or os.stat(path).st_size != row[1]:
            return False
        return sha256_file(path) == row[0]
    except (OSError, sqlite3.Error):
        return False


__all__ = ["RECORD_NAME", "data_folder", "key", "owned", "record_path", "remember", "sha256_file"]
