"""promptfoo results in and people's labels out (reviewer.storage.importers.promptfoo,
reviewer.storage.promptfoo_export), on our own sample in the shape of
promptfoo 0.123's results file (EvaluateSummaryV3)."""

from __future__ import annotations

import json

import yaml
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.verdicts import Adjudication
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from reviewer.storage.repo.item_metadata import item_metadata
from tests.helpers.paths import ROOT

SAMPLE = ROOT / "samples" / "promptfoo" / "results.json"

#: promptfoo 0.123's TestCase fields and the assertion fields this writes
#: (src/types/index.ts, TestCaseSchema and AssertionSchema).
TEST_CASE_FIELDS = {
    "description",
    "vars",
    "provider",
    "providerOutput",
    "assert",
    "assertScoringFunction",
    "options",
    "threshold",
    "metadata",
    "prompts",
}
ASSERTION_FIELDS = {"type", "value", "threshold", "weight", "provider", "rubricPrompt", "metric", "transform", "config"}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_promptfoo_results_import_with_llm_rubric_judges_and_rule_checks(tmp_path):
    db = tmp_path / "p.db"
    out = invoke("import", db, SAMPLE)
    assert out.exit_code == 0, out.output
    assert "format: promptfoo-results" in out.output and "3 runs, 6 verdicts" in out.output
    p = open_project(db)
    try:
        vs = judging.verdicts(p)
        rubric = [v for v in vs if v.judge == "llm-rubric"]
        rules = [v for v in vs if v.judge in ("contains", "icontains")]
        assert len(rubric) == 3 and all(v.method.value == "rubric" and v.judge_model == "openai:gpt-4o" for v in rubric)
        assert len(rules) == 3 and all(v.method.value == "rules-based" and v.judge_model is None for v in rules)
        boiling = next(v for v in rubric if "212 F" in v.rationale)
        assert boiling.scores == {"pass": "pass"}
        assert json.loads(boiling.raw)["assertion"]["value"] == "Gives 100 degrees Celsius (or 212 F)"
        metas = sorted(item_metadata(p).values(), key=lambda m: m["description"])
        assert metas[0]["topic"] == "physics" and metas[0]["vars"] == {
            "question": "At what temperature does water boil at sea level?"
        }
        assert p.db.execute("SELECT DISTINCT model FROM runs").fetchall() == [("gpt-4o-mini",)]
    finally:
        p.close()
    assert invoke("import", db, SAMPLE).output.count("added: nothing") == 1  # idempotent
    # contains and llm-rubric disagree on the boiling point: a dispute
    assert json.loads(invoke("agreement", db, "--json").stdout)["disputes"]["by_kind"]["judges-disagree"] == 1


def test_people_labels_go_back_as_promptfoo_test_cases(tmp_path):
    db = tmp_path / "p.db"
    assert invoke("import", db, SAMPLE).exit_code == 0
    p = open_project(db)
    try:
        runs = dict(p.db.execute("SELECT output, id FROM runs").fetchall())
        # people pass the Fahrenheit answer and fail Saturn
        judging.put_adjudication(
            p,
            Adjudication(
                subject=f"run:{runs['212 degrees Fahrenheit.']}", dimension="pass", value="pass", reviewer="ana"
            ),
        )
        judging.put_adjudication(
            p,
            Adjudication(
                subject=f"run:{runs['Saturn is the largest planet.']}", dimension="pass", value="fail", reviewer="ana"
            ),
        )
    finally:
        p.close()
    out_file = tmp_path / "tests.yaml"
    out = invoke("export-promptfoo", db, out_file)
    assert out.exit_code == 0, out.output
    assert "wrote 2 promptfoo test case(s)" in out.output
    tests = yaml.safe_load(out_file.read_text())
    assert len(tests) == 2
    for t in tests:
        assert set(t) <= TEST_CASE_FIELDS and isinstance(t["vars"], dict) and isinstance(t["providerOutput"], str)
        for a in t["assert"]:
            assert set(a) <= ASSERTION_FIELDS and isinstance(a["type"], str)
    boiling = next(t for t in tests if t["providerOutput"] == "212 degrees Fahrenheit.")
    assert boiling["vars"] == {"question": "At what temperature does water boil at sea level?"}
    assert [a["type"] for a in boiling["assert"]] == ["contains", "llm-rubric"]  # passed: expected to pass
    assert boiling["metadata"]["reviewer_label"] == "pass"
    saturn = next(t for t in tests if t["providerOutput"] == "Saturn is the largest planet.")
    assert [a["type"] for a in saturn["assert"]] == ["not-icontains", "not-llm-rubric"]  # failed: negated
    assert saturn["assert"][1] == {"type": "not-llm-rubric", "value": "Names Jupiter", "provider": "openai:gpt-4o"}
    # a second export replaces the file reviewer wrote; a user's file is refused
    assert invoke("export-promptfoo", db, out_file).exit_code == 0
    mine = tmp_path / "mine.yaml"
    mine.write_text("tests: mine\n")
    refused = invoke("export-promptfoo", db, mine)
    assert refused.exit_code == 1 and mine.read_text() == "tests: mine\n"
