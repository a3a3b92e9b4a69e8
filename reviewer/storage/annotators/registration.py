"""The storage registration of the annotators' ground truth, shared by the
photo workflows (decision record "workflow-registries"): its tables of the
analysts' export, the piles and cards of every annotator and the consensus
(reviewer.storage.gt_formats.gt_tables, named here as the ground-truth
formats sit above the workflow packages) and the annotators' rows of the
agreement table; and the ground-truth agreement section of the report
(reviewer.storage.annotators.report)."""

from __future__ import annotations

from reviewer.storage.annotators import export_docs
from reviewer.storage.registry import ExportPart, ReportSection, StorageWorkflow, register

#: Not a stored workflow: the part the photo workflows share.
ANNOTATORS = "annotators"

PARTS = register(
    StorageWorkflow(
        ANNOTATORS,
        export_parts=(
            ExportPart(110, "reviewer.storage.annotators.export_tables", "agreement"),
            ExportPart(700, "reviewer.storage.gt_formats", "gt_tables"),
        ),
        report=ReportSection(
            module="reviewer.storage.annotators.report",
            markdown="markdown",
            csv="csv",
            json="as_json",
            rank=400,
            json_rank=700,
            key="ground_truth_agreement",
            hides_fallback=False,
        ),
        export_docs=export_docs.TABLES,
        export_keys=export_docs.FOREIGN_KEYS,
    )
)
