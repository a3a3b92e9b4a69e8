"""Each item's workflow is recorded at import, and a project from before the
record gets its items' workflows from what they hold (migration 0023)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from reviewer.cli.demo_samples import import_text_sample
from reviewer.core.workflows import Workflow
from reviewer.storage.importers import import_source
from reviewer.storage.project.db import open_project
from tests.helpers.paths import ROOT, SAMPLES


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


#: Each workflow's project: the samples imported as `reviewer demo` imports them.
_WORKFLOW_SAMPLES = ("cards", "spans", "cases", "failter", "rubric", "pairwise")


def _sample_project(tmp_path: Path, sample: str) -> Path:
    db = tmp_path / f"{sample}.db"
    if sample == "cards":
        p = open_project(db, create=True)
        import_source(p, SAMPLES)
        p.close()
    else:
        import_text_sample(ROOT / "samples", sample, db)
    return db


def test_no_judge_moves_an_item_out_of_the_workflow_it_was_imported_with(tmp_path):
    from reviewer.pipeline.execute import Settings
    from reviewer.pipeline.judge import KINDS, JudgeOptions, judge_runs
    from tests.helpers.fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        for sample in _WORKFLOW_SAMPLES:
            db = _sample_project(tmp_path, sample)
            p = open_project(db)
            try:
                imported = dict(p.db.execute("SELECT name, workflow FROM items").fetchall())
                before = p.db.execute("SELECT count(*) FROM verdicts").fetchone()[0]
                for kind in KINDS:  # every judge kind over every run it takes
                    judge_runs(p, Settings(endpoint=fake.base_url, retries=0), JudgeOptions(kind=kind, model="j"))
                judged = p.db.execute("SELECT count(*) FROM verdicts").fetchone()[0]
                assert judged > before, sample  # the judges did score this project
            finally:
                p.close()
            _as_before_the_record(db)
            p = open_project(db)  # migrates, from what each item holds now
            try:
                assert dict(p.db.execute("SELECT name, workflow FROM items").fetchall()) == imported, sample
            finally:
                p.close()


def test_a_project_written_before_the_record_migrates_by_content(tmp_path):
    db = tmp_path / "before.db"
    db.write_bytes((ROOT / "tests" / "fixtures" / "workflows" / "before-workflows.db").read_bytes())
    con = sqlite3.connect(db)
    assert "workflow" not in {r[1] for r in con.execute("PRAGMA table_info(items)")}
    judged_by_pipeline = con.execute("SELECT count(*) FROM verdicts WHERE source LIKE 'judge %'").fetchone()[0]
    con.close()
    assert judged_by_pipeline > 0  # a Failter judge over every run, a pairwise judge over the texts
    p = open_project(db)  # 0023 and every later migration
    try:
        assert dict(p.db.execute("SELECT name, workflow FROM items").fetchall()) == {
            "table-01": "cards",
            "table-02": "cards",
            "failter/bread.md": "judged output",
            "failter/pond.md": "judged output",
            "llmbar-pairwise-0": "pairwise",
            "llmbar-pairwise-1": "pairwise",
            "llmbar-pairwise-2": "pairwise",
        }
    finally:
        p.close()


def test_the_correction_puts_back_only_what_verdicts_moved(tmp_path):
    """A project migrated by 0023 while it still read verdicts: photos
    recorded as judged output or pairwise, an imported pair recorded as
    judged output. Migration 0024 puts those back and touches nothing else."""
    db = tmp_path / "moved.db"
    db.write_bytes((ROOT / "tests" / "fixtures" / "workflows" / "before-workflows.db").read_bytes())
    p = open_project(db)
    p.close()
    con = sqlite3.connect(db)
    con.executescript(
        "UPDATE items SET workflow = 'judged output' WHERE name IN ('table-01', 'llmbar-pairwise-0');"
        "UPDATE items SET workflow = 'pairwise' WHERE name IN ('table-02', 'failter/pond.md');"
        "UPDATE items SET workflow = 'spans' WHERE name = 'llmbar-pairwise-1';"
        "DELETE FROM _sqlite_migrations WHERE name = '0024_workflows_by_content';"
    )
    con.commit()
    con.close()
    p = open_project(db)
    try:
        assert dict(p.db.execute("SELECT name, workflow FROM items").fetchall()) == {
            "table-01": "cards",
            "table-02": "cards",
            "failter/bread.md": "judged output",
            "failter/pond.md": "pairwise",  # not a verdict move 0023 made: left as recorded
            "llmbar-pairwise-0": "pairwise",
            "llmbar-pairwise-1": "spans",
            "llmbar-pairwise-2": "pairwise",
        }
    finally:
        p.close()
