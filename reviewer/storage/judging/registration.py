"""The storage registrations of the two judging workflows, judged output
and pairwise (decision record "workflow-registries"): their import formats
and the fact of a pairwise item."""

from __future__ import annotations

from reviewer.core.workflows import ASKED_SOURCE_PREFIX, Workflow
from reviewer.storage.registry import StorageWorkflow, register

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
