"""The Run menu's controller (docs/runner.md#in-the-window): one job at a time in a worker thread
(reviewer.qt.runner.worker), its progress and Cancel in the forms and the
status bar (RunStatus), results added to the session as they arrive, and
the job cancelled when the window closes. The forms are in
reviewer.qt.runner.forms; see its module doc for what they do.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QMenu,
    QProgressBar,
    QToolButton,
    QWidget,
)

from reviewer.clients.chat import public_url
from reviewer.pipeline.ask import RunOptions
from reviewer.pipeline.execute import RunSummary
from reviewer.qt.host import RunnerHost
from reviewer.qt.runner.forms import RunForm, eta_text, plain_label
from reviewer.qt.runner.settings import DISPUTES_EVERY_S, FLUSH_MS
from reviewer.qt.runner.worker import RunnerThread, Task
from reviewer.qt.session import Session


def add_stored_runs(session: Session, run_ids: list[int]) -> int:
    """Add runs stored meanwhile by another connection (the worker thread)
    to the session, reading only those runs (Session.add_stored_runs), and
    tell the views (findingsChanged). Returns how many were added."""
    fresh = session.add_stored_runs(run_ids)  # into the session's caches: no full reload on a big project
    if fresh:
        session.findingsChanged.emit()
        if session.item_id is None:
            session.set_item(fresh[0].run["item_id"])
    return len(fresh)


def stopped_at(summary: RunSummary) -> int:
    """How many of the run's ``planned`` requests were settled when it
    stopped: stored before or by another run, answered, or failed."""
    return summary.skipped + summary.taken + summary.answered + summary.failed


def cancelled_text(summary: RunSummary) -> str:
    """The run form's line after Cancel: 'Cancelled after N of M; Start
    resumes' (N: stopped_at, M: planned), then what was asked, answered
    and failed this time."""
    return (
        f"Cancelled after {stopped_at(summary)} of {summary.planned}; Start resumes "
        f"(asked {summary.asked}, answered {summary.answered}, failed {summary.failed})"
    )


class RunStatus(QWidget):
    """The status bar's share of a job: what runs, a progress bar, the ETA
    and Cancel (hidden when idle)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("RunStatus")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = plain_label()
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(160)
        self.bar.setMaximumHeight(16)
        self.eta = plain_label()
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("stop the run: what was stored stays; starting again continues")
        for w in (self.label, self.bar, self.eta, self.cancel_button):
            row.addWidget(w)
        self.hide()


class RunnerController(QObject):
    """The Run menu and its one job at a time (see module doc). Made by the
    main window: ``RunnerController(window)``, ``window`` a
    reviewer.qt.host.RunnerHost."""

    def __init__(self, host: RunnerHost):
        window = host.window()
        super().__init__(window)
        self.window, self.session, self.settings = window, host.session, host.settings
        self.job: RunnerThread | None = None
        self.form: RunForm | None = None
        self.forms: dict[str, RunForm] = {}
        self.summary: RunSummary | None = None
        self.error: str | None = None
        self._started = 0.0
        self._runs: list[int] = []
        self._verdicts = 0
        self._disputes_at = 0.0
        self._disputes_cost = 0.0
        menu = host.menuBar()
        help_menu = next((a for a in menu.actions() if a.text() == "&Help"), None)
        if help_menu is None:
            self.menu = menu.addMenu("&Run")
        else:
            self.menu = QMenu("&Run", menu)
            menu.insertMenu(help_menu, self.menu)
        self.actions: dict[str, QAction] = {}
        for name, text, tip in (
            ("run", "Run &model…", "ask a model every item x prompt and store its answers"),
            ("judge", "Run &judge…", "ask a judge model about the runs and store its verdicts"),
        ):
            action = self.menu.addAction(text)
            action.setStatusTip(tip)
            action.triggered.connect(lambda _=False, k=name: self.show_form(k))
            self.actions[name] = action
        self.status = RunStatus()
        host.statusBar().addPermanentWidget(self.status)
        self.status.cancel_button.clicked.connect(self.cancel)
        self.flush_timer = QTimer(self)
        self.flush_timer.setInterval(FLUSH_MS)
        self.flush_timer.timeout.connect(self.flush)
        self._hide_timer = QTimer(self)
        self._hide_timer.setSingleShot(True)
        self._hide_timer.setInterval(6000)
        self._hide_timer.timeout.connect(self.status.hide)
        window.installEventFilter(self)

    # -- forms ------------------------------------------------------------------------------
    def show_form(self, kind: str) -> RunForm:
        """Show the "Run model…" ('run') or "Run judge…" ('judge') form, filled
        from the open project."""
        form = self.forms.get(kind)
        if form is None:
            form = self.forms[kind] = RunForm(self, kind)
        form.refill()
        form.set_running(self.running())
        form.show()
        form.raise_()
        return form

    # -- the job ----------------------------------------------------------------------------
    def running(self) -> bool:
        """True while a job's thread runs."""
        return self.job is not None and self.job.isRunning()

    def start(self, task: Task, form: RunForm | None = None) -> bool:
        """Start ``task`` on the open project in a worker thread; False (and
        the reason on the form or in the status bar) when no project is
        open, it is read-only or a job already runs."""
        path = self.session.project_path()
        problem = (
            "open a project first"
            if path is None
            else f"the project is read-only ({self.session.read_only})"
            if self.session.read_only
            else "a run is already going on: cancel it or wait"
            if self.running()
            else None
        )
        if problem or path is None:
            if form is not None:
                form.show_status(f"Cannot start: {problem}")
            self.session.error.emit(problem)
            return False
        self.form, self.summary, self.error = form, None, None
        self._runs, self._verdicts = [], 0
        self._started = time.monotonic()
        thread = RunnerThread(path, task, self)
        thread.progressed.connect(self._progressed)
        thread.stored.connect(self._stored)
        thread.succeeded.connect(self._succeeded)
        thread.failed.connect(self._failed)
        thread.finished.connect(self._finished)
        self.job = thread
        options = task.options
        what = options.model if isinstance(options, RunOptions) else f"{options.kind} judge {options.model}"
        self.status.label.setText(f"{'Running' if task.kind == 'run' else 'Judging'}: {what}")
        for bar in self._bars():
            bar.setRange(0, 0)  # busy until the first answer says how many
        self.status.eta.setText("")
        self.status.cancel_button.setEnabled(True)
        self._hide_timer.stop()
        self.status.show()
        if form is not None:
            form.set_running(True)
            form.eta.setText("")
            form.show_status(f"asking {what} at {public_url(task.settings.endpoint)}…")
        thread.start()
        self.flush_timer.start()
        return True

    def cancel(self) -> None:
        """Cancel the running job (what was stored stays)."""
        if self.job is not None and self.job.isRunning():
            self.job.cancel()
            self.status.cancel_button.setEnabled(False)
            if self.form is not None:
                self.form.cancel_button.setEnabled(False)
                self.form.show_status("cancelling: the answers received are kept…")

    def wait(self, ms: int = 30_000) -> bool:
        """Block until the job's thread ends (tests, closing); True when it did."""
        return self.job.wait(ms) if self.job is not None else True

    def shutdown(self) -> None:
        """Cancel the job and wait for its thread (the window is closing)."""
        if self.job is not None and self.job.isRunning():
            self.job.cancel()
            self.job.wait(30_000)
        self.flush_timer.stop()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt name)
        """Closing the window cancels the job and waits for its thread."""
        if watched is self.window and event.type() == QEvent.Type.Close:
            self.shutdown()
        return False

    def _bars(self) -> list[QProgressBar]:
        return [self.status.bar] + ([self.form.progress] if self.form is not None else [])

    def _progressed(self, done: int, total: int, answered: int, failed: int) -> None:
        eta = eta_text(time.monotonic() - self._started, done, total)
        for bar in self._bars():
            bar.setRange(0, max(total, 1))
            bar.setValue(done)
        self.status.eta.setText(f"{done}/{total} {eta}".strip())
        if self.form is not None and self.job is not None and not self.job.cancel_event.is_set():
            self.form.eta.setText(eta)
            self.form.show_status(f"{done} of {total} asked: {answered} answered, {failed} failed")

    def _stored(self, kind: str, ids: list) -> None:
        if kind == "runs":
            self._runs.extend(int(i) for i in ids)
        else:
            self._verdicts += len(ids)

    def _same_project(self) -> bool:
        path = self.session.project_path()
        return path is not None and self.job is not None and Path(path).resolve() == self.job.path.resolve()

    def flush(self, final: bool = False) -> None:
        """Show what arrived since the last flush (see module doc)."""
        if not self._same_project():
            self._runs, self._verdicts = [], 0
            return
        if self._runs:
            ids, self._runs = self._runs, []
            add_stored_runs(self.session, ids)
        now = time.monotonic()
        if self._verdicts and (final or now - self._disputes_at >= max(DISPUTES_EVERY_S, 10 * self._disputes_cost)):
            self._verdicts = 0
            self.session.judging.refresh()
            self.session.refresh_facts()
            self._disputes_at = time.monotonic()
            self._disputes_cost = self._disputes_at - now

    def _succeeded(self, summary: RunSummary) -> None:
        self.summary = summary

    def _failed(self, message: str) -> None:
        self.error = message

    def _finished(self) -> None:
        self.flush_timer.stop()
        self.flush(final=True)
        s = self.summary
        cancelled = self.error is None and s is not None and s.cancelled
        for bar in self._bars():
            if cancelled and s is not None:  # the bar stays where the run stopped
                bar.setRange(0, max(s.planned, 1))
                bar.setValue(min(stopped_at(s), s.planned))
                continue
            if bar.maximum() == 0:
                bar.setRange(0, 1)
            bar.setValue(bar.maximum())
        self.status.cancel_button.setEnabled(False)
        if self.error is not None:
            text = f"Error: {self.error}"
            self.session.error.emit(self.error)
        elif cancelled and s is not None:
            text = cancelled_text(s)
        else:
            text = s.line() if s is not None else "stopped"
        if self.error is None and s is not None and s.errors:
            text += "\n" + "\n".join(f"failed: {label}: {error}" for label, error in s.errors[:5])
        if self.error is None:
            self.session.message.emit(text.splitlines()[0])
        self.status.eta.setText("cancelled" if self.summary is not None and self.summary.cancelled else "done")
        self._hide_timer.start()
        if self.form is not None:
            self.form.set_running(False)
            self.form.eta.setText("")
            self.form.show_status(text)
