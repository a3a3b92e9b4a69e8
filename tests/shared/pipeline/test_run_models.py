"""Asking models through an OpenAI-compatible endpoint. Every
network test talks to a real HTTP server on 127.0.0.1 that the test starts
(tests/helpers/fake_openai.py), never to the outside."""

from __future__ import annotations

import asyncio
import base64
import io
import os
import signal
import subprocess
import sys
import time

import pytest
from PIL import Image

from reviewer.clients.chat import ChatClient, ChatError, ChatRequest, EndpointError, check_endpoint, public_url
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.paths import ROOT, SAMPLES
from tests.helpers.runs import KEY, cli, rows, text_project


def test_endpoint_checks():
    assert check_endpoint("http://localhost:11434/v1/") == "http://localhost:11434/v1"
    assert public_url("http://bob:pw@host:8000/v1?x=1") == "http://host:8000/v1"
    with pytest.raises(EndpointError, match="user:password"):
        check_endpoint("http://bob:pw@host:8000/v1")
    with pytest.raises(EndpointError, match="/v1"):
        check_endpoint("http://localhost:11434")


def test_client_retries_500_and_429_honouring_retry_after_then_answers():
    with FakeOpenAI() as fake:
        fake.script["a"] = ["500", "429:1", "ok"]

        async def go():
            async with ChatClient(fake.base_url, KEY, retries=3, backoff=0.01) as c:
                t = time.perf_counter()
                answer = await c.chat(
                    ChatRequest(
                        model="m",
                        messages=[{"role": "user", "content": "hi"}],
                        tag="a",
                        temperature=0.2,
                        max_tokens=50,
                        seed=7,
                    )
                )
                return answer, time.perf_counter() - t

        answer, took = asyncio.run(go())
    assert fake.counts["a"] == 3 and answer.attempts == 3
    assert took >= 0.95  # waited the Retry-After second, not the 0.01 s backoff
    assert answer.content == "answer for a" and answer.server_model == "m-served"
    assert answer.params == {"temperature": 0.2, "max_tokens": 50, "seed": 7}
    assert answer.total_tokens == answer.prompt_tokens + answer.completion_tokens
    body = fake.requests[-1][1]
    assert body["seed"] == 7 and fake.requests[-1][2]["Authorization"] == f"Bearer {KEY}"


def test_client_timeout_retried_malformed_body_fails_at_once_length_is_truncated():
    with FakeOpenAI() as fake:
        fake.script["slow"] = ["sleep:1.5"]
        fake.script["bad"] = ["malformed"]
        fake.script["cut"] = ["length"]
        fake.script["down"] = ["503"] * 5

        async def go():
            out = {}
            async with ChatClient(fake.base_url, KEY, retries=2, timeout=0.5, backoff=0.01) as c:
                for tag in ("slow", "bad", "cut", "down"):
                    try:
                        out[tag] = await c.chat(
                            ChatRequest(model="m", messages=[{"role": "user", "content": "x"}], tag=tag)
                        )
                    except ChatError as exc:
                        out[tag] = exc
            return out

        out = asyncio.run(go())
    assert out["slow"].attempts == 2 and fake.counts["slow"] == 2
    assert isinstance(out["bad"], ChatError) and "malformed" in str(out["bad"]) and fake.counts["bad"] == 1
    assert out["cut"].truncated and out["cut"].finish_reason == "length"
    assert isinstance(out["down"], ChatError) and out["down"].status == 503 and fake.counts["down"] == 3


def test_run_stores_answers_failures_and_truncation_and_is_idempotent(tmp_path):
    db = text_project(tmp_path)
    with FakeOpenAI() as fake:
        fake.script["doc1|summarise|m1|1"] = ["500"] * 10
        fake.script["doc2|summarise|m1|1"] = ["length"]
        first = cli(
            "run",
            db,
            "--endpoint",
            fake.base_url,
            "--model",
            "m1",
            "--retries",
            "1",
            "--temperature",
            "0",
            "--max-tokens",
            "64",
            "--seed",
            "5",
        )
        assert first.exit_code == 1, first.output
        assert "asked 3, answered 2, failed 1" in first.output
        assert "doc1 / summarise / repetition 1" in first.output and "HTTP 500" in first.output
        assert rows(
            db, "SELECT status, item, error LIKE '%HTTP 500%', attempts FROM calls WHERE status = 'failed'"
        ) == [("failed", "doc1", 1, 2)]
        facts = rows(
            db,
            "SELECT i.name, c.truncated, c.finish_reason, c.server_model, c.params FROM calls c "
            "JOIN runs r ON r.id = c.run_id JOIN items i ON i.id = r.item_id ORDER BY i.name",
        )
        assert facts == [
            ("doc0", 0, "stop", "m1-served", '{"max_tokens": 64, "seed": 5, "temperature": 0.0}'),
            ("doc2", 1, "length", "m1-served", '{"max_tokens": 64, "seed": 5, "temperature": 0.0}'),
        ]
        # the prompt's {{INPUT_TEXT}} got the item's text
        assert fake.requests[0][1]["messages"][0]["content"].startswith("Summarise: text of doc")
        report = cli("report", db)
        assert "## Failed attempts" in report.output and "HTTP 500" in report.output
        fake.script["doc1|summarise|m1|1"] = []  # the server is well again
        before = sum(fake.counts.values())
        again = cli("run", db, "--endpoint", fake.base_url, "--model", "m1", "--retries", "1")
        assert again.exit_code == 0, again.output
        assert sum(fake.counts.values()) == before + 1  # only the failed one is asked again
        third = cli("run", db, "--endpoint", fake.base_url, "--model", "m1")
        assert third.exit_code == 0 and "asked 0" in third.output and sum(fake.counts.values()) == before + 1
    assert "## Failed attempts" not in cli("report", db).output  # resolved


def test_sample_three_repetitions_scored_and_exported(tmp_path):
    db = tmp_path / "s.db"
    assert cli("import", db, SAMPLES, "--model", "sample").exit_code == 0
    with FakeOpenAI(answer=lambda body, tag: '{"cards": [{"text": "To die at home"}]}') as fake:
        result = cli(
            "run",
            db,
            "--endpoint",
            fake.base_url,
            "--model",
            "vlm",
            "--repetitions",
            "3",
            "--max-side",
            "256",
            "--seed",
            "10",
            "--concurrency",
            "8",
        )
        assert result.exit_code == 0, result.output
        parts = fake.requests[0][1]["messages"][0]["content"]
        seeds = sorted({body["seed"] for _, body, _ in fake.requests})
    assert seeds == [10, 11, 12]
    assert parts[0]["type"] == "text" and parts[1]["type"] == "image_url"
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    assert max(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size) <= 256
    assert cli("score", db).exit_code == 0
    out = tmp_path / "out.db"
    assert cli("export", db, out).exit_code == 0
    counts = rows(out, "SELECT item, prompt, count(*) FROM runs WHERE model = 'vlm' GROUP BY item, prompt")
    assert counts and all(n == 3 for _, _, n in counts)
    items = {i for i, _, _ in counts}
    assert len(items) == len(rows(db, "SELECT name FROM items"))
    # scored at once: every new run has a score row
    assert rows(
        db,
        "SELECT count(*) FROM runs r LEFT JOIN run_scores s ON s.run_id = r.id "
        "WHERE r.model = 'vlm' AND s.run_id IS NULL",
    ) == [(0,)]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_run_resumes_without_asking_a_stored_answer_again(tmp_path, sig):
    db = text_project(tmp_path, n=12)
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(ROOT)}
    with FakeOpenAI(delay=0.15) as fake:
        cmd = [
            sys.executable,
            "-m",
            "reviewer.cli",
            "run",
            str(db),
            "--endpoint",
            fake.base_url,
            "--model",
            "m",
            "--repetitions",
            "2",
            "--concurrency",
            "2",
        ]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 30
        while sum(fake.counts.values()) < 8 and time.time() < deadline:
            time.sleep(0.02)
        proc.send_signal(sig)
        proc.communicate(timeout=30)
        stored = {
            f"{i}|summarise|m|{r}"
            for i, r in rows(
                db, "SELECT i.name, r.repetition FROM runs r JOIN items i ON i.id = r.item_id WHERE r.model = 'm'"
            )
        }
        assert 4 <= len(stored) < 24
        asked_before = dict(fake.counts)
        fake.counts.clear()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
    assert not stored & set(fake.counts)  # nothing stored was asked again
    assert set(fake.counts) | stored == {f"doc{i}|summarise|m|{r}" for i in range(12) for r in (1, 2)}
    assert all(n == 1 for n in fake.counts.values())
    # only requests in flight at the kill (at most --concurrency) were sent twice
    assert len(set(asked_before) & set(fake.counts)) <= 2
    assert rows(db, "SELECT count(*) FROM runs WHERE model = 'm'") == [(24,)]


def test_fail_on_gates_score_and_run(tmp_path):
    db = tmp_path / "s.db"
    assert cli("import", db, SAMPLES, "--model", "sample").exit_code == 0
    result = cli("score", db, "--fail-on", "fail")
    verdict_text = cli("score", db, "--json").output
    if '"verdict": "fail"' in verdict_text:
        assert result.exit_code == 1 and "at or below 'fail'" in result.output
    gate = cli("score", db, "--fail-on", "ambiguous")
    assert gate.exit_code == 1 and "at or below 'ambiguous'" in gate.output
    with FakeOpenAI(answer=lambda body, tag: "no cards here") as fake:
        run = cli("run", db, "--endpoint", fake.base_url, "--model", "bad", "--fail-on", "fail")
    assert run.exit_code == 1 and "(bad: fail)" in run.output and "(sample:" not in run.output
