"""The storage registrations of the two judging workflows, judged output
and pairwise (decision record "workflow-registries"): their import formats,
the fact of a pairwise item, and the report sections and the tables of the
analysts' export they share (registered with judged output): the judge
report, the Failter table and the open failed calls
(reviewer.storage.judging.report_sections)."""

from __future__ import annotations

from reviewer.core.workflows import ASKED_SOURCE_PREFIX, Workflow
from reviewer.storage.judging import export_docs
from reviewer.storage.registry import ExportPart, ReportSection, StorageWorkflow, register

#: The module of the judging workflows' report sections.
SECTIONS = "reviewer.storage.judging.report_sections"

#: Items holding an imported pair of outputs to compare: a verdict on a pair
#: that an import stored (a pairwise benchmark's), not one ``reviewer judge`` asked.
IMPORTED_PAIR = (
    "SELECT r.item_id FROM verdicts v JOIN runs r ON r.id = v.run_id WHERE v.other_run_id IS NOT NULL "
    f"AND (v.source IS NULL OR substr(v.source, 1, {len(ASKED_SOURCE_PREFIX)}) != '{ASKED_SOURCE_PREFIX}')"
)

JUDGED = register(
    StorageWorkflow(
        Workflow.JUDGED.value,
        formats=(
            ("inspect-log", "reviewer.storage.importers.inspect_log", "detect", "import_inspect"),
            ("promptfoo-results", "reviewer.storage.importers.promptfoo", "detect", "import_promptfoo"),
            ("failter", "reviewer.storage.importers.failter", "detect", "import_failter"),
            ("tarot-readings", "reviewer.storage.importers.rubric", "detect_folder", "import_readings"),
            ("rubric-verdicts", "reviewer.storage.importers.rubric", "detect_verdicts", "import_verdicts"),
            ("jsonl-verdicts", "reviewer.storage.importers.jsonl_verdicts", "detect", "import_jsonl_verdicts"),
        ),
        format_ranks={
            "inspect-log": 40,
            "promptfoo-results": 50,
            "failter": 90,
            "tarot-readings": 120,
            "rubric-verdicts": 160,
            "jsonl-verdicts": 180,
        },
        report_sections=(
            ReportSection(
                module=SECTIONS,
                markdown="judges_markdown",
                csv="judges_csv",
                json="judges_json",
                has_data="has_data",
                context=True,
                rank=300,
                key="judges",
            ),
            ReportSection(
                module=SECTIONS,
                markdown="failter_section_markdown",
                csv="failter_section_csv",
                json="failter_section_json",
                context=True,
                rank=500,
                key="failter",
                hides_fallback=False,
            ),
            ReportSection(module=SECTIONS, markdown="failed_section_markdown", rank=550, hides_fallback=False),
        ),
        export_parts=(
            ExportPart(100, "reviewer.storage.judging.export_tables", "judge_tables"),
            ExportPart(200, "reviewer.storage.judging.export_tables", "failter_table", prices=True),
            ExportPart(300, "reviewer.storage.judging.export_tables", "rubric"),
            ExportPart(400, "reviewer.storage.judging.confidences", "export_tables"),
            ExportPart(800, "reviewer.storage.judging.labels", "label_tables"),
        ),
        export_docs=export_docs.TABLES,
        export_keys=export_docs.FOREIGN_KEYS,
    )
)

PAIRWISE = register(
    StorageWorkflow(
        Workflow.PAIRWISE.value,
        fact="pair",
        fact_sql=IMPORTED_PAIR,
        formats=(
            ("pairwise-pandalm", "reviewer.storage.importers.pairwise", "detect_pandalm", "import_pandalm"),
            ("pairwise-llmbar", "reviewer.storage.importers.pairwise", "detect_llmbar", "import_llmbar"),
        ),
        format_ranks={"pairwise-pandalm": 70, "pairwise-llmbar": 80},
    )
)
