"""Judges asked through an endpoint (a real HTTP server on
127.0.0.1 started by the test), the Failter spec pipeline, and the key
never written anywhere."""

from __future__ import annotations

import json
import sqlite3

import pytest

from reviewer.core.judging.llm_judges import read_tarot_reply, structural_metrics_section
from reviewer.core.spans.judge import format_spans, read_span_reply
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.judges import judge_answer, make_experiment
from tests.helpers.paths import shared
from tests.helpers.runs import KEY, cli, rows


def test_tarot_rubric_judge_on_the_real_readings(tmp_path):
    data = shared("tarot-readings")
    db = tmp_path / "t.db"
    assert cli("import", db, data).exit_code == 0
    with FakeOpenAI(answer=judge_answer) as fake:
        result = cli("judge", db, "--endpoint", fake.base_url, "--model", "judge-70b", "--judge", "tarot-rubric")
        assert result.exit_code == 0, result.output
        readings = rows(
            db, "SELECT count(*) FROM runs r JOIN prompts p ON p.id = r.prompt_id WHERE p.name = 'tarot-reading'"
        )[0][0]
        assert len(fake.requests) == readings == 18
        for _, body, _ in fake.requests:
            user = body["messages"][1]["content"]
            assert "**Pre-computed structural metrics:**\n- Story spine:" in user
            assert "- Card coverage:" in user and "- Hallucinated cards:" in user
        again = cli("judge", db, "--endpoint", fake.base_url, "--model", "judge-70b", "--judge", "tarot-rubric")
        assert again.exit_code == 0 and len(fake.requests) == 18  # nothing asked twice
    verdicts = rows(
        db,
        "SELECT scores, flags, issues_found, rationale, prompt_version FROM verdicts "
        "WHERE judge = 'tarot-rubric/judge-70b'",
    )
    assert len(verdicts) == 18
    for scores, flags, issues, notes, version in verdicts:
        scores = json.loads(scores)
        assert set(scores) == {"personalization", "tarot_coherence", "tone", "safety", "overall"}
        assert scores["safety"] == 5  # 7 clamped to 1-5
        assert json.loads(flags) == {"safety_flag": False} and json.loads(issues) == ["generic"]
        assert len(notes) == 200 and version.startswith("tarot-rubric-v2.0.0@")
    report = cli("report", db).output
    assert "## Calibration (1-5 scores)" in report and "expected (plan)" in report
    assert "tarot-rubric/judge-70b" in report


def test_structural_metrics_section_is_the_plans():
    text = structural_metrics_section(
        {
            "spine": {"isValid": False, "totalSections": 5, "completeSections": 3},
            "cardCoverage": 0.75,
            "hallucinatedCards": ["The Tower", "The Sun"],
            "missingCards": ["The Fool"],
        }
    )
    assert text.splitlines() == [
        "- Story spine: INCOMPLETE (3/5 sections)",
        "- Card coverage: 75% (partial)",
        "- Hallucinated cards: The Tower, The Sun (CRITICAL)",
        "- Missing cards: The Fool",
    ]
    assert structural_metrics_section({}).splitlines()[2] == "- Hallucinated cards: none detected"
    assert not read_tarot_reply("no json at all").decided


def test_span_reply_schema_fallback_and_out_of_range_index():
    good = {
        "scores": dict.fromkeys(["coverage", "precision", "granularity", "taxonomy", "technicalSpecs"], 4),
        "totalScore": 20,
        "missedElements": [],
        "taxonomyErrors": [],
        "granularityErrors": [],
        "falsePositives": [{"spanIndex": 9, "text": "x", "assignedRole": "r", "reason": "other"}],
        "categoryScores": {
            c: {"coverage": 3, "precision": 3}
            for c in ("shot", "subject", "action", "environment", "lighting", "camera", "style", "technical", "audio")
        },
        "notes": "n",
    }
    result, how = read_span_reply(good, 3)
    assert how.startswith("valid") and result["falsePositives"][0]["spanIndex"] == -1
    result, how = read_span_reply({"scores": {"coverage": 2}, "incorrectExtractions": ["a"]}, 3)
    assert how.startswith("fallback") and result["falsePositives"][0]["reason"] == "other"
    assert read_span_reply(None, 3) == (None, "no JSON object")
    assert (
        format_spans([{"text": "Medium Shot", "role": "shot.type", "confidence": 0.95}])
        == "[0] 'Medium Shot' (shot.type, 0.95)"
    )


@pytest.mark.parametrize("dual", [False, True])
def test_failter_spec_end_to_end(tmp_path, dual):
    spec = make_experiment(tmp_path)
    db = tmp_path / "f.db"
    with FakeOpenAI(answer=judge_answer) as fake:
        fake.script["exp1/doc2.md|clean-b|ollama/qwen3:8b|1"] = ["500"]
        args = ["run", db, spec, "--endpoint", fake.base_url] + (["--dual"] if dual else [])
        first = cli(*args)
        assert first.exit_code == 1, first.output  # one trial failed
        trials = [t for t in fake.counts if not t.startswith("judge|")]
        assert len(trials) == 12
        out = first.output
        assert "## Failter report" in out
        for column in (
            "Eval_Method",
            "Trials",
            "Errors",
            "Avg_Score",
            "Rules_Score",
            "GT_Score",
            "Avg_Time",
            "Avg_Tokens",
        ):
            assert column in out
        line = next(ln for ln in out.splitlines() if ln.startswith("| ollama/qwen3:8b | clean-b"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[3:5] == ["3", "1"]  # Trials, Errors
        # doc0 has a ground truth: A (100) from the gt judge; the rest C (60) from the rules judge
        if dual:
            assert cells[2] == "mixed: rules-based+ground-truth 1, rules-based 1, failed 1"
            assert float(cells[5]) == pytest.approx(((0.5 * 60 + 0.5 * 100) + 60 + 0) / 3, abs=0.01)
            assert float(cells[6]) == pytest.approx(60) and float(cells[7]) == pytest.approx(100, abs=0.01)
        else:
            assert cells[2] == "mixed: rules-based 1, ground-truth 1, failed 1"
            assert float(cells[5]) == pytest.approx((100 + 60 + 0) / 3, abs=0.01)
        usage = json.loads((tmp_path / "exp1" / "report.json").read_text())  # Failter's USAGE.md shape
        row = next(o for o in usage if o["prompt_id"] == "clean-b.md" and o["usage"]["model_used"] == "ollama/qwen3:8b")
        assert row["error"].startswith("exp1/doc2.md: Trial failed: HTTP 500") and row["score"] is not None
        assert json.loads(first.stdout) == usage
        judged = sum(1 for t in fake.counts if t.startswith("judge|"))
        second = cli(*args)
        assert second.exit_code == 0, second.output  # the failed trial is asked again, then judged
        assert sum(1 for t in fake.counts if t.startswith("judge|")) == judged + 1
        line = next(ln for ln in second.output.splitlines() if ln.startswith("| ollama/qwen3:8b | clean-b"))
        assert [c.strip() for c in line.strip("|").split("|")][3:5] == ["3", "0"]
        third = cli(*args)
        assert "asked 0" in third.output


def test_key_is_never_written(tmp_path, capfd, caplog):
    spec = make_experiment(tmp_path)
    db = tmp_path / "k.db"
    with FakeOpenAI(answer=judge_answer) as fake:
        fake.script["exp1/doc1.md|clean-a|openai/gpt-4o-mini|1"] = ["401"]
        url = fake.base_url
        outputs = [
            cli("run", db, spec, "--endpoint", url, "--dual"),
            cli("run", db, "--endpoint", url, "--model", "m2", "--repetitions", "2"),
            cli("judge", db, "--endpoint", url, "--model", "j", "--judge", "failter-gt", "--dual"),
            cli("judge", db, "--endpoint", url, "--model", "j", "--judge", "pairwise"),
            cli("report", db),
            cli("export", db, tmp_path / "out.db"),
            cli("run", db, "--endpoint", url.replace("http://", f"http://u:{KEY}@"), "--model", "m3"),
        ]
        assert all(f"Bearer {KEY}" == h["Authorization"] for _, _, h in fake.requests)
    assert outputs[-1].exit_code != 0 and "user:password" in outputs[-1].output
    text = "".join(o.output for o in outputs) + "".join(capfd.readouterr()) + caplog.text
    assert KEY not in text
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    con = sqlite3.connect(db)
    dump = "\n".join(con.iterdump())
    con.close()
    assert KEY not in dump and "u:" not in dump
