"""The test-case workflow's storage registration (decision record
"workflow-registries"): the fact of its items, its import format, its
scorer (the checks of the project's metric set), its report section
(reviewer.storage.cases.report; alone in the JSON, the seed's list of
reports, when the project has nothing else) and its tables of the
analysts' export (case results and scores)."""

from __future__ import annotations

from typing import Any

from reviewer.core.workflows import Workflow
from reviewer.storage.cases import export_docs
from reviewer.storage.registry import ExportPart, ReportSection, StorageWorkflow, register


def score(project: Any, run_ids: list[int] | None = None, only_stale: bool = False) -> int:
    """Score the answers of the test cases among ``run_ids`` (all when None)
    by their checks (reviewer.storage.cases.cases.score_cases). Returns 0:
    the count of runs scored is the card scorer's and the other scorers'."""
    from reviewer.storage.cases.cases import score_cases

    score_cases(project, run_ids=run_ids, only_stale=only_stale)
    return 0


PARTS = register(
    StorageWorkflow(
        Workflow.CASE.value,
        fact="case",
        fact_sql="SELECT item_id FROM cases",
        formats=(("test-cases", "reviewer.storage.importers.cases", "detect", "import_cases"),),
        format_ranks={"test-cases": 60},
        scorer=score,
        report=ReportSection(
            module="reviewer.storage.cases.report",
            markdown="section_markdown",
            csv="section_csv",
            json="section_json",
            has_data="section_has_data",
            context=True,
            rank=200,
            json_rank=50,
            key="test_cases",
            alone_in_json=True,
        ),
        export_parts=(ExportPart(500, "reviewer.storage.cases.cases", "case_tables"),),
        export_docs=export_docs.TABLES,
        export_keys=export_docs.FOREIGN_KEYS,
    )
)
