"""A run claims what it asks: reservations of requests in the project.

Before a run (``reviewer run``, ``reviewer judge``, the window's Run menu)
sends a request, it reserves the request's key in one short transaction
(``Reservations.claim``). The claim looks again, under the write lock,
whether the answer is stored by now (another run may have stored it since
this one made its plan) and whether another run holds the key; only when
neither is so is the key reserved and the request sent. So two runs at once
on one project never ask the same thing twice, and no answer is thrown away.

* A key is released when its answer is stored; a failed request keeps its
  key until the run ends (another run at once does not retry it at the same
  moment; the next run does), and every key of a run is released when it
  ends (``close``: done, cancelled, Ctrl+C).
* A key whose process is gone (a kill) is taken over by the next claim:
  ``pid`` is checked on this host (a process that no longer exists, a
  zombie, or one started at another time than the recorded one, which
  reused the pid, is gone; a run of this very process is gone once it
  closed). A key of another host is honoured for STALE_AFTER_S.
* A key a batch file holds (reviewer.storage.repo.batches: written with
  ``--batch-out``, not answered, not expired) is not claimed: 'batched'.
"""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from reviewer.storage.project.db import Project, now
from reviewer.storage.repo import batches

#: A reservation made on another host is taken over after this many seconds.
STALE_AFTER_S = 3600.0

# owners (run tokens) of this process whose run has not closed yet
_ACTIVE: set[str] = set()
_ACTIVE_LOCK = threading.Lock()
_HOST = socket.gethostname()


def answer_key(item_id: int, prompt_id: int, model: str, repetition: int) -> str:
    """The reservation key of a model's answer (a run)."""
    return f"answer|{item_id}|{prompt_id}|{model}|{repetition}"


def verdict_key(subject: str, judge: str, method: str, answer_order: str | None, repetition: int) -> str:
    """The reservation key of a judge's verdict."""
    return f"judge|{subject}|{judge}|{method}|{answer_order or ''}|{repetition}"


def _proc_stat(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command (Linux), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def process_started(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot, as text), or ''
    where the system does not say (not Linux)."""
    fields = _proc_stat(pid)
    return fields[19].decode() if fields is not None and len(fields) > 19 else ""


def process_alive(pid: int, started: str = "") -> bool:
    """True when process ``pid`` exists on this host, is not a zombie (a
    killed process its parent has not reaped yet) and, when ``started`` is
    given and known, started then (else the pid was reused)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    except OSError:
        return False
    fields = _proc_stat(pid)
    if fields is None:
        return True
    if fields[0] in (b"Z", b"X"):
        return False
    return not started or len(fields) <= 19 or fields[19].decode() == started


def holder_alive(owner: str, pid: int, started: str, host: str, claimed_at: str) -> bool:
    """Whether the run that made a reservation may still be going on (module doc)."""
    if host != _HOST:
        try:
            at = datetime.fromisoformat(claimed_at)
        except ValueError:
            return False
        return datetime.now(UTC) - at < timedelta(seconds=STALE_AFTER_S)
    if pid == os.getpid():
        with _ACTIVE_LOCK:
            return owner in _ACTIVE
    return process_alive(pid, started)


_STARTED = process_started(os.getpid())


class Reservations:
    """The reservations of one run on ``project`` (module doc). Use as a
    context manager, or call ``close()`` when the run ends."""

    def __init__(self, project: Project):
        self.project = project
        self.owner = uuid.uuid4().hex
        self.pid = os.getpid()
        self.started = _STARTED
        with _ACTIVE_LOCK:
            _ACTIVE.add(self.owner)

    def __enter__(self) -> Reservations:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def claim(self, key: str, stored: Callable[[], bool] | None = None) -> str:
        """Reserve ``key`` in one transaction. Returns 'claimed' (send the
        request), 'stored' (``stored()`` says the answer is in the project by
        now: nothing to ask), 'taken' (another live run holds it) or
        'batched' (a batch file holds it: module doc).
        Raises ReadOnlyProject / ProjectBusy as any write."""
        p = self.project
        with p.transaction():
            if stored is not None and stored():
                return "stored"
            if batches.held(p, key):
                return "batched"
            row = p.db.execute(
                "SELECT owner, pid, started, host, claimed_at FROM reservations WHERE key = ?", [key]
            ).fetchone()
            if row is not None and row[0] != self.owner and holder_alive(*row):
                return "taken"
            p.db.execute(
                "INSERT INTO reservations (key, owner, pid, started, host, claimed_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, pid = excluded.pid, "
                "started = excluded.started, host = excluded.host, claimed_at = excluded.claimed_at",
                [key, self.owner, self.pid, self.started, _HOST, now()],
            )
        return "claimed"

    def release(self, key: str) -> None:
        """Give ``key`` back (its answer is stored)."""
        with self.project.transaction():
            self.project.db.execute("DELETE FROM reservations WHERE key = ? AND owner = ?", [key, self.owner])

    def close(self) -> None:
        """Give back every key of this run (the run ended). A failure to
        write is ignored: the keys are then taken over as a dead run's."""
        with _ACTIVE_LOCK:
            _ACTIVE.discard(self.owner)
        try:
            with self.project.transaction():
                self.project.db.execute("DELETE FROM reservations WHERE owner = ?", [self.owner])
        except Exception:  # noqa: BLE001 - closing must not hide the run's own outcome
            pass

    def held(self) -> list[str]:
        """The keys this run holds now."""
        return [
            r[0]
            for r in self.project.db.execute("SELECT key FROM reservations WHERE owner = ? ORDER BY key", [self.owner])
        ]
