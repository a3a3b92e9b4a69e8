"""A project of each bundled sample, and the workflow of its items: shared by
the perspective and layout tests."""

from __future__ import annotations

from reviewer.cli.demo_samples import import_text_sample
from reviewer.core.workflows import Workflow
from tests.helpers.paths import ROOT
from tests.helpers.window import scored_sample

#: sample -> the workflow of its items
SAMPLE_WORKFLOWS = {
    "cards": Workflow.CARDS,
    "spans": Workflow.SPANS,
    "cases": Workflow.CASE,
    "failter": Workflow.JUDGED,
    "rubric": Workflow.JUDGED,
    "pairwise": Workflow.PAIRWISE,
}


def make(tmp_path, sample: str):
    db = tmp_path / f"{sample}.db"
    if sample == "cards":
        scored_sample(db)
    else:
        import_text_sample(ROOT / "samples", sample, db)
    return db
