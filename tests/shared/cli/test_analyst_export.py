"""An export an analyst can walk: the runs carry what the runner recorded,
the tables declare their keys, every table and column is described; and
`report --format json` gives a card project's sections. Network tests talk
to a real HTTP server on 127.0.0.1 that the test starts."""

from __future__ import annotations

import json

import sqlite_utils
from click.testing import CliRunner

from reviewer.cli import main
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.paths import SAMPLES


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"OPENAI_API_KEY": "sk-test"})


def test_export_has_the_runners_facts_foreign_keys_and_descriptions(tmp_path):
    db = tmp_path / "p.db"
    assert cli("import", db, SAMPLES, "--model", "sample").exit_code == 0
    with FakeOpenAI(answer=lambda body, tag: '{"cards": [{"text": "To die at home"}]}') as fake:
        result = cli("run", db, "--endpoint", fake.base_url, "--model", "vlm", "--max-side", "128")
        assert result.exit_code == 0, result.output
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"vlm": {"input": 0.001, "output": 0.002}}))
    out = tmp_path / "out.db"
    result = cli("export", db, out, "--prices", prices)
    assert result.exit_code == 0, result.output
    x = sqlite_utils.Database(out)
    # the runner's facts on the runs it made; imported runs have none
    ran = list(x.query("SELECT * FROM runs WHERE model = 'vlm'"))
    assert ran
    for r in ran:
        assert r["latency_ms"] is not None and r["latency_ms"] >= 0
        assert r["prompt_tokens"] > 0 and r["completion_tokens"] > 0
        assert r["total_tokens"] == r["prompt_tokens"] + r["completion_tokens"]
        assert r["finish_reason"] == "stop"
        assert abs(r["cost"] - (0.001 * r["prompt_tokens"] + 0.002 * r["completion_tokens"])) < 1e-9
    imported = list(x.query("SELECT latency_ms, prompt_tokens, cost FROM runs WHERE model = 'sample'"))
    assert imported and all(r == {"latency_ms": None, "prompt_tokens": None, "cost": None} for r in imported)
    # foreign keys, as datasette reads them
    fks = {
        (fk.table, fk.column, fk.other_table, fk.other_column)
        for t in ("runs", "findings", "verdicts", "span_runs", "gt_cards")
        for fk in x[t].foreign_keys
    }
    assert {
        ("findings", "run_id", "runs", "run_id"),
        ("runs", "item", "items", "item"),
        ("verdicts", "run_id", "runs", "run_id"),
        ("span_runs", "run_id", "runs", "run_id"),
        ("gt_cards", "item", "items", "item"),
    } <= fks
    assert x["runs"].pks == ["run_id"] and x["items"].pks == ["item"]
    # every finding's run is a run of the export
    assert list(
        x.query("SELECT count(*) AS n FROM findings f LEFT JOIN runs r ON r.run_id = f.run_id WHERE r.run_id IS NULL")
    ) == [{"n": 0}]
    # every table, view and column is described
    described = {(r["table"], r["column"]) for r in x["_columns"].rows if r["description"]}
    names = x.table_names() + x.view_names()
    for name in names:
        cols = [c.name for c in (x[name] if name in x.table_names() else x.view(name)).columns]
        assert {(name, c) for c in cols} <= described, name
    assert {r["table"] for r in x["_tables"].rows if r["description"]} == set(names)
    meta = json.loads((tmp_path / "out.db.metadata.json").read_text())
    # one run per prompt and item: the valid-JSON rule (3 runs) is not met: 0, never NULL
    ones = list(x.query("SELECT runs, json_ok FROM prompt_verdicts WHERE model = 'vlm'"))
    assert ones and all(r["runs"] < 3 and r["json_ok"] == 0 for r in ones)
    assert meta["databases"]["out"]["tables"]["runs"]["columns"]["latency_ms"]


def test_report_json_of_a_card_project_gives_its_sections(tmp_path):
    db = tmp_path / "p.db"
    assert cli("import", db, SAMPLES, "--model", "vlm").exit_code == 0
    result = cli("report", db, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {
        "project",
        "test_cases",
        "cards",
        "judges",
        "spans",
        "failter",
        "ground_truth_agreement",
        "workflows",
    }
    assert data["test_cases"] is None
    verdicts = data["cards"]["verdicts"]
    assert verdicts["auto"] and len(verdicts["auto"]) == len(verdicts["reviewed"])
    assert {v["verdict"] for v in verdicts["auto"]} <= {"pass", "ambiguous", "fail", "unscored"}
    assert any(c["codes"].get("MISS") for c in data["cards"]["code_counts"])
    assert data["judges"] is None and data["spans"] is None and data["failter"] is None
    assert data["workflows"] is None  # no workflow beyond the five is registered


def test_the_export_has_the_failter_table_of_the_report(tmp_path):
    from tests.helpers.paths import ROOT

    db = tmp_path / "f.db"
    assert cli("import", db, ROOT / "samples" / "failter").exit_code == 0
    report = json.loads(cli("report", db, "--format", "json").output)["failter"]
    assert cli("export", db, tmp_path / "out.db").exit_code == 0
    x = sqlite_utils.Database(tmp_path / "out.db")
    rows = list(x.query("SELECT * FROM failter ORDER BY model, prompt"))
    assert rows == sorted(report, key=lambda r: (r["model"], r["prompt"]))
    assert {r["model"]: r["avg_score"] for r in rows} == {"sloppy-model": 50.0, "tidy-model": 100.0}
    described = dict(x.execute("SELECT column, description FROM _columns WHERE \"table\" = 'failter'").fetchall())
    assert described["avg_score"].startswith("Mean score per trial in points")


def test_the_export_has_the_rubric_rules_of_the_report(tmp_path):
    from tests.helpers.paths import ROOT

    db = tmp_path / "r.db"
    assert cli("import", db, ROOT / "samples" / "rubric").exit_code == 0
    rubric = json.loads(cli("report", db, "--format", "json").output)["judges"]["rubric"]
    assert cli("export", db, tmp_path / "out.db").exit_code == 0
    x = sqlite_utils.Database(tmp_path / "out.db")
    rows = list(x.query("SELECT * FROM rubric_disputes"))
    assert rows == rubric["disputes"] and [r["dimension"] for r in rows] == ["safety_flag", "tarot_coherence"]
    assert list(x.query("SELECT * FROM rubric_gate")) == rubric["gate"]
    for table in ("rubric_gate", "rubric_disputes"):
        described = dict(x.execute('SELECT column, description FROM _columns WHERE "table" = ?', [table]).fetchall())
        assert list(described) == list(x[table].columns_dict) and all(described.values()), table
    assert set(rows[0]) == set(x["rubric_disputes"].columns_dict)
