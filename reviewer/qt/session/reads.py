"""What the window's widgets read of the open project beside the run cache
(decision record "typed-window-host": the window reads the project only
through the Session; import-linter's contract "the window reads the
project only through the Session" keeps reviewer.storage out of every qt
module outside reviewer.qt.session).

``ProjectReads`` is the Session's part ``reads``: one method per read a
widget makes, on the Session's own connection (the GUI thread), each
giving an empty answer ([], {}, None, False) while no project is open.
Work that may be long runs on a worker instead (reviewer.qt.session.
reader_worker, writer_worker).

The module also hands the widgets the storage names that read no project:
types, constants, pure helpers over what was read, and the checked file
writer (reviewer.storage.files.safe_write) of the screenshot and chart files.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from reviewer.core.cases.model import TestCase
from reviewer.core.judging.verdicts import Verdict
from reviewer.core.models import GroundTruth
from reviewer.storage.annotators import ground_truth
from reviewer.storage.cards.proposed_boxes import ProposedBox, proposed_boxes
from reviewer.storage.cards.scores import ScoredRun, scored_runs
from reviewer.storage.cases import cases
from reviewer.storage.files import safe_write
from reviewer.storage.files.images import SWAPS, UPRIGHT
from reviewer.storage.gt_adjudication import adjudication_command
from reviewer.storage.importers.pairwise import UNNAMED_MODELS
from reviewer.storage.judging import label_plan as plans
from reviewer.storage.judging import labels
from reviewer.storage.judging.calibration_report import CalibrationRow
from reviewer.storage.judging.failter_report import HEADER as FAILTER_HEADER
from reviewer.storage.judging.failter_report import FailterRow, errors_line, failter_rows
from reviewer.storage.judging.label_plan import LabelPlan, budget_line, progress_line
from reviewer.storage.judging.report import DEFAULT_WEIGHTS, configured_expected
from reviewer.storage.judging.validation import SPLIT_HEADER, Validation, corrected_line, split_rows
from reviewer.storage.judging.verdicts import references, run_verdicts
from reviewer.storage.project.db import Project, ProjectError, open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.spans import spans
from reviewer.storage.spans.reviewed import missed_after_review
from reviewer.storage.spans.spans import parse_span_output

if TYPE_CHECKING:
    from reviewer.core.commands import Command
    from reviewer.core.spans.golden import GoldenSpan

#: Names the widgets take from here (module doc), besides ProjectReads.
__all__ = [
    "CalibrationRow",
    "DEFAULT_WEIGHTS",
    "FAILTER_HEADER",
    "FailterRow",
    "LabelPlan",
    "ProjectError",
    "ProjectReads",
    "SPLIT_HEADER",
    "SWAPS",
    "ScoredRun",
    "UNNAMED_MODELS",
    "UPRIGHT",
    "Validation",
    "budget_line",
    "corrected_line",
    "errors_line",
    "open_own_connection",
    "parse_span_output",
    "progress_line",
    "safe_write",
    "split_rows",
]


def open_own_connection(path: Path) -> Project:
    """A connection of its own to the project file at ``path`` for a worker
    thread (reviewer.storage.project.db.open_project: recognised through SQLite
    only, so the window's locks stay). Raises ProjectError."""
    return open_project(path)


class _Owner(Protocol):
    """The Session as its reads see it: the open project, if any."""

    @property
    def project(self) -> Project | None: ...


class ProjectReads:
    """The Session's reads for the widgets (module doc)."""

    def __init__(self, session: _Owner):
        self._session = session

    @property
    def _p(self) -> Project | None:
        return self._session.project

    # -- names --------------------------------------------------------------------------------
    def prompt_names(self) -> list[str]:
        """Every prompt's name, sorted."""
        return [x.name for x in repo_items.prompts(self._p)] if self._p else []

    def item_names(self) -> list[str]:
        """Every item's name, in natural order."""
        return [x.name for x in repo_items.items(self._p)] if self._p else []

    def run_models(self, run_ids: list[int]) -> dict[int, str]:
        """{run id: the model that made it} of ``run_ids``."""
        if self._p is None or not run_ids:
            return {}
        return {r["id"]: str(r["model"]) for r in repo_runs.run_rows(self._p, run_ids, with_output=False)}

    def resolve(self, path: str) -> Path | None:
        """A path stored in the project (relative to its folder) as a path to read."""
        return self._p.resolve(path) if self._p is not None else None

    def stored_runs(self, run_ids: list[int]) -> list[ScoredRun]:
        """The scored runs ``run_ids``, read from the project (runs stored by another connection)."""
        return scored_runs(self._p, run_ids) if self._p is not None and run_ids else []

    # -- annotators and ground truth ----------------------------------------------------------
    def annotators(self, item_id: int | None = None) -> list[str]:
        """The named annotators with ground truth (of item ``item_id``, or any), by name."""
        return ground_truth.annotators(self._p, item_id) if self._p else []

    def item_ground_truths(self, item_id: int) -> dict[str, GroundTruth]:
        """{annotator: ground truth} of the item's named annotators."""
        return ground_truth.item_ground_truths(self._p, item_id) if self._p else {}

    def item_comparisons(self, item_id: int) -> list[Any]:
        """Every pair of the item's named annotators compared (ItemAgreement)."""
        return ground_truth.item_comparisons(self._p, item_id) if self._p else []

    def proposed_boxes(self, item_id: int) -> list[ProposedBox]:
        """The item's proposed boxes, in order."""
        return proposed_boxes(self._p, item_id) if self._p else []

    def gt_adjudication(
        self, dispute_id: int, annotator: str, reviewer: str | None, rationale: str
    ) -> tuple[Command[Any], int]:
        """The command settling a ground-truth dispute with ``annotator``'s
        side, and its item (reviewer.storage.gt_adjudication). Raises
        ProjectError when no project is open or the dispute cannot be settled."""
        if self._p is None:
            raise ProjectError("no project is open")
        return adjudication_command(self._p, dispute_id, annotator, reviewer, rationale)

    # -- test cases ---------------------------------------------------------------------------
    def case_of_item(self, item_id: int | None) -> TestCase | None:
        """The test case item ``item_id`` is, or None."""
        return cases.case_of_item(self._p, item_id) if self._p is not None and item_id is not None else None

    def has_cases(self) -> bool:
        """The project holds a test case."""
        return self._p is not None and cases.has_cases(self._p)

    def case_metrics(self) -> Any:
        """The project's metric set (reviewer.storage.cases.cases.project_metrics)."""
        return cases.project_metrics(self._p) if self._p else None

    def case_results(self, metrics: Any = None) -> list[Any]:
        """Every scored run of a test case with its scores (CaseResult)."""
        return cases.case_results(self._p, metrics) if self._p else []

    def check_outcomes_text(self, run_id: int) -> str:
        """A case run's check outcomes as stored (JSON text, '[]' when not scored)."""
        return cases.check_outcomes_text(self._p, run_id) if self._p else "[]"

    # -- verdicts -----------------------------------------------------------------------------
    def run_verdicts(self, run_id: int) -> list[Verdict]:
        """The verdicts on run ``run_id``."""
        return run_verdicts(self._p, run_id) if self._p else []

    def references(self, item_id: int) -> list[tuple[str, str]]:
        """(source, text) of the item's reference answers."""
        return references(self._p, item_id) if self._p else []

    def configured_expected(self) -> dict:
        """Expected 1-5 distributions configured in the project."""
        return configured_expected(self._p) if self._p else {}

    def failter_rows(self, weights: Any = DEFAULT_WEIGHTS) -> list[FailterRow]:
        """The Failter report's rows (one per model x prompt)."""
        return failter_rows(self._p, weights) if self._p else []

    # -- labels -------------------------------------------------------------------------------
    def judge_dimensions(self) -> dict[str, list[str]]:
        """{judge: its scored dimensions} (reviewer.storage.judging.label_plan)."""
        return plans.judge_dimensions(self._p) if self._p else {}

    def label_plan(self, judge: str, dimension: str, reviewer: str) -> LabelPlan:
        """The label-first plan of a judge's dimension. Raises ProjectError
        (no project), ValueError or sqlite3.Error as label_plan does."""
        if self._p is None:
            raise ProjectError("no project is open")
        return plans.label_plan(self._p, judge, dimension, reviewer)

    def labelled_by(self, dimension: str, reviewer: str) -> set[str]:
        """Subjects ``reviewer`` labelled on ``dimension`` in the label-first queue."""
        return plans.labelled_by(self._p, dimension, reviewer) if self._p else set()

    def subject_order(self, subject: str) -> str | None:
        """The stored order ('ab', 'ba') a pair subject is shown in (None: one output)."""
        return labels.subject_order(self._p, subject) if self._p else None

    def subject_view(self, subject: str, judge: str, verdicts: list[Verdict] | None = None) -> Any:
        """What label first shows of a subject (reviewer.storage.judging.labels.subject_view)."""
        if self._p is None:
            raise ProjectError("no project is open")
        return labels.subject_view(self._p, subject, judge, verdicts)

    def judge_verdicts(self, verdicts: list[Verdict] | None = None) -> dict[str, list[Verdict]]:
        """{judge display name: its verdicts} (reviewer.storage.judging.labels)."""
        return labels.judge_verdicts(self._p, verdicts) if self._p else {}

    # -- spans --------------------------------------------------------------------------------
    def golden_spans(self, item_id: int, text: str) -> list[GoldenSpan]:
        """The item's golden spans drawn on ``text``, by start."""
        return spans.golden_spans(self._p, item_id, text) if self._p else []

    def snapshot_summaries(self) -> dict[str, dict]:
        """{snapshot name: its recomputed summary}, in import order."""
        if self._p is None:
            return {}
        p = self._p
        return {name: spans.summary_and_notes(spans.snapshot(p, name)[1])[0] for name in spans.snapshot_names(p)}

    def has_span_data(self) -> bool:
        """The project has a span snapshot or golden spans."""
        return self._p is not None and spans.has_span_data(self._p)

    def span_f1(self) -> dict[str, Any]:
        """Span F1 counts per group (reviewer.storage.spans.spans.f1_by_group)."""
        return spans.f1_by_group(self._p) if self._p else {}

    def span_runs(self) -> list[dict]:
        """Every span run."""
        return spans.span_runs(self._p) if self._p else []

    def missed_after_review(self) -> dict[str, dict[str, int]]:
        """{snapshot: {severity: count}} after review (reviewer.storage.spans.reviewed)."""
        return missed_after_review(self._p) if self._p else {}
