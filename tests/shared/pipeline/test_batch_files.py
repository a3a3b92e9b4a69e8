"""Batch files: requests written in the OpenAI Batch format, answers read
back against persistent reservations (docs/runner.md#batch-files). The live
runs in between talk to a server on 127.0.0.1 that the test starts."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from reviewer.pipeline.ask import RunOptions, run_models
from reviewer.pipeline.batch_out import BatchOut
from reviewer.pipeline.execute import Settings
from reviewer.storage.project.db import open_project
from tests.helpers.failter import experiment
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.runs import cli, rows, text_project


def lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def completion(content: str, n: int = 0) -> dict:
    """A chat-completions body as a batch engine writes it in an output line."""
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "model": "served-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10 + n, "completion_tokens": 5, "total_tokens": 15 + n},
    }


def ok_line(custom_id: str, content: str, n: int) -> dict:
    return {
        "id": f"batch_req_{n}",
        "custom_id": custom_id,
        "response": {"status_code": 200, "request_id": f"r{n}", "body": completion(content, n)},
        "error": None,
    }


def error_line(custom_id: str, n: int) -> dict:
    return {
        "id": f"batch_req_{n}",
        "custom_id": custom_id,
        "response": None,
        "error": {"code": "server_error", "message": "the engine ran out of memory"},
    }


def write_output(path: Path, out: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in out), encoding="utf-8")
    return path


def fake_output(requests: list[dict], reply, path: Path, error_at: int = 1) -> Path:
    """An output file for ``requests``: every answer by ``reply(request)``,
    the ``error_at``-th an error line, then one unknown custom_id and one
    duplicate of the first answer (another line id)."""
    out = []
    for n, r in enumerate(requests):
        out.append(error_line(r["custom_id"], n) if n == error_at else ok_line(r["custom_id"], reply(r), n))
    out.append(ok_line("answer|999|999|nobody|1", "stray", 900))
    out.append({**out[0], "id": "batch_req_dup"})
    return write_output(path, out)


def check_batch_format(requests: list[dict], model: str) -> None:
    """Every line is an OpenAI Batch request: custom_id, POST, the
    chat-completions url, a body with the model and its messages."""
    assert len({r["custom_id"] for r in requests}) == len(requests)
    for r in requests:
        assert set(r) == {"custom_id", "method", "url", "body"}
        assert r["method"] == "POST" and r["url"] == "/v1/chat/completions"
        assert r["body"]["model"] == model
        assert r["body"]["messages"] and all({"role", "content"} <= set(m) for m in r["body"]["messages"])


def test_run_round_trip_error_unknown_duplicate_live_run_skips_and_second_import_adds_nothing(tmp_path):
    db = text_project(tmp_path, n=3)
    out = tmp_path / "requests.jsonl"
    written = cli("run", db, "--model", "big", "--batch-out", out, "--temperature", "0.2")
    assert written.exit_code == 0, written.output
    assert "3 request(s) written" in written.output and "nothing was sent" in written.output
    requests = lines(out)
    check_batch_format(requests, "big")
    assert all(r["custom_id"].startswith("answer|") and r["custom_id"].endswith("|big|1") for r in requests)
    assert requests[0]["body"]["temperature"] == 0.2
    # a live run started in between skips what the batch holds, and says how many
    with FakeOpenAI() as fake:
        live = cli("run", db, "--model", "big", "--endpoint", fake.base_url)
        assert live.exit_code == 0, live.output
        assert not fake.counts and "held by a batch file 3" in live.output
        # the same file again is refused whole; another name writes nothing held
        assert cli("run", db, "--model", "big", "--batch-out", out).exit_code == 1
        again = cli("run", db, "--model", "big", "--batch-out", tmp_path / "again.jsonl")
        assert "0 request(s) written" in again.output and not (tmp_path / "again.jsonl").exists()
    listed = cli("batches", db)
    assert "requests.jsonl: waiting 3, answered 0, failed 0" in listed.output
    output = fake_output(requests, lambda r: f"summary of {r['custom_id']}", tmp_path / "output.jsonl")
    first = cli("import", db, output)
    assert first.exit_code == 0, first.output
    assert "format: batch-output" in first.output
    assert "added: 1 failed attempts, 2 runs" in first.output
    assert "answer|999|999|nobody|1" in first.output and "reserves" not in first.output.split("holds")[0][-5:]
    assert "already answered" in first.output  # the duplicate
    stored = rows(db, "SELECT output FROM runs WHERE model = 'big' ORDER BY output")
    assert [o for (o,) in stored] == [
        f"summary of {requests[0]['custom_id']}",
        f"summary of {requests[2]['custom_id']}",
    ]
    # stored as a live run stores it: the call's facts, tokens and parameters; scored
    facts = rows(
        db,
        "SELECT status, server_model, prompt_tokens, completion_tokens, finish_reason, params, error FROM calls "
        "WHERE model = 'big' ORDER BY id",
    )
    assert ("ok", "served-model", 10, 5, "stop", '{"temperature": 0.2}', None) in facts
    failed = [f for f in facts if f[0] == "failed"]
    assert len(failed) == 1 and "ran out of memory" in failed[0][6]
    assert rows(db, "SELECT count(*) FROM run_scores JOIN runs ON runs.id = run_id WHERE model = 'big'")[0][0] == 2
    # importing the same file twice adds nothing
    second = cli("import", db, output)
    assert second.exit_code == 0 and "added: nothing" in second.output
    assert rows(db, "SELECT count(*) FROM calls WHERE model = 'big'")[0][0] == 3
    assert "requests.jsonl: waiting 0, answered 2, failed 1" in cli("batches", db).output
    # the failed request is free again for a live run; nothing else is asked
    with FakeOpenAI() as fake:
        live = cli("run", db, "--model", "big", "--endpoint", fake.base_url)
        assert live.exit_code == 0 and sum(fake.counts.values()) == 1


def test_split_at_the_line_and_byte_limits_and_each_file_holds_its_requests(tmp_path):
    db = text_project(tmp_path, n=5)
    p = open_project(db)
    try:
        batch = BatchOut(tmp_path / "req.jsonl", max_lines=2)
        summary, new = run_models(p, Settings(endpoint="batch:req.jsonl"), RunOptions(model="m"), batch=batch)
        assert summary.asked == 5 and not new
        paths = batch.write(p)
        assert [x.name for x in paths] == ["req-1.jsonl", "req-2.jsonl", "req-3.jsonl"]
        assert [len(lines(x)) for x in paths] == [2, 2, 1]
        assert not (tmp_path / "req.jsonl").exists()
        for x in paths:
            check_batch_format(lines(x), "m")
            held = {r[0] for r in p.db.execute("SELECT custom_id FROM batch_reservations WHERE file = ?", [x.name])}
            assert held == {r["custom_id"] for r in lines(x)}
        # the byte limit: each file at most max_bytes
        size = max(len(x.read_bytes().splitlines()[0]) + 1 for x in paths)
        by_bytes = BatchOut(tmp_path / "b.jsonl", max_bytes=size * 2)
        run_models(p, Settings(endpoint="batch:b.jsonl"), RunOptions(model="other"), batch=by_bytes)
        written = by_bytes.write(p)
        assert len(written) >= 3 and all(x.stat().st_size <= size * 2 for x in written)
        assert sum(len(lines(x)) for x in written) == 5
    finally:
        p.close()


def test_cancel_releases_a_file_and_a_late_answer_is_still_stored_and_said(tmp_path):
    db = text_project(tmp_path, n=2)
    out = tmp_path / "requests.jsonl"
    assert cli("run", db, "--model", "m", "--batch-out", out, "--batch-expires", "1").exit_code == 0
    requests = lines(out)
    # expiry passed: live runs may ask again, and a late answer is still stored when unanswered
    con = sqlite3.connect(db)
    con.execute("UPDATE batch_reservations SET expires_at = '2000-01-01T00:00:00.000+00:00'")
    con.commit()
    con.close()
    assert "expired" in cli("batches", db).output
    output = write_output(tmp_path / "o.jsonl", [ok_line(requests[0]["custom_id"], "late answer", 1)])
    result = cli("import", db, output)
    assert "added: 1 runs" in result.output and "after their reservation expired" in result.output
    # cancel: the other request is released and its output line reserves nothing any more
    assert "1 waiting request(s)" in cli("batches", db, "--cancel", out).output
    unknown = cli("batches", db, "--cancel", "nothing.jsonl")
    assert unknown.exit_code == 1 and "no batch file nothing.jsonl" in unknown.output
    result = cli("import", db, write_output(tmp_path / "o2.jsonl", [ok_line(requests[1]["custom_id"], "x", 2)]))
    assert "added: nothing" in result.output and "no batch file" in result.output
    assert cli("run", db, "--model", "m", "--batch-expires", "0").exit_code == 2  # below the declared range


def failter_reply(body: dict) -> str:
    text = json.dumps(body["messages"])
    return "score: 80\nrationale: fine." if "Grading Scale" in text else "cleaned text\n"


def test_judge_round_trip_after_a_batch_of_answers(tmp_path):
    db = text_project(tmp_path, n=3)
    out = tmp_path / "judge.jsonl"
    written = cli("judge", db, "--model", "j", "--judge", "failter", "--batch-out", out, "--repetitions", "2")
    assert written.exit_code == 0, written.output
    requests = lines(out)
    assert len(requests) == 6 and sum(r["custom_id"].endswith("|2") for r in requests) == 3
    check_batch_format(requests, "j")
    assert all(r["custom_id"].startswith("judge|run:") for r in requests)
    assert requests[0]["body"]["logprobs"] is True
    with FakeOpenAI(answer=lambda body, tag: failter_reply(body)) as fake:
        live = cli("judge", db, "--model", "j", "--judge", "failter", "--endpoint", fake.base_url, "--repetitions", "2")
        assert live.exit_code == 0 and not fake.counts and "held by a batch file 6" in live.output
    output = fake_output(requests, lambda r: failter_reply(r["body"]), tmp_path / "out.jsonl")
    first = cli("import", db, output)
    assert first.exit_code == 0 and "added: 1 failed attempts, 5 verdicts" in first.output, first.output
    verdicts = rows(db, "SELECT judge, scores, raw FROM verdicts WHERE judge = 'rules-judge/j'")
    assert len(verdicts) == 5 and all(json.loads(s)["score"] == 80 for _, s, _ in verdicts)
    assert rows(db, "SELECT count(*) FROM calls WHERE kind = 'judge' AND status = 'failed'")[0][0] == 1
    assert "added: nothing" in cli("import", db, output).output
    assert rows(db, "SELECT count(*) FROM verdicts WHERE judge = 'rules-judge/j'")[0][0] == 5


@pytest.mark.parametrize("dual", [False, True], ids=["path-a", "path-b"])
def test_failter_spec_in_two_batch_steps(tmp_path, dual):
    spec = experiment(tmp_path)
    db = tmp_path / "run.db"
    extra = ["--dual"] if dual else []

    def step(name: str) -> tuple[str, list[dict]]:
        result = cli("run", db, spec, "--batch-out", tmp_path / name, *extra)
        assert result.exit_code == 0, result.output
        return result.output, lines(tmp_path / name) if (tmp_path / name).exists() else []

    said, trials = step("trials.jsonl")
    assert said.startswith("step 1 of 2 (trials)") and len(trials) == 12
    said, _ = step("trials-again.jsonl")  # all held: nothing written, still step 1
    assert said.startswith("step 1 of 2") and "held by a batch file already 12" in said
    with FakeOpenAI() as fake:  # a live run in between asks none of the held trials
        live = cli("run", tmp_path / "live.db", spec, "--endpoint", fake.base_url)
        assert live.exit_code == 0 and sum(fake.counts.values()) == 24  # another project: asked
        live = cli("run", db, spec, "--endpoint", fake.base_url, "--model", "ollama/qwen3:8b")
        assert "held by a batch file 6" in live.output and sum(fake.counts.values()) == 24
    result = cli("import", db, fake_output(trials, lambda r: failter_reply(r["body"]), tmp_path / "t-out.jsonl"))
    assert "added: 1 failed attempts, 11 runs" in result.output
    said, retry = step("trials-retry.jsonl")  # the failed trial only
    assert said.startswith("step 1 of 2") and len(retry) == 1
    cli("import", db, write_output(tmp_path / "r-out.jsonl", [ok_line(retry[0]["custom_id"], "cleaned", 50)]))
    said, judge = step("judge.jsonl")
    assert said.startswith(f"step 2 of 2 (judging, {'Path B' if dual else 'Path A'}")
    assert len(judge) == (16 if dual else 12)
    assert all(r["custom_id"].startswith("judge|") for r in judge)
    result = cli("import", db, fake_output(judge, lambda r: failter_reply(r["body"]), tmp_path / "j-out.jsonl"))
    assert f"added: 1 failed attempts, {len(judge) - 1} verdicts" in result.output
    said, again = step("judge-retry.jsonl")
    assert said.startswith("step 2 of 2") and len(again) == 1
    cli(
        "import",
        db,
        write_output(tmp_path / "j2.jsonl", [ok_line(again[0]["custom_id"], "score: 80\nrationale: ok", 60)]),
    )
    final = cli("run", db, spec, "--batch-out", tmp_path / "none.jsonl", *extra)
    assert final.exit_code == 0, final.output
    assert "Errors: 0 of 12 trials" in final.output and not (tmp_path / "none.jsonl").exists()
    assert (spec.parent / "out" / "final-report.json").exists()


def test_a_batch_verdict_is_read_as_a_live_one_logprob_confidence_and_an_unusable_reply_fails(tmp_path):
    db = text_project(tmp_path, n=2)
    out = tmp_path / "judge.jsonl"
    assert cli("judge", db, "--model", "j", "--judge", "failter", "--batch-out", out).exit_code == 0
    first, second = lines(out)
    content = "score: 80\nrationale: fine."
    tokens = [("score:", -0.01), (" 80", -0.2), ("\nrationale: fine.", -0.05)]
    answered = ok_line(first["custom_id"], content, 1)
    answered["response"]["body"]["choices"][0]["logprobs"] = {
        "content": [{"token": t, "logprob": lp, "top_logprobs": []} for t, lp in tokens]
    }
    unusable = ok_line(second["custom_id"], "x", 2)
    unusable["response"]["body"]["choices"][0]["message"]["content"] = 42
    result = cli("import", db, write_output(tmp_path / "o.jsonl", [answered, unusable]))
    assert "added: 1 failed attempts, 1 verdicts" in result.output, result.output
    confidence = rows(db, "SELECT confidence FROM verdict_confidences WHERE source = 'logprob' AND dimension = 'score'")
    assert confidence == [(pytest.approx(0.8187307530779818),)]
    error = rows(db, "SELECT error FROM calls WHERE kind = 'judge' AND status = 'failed'")
    assert len(error) == 1 and error[0][0].startswith("unusable reply")
    # the failed request is free for the next batch
    again = tmp_path / "again.jsonl"
    assert cli("judge", db, "--model", "j", "--judge", "failter", "--batch-out", again).exit_code == 0
    assert [r["custom_id"] for r in lines(again)] == [second["custom_id"]]
