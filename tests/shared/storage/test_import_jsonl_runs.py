"""JSONL runs that carry their repetition are added in groups
(repo_runs.add_numbered_runs, decision: big-projects-stay-interactive); the outcome per line is the one
repo_runs.add_run gives line by line."""

from __future__ import annotations

import json

from reviewer.core.cards.prompts import prompt_from_text
from reviewer.core.models import Item
from reviewer.storage.importers import import_source, jsonl_runs
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs


def _write(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _runs(project):
    return project.db.execute(
        "SELECT i.name, r.model, r.repetition, r.output, r.source FROM runs r "
        "JOIN items i ON i.id = r.item_id ORDER BY r.id"
    ).fetchall()


def test_duplicates_conflicts_and_unnumbered_lines_in_one_file(project, tmp_path, monkeypatch):
    monkeypatch.setattr(jsonl_runs, "GROUP", 2)  # groups end inside the file
    base = {"item": "i", "prompt": "p", "model": "m"}
    src = _write(
        tmp_path / "r.jsonl",
        [
            {**base, "repetition": 1, "output": "a"},
            {**base, "repetition": 1, "output": "a"},  # the same run again: present
            {**base, "repetition": 1, "output": "b"},  # another output for the same key: a conflict
            {**base, "output": "c"},  # no number: the next free repetition, after the lines before it
            {**base, "repetition": 3, "output": "d"},
            {**base, "output": "c"},  # the same unnumbered output: present
            {**base, "model": "n", "repetition": 1, "output": "a"},
        ],
    )
    report = import_source(project, src)
    assert report.added == {"items": 1, "prompts": 1, "runs": 4}
    assert report.existing["runs"] == 2
    assert report.skipped == [("line 3", "conflict: repetition 1 exists with a different output")]
    assert [r[:4] for r in _runs(project)] == [
        ("i", "m", 1, "a"),
        ("i", "m", 2, "c"),
        ("i", "m", 3, "d"),
        ("i", "n", 1, "a"),
    ]
    again = import_source(project, src)
    assert "runs" not in again.added and again.existing["runs"] == 6 and len(again.skipped) == 1


def test_a_group_is_audited_in_one_row_naming_each_run(project, tmp_path):
    src = _write(
        tmp_path / "r.jsonl",
        [{"item": "i", "prompt": "p", "model": "m", "repetition": k, "output": f"answer {k}"} for k in (1, 2, 3)],
    )
    import_source(project, src)
    rows = project.db.execute("SELECT action, row_id, after FROM audit WHERE table_name = 'runs'").fetchall()
    assert len(rows) == 1 and rows[0][0] == "insert"
    ids = [r[0] for r in project.db.execute("SELECT id FROM runs ORDER BY id")]
    assert rows[0][1] == f"{ids[0]}-{ids[-1]}"
    assert [entry[0] for entry in json.loads(rows[0][2])["runs"]] == ids
    assert [entry[5] for entry in json.loads(rows[0][2])["runs"]] == ["r.jsonl:1", "r.jsonl:2", "r.jsonl:3"]


def test_add_numbered_runs_agrees_with_add_run(project):
    item, _ = repo_items.upsert_item(project, Item(name="i", kind="text"))
    prompt, _ = repo_items.upsert_prompt(project, prompt_from_text("p", "", None, None))
    assert repo_runs.add_run(project, item, prompt, "m", "x", repetition=2) == (1, "added")
    got = repo_runs.add_numbered_runs(
        project,
        [
            repo_runs.NumberedRun(item, prompt, "m", 2, "x"),
            repo_runs.NumberedRun(item, prompt, "m", 2, "y"),
            repo_runs.NumberedRun(item, prompt, "m", 5, "z"),
        ],
    )
    assert got == [(1, "exists"), (None, "conflict: repetition 2 exists with a different output"), (2, "added")]
