"""The card workflow's storage registration (decision record
"workflow-registries"): its import formats, ground truth of photos
included, its scorer (T-P5 against the ground-truth cards) and its report
section, first in the report and shown when nothing else is
(reviewer.storage.cards.report)."""

from __future__ import annotations

from typing import Any

from reviewer.core.workflows import Workflow
from reviewer.storage.registry import ReportSection, StorageWorkflow, register


def score(project: Any, **options: Any) -> int:
    """Score runs against their cards: reviewer.storage.cards.scores.score_runs
    with ``options`` (run_ids, only_stale, config, strict, progress, jobs);
    returns the runs scored."""
    from reviewer.storage.cards.scores import score_runs

    config = options.pop("config", None)
    return score_runs(project, config, **options)


PARTS = register(
    StorageWorkflow(
        Workflow.CARDS.value,
        formats=(
            ("labelme", "reviewer.storage.gt_formats.labelme", "detect", "import_labelme"),
            ("coco", "reviewer.storage.gt_formats.coco", "detect", "import_coco"),
            ("label-studio", "reviewer.storage.gt_formats.label_studio", "detect", "import_label_studio"),
            ("answer-key", "reviewer.storage.importers.answer_key", "detect", "import_answer_key"),
            ("card-folder", "reviewer.storage.importers.card_folder", "detect", "import_folder"),
        ),
        # The ground-truth formats come before card-folder, which takes any photo folder.
        format_ranks={"labelme": 10, "coco": 20, "label-studio": 30, "answer-key": 100, "card-folder": 110},
        scorer=score,
        scorer_options=True,
        report=ReportSection(
            module="reviewer.storage.cards.report",
            markdown="markdown",
            csv="csv",
            json="as_json",
            has_data="has_data",
            context=True,
            rank=100,
            key="cards",
            fallback=True,
        ),
    )
)
