"""The toy workflow's storage layer: its import format, fact, scorer,
report sections and export table, in one registration."""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.core.models import Item, Prompt
from reviewer.core.tables import markdown_table
from reviewer.storage.importers.base import ImportOptions, ImportReport
from reviewer.storage.registry import ReportSection, StorageWorkflow, register
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from tests.helpers.toy_workflow.core import RIDDLES, correct

_TABLES = (
    "CREATE TABLE IF NOT EXISTS toy_answers (item_id INTEGER PRIMARY KEY, answer TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS toy_scores (run_id INTEGER PRIMARY KEY, correct INTEGER NOT NULL)",
)


def _tables(project) -> None:
    with project.transaction():
        for sql in _TABLES:
            project.db.execute(sql)


def detect(source: Path) -> bool:
    return source.is_file() and source.name.endswith(".riddles.json")


def import_riddles(project, source: Path, options: ImportOptions) -> ImportReport:
    report = ImportReport("riddles")
    _tables(project)
    prompt_id, _ = repo_items.upsert_prompt(project, Prompt(name="riddle", text="Answer the riddle."))
    for entry in json.loads(source.read_text())["riddles"]:
        item_id, made = repo_items.upsert_item(project, Item(name=entry["name"], kind="text", text=entry["text"]))
        report.count("items", made)
        with project.transaction():
            project.db.execute("INSERT OR REPLACE INTO toy_answers VALUES (?, ?)", [item_id, entry["answer"]])
        run_id, status = repo_runs.add_run(project, item_id, prompt_id, entry["model"], entry["guess"])
        report.count("runs", status == "added")
    return report


def score(project, run_ids: list[int] | None = None, only_stale: bool = False) -> int:
    if project.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'toy_answers'").fetchone() is None:
        return 0
    _tables(project)
    rows = project.db.execute(
        "SELECT r.id, r.output, a.answer FROM runs r JOIN toy_answers a ON a.item_id = r.item_id"
    ).fetchall()
    done = {r[0] for r in project.db.execute("SELECT run_id FROM toy_scores")} if only_stale else set()
    todo = [(rid, out, ans) for rid, out, ans in rows if rid not in done and (run_ids is None or rid in run_ids)]
    with project.transaction(derived=True):
        for rid, out, ans in todo:
            project.db.execute("INSERT OR REPLACE INTO toy_scores VALUES (?, ?)", [rid, int(correct(out, ans))])
    return len(todo)


def table(project) -> list[tuple[str, int, int]]:
    """(model, correct, runs) per model."""
    if project.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'toy_scores'").fetchone() is None:
        return []
    return project.db.execute(
        "SELECT r.model, sum(s.correct), count(*) FROM toy_scores s JOIN runs r ON r.id = s.run_id "
        "GROUP BY r.model ORDER BY r.model"
    ).fetchall()


def markdown(project) -> str:
    rows = table(project)
    if not rows:
        return ""
    return (
        "## Riddles\n\n"
        + markdown_table(["model", "correct", "runs"], [[m, str(c), str(n)] for m, c, n in rows])
        + "\n"
    )


def csv(project) -> str:
    rows = table(project)
    return "".join(["table,model,correct,runs\n"] + [f"riddles,{m},{c},{n}\n" for m, c, n in rows]) if rows else ""


def as_json(project):
    return [{"model": m, "correct": c, "runs": n} for m, c, n in table(project)] or None


def export(project):
    return [("riddle_scores", {"run_id": int, "model": str, "correct": int}, "run_id", _export_rows(project))]


def _export_rows(project):
    if project.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'toy_scores'").fetchone() is None:
        return []
    return project.db.execute(
        "SELECT s.run_id, r.model, s.correct FROM toy_scores s JOIN runs r ON r.id = s.run_id ORDER BY s.run_id"
    ).fetchall()


PARTS = StorageWorkflow(
    workflow=RIDDLES.value,
    fact_sql="SELECT item_id FROM toy_answers",
    formats=(("riddles", __name__, "detect", "import_riddles"),),
    scorer=score,
    report=ReportSection(markdown=markdown, csv=csv, json=as_json),
    export=export,
    export_docs={
        "riddle_scores": (
            "Each riddle run: whether its guess is the answer.",
            {"run_id": "The run.", "model": "The model.", "correct": "1 when the guess is the answer."},
        )
    },
)


def register_storage() -> None:
    """The storage registration."""
    register(PARTS)
