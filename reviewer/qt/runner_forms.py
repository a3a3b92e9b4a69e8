"""The Run menu (issue 8): "Run model…" and "Run judge…" forms that ask an
OpenAI-compatible endpoint from the window, as `reviewer run` and
`reviewer judge` do on the command line.

* A form holds the endpoint (remembered in QSettings without
  user:password), the name of the environment variable holding the key
  (the key itself is never shown, stored or remembered: only whether it is
  set), the model, the prompts and items (none ticked: all), repetitions,
  temperature, max tokens, concurrency, retries and timeout; the judge form
  adds the judge kind, Path B (dual) and the models whose runs are judged.
* Start runs the job in a worker thread (reviewer.qt.runner_worker); the
  form and the status bar show a progress bar, the ETA and Cancel. Cancel
  stops at once; what was stored stays, and starting again continues (a
  stored run or verdict is never asked again).
* Results appear as they arrive: new runs are added to the session (only
  those runs are read, never a full reload) at most every FLUSH_MS, new
  verdicts are shown by finding the disputes again at most every few
  seconds (longer on a project where that is slow) and once at the end.
* One job at a time; closing the window cancels it and waits for the thread.

Model output and server errors are untrusted text: every label is plain text.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from reviewer.clients.chat import DEFAULT_KEY_ENV, EndpointError, api_key, check_endpoint, public_url
from reviewer.pipeline.ask import RunOptions
from reviewer.pipeline.execute import Settings, Summary
from reviewer.pipeline.judge import KINDS as JUDGE_KINDS, JudgeOptions
from reviewer.qt.runner_worker import RunnerThread, Task
from reviewer.storage import repo
from reviewer.storage.scores import scored_runs

#: Shortest time between two updates of the views with new runs (ms).
FLUSH_MS = 300
#: Shortest time between two refreshes of the disputes while a judge runs (s);
#: it grows to 10x the time the last refresh took.
DISPUTES_EVERY_S = 2.0


def _plain(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.PlainText)
    return label


def eta_text(elapsed_s: float, done: int, total: int) -> str:
    """'about 1 min 20 s left' from the time spent on ``done`` of ``total``
    answers ('' before the first answer or when all are in)."""
    if done <= 0 or done >= total:
        return ""
    left = elapsed_s / done * (total - done)
    if left < 60:
        return f"about {max(1, round(left))} s left"
    minutes, seconds = divmod(round(left), 60)
    if minutes < 60:
        return f"about {minutes} min {seconds} s left"
    hours, minutes = divmod(minutes, 60)
    return f"about {hours} h {minutes} min left"


def add_stored_runs(session, run_ids: list[int]) -> int:
    """Add runs stored meanwhile by another connection (the worker thread)
    to the session, reading only those runs, and tell the views
    (findingsChanged). Returns how many were added."""
    if session.project is None or not run_ids:
        return 0
    fresh = scored_runs(session.project, run_ids)
    for r in fresh:
        session._runs[r.run["id"]] = r  # the session's run cache (no full reload on a big project)
    if fresh:
        session.findingsChanged.emit()
        if session.item_id is None:
            session.set_item(fresh[0].run["item_id"])
    return len(fresh)


def _spin(low, high, value, step=1, real=False):
    """A spin box from ``low`` to ``high`` at ``value`` (a QDoubleSpinBox with two decimals when ``real``)."""
    box = QDoubleSpinBox() if real else QSpinBox()
    if real:
        box.setDecimals(2)
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setValue(value)
    return box


class _CheckList(QListWidget):
    """Names with check boxes; none ticked means all."""

    def __init__(self, tip: str):
        super().__init__()
        self.setToolTip(tip)
        self.setMaximumHeight(120)

    def fill(self, names: list[str]) -> None:
        """Show ``names``, keeping the ticks of names shown before."""
        ticked = set(self.ticked())
        self.clear()
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
            item.setCheckState(Qt.Checked if name in ticked else Qt.Unchecked)
            self.addItem(item)

    def ticked(self) -> tuple[str, ...]:
        """The ticked names (empty: all)."""
        return tuple(self.item(i).text() for i in range(self.count()) if self.item(i).checkState() == Qt.Checked)

    def tick(self, names) -> None:
        """Tick exactly ``names``."""
        wanted = set(names)
        for i in range(self.count()):
            self.item(i).setCheckState(Qt.Checked if self.item(i).text() in wanted else Qt.Unchecked)


class RunForm(QDialog):
    """The "Run model…" (``kind`` 'run') or "Run judge…" ('judge') form (see
    module doc). It reads the project's names from ``controller.session``
    and hands Start and Cancel to the controller."""

    def __init__(self, controller: "RunnerController", kind: str):
        super().__init__(controller.window)
        self.controller, self.kind = controller, kind
        self.settings = controller.window.settings
        self.setObjectName("RunModelForm" if kind == "run" else "RunJudgeForm")
        self.setWindowTitle("Run model" if kind == "run" else "Run judge")
        self.setModal(False)
        form = QFormLayout()
        self.endpoint = QLineEdit(str(self.settings.value("runner/endpoint", "") or ""))
        self.endpoint.setPlaceholderText("http://localhost:11434/v1")
        self.endpoint.setToolTip("the API base ending in /v1 (Ollama, vLLM, llama.cpp server, LiteLLM, OpenAI); "
                                 "no user:password: the key comes from the environment")
        form.addRow("Endpoint:", self.endpoint)
        self.key_env = QLineEdit(str(self.settings.value("runner/key_env", DEFAULT_KEY_ENV) or DEFAULT_KEY_ENV))
        self.key_state = _plain()
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_env, 1)
        key_row.addWidget(self.key_state)
        self.key_env.textChanged.connect(self._show_key_state)
        form.addRow("Key variable:", key_row)
        model_key = "runner/model" if kind == "run" else "runner/judge_model"
        self.model = QLineEdit(str(self.settings.value(model_key, "") or ""))
        self.model.setPlaceholderText("qwen2.5vl:3b" if kind == "run" else "meta-llama/Llama-3.3-70B-Instruct")
        form.addRow("Model:" if kind == "run" else "Judge model:", self.model)
        if kind == "judge":
            self.judge_kind = QComboBox()
            self.judge_kind.addItems(JUDGE_KINDS)
            self.judge_kind.setToolTip("failter (rules-based), failter-gt (ground truth where there is one), "
                                       "tarot-rubric, span, pairwise")
            self.dual = QCheckBox("Path B: both judges where there is a ground truth (failter-gt)")
            form.addRow("Judge:", self.judge_kind)
            form.addRow("", self.dual)
        self.prompts = _CheckList("only the ticked prompts (none ticked: all)")
        self.items = _CheckList("only the ticked items (none ticked: all)")
        form.addRow("Prompts:", self.prompts)
        form.addRow("Items:", self.items)
        if kind == "judge":
            self.run_models = _CheckList("only runs of the ticked models (none ticked: all)")
            form.addRow("Runs of models:", self.run_models)
        self.repetitions = _spin(1, 100, 1)
        form.addRow("Repetitions:", self.repetitions)
        self.temperature = _spin(-0.1, 2.0, -0.1, step=0.1, real=True)
        self.temperature.setSpecialValueText("server default")
        form.addRow("Temperature:", self.temperature)
        self.max_tokens = _spin(0, 1_000_000, 0, step=256)
        self.max_tokens.setSpecialValueText("server default")
        form.addRow("Max tokens:", self.max_tokens)
        self.concurrency = _spin(1, 64, 4)
        self.retries = _spin(0, 10, 3)
        self.timeout = _spin(1, 3600, 120)
        self.timeout.setSuffix(" s")
        limits = QHBoxLayout()
        for text, widget in (("in flight", self.concurrency), ("retries", self.retries), ("timeout", self.timeout)):
            limits.addWidget(_plain(text))
            limits.addWidget(widget)
        form.addRow("Requests:", limits)

        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status = _plain("")
        self.status.setWordWrap(True)
        self.eta = _plain("")
        self.start_button = QPushButton("Start")
        self.start_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel run")
        self.cancel_button.setEnabled(False)
        self.close_button = QPushButton("Close")
        buttons = QHBoxLayout()
        buttons.addWidget(self.eta, 1)
        for b in (self.start_button, self.cancel_button, self.close_button):
            buttons.addWidget(b)
        box = QVBoxLayout(self)
        box.addLayout(form)
        box.addWidget(self.progress)
        box.addWidget(self.status)
        box.addLayout(buttons)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(controller.cancel)
        self.close_button.clicked.connect(self.hide)
        self._show_key_state()

    def _show_key_state(self) -> None:
        name = self.key_env.text().strip() or DEFAULT_KEY_ENV
        self.key_state.setText("set" if api_key(name) else "not set (local servers need none)")

    def refill(self) -> None:
        """Fill the lists from the open project (ticks kept by name)."""
        p = self.controller.session.project
        self.prompts.fill([x.name for x in repo.prompts(p)] if p else [])
        self.items.fill([x.name for x in repo.items(p)] if p else [])
        if self.kind == "judge":
            models = sorted({r.run["model"] for r in self.controller.session.all_runs()})
            self.run_models.fill(models)
        self._show_key_state()

    def task(self) -> Task:
        """The Task the form describes. Raises ValueError (message for the
        user) when the endpoint or the model is unusable."""
        try:
            endpoint = check_endpoint(self.endpoint.text())
        except EndpointError as exc:
            raise ValueError(str(exc)) from None
        model = self.model.text().strip()
        if not model:
            raise ValueError("give the model's name")
        key_env = self.key_env.text().strip() or DEFAULT_KEY_ENV
        settings = Settings(endpoint=endpoint, key_env=key_env, concurrency=self.concurrency.value(),
                            retries=self.retries.value(), timeout=float(self.timeout.value()))
        temperature = None if self.temperature.value() < 0 else self.temperature.value()
        max_tokens = self.max_tokens.value() or None
        if self.kind == "run":
            options = RunOptions(model=model, prompts=self.prompts.ticked(), items=self.items.ticked(),
                                 repetitions=self.repetitions.value(), temperature=temperature,
                                 max_tokens=max_tokens)
        else:
            options = JudgeOptions(kind=self.judge_kind.currentText(), model=model, dual=self.dual.isChecked(),
                                   prompts=self.prompts.ticked(), items=self.items.ticked(),
                                   run_models=self.run_models.ticked(), repetitions=self.repetitions.value(),
                                   temperature=temperature, max_tokens=max_tokens)
        return Task(self.kind, settings, options, actor=self.controller.session.reviewer)

    def start(self) -> None:
        """Start: check the form, remember the endpoint and model, hand the
        task to the controller."""
        try:
            task = self.task()
        except ValueError as exc:
            self.show_status(f"Cannot start: {exc}")
            return
        self.settings.setValue("runner/endpoint", public_url(task.settings.endpoint))
        self.settings.setValue("runner/key_env", task.settings.key_env)
        self.settings.setValue("runner/model" if self.kind == "run" else "runner/judge_model", task.options.model)
        self.controller.start(task, self)

    def show_status(self, text: str) -> None:
        """A plain-text line under the progress bar."""
        self.status.setText(text)

    def set_running(self, running: bool) -> None:
        """Enable Cancel while a job runs, Start otherwise."""
        self.start_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)


class RunStatus(QWidget):
    """The status bar's share of a job: what runs, a progress bar, the ETA
    and Cancel (hidden when idle)."""

    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        self.setObjectName("RunStatus")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.label = _plain()
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(160)
        self.bar.setMaximumHeight(16)
        self.eta = _plain()
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("stop the run: what was stored stays; starting again continues")
        for w in (self.label, self.bar, self.eta, self.cancel_button):
            row.addWidget(w)
        self.hide()


class RunnerController(QObject):
    """The Run menu and its one job at a time (see module doc). Made by the
    main window: ``RunnerController(window)``."""

    def __init__(self, window):
        super().__init__(window)
        self.window, self.session = window, window.session
        self.thread: Optional[RunnerThread] = None
        self.form: Optional[RunForm] = None
        self.forms: dict[str, RunForm] = {}
        self.summary: Optional[Summary] = None
        self.error: Optional[str] = None
        self._started = 0.0
        self._runs: list[int] = []
        self._verdicts = 0
        self._disputes_at = 0.0
        self._disputes_cost = 0.0
        menu = window.menuBar()
        help_menu = next((a for a in menu.actions() if a.text() == "&Help"), None)
        self.menu = menu.addMenu("&Run") if help_menu is None else None
        if self.menu is None:
            from PySide6.QtWidgets import QMenu

            self.menu = QMenu("&Run", menu)
            menu.insertMenu(help_menu, self.menu)
        self.actions: dict[str, QAction] = {}
        for name, text, tip in (("run", "Run &model…", "ask a model every item x prompt and store its answers"),
                                ("judge", "Run &judge…", "ask a judge model about the runs and store its verdicts")):
            action = self.menu.addAction(text)
            action.setStatusTip(tip)
            action.triggered.connect(lambda _=False, k=name: self.show_form(k))
            self.actions[name] = action
        self.status = RunStatus()
        window.statusBar().addPermanentWidget(self.status)
        self.status.cancel_button.clicked.connect(self.cancel)
        self.flush_timer = QTimer(self, interval=FLUSH_MS, timeout=self.flush)
        self._hide_timer = QTimer(self, singleShot=True, interval=6000, timeout=self.status.hide)
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
        return self.thread is not None and self.thread.isRunning()

    def start(self, task: Task, form: Optional[RunForm] = None) -> bool:
        """Start ``task`` on the open project in a worker thread; False (and
        the reason on the form or in the status bar) when no project is
        open, it is read-only or a job already runs."""
        p = self.session.project
        problem = ("open a project first" if p is None else
                   f"the project is read-only ({p.read_only})" if p.read_only else
                   "a run is already going on: cancel it or wait" if self.running() else None)
        if problem:
            if form is not None:
                form.show_status(f"Cannot start: {problem}")
            self.session.error.emit(problem)
            return False
        self.form, self.summary, self.error = form, None, None
        self._runs, self._verdicts = [], 0
        self._started = time.monotonic()
        thread = RunnerThread(p.path, task, self)
        thread.progressed.connect(self._progressed)
        thread.stored.connect(self._stored)
        thread.succeeded.connect(self._succeeded)
        thread.failed.connect(self._failed)
        thread.finished.connect(self._finished)
        self.thread = thread
        what = f"{task.options.model}" if task.kind == "run" else f"{task.options.kind} judge {task.options.model}"
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
        if self.running():
            self.thread.cancel()
            self.status.cancel_button.setEnabled(False)
            if self.form is not None:
                self.form.cancel_button.setEnabled(False)
                self.form.show_status("cancelling: the answers received are kept…")

    def wait(self, ms: int = 30_000) -> bool:
        """Block until the job's thread ends (tests, closing); True when it did."""
        return self.thread.wait(ms) if self.thread is not None else True

    def shutdown(self) -> None:
        """Cancel the job and wait for its thread (the window is closing)."""
        if self.running():
            self.thread.cancel()
            self.thread.wait(30_000)
        self.flush_timer.stop()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt name)
        """Closing the window cancels the job and waits for its thread."""
        if watched is self.window and event.type() == QEvent.Close:
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
        if self.form is not None and not self.thread.cancel_event.is_set():
            self.form.eta.setText(eta)
            self.form.show_status(f"{done} of {total} asked: {answered} answered, {failed} failed")

    def _stored(self, kind: str, ids: list) -> None:
        if kind == "runs":
            self._runs.extend(int(i) for i in ids)
        else:
            self._verdicts += len(ids)

    def _same_project(self) -> bool:
        p = self.session.project
        return p is not None and self.thread is not None and Path(p.path).resolve() == self.thread.path.resolve()

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
            self.session.refresh_disputes()
            self._disputes_at = time.monotonic()
            self._disputes_cost = self._disputes_at - now

    def _succeeded(self, summary: Summary) -> None:
        self.summary = summary

    def _failed(self, message: str) -> None:
        self.error = message

    def _finished(self) -> None:
        self.flush_timer.stop()
        self.flush(final=True)
        for bar in self._bars():
            if bar.maximum() == 0:
                bar.setRange(0, 1)
            bar.setValue(bar.maximum())
        self.status.cancel_button.setEnabled(False)
        if self.error is not None:
            text = f"Error: {self.error}"
            self.session.error.emit(self.error)
        else:
            s = self.summary
            text = s.line() if s is not None else "stopped"
            if s is not None and s.cancelled:
                text = "Cancelled: " + text
            if s is not None and s.errors:
                text += "\n" + "\n".join(f"failed: {label}: {error}" for label, error in s.errors[:5])
            self.session.message.emit(text.splitlines()[0])
        self.status.eta.setText("cancelled" if self.summary is not None and self.summary.cancelled else "done")
        self._hide_timer.start()
        if self.form is not None:
            self.form.set_running(False)
            self.form.eta.setText("")
            self.form.show_status(text)
