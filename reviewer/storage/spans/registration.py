"""The span workflow's storage registration (decision record
"workflow-registries"): the fact of its items and its import formats."""

from __future__ import annotations

from reviewer.core.workflows import SPAN_PROMPT, Workflow
from reviewer.storage.registry import StorageWorkflow, register

#: Items with golden spans or span runs (a span snapshot's, a run of the span-labeling prompt).
FACT_SQL = (
    "SELECT item_id FROM golden_spans UNION "
    "SELECT r.item_id FROM span_snapshot_runs s JOIN runs r ON r.id = s.run_id UNION "
    f"SELECT r.item_id FROM runs r JOIN prompts p ON p.id = r.prompt_id WHERE p.name = '{SPAN_PROMPT}'"
)

PARTS = register(
    StorageWorkflow(
        Workflow.SPANS.value,
        fact="spans",
        fact_sql=FACT_SQL,
        formats=(
            ("span-snapshot", "reviewer.storage.importers.span_snapshots", "detect", "import_snapshot"),
            ("span-golden-set", "reviewer.storage.importers.span_golden", "detect_golden_set", "import_golden_set"),
            (
                "span-golden-results",
                "reviewer.storage.importers.span_golden",
                "detect_golden_results",
                "import_golden_results",
            ),
        ),
        format_ranks={"span-snapshot": 130, "span-golden-set": 140, "span-golden-results": 150},
    )
)
