"""The Run menu's forms (docs/runner.md#in-the-window): "Run model…" and "Run judge…" ask an
OpenAI-compatible endpoint from the window, as `reviewer run` and
`reviewer judge` do on the command line.

* A form holds the endpoint (remembered in QSettings without
  user:password), the name of the environment variable holding the key
  (the key itself is never shown, stored or remembered: only whether it is
  set), the model, the prompts and items (none ticked: all), repetitions,
  temperature, max tokens, concurrency, retries and timeout; the judge form
  adds the judge kind, Path B (dual) and the models whose runs are judged.
* Start runs the job in a worker thread (reviewer.qt.runner.worker); the
  form and the status bar show a progress bar, the ETA and Cancel. Cancel
  stops at once; what was stored stays, and starting again continues (a
  stored run or verdict is never asked again).
* Results appear as they arrive: new runs are added to the session (only
  those runs are read, never a full reload) at most every FLUSH_MS (reviewer.qt.runner.settings), new
  verdicts are shown by finding the disputes again at most every few
  seconds (longer on a project where that is slow) and once at the end.
* One job at a time; closing the window cancels it and waits for the thread.

Model output and server errors are untrusted text: every label is plain text.
The controller that runs the jobs is reviewer.qt.runner.controller.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QSettings, Qt
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
    QVBoxLayout,
    QWidget,
)

from reviewer.clients.chat import DEFAULT_KEY_ENV, EndpointError, api_key, check_endpoint, public_url
from reviewer.pipeline.ask import RunOptions
from reviewer.pipeline.execute import Settings
from reviewer.pipeline.judge import KINDS as JUDGE_KINDS
from reviewer.pipeline.judge import JudgeOptions
from reviewer.qt.runner.worker import Task
from reviewer.qt.session import Session


class JobRunner(Protocol):
    """What a form needs of whoever runs its job (reviewer.qt.runner.controller.RunnerController):
    the form imports no controller, so the two modules do not import each other."""

    window: QWidget  # the forms' parent
    settings: QSettings  # where the forms remember what was typed
    session: Session  # prompt and item names, run lines, the reviewer

    def start(self, task: Task, form: RunForm | None = None) -> bool:
        """Run ``task``, showing progress in ``form``."""

    def cancel(self) -> None:
        """Cancel the running job."""


def plain_label(text: str = "") -> QLabel:
    """A label that shows ``text`` as plain text (never rich text)."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
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
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in ticked else Qt.CheckState.Unchecked)
            self.addItem(item)

    def ticked(self) -> tuple[str, ...]:
        """The ticked names (empty: all)."""
        return tuple(
            self.item(i).text() for i in range(self.count()) if self.item(i).checkState() == Qt.CheckState.Checked
        )

    def tick(self, names) -> None:
        """Tick exactly ``names``."""
        wanted = set(names)
        for i in range(self.count()):
            self.item(i).setCheckState(
                Qt.CheckState.Checked if self.item(i).text() in wanted else Qt.CheckState.Unchecked
            )


class RunForm(QDialog):
    """The "Run model…" (``kind`` 'run') or "Run judge…" ('judge') form (see
    module doc). It reads the project's names from ``controller.session``
    and hands Start and Cancel to the controller."""

    def __init__(self, controller: JobRunner, kind: str):
        super().__init__(controller.window)
        self.controller, self.kind = controller, kind
        self.settings = controller.settings
        self.setObjectName("RunModelForm" if kind == "run" else "RunJudgeForm")
        self.setWindowTitle("Run model" if kind == "run" else "Run judge")
        self.setModal(False)
        form = QFormLayout()
        self.endpoint = QLineEdit(str(self.settings.value("runner/endpoint", "") or ""))
        self.endpoint.setPlaceholderText("http://localhost:11434/v1")
        self.endpoint.setToolTip(
            "the API base ending in /v1 (Ollama, vLLM, llama.cpp server, LiteLLM, OpenAI); "
            "no user:password: the key comes from the environment"
        )
        form.addRow("Endpoint:", self.endpoint)
        self.key_env = QLineEdit(str(self.settings.value("runner/key_env", DEFAULT_KEY_ENV) or DEFAULT_KEY_ENV))
        self.key_state = plain_label()
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
            self.judge_kind.setToolTip(
                "failter (rules-based), failter-gt (ground truth where there is one), tarot-rubric, span, pairwise"
            )
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
            limits.addWidget(plain_label(text))
            limits.addWidget(widget)
        form.addRow("Requests:", limits)

        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status = plain_label("")
        self.status.setWordWrap(True)
        self.eta = plain_label("")
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
        session = self.controller.session
        self.prompts.fill(session.reads.prompt_names())
        self.items.fill(session.reads.item_names())
        if self.kind == "judge":
            models = sorted({x.model for x in self.controller.session.run_lines()})
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
        settings = Settings(
            endpoint=endpoint,
            key_env=key_env,
            concurrency=self.concurrency.value(),
            retries=self.retries.value(),
            timeout=float(self.timeout.value()),
        )
        temperature = None if self.temperature.value() < 0 else self.temperature.value()
        max_tokens = self.max_tokens.value() or None
        options: RunOptions | JudgeOptions
        if self.kind == "run":
            options = RunOptions(
                model=model,
                prompts=self.prompts.ticked(),
                items=self.items.ticked(),
                repetitions=self.repetitions.value(),
                temperature=temperature,
                max_tokens=max_tokens,
            )
        else:
            options = JudgeOptions(
                kind=self.judge_kind.currentText(),
                model=model,
                dual=self.dual.isChecked(),
                prompts=self.prompts.ticked(),
                items=self.items.ticked(),
                run_models=self.run_models.ticked(),
                repetitions=self.repetitions.value(),
                temperature=temperature,
                max_tokens=max_tokens,
            )
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
