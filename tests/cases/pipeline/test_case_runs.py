"""Test cases asked as the design asks them (test-case-evaluation-framework.md,
"Running Evaluations": ``invokeModel(query, context)`` once per case):
``reviewer run`` against a real HTTP server on 127.0.0.1 started by the test
(tests/helpers/fake_openai.py), on a synthetic twin of the CICADA cases and,
when present, on ../shared/data/cicada-test-cases."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.cases.asking import NO_SCOPE, case_messages
from reviewer.core.cases.model import TestCase
from reviewer.core.cases.report import EvaluationReport
from reviewer.storage.cases.cases import preset_metrics
from tests.helpers.case_twin import read_cases, write_twin
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.paths import shared

KEY = "sk-test-cases-key"


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"OPENAI_API_KEY": KEY}, catch_exceptions=False)


def rows(db, sql, params=()):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


@pytest.fixture(params=["twin", "real"])
def case_folder(request, tmp_path):
    """The synthetic twin (always) and the real CICADA cases (when present)."""
    if request.param == "real":
        return shared("cicada-test-cases")
    return write_twin(tmp_path / "twin")


def test_each_case_is_asked_once_per_model_with_its_query_and_episode_scope(case_folder, tmp_path):
    cases = read_cases(case_folder)
    assert len(cases) == 9
    db = tmp_path / "p.db"
    assert cli("import", db, case_folder).exit_code == 0
    with FakeOpenAI() as fake:
        r = cli("run", db, "--endpoint", fake.base_url, "--model", "alpha", "--model", "beta")
        assert r.exit_code == 0, r.output
        assert len(fake.requests) == 18  # 9 per model, not 9 x the 4 datasets
        for model in ("alpha", "beta"):
            asked = [(tag, body) for tag, body, _ in fake.requests if body["model"] == model]
            assert len(asked) == 9
            seen = set()
            for tag, body in asked:
                item, prompt, _, rep = tag.split("|")
                dataset, case = cases[item]
                assert prompt == dataset and rep == "1"  # the case's own dataset
                seen.add(item)
                text = "\n".join(m["content"] for m in body["messages"])
                assert case["query"] in text
                scope = case["context"].get("episodeScope")
                assert (f"Episode scope: {', '.join(scope)}" if scope else f"Episode scope: {NO_SCOPE}") in text
                assert json.loads(text.split("Context: ", 1)[1]) == case["context"]
            assert seen == set(cases)
        # resumable: asking again sends nothing
        r = cli("run", db, "--endpoint", fake.base_url, "--model", "alpha", "--model", "beta")
        assert r.exit_code == 0 and len(fake.requests) == 18
    for item, prompt in rows(
        db, "SELECT i.name, p.name FROM runs r JOIN items i ON i.id = r.item_id JOIN prompts p ON p.id = r.prompt_id"
    ):
        assert prompt == cases[item][0]
    r = cli("report", db, "--format", "json")
    assert r.exit_code == 0, r.output
    reports = {x.modelInfo.modelId: x for x in map(EvaluationReport.model_validate, json.loads(r.output))}
    assert set(reports) == {"alpha", "beta"}
    for rep in reports.values():
        assert rep.totalCases == 9 and sorted(x.caseId for x in rep.results) == sorted(cases)


def test_checks_that_do_not_count_for_the_category_are_no_findings(tmp_path):
    folder = write_twin(tmp_path / "twin")
    db = tmp_path / "p.db"
    assert cli("import", db, folder).exit_code == 0
    # an answer with no citation, no hedging and no logic words: every category's checks fire
    with FakeOpenAI(answer=lambda body, tag: "The lighthouse is important to the coast and its people.") as fake:
        assert cli("run", db, "--endpoint", fake.base_url, "--model", "m").exit_code == 0
    weights = preset_metrics().scoring.categories
    found = rows(
        db,
        "SELECT c.category, f.attrs FROM findings f JOIN runs r ON r.id = f.run_id "
        "JOIN cases c ON c.item_id = r.item_id",
    )
    assert found  # checks did fire
    by_category: dict[str, set] = {}
    for category, attrs in found:
        by_category.setdefault(category, set()).add(json.loads(attrs)["metric"])
    for category, metrics in by_category.items():
        assert metrics <= set(weights[category]), (category, metrics)
    assert by_category["citation"] == {"citationAccuracy"}  # theory checks are not queued on citation cases
    # the seed report still shows every metric, as the seed's evaluator does
    reports = json.loads(cli("report", db, "--format", "json").output)
    cite = next(x for x in reports[0]["results"] if x["caseId"] == "lc-cite-1")
    assert cite["metrics"]["theoryCoherence"] < 1.0
    assert any(w.startswith("theoryCoherence/") for w in cite["details"]["warnings"])
    assert cite["score"] == 0.0  # citationAccuracy alone: the required citation is missing


def test_score_prints_one_line_per_model_for_case_runs(tmp_path):
    folder = write_twin(tmp_path / "twin")
    db = tmp_path / "p.db"
    assert cli("import", db, folder).exit_code == 0
    r = cli("score", db)
    assert r.exit_code == 0 and "test cases: no answer scored yet" in r.output
    with FakeOpenAI() as fake:
        assert cli("run", db, "--endpoint", fake.base_url, "--model", "m", "--repetitions", "2").exit_code == 0
        assert len(fake.requests) == 18
    r = cli("score", db)
    assert r.exit_code == 0, r.output
    assert "not scored (free text)" not in r.output and "no scored prompt" not in r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "test cases, m: 18 answers to 9 cases scored by the rule metrics 'cicada': passed "
    )


def test_a_dataset_system_prompt_is_the_system_message(tmp_path):
    system = "You answer questions about The Lantern Coast. Stay within: {{EPISODE_SCOPE}}."
    folder = write_twin(tmp_path / "twin", {"story-twin": system})
    db = tmp_path / "p.db"
    r = cli("import", db, folder)
    assert r.exit_code == 0 and "1 system prompts" in r.output, r.output
    with FakeOpenAI() as fake:
        assert cli("run", db, "--endpoint", fake.base_url, "--model", "m").exit_code == 0
    bodies = {tag.split("|")[0]: body for tag, body, _ in fake.requests}
    story = bodies["lc-story-2"]["messages"]
    assert story[0] == {
        "role": "system",
        "content": "You answer questions about The Lantern Coast. Stay within: saltmarsh.",
    }
    assert story[1]["role"] == "user" and "What happens at the net-mending festival?" in story[1]["content"]
    assert [m["role"] for m in bodies["lc-cite-1"]["messages"]] == ["user"]  # no system prompt given


def test_other_items_and_prompts_are_asked_as_before_beside_cases(tmp_path):
    folder = write_twin(tmp_path / "twin")
    db = tmp_path / "p.db"
    assert cli("import", db, folder).exit_code == 0
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        json.dumps(
            {
                "item": "memo",
                "prompt": "summarise",
                "model": "seed",
                "repetition": 1,
                "output": "x",
                "prompt_text": "Summarise: {{INPUT_TEXT}}",
                "schema": "free",
            }
        )
        + "\n"
    )
    assert cli("import", db, runs).exit_code == 0
    with FakeOpenAI() as fake:
        assert cli("run", db, "--endpoint", fake.base_url, "--model", "m").exit_code == 0
        tags = sorted(tag for tag, _, _ in fake.requests)
    assert len(tags) == 10
    assert "memo|summarise|m|1" in tags  # the other item, of the other prompt only
    assert not any(t.startswith("lc-") and "|summarise|" in t for t in tags)
    with FakeOpenAI() as fake:  # --prompt names a dataset: that dataset's cases only
        r = cli("run", db, "--endpoint", fake.base_url, "--model", "n", "--prompt", "theory-twin")
        assert r.exit_code == 0
        assert sorted(tag for tag, _, _ in fake.requests) == [
            "lc-theory-1|theory-twin|n|1",
            "lc-theory-2|theory-twin|n|1",
        ]


def test_case_messages_fill_the_template_in_one_pass():
    case = TestCase(
        id="x",
        query="Say {{CONTEXT}} back",
        context={"episodeScope": "tidewatch", "userId": "u"},
        metadata={"category": "story"},
        dataset="d",
    )
    messages = case_messages(case, "{{QUERY}} | {{EPISODE_SCOPE}} | {{USER_ID}} | {{DATASET}}/{{CATEGORY}}")
    assert messages == [{"role": "user", "content": "Say {{CONTEXT}} back | tidewatch | u | d/story"}]
    assert case_messages(case, "{{QUERY}}", "   ")[0]["role"] == "user"  # a blank system prompt is none
