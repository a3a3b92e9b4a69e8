"""Batch files out: every request a run would send, written in the OpenAI
Batch format and held for the file (docs/runner.md#batch-files).

``BatchOut`` collects the jobs of ``run_models`` / ``judge_runs`` (``add``)
and writes them (``write``) as lines ``{"custom_id", "method": "POST",
"url": "/v1/chat/completions", "body": the chat-completions body}``, the
format a provider's Batch API and vLLM's ``run_batch`` read; nothing is
sent. ``custom_id`` is the request's reservation key, naming the run
(``answer|item id|prompt id|model|repetition``) or verdict
(``judge|subject|judge|method|answer order|repetition``) it stands for.
Files are split at the Batch API's limits, 50,000 lines or 200 MB
(``max_lines``, ``max_bytes``): FILE when one is enough, else
``<stem>-1<suffix>``, ``<stem>-2<suffix>``...; an existing file is never
replaced. Each request written is held for its file
(reviewer.storage.repo.batches) until ``expires_h`` hours have passed; a
request stored, or held by another batch file, is not written. The
answers come back through reviewer.pipeline.batch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.pipeline.execute import Job, RunSummary
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.repo import batches

#: The Batch API's limits of one input file.
MAX_LINES = 50_000
MAX_BYTES = 200_000_000
#: The endpoint a chat-completions batch line names.
URL = "/v1/chat/completions"


class BatchError(ProjectError):
    """A batch file that cannot be written or read (message for the user)."""


@dataclass
class BatchOut:
    """The batch file(s) to write at ``path`` (module doc): jobs are added
    by run_models / judge_runs (``add``), then ``write`` writes and
    reserves them. ``written``: the files written."""

    path: Path
    expires_h: float = batches.DEFAULT_EXPIRES_H
    max_lines: int = MAX_LINES
    max_bytes: int = MAX_BYTES
    lines: list[tuple[str, bytes, dict]] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)

    def add(self, project: Project, jobs: list[Job], summary: RunSummary) -> None:
        """Add each job's request as a line, unless its answer is stored by
        now (``summary.skipped``) or a batch file holds it
        (``summary.batched``). ``summary.asked`` counts the lines added."""
        known = {c for c, _, _ in self.lines}
        for job in jobs:
            key = job.key or ""
            if job.stored is not None and job.stored():
                summary.skipped += 1
            elif batches.held(project, key):
                summary.batched += 1
            elif key not in known:
                known.add(key)
                line = {"custom_id": key, "method": "POST", "url": URL, "body": job.request.body()}
                text = (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
                self.lines.append((key, text, job.what or {}))
                summary.asked += 1

    def parts(self) -> list[list[tuple[str, bytes, dict]]]:
        """The lines split into files of at most ``max_lines`` lines and
        ``max_bytes`` bytes. Raises BatchError for one line over ``max_bytes``."""
        out: list[list[tuple[str, bytes, dict]]] = []
        size = 0
        for entry in self.lines:
            n = len(entry[1])
            if n > self.max_bytes:
                raise BatchError(
                    f"the request {entry[0]} is {n} bytes, more than a batch file may hold ({self.max_bytes})"
                )
            if not out or len(out[-1]) >= self.max_lines or size + n > self.max_bytes:
                out.append([])
                size = 0
            out[-1].append(entry)
            size += n
        return out

    def names(self, count: int) -> list[Path]:
        """The paths of ``count`` files: ``path`` alone, else numbered (module doc)."""
        if count == 1:
            return [self.path]
        return [self.path.with_name(f"{self.path.stem}-{i}{self.path.suffix}") for i in range(1, count + 1)]

    def write(self, project: Project) -> list[Path]:
        """Write the lines (nothing when there are none) and hold each
        request for its file until the expiry. Raises BatchError, before
        writing anything, when a file to write exists."""
        parts = self.parts()
        paths = self.names(len(parts)) if parts else []
        existing = [str(p) for p in dict.fromkeys([self.path, *paths]) if p.exists() or p.is_symlink()]
        if existing:
            raise BatchError(
                f"{', '.join(existing)} exists; give --batch-out a new name (a batch file is never replaced)"
            )
        for path, part in zip(paths, parts):
            with open(path, "xb") as fh:  # 'x': never over a file made meanwhile
                for _, text, _ in part:
                    fh.write(text)
        until = batches.expiry(self.expires_h)
        batches.reserve(
            project, ((c, path.name, what) for path, part in zip(paths, parts) for c, _, what in part), until
        )
        self.written = paths
        self.lines = []
        return paths


def batch_line(batch: BatchOut, summary: RunSummary | None) -> str:
    """One line saying what ``batch.write`` wrote: the requests and files,
    the expiry, what was stored before and what a batch file already holds."""
    s = summary or RunSummary()
    files = ", ".join(str(p) for p in batch.written) or "no file"
    held = f"; held by a batch file already {s.batched} (reviewer batches lists them)" if s.batched else ""
    return (
        f"batch: {s.asked} request(s) written to {files} ({len(batch.written)} file(s)), "
        f"held for {batch.expires_h:g} h; already stored {s.skipped}{held}; nothing was sent"
    )
