"""A project whose inspect_ai log was imported before C/I/P was a scale
(match's C/I on pass/fail, the partial-credit grader's C/P/I on 0-100) gets
the scale and values today's import records (migration 0030,
reviewer.storage.project.inspect_letters; decision record
"inspect-letters-migrated"), with the people's values that went with them.
The project was written by the previous version (tests/fixtures/inspect-letters,
its README gives the recipe)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from reviewer.storage.importers import import_source
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from tests.helpers.paths import FIXTURES

pytest.importorskip("inspect_ai")

FIXTURE = FIXTURES / "inspect-letters"


def _copy(tmp_path: Path) -> Path:
    db = tmp_path / "before-cip.db"
    shutil.copy(FIXTURE / "before-cip.db", db)
    return db


def _scored(db: Path) -> dict:
    """{(output, epoch source without the eval id, judge): [(scale, scores)]} of every verdict."""
    p = open_project(db)
    try:
        source = dict(p.db.execute("SELECT id, output || ' ' || substr(source, -7) FROM runs").fetchall())
        out: dict = {}
        for v in judging.verdicts(p):
            out.setdefault((source[v.run_id], v.judge), []).append((v.scale.value, v.scores))
        return {k: sorted(x, key=repr) for k, x in out.items()}
    finally:
        p.close()


def _raw(db: Path, sql: str) -> list:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_the_old_scales_become_the_scale_todays_import_records(tmp_path):
    db = _copy(tmp_path)
    before = dict(_raw(db, "SELECT scale, count(*) FROM verdicts GROUP BY scale"))
    assert before == {"pass/fail": 6, "0-100": 6}  # as the previous version wrote them
    migrated = _scored(db)  # opening migrates
    fresh = tmp_path / "fresh.db"
    log = tmp_path / "arith.eval"
    shutil.copy(FIXTURE / "arith.eval", log)
    p = open_project(fresh, create=True)
    try:
        import_source(p, log)
    finally:
        p.close()
    assert migrated == _scored(fresh)  # exactly what today's import of the same log records
    assert {scale for vs in migrated.values() for scale, _ in vs} == {"C/I/P"}
    assert migrated[("Lyon epoch 1", "model_graded_qa")] == [("C/I/P", {"score": 50.0})]
    assert migrated[("Lyon epoch 1", "match")] == [("C/I/P", {"score": 0.0})]
    # the people's values went with them: pass/fail's words as the letters' points
    p = open_project(db)
    try:
        runs = dict(p.db.execute("SELECT output, min(id) FROM runs GROUP BY output").fetchall())
        assert judging.adjudication(p, f"run:{runs['Saturn']}", "score").value == 0.0
        by = {x.subject: x for x in labels.labels(p)}
        jupiter, lyon = by[f"run:{runs['Jupiter']}"], by[f"run:{runs['Lyon']}"]
        assert (jupiter.first_value, jupiter.final_value) == (100.0, 100.0)
        assert (lyon.first_value, lyon.final_value) == (50.0, 0.0)  # points already
    finally:
        p.close()
    # the migration is recorded: opening again changes nothing
    assert _scored(db) == migrated


def test_a_label_the_scale_cannot_read_keeps_its_scorer_on_the_old_scale(tmp_path):
    db = _copy(tmp_path)
    con = sqlite3.connect(db)
    with con:
        # a pass/fail verdict no inspect log wrote stays as it is
        con.execute(
            "INSERT INTO verdicts (subject, run_id, judge, method, scale, scores, raw, source, imported_at) "
            "VALUES ('run:1', 1, 'checker', 'rules-based', 'pass/fail', ?, '', 'judge checker', 'x')",
            [json.dumps({"score": "pass"})],
        )
        # bo's final value of a Lyon run was 70 on 0-100: no letter's points
        con.execute("UPDATE human_labels SET final_value = '70.0' WHERE judge = 'model_graded_qa'")
    con.close()
    scored = _scored(db)
    grader = {scale for (_, judge), vs in scored.items() if judge == "model_graded_qa" for scale, _ in vs}
    match = {scale for (_, judge), vs in scored.items() if judge == "match" for scale, _ in vs}
    assert grader == {"0-100"} and match == {"C/I/P"}
    assert [vs for (_, judge), vs in scored.items() if judge == "checker"] == [[("pass/fail", {"score": "pass"})]]
    p = open_project(db)
    try:
        (lyon,) = [x for x in labels.labels(p) if x.judge == "model_graded_qa"]
        assert lyon.final_value == 70.0  # kept, and still read on the grader's 0-100
    finally:
        p.close()
