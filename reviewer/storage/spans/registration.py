"""The span workflow's storage registration (decision record
"workflow-registries"): the fact of its items, its import formats, its
report section (reviewer.storage.spans.report) and its tables of the
analysts' export (each snapshot's summary and debugging
sections, the runs its results became, the golden spans)."""

from __future__ import annotations

from reviewer.core.workflows import SPAN_PROMPT, Workflow
from reviewer.storage.registry import ExportPart, ReportSection, StorageWorkflow, register
from reviewer.storage.spans import export_docs

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
        # Last in the report; a span project still shows the card section's empty tables.
        report=ReportSection(
            module="reviewer.storage.spans.report",
            markdown="report_section_markdown",
            csv="report_csv",
            json="report_json",
            rank=600,
            json_rank=450,
            key="spans",
            hides_fallback=False,
        ),
        export_parts=(
            ExportPart(600, "reviewer.storage.spans.spans", "export_tables"),
            ExportPart(610, "reviewer.storage.spans.report", "debug_tables"),
            ExportPart(620, "reviewer.storage.spans.export_tables", "span_runs"),
        ),
        export_docs=export_docs.TABLES,
        export_keys=export_docs.FOREIGN_KEYS,
    )
)
