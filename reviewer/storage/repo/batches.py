"""Batch reservations: requests written to a batch file, held for it.

A request written to a batch file (``reviewer run/judge --batch-out``) is
answered somewhere else, hours later (a provider's Batch API, vLLM's
``run_batch``). Its reservation is therefore persistent, unlike a live
run's (reviewer.storage.repo.reservations): keyed by the batch line's
``custom_id`` (the request's reservation key), with the batch file's name
and an expiry (48 h by default). While it is ``waiting`` and not expired, a
live run does not ask the request (``held``). Importing the batch's output
settles it: ``answered``, or ``failed`` (an error line: a failed attempt;
the request may be asked again). ``cancel`` releases a file's waiting
requests. An answer that arrives after its reservation expired is still
stored when its request is unanswered: the expiry only frees the request
for live runs.

Table ``batch_lines`` keeps the id of every output line read, so importing
the same output twice adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from reviewer.storage.project.db import Project, now

#: How long a batch holds its requests by default (hours).
DEFAULT_EXPIRES_H = 48.0


def expiry(hours: float, start: datetime | None = None) -> str:
    """The expiry, ``hours`` after ``start`` (now), as stored (UTC ISO 8601, ms)."""
    at = (start or datetime.now(UTC)) + timedelta(hours=hours)
    return at.isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Reservation:
    """One request held for a batch: ``custom_id``, batch ``file`` name,
    ``request`` (what it stands for, a dict), times (ISO 8601), ``state``."""

    custom_id: str
    file: str
    request: dict
    created_at: str
    expires_at: str
    state: str

    @property
    def expired(self) -> bool:
        """The hold has expired (a live run may ask the request again)."""
        return self.expires_at <= now()


def held(project: Project, custom_id: str) -> bool:
    """True when a batch holds ``custom_id`` now: waiting and not expired."""
    return (
        project.db.execute(
            "SELECT 1 FROM batch_reservations WHERE custom_id = ? AND state = 'waiting' AND expires_at > ?",
            [custom_id, now()],
        ).fetchone()
        is not None
    )


def reserve(project: Project, entries: Iterable[tuple[str, str, dict]], expires_at: str) -> int:
    """Hold every (custom_id, file name, request) for its batch until
    ``expires_at``, in one transaction; a request held before (answered
    requests are never written, failed or expired ones may be again) is
    held anew for the new file. Returns how many were reserved."""
    n = 0
    created = now()
    with project.transaction():
        for custom_id, file, request in entries:
            project.db.execute(
                "INSERT INTO batch_reservations (custom_id, file, request, created_at, expires_at, state) "
                "VALUES (?, ?, ?, ?, ?, 'waiting') ON CONFLICT(custom_id) DO UPDATE SET file = excluded.file, "
                "request = excluded.request, created_at = excluded.created_at, expires_at = excluded.expires_at, "
                "state = 'waiting', settled_at = NULL",
                [custom_id, file, json.dumps(request, sort_keys=True), created, expires_at],
            )
            n += 1
    return n


def reservation(project: Project, custom_id: str) -> Reservation | None:
    """The reservation of ``custom_id``, or None when no batch holds it."""
    row = project.db.execute(
        "SELECT custom_id, file, request, created_at, expires_at, state FROM batch_reservations WHERE custom_id = ?",
        [custom_id],
    ).fetchone()
    if row is None:
        return None
    return Reservation(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5])


def settle(project: Project, custom_id: str, state: str, line_id: str) -> None:
    """Mark ``custom_id`` answered or failed by output line ``line_id``
    (call inside the transaction that stores the answer)."""
    project.db.execute(
        "UPDATE batch_reservations SET state = ?, settled_at = ? WHERE custom_id = ?", [state, now(), custom_id]
    )
    seen(project, line_id, custom_id)


def seen(project: Project, line_id: str, custom_id: str) -> None:
    """Remember that output line ``line_id`` was read."""
    project.db.execute(
        "INSERT OR IGNORE INTO batch_lines (line_id, custom_id, imported_at) VALUES (?, ?, ?)",
        [line_id, custom_id, now()],
    )


def line_read(project: Project, line_id: str) -> bool:
    """True when output line ``line_id`` was read by an earlier import."""
    return project.db.execute("SELECT 1 FROM batch_lines WHERE line_id = ?", [line_id]).fetchone() is not None


@dataclass(frozen=True)
class BatchFile:
    """A batch file's requests by state, its earliest expiry and whether
    its waiting requests have expired."""

    file: str
    waiting: int
    answered: int
    failed: int
    expires_at: str
    expired: bool


def batch_files(project: Project) -> list[BatchFile]:
    """Every batch file with reservations, in the order written."""
    rows = project.db.execute(
        "SELECT file, sum(state = 'waiting'), sum(state = 'answered'), sum(state = 'failed'), max(expires_at) "
        "FROM batch_reservations GROUP BY file ORDER BY min(created_at), file"
    ).fetchall()
    at = now()
    return [BatchFile(f, w, a, x, e, e <= at) for f, w, a, x, e in rows]


def cancel(project: Project, file: str) -> int:
    """Release the waiting requests of batch file ``file`` (its name, or a
    path whose last part is its name); live runs may ask them again and an
    output line of theirs reserves nothing any more. Returns how many."""
    name = file.replace("\\", "/").rsplit("/", 1)[-1]
    with project.transaction():
        cur = project.db.execute(
            "DELETE FROM batch_reservations WHERE file IN (?, ?) AND state = 'waiting'", [file, name]
        )
    return cur.rowcount
