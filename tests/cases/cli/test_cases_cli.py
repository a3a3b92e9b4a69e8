"""Test cases (docs/test-cases.md) on the command line: import the CICADA test cases,
answers as JSONL, score by the seed's rules, report (JSON validated against
the seed's report shape), export, bad input, a metrics file of one's own."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.cases.report import EvaluationReport
from reviewer.storage.cases.cases import case_query, case_results
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from tests.helpers.paths import shared

PERFECT_CITE_002 = (
    "Mion seems cheerful in Onikakushi because she leads the club games "
    "[Episode: onikakushi, Chapter: 2, Speaker: Mion]. However, in Watanagashi the evidence "
    "suggests her behavior might differ, as the festival shows "
    "[Episode: watanagashi, Chapter: 5, Speaker: Mion]."
)
#: (case, model, output, expected case score, hand-computed from the seed's rules)
ANSWERS = [
    # passes everything: citationAccuracy 1.0
    ("cite-002", "m1", PERFECT_CITE_002, 1.0),
    # missing required citation: citationAccuracy 0.0
    (
        "cite-002",
        "m2",
        "Mion is loud and cheerful in Onikakushi, but in Watanagashi her behavior seems to differ.",
        0.0,
    ),
    # one citation short (3 expected, 2 given): 1.0 - 0.2
    (
        "cite-003",
        "m1",
        "The dam project drives the village's resistance [Episode: onikakushi, Chapter: 3, "
        "Speaker: Mion] and its significance returns [Episode: watanagashi, Chapter: 1, Speaker: Oishi].",
        0.8,
    ),
    # citation outside the episode scope: storyCoherence 0.0; 0.7 x 0.0 + 0.3 x 1.0
    (
        "story-001",
        "m1",
        "Rena's character is kind and cheerful, and she laughs with Keiichi "
        "[Episode: onikakushi, Chapter: 1, Speaker: Rena] [Episode: tatarigoroshi, Chapter: 3, "
        "Speaker: Rena].",
        0.3,
    ),
    # under 50 characters: overallCorrectness 0.0
    ("general-002", "m1", "A quiet village.", 0.0),
    # general-002 in full: 1.0
    ("general-002", "m2", "Higurashi is set in Hinamizawa, a small rural village in Japan, in June 1983.", 1.0),
    # theory without logic or hedging words: theoryCoherence 1 - 2 x 0.15 = 0.7; 0.6 x 0.7 + 0.4 x 1.0
    (
        "theory-001",
        "m1",
        "Mion and Shion are twins and the evidence is in the festival scenes "
        "[Episode: watanagashi, Chapter: 4, Speaker: Shion] "
        "[Episode: watanagashi, Chapter: 6, Speaker: Mion].",
        0.82,
    ),
]


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result


@pytest.fixture
def scored(tmp_path):
    data = shared("cicada-test-cases")
    db = tmp_path / "p.db"
    r = run("import", db, data)
    assert r.exit_code == 0, r.output
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "\n".join(json.dumps({"item": c, "model": m, "repetition": 1, "output": o}) for c, m, o, _ in ANSWERS) + "\n"
    )
    r = run("import", db, answers)
    assert r.exit_code == 0 and f"added: {len(ANSWERS)} runs" in r.output, r.output
    r = run("score", db)
    assert r.exit_code == 0, r.output
    return db


def test_import_the_nine_cicada_cases(tmp_path):
    data = shared("cicada-test-cases")
    db = tmp_path / "p.db"
    r = run("import", db, data)
    assert r.exit_code == 0, r.output
    assert "format: test-cases" in r.output and "added: 9 cases" in r.output
    assert "added: nothing" in run("import", db, data).output  # idempotent
    p = open_project(db)
    try:
        assert len(repo_items.items(p)) == 9
        assert sorted(x.name for x in repo_items.prompts(p)) == [
            "citation-accuracy",
            "general-correctness",
            "story-coherence",
            "theory-coherence",
        ]
        assert case_query(p, "theory-002") == "Could Oyashiro-sama's curse be related to the dam project murders?"
        assert case_query(p, "nope") is None
    finally:
        p.close()


def test_answers_score_as_the_seed_says(scored):
    p = open_project(scored)
    try:
        got = {(r.case.id, r.run["model"]): r.auto.score for r in case_results(p)}
        for r in case_results(p):
            assert r.run["prompt"] == r.case.dataset  # the JSONL gave no prompt: the dataset
    finally:
        p.close()
    assert got == {(c, m): pytest.approx(s) for c, m, _, s in ANSWERS}


def test_report_json_validates_against_the_seed_shape(scored):
    r = run("report", scored, "--format", "json")
    assert r.exit_code == 0, r.output
    reports = [EvaluationReport.model_validate(x) for x in json.loads(r.output)]
    by_model = {x.modelInfo.modelId: x for x in reports}
    m1 = by_model["m1"]
    # m1: 1.0, 0.8, 0.3, 0.0, 0.82 -> passed 3 (>= 0.7)
    assert (m1.totalCases, m1.passedCases, m1.failedCases) == (5, 3, 2)
    assert m1.averageScore == pytest.approx((1.0 + 0.8 + 0.3 + 0.0 + 0.82) / 5)
    cite = next(x for x in m1.results if x.caseId == "cite-002")
    assert cite.details.citationsFound == 2 and cite.details.episodesReferenced == ["onikakushi", "watanagashi"]
    m2 = by_model["m2"]
    assert (m2.totalCases, m2.passedCases) == (2, 1)
    assert m2.metricAverages.citationAccuracy == pytest.approx((0.0 + 1.0) / 2)  # no citation; none asked


def test_report_markdown_compares_the_two_models(scored):
    r = run("report", scored)
    assert r.exit_code == 0, r.output
    assert "## Test cases (seed report per model)" in r.output
    assert "| m1 | reviewed | 5 | 3 | 2 |" in r.output
    assert "citationAccuracy/required | error | 1 |" in r.output  # m2's missing citation
    assert "## Comparison by model: m1 vs m2" in r.output
    # cite-002 passes with m1 (1.0) and fails with m2 (0.0); general-002 the other way round
    assert "flipped: cite-002, general-002" in r.output
    r = run("report", scored, "--compare", "m1,nobody")
    assert r.exit_code == 1 and "cannot compare 'm1' with 'nobody'" in r.output


def test_export_has_case_results_and_case_scores(scored, tmp_path):
    out = tmp_path / "out.db"
    assert run("export", scored, out).exit_code == 0
    con = sqlite3.connect(out)
    try:
        rows = con.execute(
            "SELECT score, passed FROM case_scores WHERE case_id = 'cite-003' AND basis = 'auto'"
        ).fetchall()
        assert rows == [(pytest.approx(0.8), 1)]
        warnings = con.execute(
            "SELECT warnings FROM case_results WHERE case_id = 'cite-003' AND basis = 'auto' "
            "AND metric = 'citationAccuracy'"
        ).fetchone()[0]
        assert json.loads(warnings) == ["citationAccuracy/count: Expected at least 3 citations, found 2"]
        assert con.execute("SELECT count(*) FROM case_results").fetchone()[0] == len(ANSWERS) * 4 * 2
    finally:
        con.close()


def test_bad_cases_get_one_line_each_and_the_rest_is_imported(tmp_path):
    folder = tmp_path / "sets"
    folder.mkdir()
    good = {
        "id": "ok-1",
        "query": "Who is Rena?",
        "expectedBehavior": {"shouldCite": False},
        "metadata": {"category": "general"},
    }
    (folder / "one.json").write_text(
        json.dumps(
            [
                good,
                {"query": "No id?", "expectedBehavior": {}, "metadata": {"category": "general"}},
                {"id": "odd", "query": "Odd?", "expectedBehavior": {}, "metadata": {"category": "poetry"}},
            ]
        )
    )
    (folder / "two.json").write_text(json.dumps([{**good, "query": "Who else?"}]))
    db = tmp_path / "p.db"
    r = run("import", db, folder)
    assert r.exit_code == 0, r.output
    assert "added: 1 cases" in r.output
    assert "skipped one.json case 2: the case has no id" in r.output
    assert (
        "skipped one.json case 3 ('odd'): unknown category 'poetry' (known: citation, theory, story, general)"
        in r.output
    )
    assert "skipped two.json case 'ok-1': duplicate id 'ok-1' (also in one.json)" in r.output
    # imported again later, alone: still refused, and the first case is kept as it was
    r = run("import", db, folder / "two.json")
    assert "duplicate id 'ok-1' (already a case of dataset 'one')" in r.output
    p = open_project(db)
    try:
        assert case_query(p, "ok-1") == "Who is Rena?"
    finally:
        p.close()


def test_a_metrics_file_of_ones_own_and_a_broken_one(scored, tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text(
        '[[metrics]]\nname = "m"\n[[metrics.checks]]\nid = "x"\nmessage = "x"\n'
        'severity = "error"\ntest = { kind = "present", regex = "(unclosed" }\n'
    )
    r = run("score", scored, "--metrics", broken)
    assert r.exit_code == 1
    assert r.output.strip().splitlines()[-1].startswith(f"Error: {broken}: metric m, check x: broken regex '(unclosed'")
    own = tmp_path / "own.yaml"
    own.write_text("""
name: strict
metrics:
  - name: overallCorrectness
    per_warning: 0.5
    checks:
      - id: long
        message: "shorter than {n}"
        severity: warning
        test: {kind: length, n: 100}
scoring:
  pass: 0.9
  categories: {citation: {overallCorrectness: 1}, theory: {overallCorrectness: 1},
               story: {overallCorrectness: 1}, general: {overallCorrectness: 1}}
""")
    r = run("score", scored, "--metrics", own)
    assert r.exit_code == 0, r.output
    p = open_project(scored)
    try:
        got = {(r.case.id, r.run["model"]): r.auto.score for r in case_results(p)}
    finally:
        p.close()
    assert got[("general-002", "m1")] == pytest.approx(0.5)  # 16 characters < 100: one warning of 0.5
    assert got[("cite-002", "m1")] == 1.0  # longer than 100


def test_a_jsonl_line_without_prompt_for_an_item_that_is_no_case_is_skipped(tmp_path):
    src = tmp_path / "runs.jsonl"
    src.write_text(json.dumps({"item": "doc", "model": "m", "output": "x"}) + "\n")
    r = run("import", tmp_path / "p.db", src)
    assert r.exit_code == 0
    assert "skipped line 1: no prompt (and 'doc' is no test case whose dataset it would be)" in r.output
