"""Judge confidence end to end: logprobs from a local test server on
127.0.0.1 stored per dimension (exp of the value token's logprob), stated
confidences read from replies, imported confidences kept, `reviewer
calibration` against the core figures, `reviewer gate --min-coverage`,
the label budget of `reviewer alignment` and the export's table."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.clients.chat import ChatRequest, parse_completion
from reviewer.core.judging import llm_judges as lj
from reviewer.core.judging.budget import label_budget, simulate_budget
from reviewer.core.judging.confidence import calibration, correct_flags
from reviewer.core.judging.rubrics import rubric_version
from reviewer.core.judging.selective import select_threshold
from reviewer.core.judging.verdict_confidence import read_confidence, value_token_confidences
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.storage.importers import import_source
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.confidences import confidences
from reviewer.storage.project.db import open_project
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.judges import DIMS, tarot_tokens
from tests.helpers.paths import FIXTURES
from tests.helpers.runs import cli, rows, text_project


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


# ---------------------------------------------------------------------------
# the runner: logprobs from the endpoint, stated confidence from the reply


def test_runner_stores_exp_logprob_of_each_value_token_and_the_stated_confidence(tmp_path):
    db = text_project(tmp_path, n=3)
    streams = {}
    for doc in range(3):
        tokens, _ = tarot_tokens(doc)
        streams["".join(t for t, _ in tokens)] = tokens

    def answer(body, tag):
        doc = int(tag.split("|")[2].split(":")[1]) - 1  # judge|tarot-rubric|run:<id>|...
        return "".join(t for t, _ in tarot_tokens(doc)[0])

    with FakeOpenAI(answer=answer, logprobs=lambda content: streams[content]) as fake:
        result = cli(
            "judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "tarot-rubric", "--top-logprobs", "3"
        )
        assert result.exit_code == 0, result.output
        assert len(fake.requests) == 3
        for _, body, _ in fake.requests:
            assert body["logprobs"] is True and body["top_logprobs"] == 3
    p = open_project(db)
    try:
        stored = confidences(p)
        verdicts = [v for v in judging.verdicts(p) if v.judge == "tarot-rubric/j"]
        assert len(verdicts) == 3
        for v in verdicts:
            doc = next(i for i in range(3) if v.raw == "".join(t for t, _ in tarot_tokens(i)[0]))
            _, expected = tarot_tokens(doc)
            assert stored[v.id]["logprob"] == pytest.approx(expected, rel=1e-12)
            assert stored[v.id]["stated"] == {d: 0.8 for d in DIMS}
            assert v.scores == {d: float(1 + (k + doc) % 5) for k, d in enumerate(DIMS)}
    finally:
        p.close()
    # the confidences reach the export, described
    out = tmp_path / "out.db"
    assert cli("export", db, out).exit_code == 0
    exported = rows(
        out,
        "SELECT verdict_id, dimension, source, confidence FROM verdict_confidences "
        "WHERE source = 'logprob' ORDER BY verdict_id, dimension",
    )
    assert len(exported) == 15 and all(0 < c < 1 for *_, c in exported)
    described = "SELECT count(*) FROM _columns WHERE [table] = 'verdict_confidences' AND description != ''"
    assert rows(out, described)[0][0] == 4


def test_an_endpoint_refusing_logprobs_is_asked_without_them(tmp_path):
    db = text_project(tmp_path, n=1)
    reply = json.dumps({d: 4 for d in DIMS})
    with FakeOpenAI(answer=lambda body, tag: reply, refuse_logprobs=True) as fake:
        result = cli("judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "tarot-rubric")
        assert result.exit_code == 0, result.output
        assert [("logprobs" in body) for _, body, _ in fake.requests] == [True, False]
    p = open_project(db)
    try:
        (v,) = judging.verdicts(p)
        assert v.scores == {d: 4.0 for d in DIMS} and confidences(p) == {}
    finally:
        p.close()
    with FakeOpenAI(answer=lambda body, tag: reply) as fake:
        (tmp_path / "b").mkdir()
        db2 = text_project(tmp_path / "b", n=1)
        assert (
            cli(
                "judge", db2, "--endpoint", fake.base_url, "--model", "j", "--judge", "tarot-rubric", "--no-logprobs"
            ).exit_code
            == 0
        )
        assert "logprobs" not in fake.requests[0][1]


def test_value_tokens_are_found_after_their_key():
    tokens = [("grade", -0.1), (":", -0.1), (" B", -0.5), ("\n", -0.1), ("rationale: fine", -0.2)]
    content = "".join(t for t, _ in tokens)
    assert value_token_confidences(content, tokens, ["score"], {"score": ("grade", "score")}) == {
        "score": pytest.approx(math.exp(-0.5))
    }
    # a merged token carrying the key and the value counts (it decides the value)
    tokens = [('{"winner": "', -0.05), ("b", -0.7), ('"}', -0.01)]
    content = "".join(t for t, _ in tokens)
    assert value_token_confidences(content, tokens, ["winner"]) == {"winner": pytest.approx(math.exp(-0.7))}
    # the last occurrence of the key wins; a stream that does not hold the reply gives nothing
    tokens = [('"tone": ', 0.0), ("2", -2.0), (' {"tone": ', 0.0), ("5", -0.25), ("}", 0.0)]
    content = "".join(t for t, _ in tokens)
    assert value_token_confidences(content, tokens, ["tone", "safety"]) == {"tone": pytest.approx(math.exp(-0.25))}
    assert value_token_confidences("other text", tokens, ["tone"]) == {}
    assert value_token_confidences(content, [], ["tone"]) == {}


def test_the_client_reads_the_token_stream_and_drops_a_broken_one():
    def body(entries):
        return {"choices": [{"message": {"content": "ab"}, "logprobs": {"content": entries}}]}

    good = [{"token": "a", "logprob": -0.5, "top_logprobs": []}, {"token": "b", "logprob": 0}]
    assert parse_completion(body(good)).tokens == [("a", -0.5), ("b", 0.0)]
    for bad in (
        [{"token": "a", "logprob": 1.5}],
        [{"token": 3, "logprob": -1}],
        [{"token": "a"}],
        [{"token": "a", "logprob": float("nan")}],
        "x",
    ):
        assert parse_completion(body(bad)).tokens == []
    assert parse_completion({"choices": [{"message": {"content": "x"}}]}).tokens == []
    assert ChatRequest(model="m", messages=[]).body() == {"model": "m", "messages": []}
    assert ChatRequest(model="m", messages=[], top_logprobs=2).body()["logprobs"] is True


def test_stated_confidences_are_read_from_replies():
    assert lj.read_failter_reply("grade: B\nconfidence: 0.85\nrationale: clear").confidence == {"score": 0.85}
    assert lj.read_failter_reply('```yaml\nscore: 80\nconfidence: "70%"\n```').confidence == {"score": 0.7}
    assert lj.read_failter_reply("grade: B\nconfidence: 1.7").confidence == {}
    reply = json.dumps({**{d: 3 for d in DIMS}, "confidence": {"tone": 0.4, "overall": 0.9, "nope": 0.1}})
    assert lj.read_tarot_reply(reply).confidence == {"tone": 0.4, "overall": 0.9}
    assert lj.read_pairwise_reply('{"winner": "a", "confidence": 0.6}', True).confidence == {"winner": 0.6}
    assert lj.read_pairwise_reply('{"winner": "a"}', False).confidence == {}
    assert [read_confidence(x) for x in (0, 1, "0.5", True, None, -0.1, "high", float("inf"))] == [
        0.0,
        1.0,
        0.5,
        None,
        None,
        None,
        None,
        None,
    ]


# ---------------------------------------------------------------------------
# imports keep a confidence


def test_imported_confidences_are_kept_with_source_imported(tmp_path):
    db = text_project(tmp_path, n=2)
    src = tmp_path / "verdicts.jsonl"
    lines = [
        {"run": 1, "judge": "j", "dimension": "q", "value": 4, "scale": "1-5", "confidence": 0.9},
        {"run": 1, "judge": "j", "dimension": "r", "value": 2, "scale": "1-5", "confidence": "55%"},
        {"run": 2, "judge": "j", "dimension": "q", "value": 3, "scale": "1-5", "confidence": "sure"},
        {"run": 2, "judge": "j", "dimension": "r", "value": 3, "scale": "1-5"},
    ]
    src.write_text("".join(json.dumps(x) + "\n" for x in lines))
    p = open_project(db)
    try:
        report = import_source(p, src)
        assert any("confidence 'sure' is not within 0-1" in n for n in report.notes)
        by_run = {v.run_id: v.id for v in judging.verdicts(p)}
        stored = confidences(p)
        assert stored[by_run[1]] == {"imported": {"q": 0.9, "r": 0.55}}
        assert by_run[2] not in stored
    finally:
        p.close()


def test_rubric_imports_keep_a_confidence(tmp_path):
    fixture = FIXTURES / "rubric"
    folder = tmp_path / "readings"
    folder.mkdir()
    shutil.copy(fixture / "narrative-samples.json", folder)
    p = open_project(tmp_path / "r.db", create=True)
    try:
        import_source(p, folder)
        verdicts = tmp_path / "v.jsonl"
        base = {
            "id": "fx-move-three",
            "judge": "j",
            "personalization": 3,
            "tarot_coherence": 3,
            "tone": 3,
            "safety": 3,
            "overall": 3,
        }
        verdicts.write_text(
            json.dumps({**base, "confidence": 0.75})
            + "\n"
            + json.dumps({**base, "judge": "k", "confidence": {"tone": 0.5}})
            + "\n"
        )
        import_source(p, verdicts)
        by_judge = {v.judge: v.id for v in judging.verdicts(p)}
        stored = confidences(p)
        assert stored[by_judge["j"]] == {"imported": {d: 0.75 for d in DIMS}}
        assert stored[by_judge["k"]] == {"imported": {"tone": 0.5}}
    finally:
        p.close()


# ---------------------------------------------------------------------------
# calibration, selective judging, the gate


N = 200
TRUST = ("--min-n", "20", "--target", "0.85")


def labelled_data(seed: int = 4):
    """A pass/fail judge whose verdicts are right more often the surer it is
    (right with probability sqrt(confidence)), people's gold on every subject."""
    rng = np.random.default_rng(seed)
    conf = np.round(rng.uniform(0.3, 1.0, N), 3)
    human = rng.choice(["pass", "fail"], N)
    right = rng.uniform(size=N) < np.sqrt(conf)
    judge = np.where(right, human, np.where(human == "pass", "fail", "pass"))
    return conf, list(judge), list(human)


@pytest.fixture
def cal_db(tmp_path):
    conf, judge, human = labelled_data()
    path = tmp_path / "c.db"
    p = open_project(path, create=True)
    for i in range(N):
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{i}",
                judge="judge",
                method=Method.RUBRIC,
                scale=Scale.PASS_FAIL,
                scores={"ok": judge[i]},
                confidences={"logprob": {"ok": float(conf[i])}},
            ),
        )
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{i}", judge="gold", method=Method.HUMAN, scale=Scale.PASS_FAIL, scores={"ok": human[i]}
            ),
        )
    for i in range(N, N + 40):  # unlabelled verdicts count in the coverage
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{i}",
                judge="judge",
                method=Method.RUBRIC,
                scale=Scale.PASS_FAIL,
                scores={"ok": "pass"},
                confidences={"stated": {"ok": 0.9}, "logprob": {"ok": 0.99}},
            ),
        )
    p.close()
    return path


def test_calibration_json_equals_core_figures(cal_db, tmp_path):
    conf, judge, human = labelled_data()
    charts = tmp_path / "charts"
    out = invoke("calibration", cal_db, "--json", *TRUST, "--charts", charts)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    (row,) = data["calibrations"]  # stated confidences exist only on unlabelled verdicts
    assert (row["judge"], row["dimension"], row["source"]) == ("judge", "ok", "logprob")
    assert (row["labelled"], row["population"]) == (N, N + 40)
    core = calibration(conf, correct_flags(judge, human))
    for key in (
        "n",
        "accuracy",
        "mean_confidence",
        "ece",
        "adaptive_ece",
        "brier",
        "mean_confidence_right",
        "mean_confidence_wrong",
    ):
        assert row["calibration"][key] == pytest.approx(getattr(core, key), abs=1e-12), key
    assert [b["count"] for b in row["calibration"]["bins"]] == [b.count for b in core.bins]
    population = list(conf) + [0.99] * 40
    sel = select_threshold(conf, judge, human, min_n=20, target=0.85, population=population)
    assert row["selection"]["threshold"] == sel.threshold and sel.threshold is not None
    assert row["selection"]["coverage"] == pytest.approx(sel.coverage)
    assert row["selection"]["summary"].startswith(f"above {sel.threshold:.2f}, the judge is trusted on")
    (png,) = data["charts"]
    assert Path(png).parent == charts and Path(png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = invoke("calibration", cal_db, *TRUST).output
    assert "ECE" in text and "adaptive ECE" in text and sel.summary() in text
    report = invoke("report", cal_db)
    assert report.exit_code == 0 and "## Calibration of judge confidence" in report.output


def test_span_confidences_join_the_calibration(tmp_path):
    from tests.helpers.judges import span_result

    results = [
        {
            "promptKey": f"p{i}",
            "spans": [{"text": "a", "role": "x", "confidence": c} for c in (0.9, 0.6)],
            "judgeResult": span_result(
                falsePositives=[{"spanIndex": 1, "text": "b", "reason": "other"}], taxonomyErrors=[]
            ),
        }
        for i in range(3)
    ]
    p = open_project(tmp_path / "s.db", create=True)
    try:
        from reviewer.storage.judging.calibration_report import calibration_rows
        from reviewer.storage.spans.confidences import span_confidences
        from reviewer.storage.spans.spans import save_snapshot

        save_snapshot(p, "snap", "s.json", {"results": results})
        assert calibration_rows(p) == []  # the judging package reads no span data itself
        (row,) = calibration_rows(p, span_confidences=span_confidences(p))
    finally:
        p.close()
    assert (row.source, row.dimension) == ("span", "spans")
    assert row.correct == (True, False) * 3 and row.confidence == (0.9, 0.6) * 3
    assert row.calibration.brier == pytest.approx(np.mean([0.1**2, 0.6**2]))


GATE = ("--judge", "judge", "--dimension", "ok", *TRUST)


def test_gate_min_coverage_exit_codes(cal_db):
    conf, judge, human = labelled_data()
    sel = select_threshold(conf, judge, human, min_n=20, target=0.85, population=list(conf) + [0.99] * 40)
    assert 0.3 < sel.coverage < 0.95
    ok = invoke("gate", cal_db, *GATE, "--min-coverage", f"{sel.coverage - 0.01:.3f}")
    assert ok.exit_code == 0, ok.output
    assert "held: --min-coverage" in ok.output and "gate passed" in ok.output
    low = invoke("gate", cal_db, *GATE, "--min-coverage", f"{sel.coverage + 0.01:.3f}")
    assert low.exit_code == 1 and "Error: failed --min-coverage" in low.output and " < " in low.output
    unreachable = invoke("gate", cal_db, *GATE, "--min-coverage", "0.1", "--target", "0.999")
    assert unreachable.exit_code == 1 and "coverage undefined" in unreachable.output
    none = invoke("gate", cal_db, *GATE, "--min-coverage", "0.1", "--confidence-source", "imported")
    assert none.exit_code == 1 and "has no 'imported' confidence" in none.output
    # with the other bounds, every failure is named
    both = invoke("gate", cal_db, *GATE, "--min-coverage", "0.99", "--min-tpr", "0.99", "--resamples", "200")
    assert both.exit_code == 1
    assert [line.split(":")[1].split()[1] for line in both.output.splitlines() if line.startswith("Error")] == [
        "--min-tpr",
        "--min-coverage",
    ]


def test_alignment_gives_the_label_budget(cal_db):
    conf, judge, human = labelled_data()
    out = invoke("alignment", cal_db, "--json", "--resamples", "200")
    assert out.exit_code == 0, out.output
    (a,) = json.loads(out.output)["alignments"]
    budget = a["label_budget"]
    core = label_budget(judge, human, categories=["fail", "pass"])
    for name in ("kappa", "tpr", "tnr"):
        assert budget["statistics"][name]["further"] == core[name].further, name
        assert budget["statistics"][name]["estimate"] == pytest.approx(core[name].estimate)
    assert budget["further"] == max(b.further for b in core.values())
    for name in ("kappa", "tpr", "tnr"):
        sim = simulate_budget(judge, human, name, categories=["fail", "pass"])
        assert budget["statistics"][name]["simulated_needed"] == sim, name
        analytic = budget["statistics"][name]["needed"]
        assert abs(sim - analytic) <= 0.15 * analytic, name  # the cross-check agrees
    wide = json.loads(invoke("alignment", cal_db, "--json", "--resamples", "200", "--half-width", "0.3").output)
    assert wide["alignments"][0]["label_budget"]["further"] <= budget["further"]
    text = invoke("alignment", cal_db, "--resamples", "200").output
    assert "label budget (95 % interval, half-width <= 0.1):" in text and "judge / ok: kappa" in text


def test_calibration_without_confidences_says_so(tmp_path):
    path = tmp_path / "e.db"
    p = open_project(path, create=True)
    judging.add_verdict(
        p, Verdict(subject="run:1", judge="judge", method=Method.RUBRIC, scale=Scale.PASS_FAIL, scores={"ok": "pass"})
    )
    p.close()
    out = invoke("calibration", path)
    assert out.exit_code == 0 and out.output.startswith("no calibration: no judge verdict with a confidence")
    assert json.loads(invoke("calibration", path, "--json").output)["calibrations"] == []
    gate = invoke("gate", path, "--judge", "judge", "--dimension", "ok", "--min-coverage", "0.5")
    assert gate.exit_code == 1 and "Error: failed --min-coverage 0.5: coverage undefined" in gate.output


def test_the_judge_can_be_asked_to_state_its_confidence(tmp_path):
    db = text_project(tmp_path, n=2)

    def answer(body, tag):
        asked = "add a field `confidence`" in body["messages"][-1]["content"]
        return json.dumps({**{d: 4 for d in DIMS}, **({"confidence": 0.65} if asked else {})})

    with FakeOpenAI(answer=answer) as fake:
        result = cli(
            "judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "pairwise", "--no-logprobs"
        )  # one model: no pairs, nothing asked
        assert result.exit_code == 0 and not fake.requests
        result = cli(
            "judge",
            db,
            "--endpoint",
            fake.base_url,
            "--model",
            "j",
            "--judge",
            "tarot-rubric",
            "--no-logprobs",
            "--ask-confidence",
        )
        assert result.exit_code == 0, result.output
        assert len(fake.requests) == 2
    p = open_project(db)
    try:
        stored = confidences(p)
        for v in judging.verdicts(p):
            # the rubric's version (template name @ the hash of its files) marked as asked for a confidence
            version = rubric_version(lj.TAROT, ("system.md", "user.md"), DIMS)
            assert v.prompt_version == f"{version}+{lj.STATED_CONFIDENCE}"
            assert v.prompt_version.startswith(f"{lj.TAROT}@")
            assert stored[v.id] == {"stated": {d: 0.65 for d in DIMS}}
    finally:
        p.close()
    assert lj.ask_confidence([{"role": "user", "content": [{"type": "image_url"}]}])[0]["content"][-1]["type"] == "text"
