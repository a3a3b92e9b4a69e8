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

A *slice* (a metadata field of the items and one of its values,
reviewer.storage.repo.item_metadata) limits the alignment, the calibration and
the comparison to its subjects, as ``--by FIELD`` does; the agreement table
stays over all subjects. A *comparison* of two judges gives what
``reviewer alignment P --compare J1,J2`` gives (reviewer.storage.judging.
comparison.project_comparisons).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QObject

from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from reviewer.core.judging.judge_compare import JudgeComparison
from reviewer.qt.session.reader_worker import ReaderWorker
from reviewer.storage.dispute_queue import agreement_with_intervals
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.calibration_report import CalibrationRow, calibration_rows
from reviewer.storage.judging.comparison import comparison_text, project_comparisons
from reviewer.storage.judging.label_budget import alignment_budget, budget_text
from reviewer.storage.judging.validation import Validation, project_alignments
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.repo.item_metadata import metadata_fields, subject_slices
from reviewer.storage.spans.confidences import span_confidences

#: comparison_text is passed on to the validation view, which reads the project
#: only through this worker (contract "the window reads the project only
#: through the Session").
__all__ = ["ValidationFigures", "ValidationWorker", "comparison_text", "compute", "slice_choices"]


def slice_choices(project: Project, field_name: str | None = None) -> list[str]:
    """The slice selector's choices: the items' metadata fields (``field_name``
    None), else the slices (values) of that field among judged subjects,
    sorted. A light read on the calling thread. Raises ValueError as
    reviewer.storage.repo.item_metadata.subject_slices does."""
    if field_name is None:
        return metadata_fields(project)
    return sorted(set(subject_slices(project, field_name).values()))


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
    it; ``seconds``: how long it took; ``slice``: (field, value) the
    alignment, calibration and comparison were limited to (None: all
    subjects) and ``subjects`` its number of subjects; ``comparisons``:
    the two judges compared per dimension (empty when none was asked or
    ``compare_error`` says why not)."""

    agreement: list[AgreementRow] = field(default_factory=list)
    validation: Validation = field(default_factory=lambda: Validation([], [], 0))
    calibration: list[CalibrationRow] = field(default_factory=list)
    budget: list[tuple[str, int | None]] = field(default_factory=list)
    error: str = ""
    thread: int = 0
    seconds: float = 0.0
    slice: tuple[str, str] | None = None
    subjects: int = 0
    comparisons: list[JudgeComparison] = field(default_factory=list)
    compare_error: str = ""


def compute(
    project: Project,
    cancelled: Callable[[], bool] = lambda: False,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    slice_: tuple[str, str] | None = None,
    compare: tuple[str, str] | None = None,
) -> ValidationFigures:
    """Agreement, alignment and calibration of ``project`` (module doc),
    read through ``project`` on the calling thread; ``slice_``: (metadata
    field, value) to limit them to; ``compare``: two judges to compare.
    Raises Cancelled when ``cancelled()`` turns true between two steps;
    ProjectError or sqlite3.Error when the project cannot be read,
    ValueError when the field is not a metadata field."""
    start = time.perf_counter()

    def check() -> None:
        if cancelled():
            raise Cancelled()

    agreement = agreement_with_intervals(project, n_resamples=n_resamples, seed=seed)
    check()
    subjects: set[str] | None = None
    if slice_ is not None:
        subjects = {s for s, name in subject_slices(project, slice_[0]).items() if name == slice_[1]}
    validation = project_alignments(project, n_resamples=n_resamples, seed=seed, subjects=subjects)
    check()
    if subjects is None:
        calibration = calibration_rows(project, span_confidences=span_confidences(project))
    else:
        vs, adjudications = judging.verdicts(project), judging.adjudications(project)
        calibration = calibration_rows(
            project,
            verdicts=[v for v in vs if v.subject in subjects],
            adjudications=[a for a in adjudications if a.subject in subjects],
        )
    check()
    comparisons: list[JudgeComparison] = []
    compare_error = ""
    if compare is not None:
        try:
            comparisons = project_comparisons(project, *compare, subjects=subjects, n_resamples=n_resamples, seed=seed)
        except ValueError as exc:
            compare_error = str(exc).splitlines()[0]
    budget = []
    for a in validation.items:
        needs = [b.further for b in alignment_budget(a).values() if b.further is not None]
        budget.append((budget_text([a]).splitlines()[-1], max(needs) if needs else None))
    return ValidationFigures(
        agreement,
        validation,
        calibration,
        budget,
        thread=threading.get_ident(),
        seconds=time.perf_counter() - start,
        slice=slice_,
        subjects=len(subjects) if subjects is not None else 0,
        comparisons=comparisons,
        compare_error=compare_error,
    )


class ValidationWorker(ReaderWorker):
    """One computation at a time on a worker thread (module doc); ``done``
    gives the ValidationFigures of the latest generation (with ``error``
    set when the project could not be read)."""

    def __init__(self, parent: QObject | None = None, resamples: int = DEFAULT_RESAMPLES):
        super().__init__(
            lambda reader, cancelled: _compute_or_none(reader, cancelled, resamples, self.slice, self.compare),
            lambda exc: ValidationFigures(error=str(exc), thread=threading.get_ident()),
            parent,
            errors=(ProjectError, sqlite3.Error, ValueError),
        )
        self.resamples = resamples
        #: what the next start computes: the slice (field, value) and the two judges compared (module doc)
        self.slice: tuple[str, str] | None = None
        self.compare: tuple[str, str] | None = None


def _compute_or_none(reader, cancelled, resamples: int, slice_, compare) -> ValidationFigures | None:
    """:func:`compute`, or None when it was cancelled (a newer generation drops it anyway)."""
    try:
        return compute(reader, cancelled, n_resamples=resamples, slice_=slice_, compare=compare)
    except Cancelled:
        return None
