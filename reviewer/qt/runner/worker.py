"""The worker thread of the Run menu (docs/runner.md#in-the-window): asks a model
(reviewer.pipeline.ask.run_models) or a judge
(reviewer.pipeline.judge.judge_runs) in a QThread, so the window never
waits for the network.

* The thread opens its own connection to the project file (WAL: the
  window's connection reads what it commits at once) and closes it when
  done; the window's connection is never used from it. It opens the file
  through open_own_connection (open_project) like the window, which recognises it through SQLite
  only, so the window's locks are never dropped (reviewer.storage.project.recognise).
  Each request is reserved in the project before it is sent
  (reviewer.storage.repo.reservations), so a `reviewer run` beside the window
  never asks the same thing.
* ``progressed(done, total, answered, failed)`` after answers (at most
  every PROGRESS_EVERY_S, and always the last one), ``stored(kind, ids)``
  with the ids of runs ('runs', already scored, in batches) or verdicts
  ('verdicts') as they are stored, then exactly one of ``succeeded(summary)``
  or ``failed(message)``. Signals cross to the window's thread queued.
* ``cancel()`` sets the pipeline's cancel event: no new request is sent,
  the requests in flight are abandoned, what was stored stays (a re-run
  continues where this one stopped).
* The API key is read from the environment by the client only; every
  message this thread emits has the key (when set) replaced by '***'.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QThread, Signal

from reviewer.clients.chat import api_key
from reviewer.pipeline.ask import RunOptions, run_models
from reviewer.pipeline.execute import RunSummary, Settings
from reviewer.pipeline.judge import JudgeOptions, judge_runs
from reviewer.qt.session.reads import open_own_connection

#: Shortest time between two progress signals (seconds).
PROGRESS_EVERY_S = 0.05


@dataclass(frozen=True)
class Task:
    """One job of the Run menu: ``kind`` 'run' (RunOptions) or 'judge'
    (JudgeOptions), the endpoint ``settings`` and the reviewer's name
    (``actor``) recorded on what is stored."""

    kind: str
    settings: Settings
    options: RunOptions | JudgeOptions
    actor: str | None = None


def redact(text: str, key_env: str) -> str:
    """``text`` with the key in environment variable ``key_env`` (when set)
    replaced by '***'."""
    key = api_key(key_env)
    return text.replace(key, "***") if key else text


class RunnerThread(QThread):
    """Runs one Task on the project file at ``path`` (see module doc)."""

    progressed = Signal(int, int, int, int)  # done, total, answered, failed
    stored = Signal(str, list)  # 'runs' or 'verdicts', ids
    succeeded = Signal(object)  # the pipeline's RunSummary
    failed = Signal(str)  # a one-line reason (key redacted)

    def __init__(self, path: Path, task: Task, parent: QObject | None = None):
        super().__init__(parent)
        self.path, self.task = Path(path), task
        self.cancel_event = threading.Event()
        self._last_progress = 0.0

    def cancel(self) -> None:
        """Stop at once (see module doc); the thread ends soon after."""
        self.cancel_event.set()

    def _progress(self, done: int, total: int, summary: RunSummary) -> None:
        now = time.monotonic()
        if done >= total or now - self._last_progress >= PROGRESS_EVERY_S:
            self._last_progress = now
            self.progressed.emit(done, total, summary.answered, summary.failed)

    def run(self) -> None:  # QThread's name
        """The thread's body: open the project, run the task, close."""
        task = self.task
        try:
            project = open_own_connection(self.path)
        except Exception as exc:  # noqa: BLE001 - any failure is shown, never raised in a thread
            self.failed.emit(redact(f"cannot open {self.path.name}: {exc}", task.settings.key_env))
            return
        try:
            if project.read_only:
                raise ValueError(f"{self.path.name} is read-only ({project.read_only}): answers cannot be stored")
            if isinstance(task.options, RunOptions):  # kind 'run'; else 'judge' with JudgeOptions
                summary, _ = run_models(
                    project,
                    task.settings,
                    task.options,
                    progress=self._progress,
                    cancel=self.cancel_event,
                    actor=task.actor,
                    on_stored=lambda ids: self.stored.emit("runs", list(ids)),
                )
            else:
                summary = judge_runs(
                    project,
                    task.settings,
                    task.options,
                    progress=self._progress,
                    cancel=self.cancel_event,
                    actor=task.actor,
                    on_stored=lambda ids: self.stored.emit("verdicts", list(ids)),
                )
        except Exception as exc:  # noqa: BLE001
            self.failed.emit(redact(str(exc) or type(exc).__name__, task.settings.key_env))
        else:
            summary.errors = [(label, redact(error, task.settings.key_env)) for label, error in summary.errors]
            self.succeeded.emit(summary)
        finally:
            project.close()
