"""The validation figures of a project, computed off the GUI thread.

``ValidationWorker`` runs :func:`compute` on the shared ReaderWorker
(reviewer.qt.session.reader_worker: a pool thread, its own read connection
to the project file; SQLite connections never cross threads), and emits
``done`` on the GUI thread with a :class:`ValidationFigures`. Each ``start`` is a new *generation*: a
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

from PySide6.QtCore import QObject

from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from reviewer.storage.db import Project, ProjectError
from reviewer.storage.dispute_queue import agreement_with_intervals
from reviewer.storage.judging.calibration_report import CalibrationRow, calibration_rows
from reviewer.storage.judging.label_budget import alignment_budget, budget_text
from reviewer.storage.judging.validation import Validation, project_alignments
from reviewer.storage.spans.confidences import span_confidences
from reviewer.qt.session.reader_worker import ReaderWorker


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


class ValidationWorker(ReaderWorker):
    """One computation at a time on a worker thread (module doc); ``done``
    gives the ValidationFigures of the latest generation (with ``error``
    set when the project could not be read)."""

    def __init__(self, parent: Optional[QObject] = None, resamples: int = DEFAULT_RESAMPLES):
        super().__init__(
            lambda reader, cancelled: _compute_or_none(reader, cancelled, resamples),
            lambda exc: ValidationFigures(error=str(exc), thread=threading.get_ident()),
            parent,
            errors=(ProjectError, sqlite3.Error, ValueError),
        )
        self.resamples = resamples


def _compute_or_none(reader, cancelled, resamples: int) -> Optional[ValidationFigures]:
    """:func:`compute`, or None when it was cancelled (a newer generation drops it anyway)."""
    try:
        return compute(reader, cancelled, n_resamples=resamples)
    except Cancelled:
        return None
