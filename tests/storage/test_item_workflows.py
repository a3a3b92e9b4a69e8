"""Each item's workflow is recorded at import, and a project from before the
record gets its items' workflows from what they hold (migration 0023)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reviewer.cli.demo_samples import import_text_sample
from reviewer.core.workflows import Workflow
from reviewer.storage.db import open_project
from reviewer.storage.importers import import_source
from tests.conftest import ROOT, SAMPLES


def _as_before_the_record(db: Path) -> None:
    """The project as a reviewer before migration 0023 wrote it: no workflow column, no record of 0023."""
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE items DROP COLUMN workflow")
    con.execute("DELETE FROM _sqlite_migrations WHERE name = '0023_item_workflows'")
    con.commit()
    con.close()


def workflow_counts(p) -> dict:
    """{workflow: number of items} as recorded in the project."""
    return dict(p.db.execute("SELECT workflow, count(*) FROM items GROUP BY workflow").fetchall())


def test_an_older_project_gets_each_items_workflow_from_what_it_holds(tmp_path):
    db = tmp_path / "mixed.db"
    p = open_project(db, create=True)
    import_source(p, SAMPLES)
    p.close()
    for sample in ("spans", "cases", "failter", "pairwise"):
        import_text_sample(ROOT / "samples", sample, db)
    p = open_project(db)
    before = dict(p.db.execute("SELECT name, workflow FROM items").fetchall())
    p.close()
    _as_before_the_record(db)
    p = open_project(db)  # migrates
    try:
        after = dict(p.db.execute("SELECT name, workflow FROM items").fetchall())
        assert after == before
        assert workflow_counts(p) == {
            Workflow.CARDS: 2,
            Workflow.SPANS: 3,
            Workflow.CASE: 4,
            Workflow.JUDGED: 2,
            Workflow.PAIRWISE: 3,
        }
    finally:
        p.close()


def test_an_item_keeps_the_workflow_it_was_imported_with(tmp_path):
    db = tmp_path / "spans.db"
    import_text_sample(ROOT / "samples", "spans", db)
    p = open_project(db)
    try:
        item_id = p.db.execute("SELECT id FROM items ORDER BY id LIMIT 1").fetchone()[0]
        # a later import gives the span item a single-output judge verdict: it stays a span item
        run_id = p.db.execute("SELECT id FROM runs WHERE item_id = ?", [item_id]).fetchone()[0]
        with p.transaction():
            p.db.execute(
                "INSERT INTO verdicts (subject, run_id, judge, method, scale, scores, imported_at) "
                "VALUES (?, ?, 'j', 'rubric', 'ordinal5', '{}', '2025-01-01')",
                [f"run:{run_id}", run_id],
            )
        import_source(p, ROOT / "samples" / "rubric")
        assert p.db.execute("SELECT workflow FROM items WHERE id = ?", [item_id]).fetchone()[0] == "spans"
    finally:
        p.close()
