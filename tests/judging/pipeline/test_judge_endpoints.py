"""The span and pairwise judges end to end against the fake
OpenAI server on 127.0.0.1 (requests, stored verdicts and findings), and
`reviewer judge --fail-on` (the judge gate)."""

from __future__ import annotations

import json

from reviewer.core.judging.gates import JudgedPrompt, failing_judged, headline, judged_prompts
from reviewer.core.judging.verdicts import DisputeKind, Method, Scale, Verdict
from reviewer.storage import dispute_queue
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import runs as repo_runs
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.judges import jsonl_project, span_result
from tests.helpers.runs import cli, rows

SPANS = [
    {"text": "Medium Shot", "role": "shot.type", "confidence": 0.95, "start": 0, "end": 11},
    {"text": "golden light", "role": "lighting.quality", "confidence": 0.7, "start": 20, "end": 32},
]
TEXT = "Medium Shot of a fox golden light at dusk"


def test_span_judge_end_to_end(tmp_path):
    lines = [
        {
            "item": f"p{i}",
            "prompt": "span-labeling",
            "model": "labeler",
            "repetition": 1,
            "output": json.dumps({"text": TEXT, "spans": SPANS}),
            "prompt_text": "Label the spans.",
            "schema": "free",
        }
        for i in range(2)
    ]
    lines.append(
        {
            "item": "p2",
            "prompt": "span-labeling",
            "model": "labeler",
            "repetition": 1,
            "output": "not json",
            "prompt_text": "Label the spans.",
            "schema": "free",
        }
    )
    db = jsonl_project(tmp_path, lines, {f"p{i}": TEXT for i in range(3)})

    def answer(body, tag):
        user = body["messages"][-1]["content"]
        if "p1" in tag or "run:2" in tag:  # the second run gets a reply that cannot be read
            return "I will not answer in JSON."
        return "Here is my evaluation:\n" + json.dumps(span_result()) if "Medium Shot" in user else "?"

    with FakeOpenAI(answer=answer) as fake:
        result = cli("judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "span")
        assert result.exit_code == 0, result.output
        assert len(fake.requests) == 2  # the run whose output is not span JSON is not asked about
        for _, body, _ in fake.requests:
            assert [m["role"] for m in body["messages"]] == ["system", "user"]
            assert "[0] 'Medium Shot' (shot.type, 0.95)" in body["messages"][1]["content"]
            assert "[1] 'golden light' (lighting.quality, 0.70)" in body["messages"][1]["content"]
        again = cli("judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "span")
        assert again.exit_code == 0 and len(fake.requests) == 2 and "asked 0" in again.output
    p = open_project(db)
    try:
        verdicts = {v.run_id: v for v in judging.verdicts(p) if v.judge == "span-judge/j"}
        assert len(verdicts) == 2
        decided = [v for v in verdicts.values() if v.scores.get("coverage") is not None]
        undecided = [v for v in verdicts.values() if v.scores.get("coverage") is None]
        assert len(decided) == len(undecided) == 1
        v = decided[0]
        assert v.method == Method.RUBRIC and v.scale == Scale.ORDINAL5 and v.prompt_version.startswith("span-v1@")
        assert v.scores == {
            "coverage": 4.0,
            "precision": 3.0,
            "granularity": 4.0,
            "taxonomy": 2.0,
            "technicalSpecs": 5.0,
            "totalScore": 18.0,
        }
        assert "1 spanIndex out of range marked -1" in v.rationale
        assert undecided[0].rationale.startswith("undecided") and undecided[0].raw == "I will not answer in JSON."
        findings = {f.code.value: f for f in repo_findings.findings(p, v.run_id)}
        assert set(findings) == {"MISSED", "FALSE_POSITIVE", "TAXONOMY"}
        fp = findings["FALSE_POSITIVE"]
        assert fp.attrs["spanIndex"] == -1 and fp.model_index is None and fp.model_card == "dusk"
        assert findings["TAXONOMY"].model_index == 1 and findings["MISSED"].gt_card == "fox"
        assert all(f.verdict_id == v.id for f in findings.values())
        assert not repo_findings.findings(p, undecided[0].run_id)
    finally:
        p.close()


def test_pairwise_judge_asks_both_orders_and_stores_winners_in_the_original_order(tmp_path):
    lines = [
        {
            "item": f"doc{i}",
            "prompt": "answer",
            "model": model,
            "repetition": 1,
            "output": f"{model.upper()} answer {i}",
            "prompt_text": "Answer: {{INPUT_TEXT}}",
            "schema": "free",
        }
        for i in range(2)
        for model in ("alpha", "beta")
    ]
    db = jsonl_project(tmp_path, lines, {"doc0": "question zero", "doc1": "question one"})

    def answer(body, tag):
        user = body["messages"][1]["content"]
        if "question zero" in user:  # a fair judge: beta wins whatever the order
            first = user.split("# Output (a):", 1)[1].split("# Output (b):")[0]
            return json.dumps({"winner": "a" if "BETA" in first else "b", "rationale": "beta is better"})
        return json.dumps({"winner": "a", "rationale": "the first one"})  # a judge biased to the first place

    with FakeOpenAI(answer=answer) as fake:
        result = cli("judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "pairwise")
        assert result.exit_code == 0, result.output
        assert len(fake.requests) == 4
        firsts = sorted(
            (
                ("question zero" in body["messages"][1]["content"]),
                body["messages"][1]["content"].split("# Output (a):")[1].strip()[:5],
            )
            for _, body, _ in fake.requests
        )
        assert firsts == [(False, "ALPHA"), (False, "BETA "), (True, "ALPHA"), (True, "BETA ")]
        again = cli("judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "pairwise")
        assert again.exit_code == 0 and len(fake.requests) == 4
    p = open_project(db)
    try:
        runs = {r["id"]: r for r in repo_runs.run_rows(p)}
        got = {}
        for v in judging.verdicts(p):
            assert v.judge == "pairwise/j" and v.method == Method.PAIRWISE and v.scale == Scale.WINNER
            first, second = runs[v.run_id], runs[v.other_run_id]
            assert (first["model"], second["model"]) == (
                "alpha",
                "beta",
            ) and v.subject == f"pair:{first['id']}:{second['id']}"
            got[(first["item"], v.answer_order)] = v.scores["winner"]
        assert got == {("doc0", "ab"): "2", ("doc0", "ba"): "2", ("doc1", "ab"): "1", ("doc1", "ba"): "2"}
        flips = [d for d in dispute_queue.refresh_disputes(p) if d.kind == DisputeKind.POSITION]
        assert len(flips) == 1 and runs[int(flips[0].subject.split(":")[1])]["item"] == "doc1"
    finally:
        p.close()


def test_judge_fail_on_gates_on_a_judged_prompts_average(tmp_path):
    lines = [
        {
            "item": f"doc{i}",
            "prompt": prompt,
            "model": "m",
            "repetition": 1,
            "output": f"{prompt} {i}",
            "prompt_text": f"{prompt}: {{{{INPUT_TEXT}}}}",
            "schema": "free",
        }
        for i in range(2)
        for prompt in ("good", "meh", "bad")
    ]
    db = jsonl_project(tmp_path, lines, {"doc0": "zero", "doc1": "one"})
    grades = {
        ("good", "0"): "A",
        ("good", "1"): "B",
        ("meh", "0"): "B",
        ("meh", "1"): "D",
        ("bad", "0"): "D",
        ("bad", "1"): "F",
    }

    def answer(body, tag):
        text = json.dumps(body)
        grade = next(g for (prompt, i), g in grades.items() if f"{prompt} {i}" in text.split("GENERATED")[-1])
        return f"```yaml\ngrade: {grade}\nrationale: graded\n```"

    with FakeOpenAI(answer=answer) as fake:
        base = ["judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "failter"]
        fail = cli(*base, "--fail-on", "fail")
        asked = len(fake.requests)
        ambiguous = cli(*base, "--fail-on", "ambiguous")
        only_good = cli(*base, "--fail-on", "ambiguous", "--prompt", "good")
        assert len(fake.requests) == asked == 6  # the gate reads stored verdicts: nothing asked again
    # averages: good 90, meh 60, bad 30 (A-F as points)
    assert fail.exit_code == 1, fail.output
    assert "1 judged prompt(s) at or below 'fail': bad (m, rules-judge/j: 30.00 on A-F over 2)" in fail.output
    assert ambiguous.exit_code == 1 and "2 judged prompt(s) at or below 'ambiguous'" in ambiguous.output
    assert "meh (m, rules-judge/j: 60.00" in ambiguous.output and "good (m" not in ambiguous.output
    assert only_good.exit_code == 0, only_good.output
    assert rows(db, "SELECT count(*) FROM verdicts") == [(6,)]


def test_judge_gate_headline_and_scales():
    def v(scale, **scores):
        return Verdict(subject="run:1", run_id=1, judge="j", method=Method.RUBRIC, scale=scale, scores=scores)

    assert headline(v(Scale.ORDINAL5, overall=2, tone=5)) == 2
    assert headline(v(Scale.ORDINAL5, coverage=4, precision=2, totalScore=20)) == 3  # totalScore left out
    assert headline(v(Scale.WINNER, winner="1")) is None
    assert headline(v(Scale.ORDINAL5, coverage=None)) is None
    rows_ = [
        (v(Scale.ORDINAL5, overall=3), "p", "m"),
        (v(Scale.ORDINAL5, overall=None), "p", "m"),
        (v(Scale.WINNER, winner="2"), "p", "m"),
    ]
    [jp] = judged_prompts(rows_)
    assert jp == JudgedPrompt("j", "p", "m", Scale.ORDINAL5, 3.0, 1, 2)
    assert failing_judged([jp], "ambiguous") == [jp] and failing_judged([jp], "fail") == []
