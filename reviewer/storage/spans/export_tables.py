"""The span workflow's tables of the analysts' export (decision record
"workflow-registries"; its registration names them): the span_runs table,
the runs each snapshot's results became. Its descriptions are in
reviewer.storage.spans.export_docs."""

from __future__ import annotations

from reviewer.storage.project.db import Project

SPAN_RUN_COLUMNS = {"snapshot": str, "prompt_key": str, "run_id": int}


def span_run_rows(project: Project) -> list[tuple]:
    """The export's span_runs rows (SPAN_RUN_COLUMNS): (snapshot name,
    prompt key, run id or None) of every result a snapshot holds."""
    return [
        tuple(r)
        for r in project.db.execute(
            "SELECT s.name, l.prompt_key, l.run_id FROM span_snapshot_runs l "
            "JOIN span_snapshots s ON s.id = l.snapshot_id ORDER BY s.name, l.prompt_key"
        )
    ]


def span_runs(project: Project) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The ``span_runs`` table (SPAN_RUN_COLUMNS)."""
    return [("span_runs", SPAN_RUN_COLUMNS, None, span_run_rows(project))]
