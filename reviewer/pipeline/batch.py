"""Batch files in: the answers of a batch engine read back
(docs/runner.md#batch-files; the requests went out through
reviewer.pipeline.batch_out).

Answers in (:func:`import_output`): each line of a Batch output file
(``id``, ``custom_id``, ``response: {status_code, body}``, ``error``) is
stored against its reservation through the live run's own job
(pipeline.ask.job_for, pipeline.judge.job_for): the same parsing
(clients.chat.read_answer), the same judge reading, usage and cost
(pipeline.execute.deliver). An error line (``error``, or a status other
than 200) is a failed attempt with its message. A line whose custom_id no
batch holds, or whose request is already answered, is reported and not
stored; a line read before adds nothing. An answer that arrives after its
reservation expired is stored when its request is unanswered, and the
report says so. Why through the live run's jobs: decision record
"batch-answers-stored-by-the-live-path".
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from reviewer.clients.chat import ChatAnswer, ChatError, read_answer
from reviewer.pipeline import ask as asking
from reviewer.pipeline import judge as judging
from reviewer.pipeline.batch_out import BatchError
from reviewer.pipeline.execute import Job, RunSummary, deliver, fail
from reviewer.storage.importers.base import ImportReport
from reviewer.storage.project.db import Project
from reviewer.storage.repo import batches
from reviewer.storage.repo.sources import record_source
from reviewer.storage.scoring import score_project

#: The longest line of an output file read (bytes); a longer one is reported and not stored.
MAX_LINE_BYTES = 64_000_000


def _error(value: dict) -> ChatError | None:
    """The failure a line reports (``error``, or a response whose status is
    not 200), or None for an answer."""
    error = value.get("error")
    response: dict = value["response"] if isinstance(value.get("response"), dict) else {}
    status = response.get("status_code")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        code = error.get("code") if isinstance(error, dict) else None
        text = " ".join(str(message or code or error).split())[:200]
        return ChatError(
            f"batch error{f' {code}' if code else ''}: {text}", status=status if isinstance(status, int) else None
        )
    if status != 200:
        body = " ".join(json.dumps(response.get("body"), ensure_ascii=False).split())[:200]
        return ChatError(f"HTTP {status}: {body}", status=status if isinstance(status, int) else None)
    return None


def import_output(project: Project, path: Path, actor: str | None = None) -> ImportReport:
    """Store the answers of Batch output file ``path`` (module doc). New
    runs are scored at once, as after a live run. Returns the report:
    added runs, verdicts and failed attempts; lines read before as
    already present; lines not stored with the reason; a note for answers
    that came after their reservation expired. Raises ReadOnlyProject for
    a read-only project, BatchError when the file cannot be read."""
    project.require_writable("import a batch's answers")
    report = ImportReport(format="batch-output")
    new_runs: list[int] = []
    late = 0
    summary = RunSummary()
    try:
        fh = open(path, "rb")  # noqa: SIM115 (closed by the with below; an error opening it is told apart)
    except OSError as exc:
        raise BatchError(f"cannot read {path}: {exc}") from None
    with fh:
        for number, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            where = f"line {number}"
            if len(raw) > MAX_LINE_BYTES:
                report.skip(where, f"longer than {MAX_LINE_BYTES} bytes")
                continue
            try:
                value: Any = json.loads(raw)
            except (ValueError, RecursionError):
                report.skip(where, "not a JSON object")
                continue
            if not isinstance(value, dict) or not isinstance(value.get("custom_id"), str):
                report.skip(where, "no custom_id: not a Batch output line")
                continue
            custom_id = value["custom_id"]
            where = f"line {number} ({custom_id})"
            # a line is known by its id with its custom_id (an engine's ids need only be unique in its file)
            line_id = f"{value.get('id') or hashlib.sha256(raw.strip()).hexdigest()} {custom_id}"
            if batches.line_read(project, line_id):
                report.count("lines", False)
                continue
            held = batches.reservation(project, custom_id)
            if held is None:
                report.skip(where, "no batch file written from this project holds this custom_id")
                continue
            try:
                job = _job(project, held.request, new_runs, actor)
            except (ValueError, KeyError, TypeError) as exc:
                report.skip(where, f"cannot be stored: {exc}")
                continue
            if held.state == "answered" or (job.stored is not None and job.stored()):
                report.skip(where, "already answered: not stored again")
                continue
            outcome = _store(project, job, value, held, line_id, summary)
            if outcome == "failed":
                report.count("failed attempts", True)
            else:
                report.count("runs" if held.request.get("kind") == "answer" else "verdicts", True)
                late += int(held.expired)
    if new_runs:
        score_project(project, run_ids=new_runs)
    if late:
        report.notes.append(
            f"{late} answer(s) came after their reservation expired; stored, as their requests were unanswered"
        )
    if summary.prompt_tokens or summary.completion_tokens:
        report.notes.append(f"tokens {summary.prompt_tokens} in + {summary.completion_tokens} out")
    record_source(project, path, "batch-output")
    return report


def _job(project: Project, what: dict, new_runs: list[int], actor: str | None) -> Job:
    """The live run's job for a reservation's ``what``."""
    if what.get("kind") == "answer":
        return asking.job_for(project, what, new_runs, actor)
    if what.get("kind") == "judge":
        return judging.job_for(project, what, actor)
    raise ValueError(f"unknown request kind {what.get('kind')!r}")


def _store(
    project: Project, job: Job, value: dict, held: batches.Reservation, line_id: str, summary: RunSummary
) -> str:
    """Store one line's answer or failure with its reservation settled, in
    one transaction. Returns 'answered' or 'failed'."""
    with project.transaction():
        error = _error(value)
        answer: ChatAnswer | None = None
        if error is None:
            try:
                answer = read_answer(value["response"].get("body"))
            except ChatError as exc:
                error = exc
        if answer is not None:
            answer.latency_ms = None  # not measured: the batch engine does not say
            answer.params = dict(held.request.get("params") or {})
            ok = deliver(job, answer, summary)
        else:
            assert error is not None
            fail(job, error, summary)
            ok = False
        batches.settle(project, held.custom_id, "answered" if ok else "failed", line_id)
    return "answered" if ok else "failed"
