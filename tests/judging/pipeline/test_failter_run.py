"""Failter as its authors run it (failter-docs USAGE.md, spec-format.md;
ground-truth-judge-proposal.md): `reviewer run P spec.yml` against a real
HTTP server on 127.0.0.1 started by the test. Every trial is counted,
numeric judges are read, Failter's artifacts and JSON report are written,
and the artifacts import back with the same report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from reviewer.core.judging.llm_judges import read_failter_reply
from reviewer.core.judging.verdicts import Scale
from reviewer.storage.judging.failter_report import FAILTER_COMMIT, failter_rows
from reviewer.storage.project.db import open_project
from tests.helpers.failter import MODELS, PRICES, answers, experiment
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.runs import cli, rows


# -- USAGE.md's shape, as a pydantic model ------------------------------------------
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Usage(_Strict):
    model_used: str
    tokens_in: int | None
    tokens_out: int | None


class Performance(_Strict):
    execution_time_ms: float | None
    total_trial_time_ms: float | None
    retry_attempts: int


class PromptResult(_Strict):
    prompt_id: str
    score: float | None
    usage: Usage
    performance: Performance
    error: str | None


USAGE_REPORT = TypeAdapter(list[PromptResult])


def table(db: Path, prices=None) -> dict[tuple[str, str], tuple]:
    """(model, prompt) -> the numbers of a Failter row."""
    p = open_project(db)
    try:
        return {
            (r.model, r.prompt): (r.trials, r.errors, r.avg_score, r.avg_time_s, r.avg_tokens, r.avg_cost)
            for r in failter_rows(p, (0.5, 0.5), prices)
        }
    finally:
        p.close()


def outputs(art: Path) -> list[Path]:
    return sorted(p for p in art.rglob("*") if p.is_file() and p.suffix == ".md")


def front(path: Path) -> dict:
    text = path.read_text()
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


@pytest.mark.parametrize("dual", [False, True], ids=["path-a", "path-b"])
def test_numeric_judge_every_trial_counted_artifacts_written_and_imported_back(tmp_path, dual):
    spec = experiment(tmp_path)
    exp = spec.parent
    db = tmp_path / "run.db"
    args = ["run", db, spec, "--prices", exp / "prices.yml"] + (["--dual"] if dual else [])
    with FakeOpenAI(answer=answers("score: 80\nrationale: Images removed, text kept.")) as fake:
        first = cli(*args, "--endpoint", fake.base_url)
        assert first.exit_code == 0, first.output
        assert sum(1 for t in fake.counts if not t.startswith("judge|")) == 12
        assert sum(n for t, n in fake.counts.items() if t.startswith("judge|")) == (16 if dual else 12)
        # the report: 12 trials with scores, no errors
        numbers = table(db, PRICES)
        assert len(numbers) == 4 and sum(n[0] for n in numbers.values()) == 12
        for trials, errors, avg, avg_time, avg_tokens, avg_cost in numbers.values():
            assert (trials, errors, avg) == (3, 0, pytest.approx(80))
            assert avg_time > 0 and avg_tokens > 0 and avg_cost is not None
        assert "No trials" not in first.output
        assert "Errors: 0 of 12 trials" in first.output and FAILTER_COMMIT in first.output
        # Failter's JSON report: on stdout and in output_file, one object per prompt and model
        report_file = exp / "out" / "final-report.json"
        usage = USAGE_REPORT.validate_json(report_file.read_text())
        assert json.loads(first.stdout) == json.loads(report_file.read_text())
        assert sorted((u.prompt_id, u.usage.model_used) for u in usage) == sorted(
            (t, m) for t in ("clean-a.md", "clean-b.md") for m in MODELS
        )
        for u in usage:
            assert u.score == pytest.approx(80) and u.error is None and u.performance.retry_attempts == 0
            assert u.usage.tokens_in > 0 and u.usage.tokens_out > 0 and u.performance.execution_time_ms > 0
        # the artifacts, in Failter's layout
        art = exp / "artifacts"
        files = outputs(art)
        assert [p.relative_to(art).as_posix() for p in files] == [
            f"{m}_{t}/doc{i}.md"
            for m in ("ollama-qwen3-8b", "openai-gpt-4o-mini")
            for t in ("clean-a", "clean-b")
            for i in range(3)
        ]
        meta = front(art / "ollama-qwen3-8b_clean-a" / "doc0.md")
        assert meta["title"] == "Doc 0"  # the input's own front matter is kept, as Failter's runner does
        assert (meta["filtered-by-model"], meta["filtered-by-template"]) == ("ollama/qwen3:8b", "clean-a.md")
        assert meta["source-input-path"] == str((exp / "inputs" / "doc0.md").resolve())
        assert meta["source-template-path"] == str((exp / "templates" / "clean-a.md").resolve())
        assert meta["retry-attempts"] == 0 and meta["errors-on-retry"] == [] and meta["execution-time-ms"] > 0
        assert set(meta["token-usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
        body = (art / "ollama-qwen3-8b_clean-a" / "doc0.md").read_text().split("---\n", 2)[2]
        assert body == "cleaned exp1/doc0.md|clean-a|ollama/qwen3:8b|1\n"  # the think block went to .thoughts
        assert (
            art / "ollama-qwen3-8b_clean-a" / "doc0.md.thoughts"
        ).read_text() == "pondering exp1/doc0.md|clean-a|ollama/qwen3:8b|1"
        assert not (art / "openai-gpt-4o-mini_clean-a" / "doc0.md.thoughts").exists()
        gt_eval = yaml.safe_load((art / "openai-gpt-4o-mini_clean-b" / "doc0.md.eval").read_text())
        rules_eval = yaml.safe_load((art / "openai-gpt-4o-mini_clean-b" / "doc1.md.eval").read_text())
        if dual:
            assert gt_eval["rules_based_eval"]["score"] == 80 and gt_eval["ground_truth_eval"]["score"] == 80
            assert set(rules_eval) == {"judge-model", "rules_based_eval"}
        else:
            assert (gt_eval["score"], gt_eval["evaluation-method"]) == (80, "ground-truth")
            assert (rules_eval["score"], rules_eval["evaluation-method"], rules_eval["judge-model"]) == (
                80,
                "rules-based",
                "openai/gpt-4o",
            )
        # re-running asks nothing and leaves every file as it was
        before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in art.rglob("*") if p.is_file()}
        second = cli(*args, "--endpoint", fake.base_url)
        assert second.exit_code == 0 and second.output.count("asked 0") == 2, second.output
        assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in art.rglob("*") if p.is_file()} == before
        assert json.loads(second.stdout) == json.loads(first.stdout)

    # the artifacts import back into a new project with the same report (with and without prices)
    back = tmp_path / "back.db"
    imported = cli("import", back, art)
    assert imported.exit_code == 0, imported.output
    assert table(back, PRICES) == numbers
    assert table(back) == numbers  # without --prices: Avg_Cost from the estimated-cost the front matter recorded
    # the same folder with one output's front matter saying error: -> Errors 1
    broken = art / "openai-gpt-4o-mini_clean-a" / "doc2.md"
    meta = front(broken)
    meta["error"] = "API call timed out"
    broken.write_text("---\n" + yaml.safe_dump(meta) + "---\n")
    third = tmp_path / "third.db"
    assert cli("import", third, art).exit_code == 0
    numbers3 = table(third, PRICES)
    assert numbers3[("openai/gpt-4o-mini", "clean-a")][:3] == (3, 1, pytest.approx((80 + 80 + 0) / 3))
    assert sum(n[1] for n in numbers3.values()) == 1
    report = cli("report", third)
    assert "Errors: 1 of 12 trials: 1 failed at the model" in report.output


@pytest.mark.parametrize("dual", [False, True], ids=["path-a", "path-b"])
def test_garbage_judge_errors_reported_trials_kept(tmp_path, dual):
    spec = experiment(tmp_path)
    exp = spec.parent
    db = tmp_path / "garbage.db"
    with FakeOpenAI(answer=answers("I cannot judge this.")) as fake:
        result = cli("run", db, spec, "--endpoint", fake.base_url, *(["--dual"] if dual else []))
    assert result.exit_code == 0, result.output
    assert rows(db, "SELECT count(*) FROM runs")[0][0] == 12  # the trials are kept
    assert rows(db, "SELECT count(*) FROM verdicts WHERE scores = '{\"score\": null}'")[0][0] == (16 if dual else 12)
    numbers = table(db)
    assert sum(n[0] for n in numbers.values()) == 12 and sum(n[1] for n in numbers.values()) == 12
    assert all(n[2] == 0 for n in numbers.values())  # each error counts 0, as Failter's table reporter
    assert "No trials" not in result.output
    assert (
        "Errors: 12 of 12 trials: 0 failed at the model (after their retries), 12 whose judge failed" in result.output
    )
    usage = USAGE_REPORT.validate_json(result.stdout)
    assert all(u.score is None and "judge reply not read: no grade or score" in u.error for u in usage)
    assert (
        'exp1/doc1.md: judge reply not read: no grade or score in the reply (reply: "I cannot judge this.")'
        in usage[0].error
    )  # the raw reply is shown
    eval_text = (exp / "artifacts" / "ollama-qwen3-8b_clean-a" / "doc1.md.eval").read_text()
    block = yaml.safe_load(eval_text)["rules_based_eval"] if dual else yaml.safe_load(eval_text)
    assert block["score"] is None and block["raw-reply"] == "I cannot judge this."
    back = tmp_path / "back.db"
    assert cli("import", back, exp / "artifacts").exit_code == 0
    assert table(back) == numbers
    assert {r[0] for r in rows(back, "SELECT raw FROM verdicts")} == {"I cannot judge this."}


def test_a_failed_judge_request_is_an_error_and_asked_again(tmp_path):
    spec = experiment(tmp_path)
    db = tmp_path / "j.db"
    with FakeOpenAI(answer=answers("grade: B\nrationale: ok")) as fake:
        fake.script["judge|failter-gt|run:1||1"] = ["500"]
        first = cli("run", db, spec, "--endpoint", fake.base_url)
        assert first.exit_code == 1
        numbers = table(db)
        assert sum(n[1] for n in numbers.values()) == 1 and sum(n[0] for n in numbers.values()) == 12
        assert "1 whose judge failed" in first.output
        second = cli("run", db, spec, "--endpoint", fake.base_url)
        assert second.exit_code == 0, second.output
    assert sum(n[1] for n in table(db).values()) == 0
    assert all(n[2] == pytest.approx(80) for n in table(db).values())


def test_command_line_retries_override_the_spec(tmp_path):
    spec = experiment(tmp_path, retries=2)
    tag = "exp1/doc1.md|clean-a|openai/gpt-4o-mini|1"
    with FakeOpenAI(answer=answers("score: 70")) as fake:
        fake.script[tag] = ["503", "ok"]
        given = cli("run", tmp_path / "a.db", spec, "--endpoint", fake.base_url, "--retries", "0")
        assert given.exit_code == 1 and fake.counts[tag] == 1
        assert "command line overrides the spec: retries 0 (spec: 2)" in given.output
        fake.script[tag] = ["503", "ok"]
        spec_retries = cli("run", tmp_path / "b.db", spec, "--endpoint", fake.base_url)
        assert spec_retries.exit_code == 0, spec_retries.output
        assert "overrides" not in spec_retries.output and fake.counts[tag] == 3
    meta = front(spec.parent / "artifacts" / "openai-gpt-4o-mini_clean-a" / "doc1.md")
    assert meta["retry-attempts"] == 1 and "503" in meta["errors-on-retry"][0]
    assert meta["total-trial-time-ms"] >= meta["execution-time-ms"]
    [row] = [
        u
        for u in json.loads(spec_retries.stdout)
        if (u["prompt_id"], u["usage"]["model_used"]) == ("clean-a.md", "openai/gpt-4o-mini")
    ]
    assert row["performance"]["retry_attempts"] == 1
    assert cli("run", tmp_path / "c.db", spec, "--endpoint", "http://127.0.0.1:9/v1", "--item", "x").exit_code == 2


def test_report_json_of_a_failter_project(tmp_path):
    spec = experiment(tmp_path)
    db = tmp_path / "r.db"
    with FakeOpenAI(answer=answers("score: 60")) as fake:
        fake.script["exp1/doc2.md|clean-b|ollama/qwen3:8b|1"] = ["500"]
        assert cli("run", db, spec, "--endpoint", fake.base_url).exit_code == 1
    result = cli("report", db, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["failter"]
    assert [(r["model"], r["prompt"]) for r in data] == [(m, p) for m in MODELS for p in ("clean-a", "clean-b")]
    row = data[1]
    assert list(row) == [
        "model",
        "prompt",
        "eval_method",
        "trials",
        "errors",
        "model_errors",
        "judge_errors",
        "avg_score",
        "rules_score",
        "gt_score",
        "avg_time_s",
        "avg_tokens",
        "avg_cost",
    ]
    assert (row["trials"], row["errors"], row["model_errors"], row["avg_score"]) == (3, 1, 1, pytest.approx(40))


@pytest.mark.parametrize(
    "reply, score, scale",
    [
        ("score: 80\nrationale: fine", 80.0, Scale.PERCENT),
        ("```yaml\ngrade: B\nrationale: ok\n```", 80.0, Scale.GRADE),
        ('Here it is: {"score": 65, "rationale": "ok"}', 65.0, Scale.PERCENT),
        ("**Score:** 90/100\n**Rationale:** good", 90.0, Scale.PERCENT),
        ("Grade: C+", 60.0, Scale.GRADE),
        ("score: 4/5", 4.0, Scale.ORDINAL5),
        ("Quoting it:\n```\nnote: kept\n```\ngrade: A", 100.0, Scale.GRADE),
        ("score: .nan", None, None),
        ("grade: Excellent", None, None),
        ("score: 140", None, None),
        ("I cannot judge this.", None, None),
    ],
)
def test_one_reader_of_judge_replies(reply, score, scale):
    from reviewer.core.judging.verdicts import normalise

    reading = read_failter_reply(reply)
    assert reading.decided == (score is not None)
    if score is not None:
        assert (normalise(reading.scores["score"], reading.scale), reading.scale) == (score, scale)
    else:
        assert reading.scores == {"score": None} and reading.rationale


def test_artifacts_are_written_whole(tmp_path, monkeypatch):
    import os

    from reviewer.pipeline import failter_artifacts
    from reviewer.storage.project.db import ProjectError

    target = tmp_path / "art" / "m_t" / "doc.md"
    first = "---\nfiltered-by-model: m\n---\nfirst\n"
    assert failter_artifacts.write_atomic(target, first) is True
    assert failter_artifacts.write_atomic(target, first) is False  # unchanged: not touched

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ProjectError, match=r"the disk is full \(.* free on "):
        failter_artifacts.write_atomic(target, "---\nfiltered-by-model: m\n---\nsecond, longer\n")
    assert target.read_text() == first
    assert [p.name for p in target.parent.iterdir()] == ["doc.md"]  # no temporary file left


class TrialFrontMatter(BaseModel):
    """A failed trial's front matter as Failter writes it (failter-docs
    USAGE.md: error, retry-attempts, errors-on-retry: a list of messages)."""

    model_config = ConfigDict(extra="allow", strict=True)
    error: str
    retry_attempts: int = Field(alias="retry-attempts")
    errors_on_retry: list[str] = Field(alias="errors-on-retry")


def test_errors_on_retry_are_whole_messages_in_the_artifacts_and_the_report(tmp_path):
    spec = experiment(tmp_path)
    tag = "exp1/doc1.md|clean-a|openai/gpt-4o-mini|1"
    with FakeOpenAI(answer=answers("score: 70")) as fake:
        fake.script[tag] = ["500", "500"]
        result = cli("run", tmp_path / "a.db", spec, "--endpoint", fake.base_url, "--retries", "1")
        assert result.exit_code == 1 and fake.counts[tag] == 2
    meta = TrialFrontMatter.model_validate(front(spec.parent / "artifacts" / "openai-gpt-4o-mini_clean-a" / "doc1.md"))
    assert meta.retry_attempts == 1 and len(meta.errors_on_retry) == 1
    [message] = meta.errors_on_retry
    assert "500" in message and len(message) > 3  # one whole message, never one character of its JSON
    [row] = [
        u
        for u in json.loads(result.stdout)
        if (u["prompt_id"], u["usage"]["model_used"]) == ("clean-a.md", "openai/gpt-4o-mini")
    ]
    assert f"(errors on retry: {message})" in row["error"]
