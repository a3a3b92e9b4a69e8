"""Batch reservations are persistent (migration 0024): a project written by
the previous version gets their tables, keeps its data, and a live run's
reservation is refused while a batch file holds its key."""

from __future__ import annotations

import sqlite3

from reviewer.storage.importers import detect_format
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import batches
from reviewer.storage.repo.reservations import Reservations
from tests.helpers.runs import text_project


def test_a_project_of_the_previous_version_gets_the_batch_tables_and_keeps_its_runs(tmp_path):
    db = text_project(tmp_path, n=2)
    con = sqlite3.connect(db)
    con.execute("DROP TABLE batch_reservations")
    con.execute("DROP TABLE batch_lines")
    con.execute("DELETE FROM _sqlite_migrations WHERE name = '0026_batch_reservations'")
    con.commit()
    runs_before = con.execute("SELECT id, output FROM runs ORDER BY id").fetchall()
    con.close()
    p = open_project(db)  # migrates
    try:
        assert p.db.execute("SELECT id, output FROM runs ORDER BY id").fetchall() == runs_before
        assert batches.batch_files(p) == []
        batches.reserve(p, [("answer|1|1|m|1", "b.jsonl", {"kind": "answer"})], batches.expiry(48))
        assert batches.held(p, "answer|1|1|m|1")
        assert [(f.file, f.waiting) for f in batches.batch_files(p)] == [("b.jsonl", 1)]
    finally:
        p.close()


def test_a_live_claim_is_refused_while_a_batch_holds_the_key_and_not_after_expiry_or_cancel(tmp_path):
    p = open_project(tmp_path / "p.db", create=True)
    try:
        batches.reserve(p, [("k1", "a.jsonl", {}), ("k2", "a.jsonl", {})], batches.expiry(48))
        with Reservations(p) as r:
            assert r.claim("k1") == "batched"
            assert r.claim("k3") == "claimed"
        p.db.execute(
            "UPDATE batch_reservations SET expires_at = '2000-01-01T00:00:00.000+00:00' WHERE custom_id = 'k1'"
        )
        assert not batches.held(p, "k1") and batches.batch_files(p)[0].expired is False
        assert batches.cancel(p, "/somewhere/a.jsonl") == 2
        with Reservations(p) as r:
            assert r.claim("k1") == "claimed" and r.claim("k2") == "claimed"
    finally:
        p.close()


def test_a_batch_output_file_is_detected_before_the_jsonl_formats(tmp_path):
    out = tmp_path / "output.jsonl"
    out.write_text('{"id": "x", "custom_id": "answer|1|1|m|1", "response": {"status_code": 200, "body": {}}}\n')
    assert detect_format(out) == "batch-output"
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"item": "a", "prompt": "p", "model": "m", "output": "x"}\n')
    assert detect_format(runs) != "batch-output"
