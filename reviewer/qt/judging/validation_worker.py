"""The validation figures of a project, computed off the GUI thread.

``ValidationWorker`` runs :func:`compute` on a QThreadPool thread through
its own read connection to the project file (reviewer.storage.cards.
overview.reader: a second SQLite connection, WAL, the last commit; SQLite
connections never cross threads), and emits ``done`` on the GUI thread
with a :class:`ValidationFigures`. Each ``start`` is a new *generation*: a
result of an older generation (another project, or a change since) is
dropped, and an older job stops between its steps when cancelled.

What it computes is what the command line prints: the agreement table
with 95 % bootstrap intervals (reviewer.storage.dispute_queue.
agreement_with_intervals, as ``reviewer agreement``), the alignment of each
judge with people and its corrected pass rate (reviewer.storage.judging.
validation.project_alignments, as ``reviewer alignment``, with each
one's label budget, reviewer.storage.judging.label_budget) and the
calibration of judge and span confidences (reviewer.storage.judging.
calibration_report.calibration_rows, as ``reviewer calibration``), all with
their default settings (2,000 resamples, seed 0).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from reviewer.storage.cards import overview
from reviewer.storage.db import Project, ProjectError
from reviewer.storage.dispute_queue import agreement_with_intervals
from reviewer.storage.judging.calibration_report import CalibrationRow, calibration_rows
from reviewer.storage.judging.label_budget import alignment_budget, budget_text
from reviewer.storage.judging.validation import Validation, project_alignments
from reviewer.storage.spans.confidences import span_confidences


class Cancelled(Exception):
    """The job was cancelled between two steps."""


@dataclass
class ValidationFigures:
    """One computation's result: ``agreement`` rows with intervals,
    ``validation`` (alignments and corrected rates), ``calibration`` rows;
    ``budget``: per alignment (same order) its label budget line and the
    further labels it needs in all (None: cannot be sized yet);
    ``error``: why it failed ('' when it did not; then the figures are
    empty); ``thread``: threading.get_ident() of the thread that computed
    it; ``seconds``: how long it took."""

    agreement: list[AgreementRow] = field(default_factory=list)
    validation: Validation = field(default_factory=lambda: Validation([], [], 0))
    calibration: list[CalibrationRow] = field(default_factory=list)
    budget: list[tuple[str, Optional[int]]] = field(default_factory=list)
    error: str = ""
    thread: int = 0
    seconds: float = 0.0


def compute(
    project: Project,
    cancelled: Callable[[], bool] = lambda: False,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ValidationFigures:
    """Agreement, alignment and calibration of ``project`` (module doc),
    read through ``project`` on the calling thread. Raises Cancelled when
    ``cancelled()`` turns true between two steps; ProjectError or
    sqlite3.Error when the project cannot be read."""
    start = time.perf_counter()

    def check() -> None:
        if cancelled():
            raise Cancelled()

    agreement = agreement_with_intervals(project, n_resamples=n_resamples, seed=seed)
    check()
    validation = project_alignments(project, n_resamples=n_resamples, seed=seed)
    check()
    calibration = calibration_rows(project, span_confidences=span_confidences(project))
    budget = []
    for a in validation.items:
        needs = [b.further for b in alignment_budget(a).values() if b.further is not None]
        budget.append((budget_text([a]).splitlines()[-1], max(needs) if needs else None))
    return ValidationFigures(
        agreement, validation, calibration, budget, thread=threading.get_ident(), seconds=time.perf_counter() - start
    )


class _Bridge(QObject):
    """Carries a job's result to the GUI thread (it lives there)."""

    done = Signal(int, object)  # generation, ValidationFigures or None (cancelled)


class _Job(QRunnable):
    """On a pool thread: :func:`compute` through a connection of its own."""

    def __init__(self, project: Project, generation: int, bridge: _Bridge, cancel: threading.Event, resamples: int):
        super().__init__()
        self.project, self.generation, self.bridge = project, generation, bridge
        self.cancel, self.resamples = cancel, resamples

    def run(self) -> None:
        """Read and compute; emit the figures (None when cancelled)."""
        result: Optional[ValidationFigures]
        try:
            reader, own = overview.reader(self.project)
            try:
                result = compute(reader, self.cancel.is_set, n_resamples=self.resamples)
            finally:
                if own:
                    reader.close()
        except Cancelled:
            result = None
        except (ProjectError, sqlite3.Error, ValueError) as exc:
            result = ValidationFigures(error=str(exc), thread=threading.get_ident())
        try:
            self.bridge.done.emit(self.generation, result)
        except RuntimeError:  # the widget went away meanwhile
            pass


class ValidationWorker(QObject):
    """One computation at a time on a worker thread (module doc)."""

    done = Signal(object)  # ValidationFigures of the latest generation

    def __init__(self, parent: Optional[QObject] = None, resamples: int = DEFAULT_RESAMPLES):
        super().__init__(parent)
        self.resamples = resamples
        self.generation = 0
        self._cancel = threading.Event()
        self._running = 0
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._bridge = _Bridge()
        self._bridge.done.connect(self._finished)

    def start(self, project: Project) -> int:
        """Compute the figures of ``project`` on the worker; an older
        computation is cancelled and its result dropped. Returns the new
        generation."""
        self.cancel()
        self._running += 1
        self.pool.start(_Job(project, self.generation, self._bridge, self._cancel, self.resamples))
        return self.generation

    def cancel(self) -> None:
        """Drop what is being computed (a new generation begins)."""
        self._cancel.set()
        self._cancel = threading.Event()
        self.generation += 1

    def busy(self) -> bool:
        """A computation is running or queued."""
        return self._running > 0

    def wait(self, ms: int = 60000) -> bool:
        """Block until the pool is idle (tests, closing); True when it is."""
        return self.pool.waitForDone(ms)

    def _finished(self, generation: int, result: Optional[ValidationFigures]) -> None:
        self._running = max(0, self._running - 1)
        if generation == self.generation and result is not None:
            self.done.emit(result)
