"""Send many chat requests with bounded concurrency and hand each answer
or failure to a callback as it arrives (docs/runner.md).

``execute(jobs, settings, progress, cancel)`` runs an asyncio loop in the
calling thread: ``concurrency`` workers take jobs in order; each answer is
passed to its job's ``on_answer`` (which stores it, in this thread, so one
SQLite connection is enough) and each request that still fails after its
retries to ``on_failure``. Setting ``cancel`` stops at once: no new job
is taken and the requests in flight are abandoned (their answers are not
stored, so they are asked again next time; the window's Cancel must not
wait for a slow model). A KeyboardInterrupt stops at once too; what was
stored stays stored.

A reply that its ``on_answer`` cannot use (a value that overflows, a reply
nested past Python's recursion limit, any ValueError or TypeError while
reading or storing it) is a failed attempt with the reason, passed to
``on_failure`` like a request that failed: the other jobs go on, and the
answers in flight are stored as they arrive.

With ``reservations`` (reviewer.storage.repo.reservations), a job with a ``key``
is claimed in the project right before its request is sent: a job another
run holds, or whose answer another run stored meanwhile, is not sent
(counted in ``taken`` / ``skipped``), nor one a batch file holds
(``batched``: reviewer.storage.repo.batches). A key is released once its answer is
stored; every key of the run when it ends, however it ends.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from reviewer.clients.chat import (
    DEFAULT_KEY_ENV,
    DEFAULT_MAX_RESPONSE_BYTES,
    ChatAnswer,
    ChatClient,
    ChatError,
    ChatRequest,
    api_key,
)
from reviewer.storage.repo.reservations import Reservations


@dataclass(frozen=True)
class Settings:
    """How to reach an endpoint: ``endpoint`` (base URL ending in /v1),
    ``key_env`` (the environment variable holding the key), concurrency,
    retries (extra attempts), timeout (the deadline of one attempt) and
    first backoff (seconds), and the largest answer read
    (``max_response_bytes``, decompressed; 10 MB)."""

    endpoint: str
    key_env: str = DEFAULT_KEY_ENV
    concurrency: int = 4
    retries: int = 3
    timeout: float = 120.0
    backoff: float = 1.0
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES


@dataclass
class Job:
    """One request and what to do with its outcome. ``label``: for error
    lines ('item/prompt rep 2'); ``key``: its reservation key (module doc);
    ``stored()``: True when its answer is in the project by now;
    ``what``: what it stands for (JSON), so its answer can be stored from
    a batch's output as a live run stores it."""

    request: ChatRequest
    on_answer: Callable[[ChatAnswer], None]
    on_failure: Callable[[ChatError], None]
    label: str = ""
    key: str | None = None
    stored: Callable[[], bool] | None = None
    what: dict | None = None  # what it stands for, kept with a batch file's reservation (reviewer.pipeline.batch)


@dataclass
class RunSummary:
    """What a job did: ``planned`` (all combinations), ``skipped`` (stored
    before: not asked), ``taken`` (another run at the same time asks
    them: not asked), ``batched`` (a batch file holds them: not asked),
    ``asked`` (sent), ``answered``, ``failed``,
    ``truncated`` (finish_reason length), tokens, wall time (s),
    ``cancelled``, and the failures as (label, error) lines."""

    planned: int = 0
    skipped: int = 0
    taken: int = 0
    batched: int = 0
    asked: int = 0
    answered: int = 0
    failed: int = 0
    truncated: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    wall_s: float = 0.0
    cancelled: bool = False
    errors: list[tuple[str, str]] = field(default_factory=list)

    def add(self, other: RunSummary) -> RunSummary:
        """Add ``other``'s counts, tokens, wall time and errors to this
        summary (cancelled when either was); returns self."""
        for name in (
            "planned",
            "skipped",
            "taken",
            "batched",
            "asked",
            "answered",
            "failed",
            "truncated",
            "prompt_tokens",
            "completion_tokens",
            "wall_s",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.errors += other.errors
        self.cancelled = self.cancelled or other.cancelled
        return self

    def line(self) -> str:
        """One line for the end of a command."""
        taken = f", asked by another run {self.taken}" if self.taken else ""
        taken += f", held by a batch file {self.batched} (reviewer batches lists them)" if self.batched else ""
        text = (
            f"asked {self.asked}, answered {self.answered}, failed {self.failed}"
            f"{f', truncated {self.truncated}' if self.truncated else ''}, "
            f"already stored {self.skipped}{taken}; tokens {self.prompt_tokens} in + {self.completion_tokens} out; "
            f"wall time {self.wall_s:.1f} s"
        )
        return text + (" (stopped early: run the same command again to continue)" if self.cancelled else "")


Progress = Callable[[int, int, RunSummary], None]
#: How often a job with a cancel event looks at it while requests are in flight (seconds).
CANCEL_POLL_S = 0.05


def execute(
    jobs: Sequence[Job],
    settings: Settings,
    summary: RunSummary | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    reservations: Reservations | None = None,
) -> RunSummary:
    """Send every job's request (see module doc) and return the summary
    (``summary`` is filled in when given: planned and skipped are the
    caller's). ``progress(done, total, summary)`` after each outcome.
    ``reservations``: claim each keyed job before sending it (module doc);
    closed here when the jobs end."""
    summary = summary or RunSummary(planned=len(jobs))
    started = time.perf_counter()
    try:
        if jobs:
            asyncio.run(_run(list(jobs), settings, summary, progress, cancel, reservations))
    finally:
        summary.wall_s = time.perf_counter() - started
        if reservations is not None:
            reservations.close()
    return summary


async def _run(
    jobs: list[Job],
    settings: Settings,
    summary: RunSummary,
    progress: Progress | None,
    cancel: threading.Event | None,
    reservations: Reservations | None = None,
) -> None:
    queue: asyncio.Queue = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)
    total = len(jobs)
    done = 0
    key = api_key(settings.key_env)

    async def worker(client: ChatClient) -> None:
        nonlocal done
        while True:
            if cancel is not None and cancel.is_set():
                summary.cancelled = True
                return
            try:
                job = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            if _claim(job, reservations, summary):
                await _ask(client, job, summary, key, reservations)
            done += 1
            if progress is not None:
                progress(done, total, summary)

    async with ChatClient(
        settings.endpoint,
        key,
        concurrency=settings.concurrency,
        retries=settings.retries,
        timeout=settings.timeout,
        backoff=settings.backoff,
        max_bytes=settings.max_response_bytes,
    ) as client:
        tasks = [asyncio.ensure_future(worker(client)) for _ in range(min(settings.concurrency, len(jobs)))]
        await _finish(tasks, cancel, summary)


def _claim(job: Job, reservations: Reservations | None, summary: RunSummary) -> bool:
    """Whether ``job`` is to be sent: True without reservations or a key, or once its key
    is claimed. Else it is counted in ``summary``: skipped (another run stored its answer),
    batched (a batch file holds it) or taken (another run asks it)."""
    if reservations is None or job.key is None:
        return True
    claim = reservations.claim(job.key, job.stored)  # storing is synchronous too: one connection
    if claim == "claimed":
        return True
    if claim == "stored":
        summary.skipped += 1
    elif claim == "batched":
        summary.batched += 1
    else:
        summary.taken += 1
    return False


async def _ask(
    client: ChatClient, job: Job, summary: RunSummary, key: str | None, reservations: Reservations | None
) -> None:
    """Send ``job``'s request and hand its answer (``deliver``) or failure (``fail``) on;
    a stored answer releases the job's key."""
    summary.asked += 1
    try:
        answer = await client.chat(job.request)
    except ChatError as exc:
        fail(job, exc, summary)
    else:
        if deliver(job, answer, summary, key) and reservations is not None and job.key is not None:
            reservations.release(job.key)


async def _finish(tasks: Sequence[asyncio.Future], cancel: threading.Event | None, summary: RunSummary) -> None:
    """Wait for the workers ``tasks``. With ``cancel``, look at it every CANCEL_POLL_S: once
    set, the summary is marked cancelled and the tasks in flight are abandoned. A
    callback's error is raised here, as with gather."""
    if cancel is None:
        await asyncio.gather(*tasks)
        return
    pending = set(tasks)
    while pending:
        done_now, pending = await asyncio.wait(pending, timeout=CANCEL_POLL_S)
        for task in done_now:
            task.result()  # an error of a callback is raised here, as with gather
        if pending and cancel.is_set():
            summary.cancelled = True
            for task in pending:
                task.cancel()  # storing is synchronous: a task is never cancelled half-way through it
            await asyncio.gather(*pending, return_exceptions=True)
            return


def deliver(job: Job, answer: ChatAnswer, summary: RunSummary, key: str | None = None) -> bool:
    """Hand ``answer`` to ``job.on_answer`` and count it in ``summary``;
    a reply it cannot use (UNUSABLE) is a failed attempt with the reason
    (``fail``), the ``key`` redacted from it. Returns True when stored.
    The live run and the import of a batch's output (reviewer.pipeline.batch)
    both store answers through here."""
    try:
        job.on_answer(answer)
    except UNUSABLE as exc:
        reason = unusable_reason(exc)
        fail(
            job,
            ChatError(
                f"unusable reply: {reason.replace(key, '***') if key else reason}",
                status=200,
                attempts=answer.attempts,
            ),
            summary,
        )
        return False
    summary.answered += 1
    summary.truncated += int(answer.truncated)
    summary.prompt_tokens += answer.prompt_tokens or 0
    summary.completion_tokens += answer.completion_tokens or 0
    return True


def fail(job: Job, exc: ChatError, summary: RunSummary) -> None:
    """A request that failed for good: counted, listed and handed to ``job.on_failure``."""
    summary.failed += 1
    summary.errors.append((job.label, str(exc)))
    job.on_failure(exc)


#: What an ``on_answer`` may raise for a reply it cannot use (module doc).
UNUSABLE = (ValueError, TypeError, OverflowError, RecursionError)


def unusable_reason(exc: BaseException) -> str:
    """One line (at most 200 characters) saying why a reply could not be used."""
    if isinstance(exc, RecursionError):
        return "nested too deeply to read"
    text = " ".join(str(exc).split())[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def answer_facts(answer: ChatAnswer) -> dict:
    """The facts of an answer as storage.judging.calls takes them."""
    return {
        "server_model": answer.server_model,
        "finish_reason": answer.finish_reason,
        "truncated": answer.truncated,
        "prompt_tokens": answer.prompt_tokens,
        "completion_tokens": answer.completion_tokens,
        "total_tokens": answer.total_tokens,
        "latency_ms": answer.latency_ms,
        "attempts": answer.attempts,
        "params": answer.params,
        "retry_errors": list(getattr(answer, "retry_errors", None) or []),
        "total_ms": answer.total_ms,
    }
