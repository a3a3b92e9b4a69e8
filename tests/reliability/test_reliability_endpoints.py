"""Every input from an endpoint or a YAML file is bounded: a deadline per
attempt, a cap on decompressed answer bytes, replies that cannot be answers
as failed attempts, one-line errors for a bad endpoint or spec value, and
YAML read by one bounded loader (reviewer.core.bounded_yaml).

The hostile servers are real HTTP servers on 127.0.0.1 started by each test
(tests/helpers/hostile_openai.py). Time and memory are measured in a
subprocess: a wrapper process runs `reviewer` as its child under an
address-space limit, so a regression fails the test instead of the machine,
and reports the child's peak RSS and wall time.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.clients.chat import ChatClient, ChatError, ChatRequest
from reviewer.core.bounded_yaml import MAX_ALIASES, YAMLLimitError, load_yaml, read_yaml_file
from tests.helpers.failter import failter_spec
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.hostile_openai import HostileOpenAI, drip, endless, gzip_bomb, raw, reply
from tests.helpers.judges import jsonl_project
from tests.helpers.paths import ROOT
from tests.helpers.runner_form import fill
from tests.helpers.runs import KEY, cli, rows, text_project

#: The address space a measured `reviewer` may use (bytes): a bomb that gets through dies here.
AS_LIMIT = 3 << 30

_MEASURE = """
import json, resource, subprocess, sys, time
limit = int(sys.argv[1])
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
started = time.perf_counter()
try:
    r = subprocess.run([sys.executable, '-m', 'reviewer', *sys.argv[2:]], capture_output=True, text=True,
                       timeout=90, preexec_fn=cap)
    out = {'rc': r.returncode, 'stdout': r.stdout, 'stderr': r.stderr}
except subprocess.TimeoutExpired:
    out = {'rc': None, 'stdout': '', 'stderr': 'timed out after 90 s'}
out['seconds'] = time.perf_counter() - started
out['peak_mb'] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps(out))
"""


def measured(*args) -> dict:
    """`reviewer ARGS` in a fresh process: rc, stdout, stderr, seconds and
    peak_mb (its peak RSS); rc None when it ran past 90 s."""
    env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(AS_LIMIT), *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=150,
    )
    return json.loads(done.stdout)


def error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("Error:")]


def no_traceback(result) -> None:
    output = result["stdout"] + result["stderr"] if isinstance(result, dict) else result.output
    assert "Traceback" not in output, output


# -- time: a deadline per attempt ------------------------------------------------------------------
@pytest.mark.parametrize("how", ["drip", "endless"])
def test_a_dripping_or_endless_answer_ends_at_the_deadline(tmp_path, how):
    """A byte every 0.1 s (a per-read timeout never fires) or a chunked body
    that never ends: `--timeout 2 --retries 0` ends each attempt at 2 s."""
    db = text_project(tmp_path, n=2)
    action = drip(0.1) if how == "drip" else endless(0.05)
    with HostileOpenAI(lambda tag, body: action) as server:
        r = measured(
            "run", db, "--endpoint", server.base_url, "--model", "m", "--timeout", 2, "--retries", 0, "--concurrency", 2
        )
    assert r["rc"] == 1, r
    no_traceback(r)
    wall = float(re.search(r"wall time ([\d.]+) s", r["stdout"])[1])
    assert 1.9 <= wall < 5, r["stdout"]  # both attempts ran side by side and ended at their deadline
    assert r["seconds"] < 30, r
    assert r["stderr"].count("no complete answer within 2 s") == 2, r["stderr"]
    assert rows(db, "SELECT count(*) FROM calls WHERE status = 'failed' AND error LIKE '%within 2 s%'") == [(2,)]


def test_the_deadline_is_retried_like_any_timeout():
    """A deadline that passes is a timeout: retried, then a failed attempt."""
    with HostileOpenAI(lambda tag, body: drip(0.05)) as server:

        async def go():
            async with ChatClient(server.base_url, KEY, retries=1, timeout=0.5, backoff=0.01) as c:
                return await c.chat(ChatRequest(model="m", messages=[{"role": "user", "content": "x"}], tag="t"))

        with pytest.raises(ChatError, match=r"no complete answer within 0.5 s .* \(after 2 attempts\)"):
            asyncio.run(asyncio.wait_for(go(), 20))  # without the deadline: 1 MB at 0.05 s a byte
    assert server.counts["t"] == 2


# -- memory: the cap on decompressed bytes ---------------------------------------------------------
@pytest.mark.parametrize("how", ["gzip", "gzip, gzip", "endless"])
def test_a_gzip_bomb_or_an_endless_fast_body_stops_at_the_cap(tmp_path, how):
    """About 1 MB of gzip inflating to 1 GiB, or a body streamed as fast as
    it is read: refused at the cap (10 MB by default), in bounded memory and
    at once. The bomb gzipped twice ('gzip, gzip', which httpx would inflate
    layer by layer without bound) is refused as an encoding not asked for."""
    db = text_project(tmp_path, n=1)
    action = endless(0, 65536) if how == "endless" else gzip_bomb(how)
    with HostileOpenAI(lambda tag, body: action) as server:
        r = measured("run", db, "--endpoint", server.base_url, "--model", "m", "--timeout", 60, "--retries", 0)
    assert r["rc"] == 1, r
    no_traceback(r)
    expected = "unsupported Content-Encoding 'gzip, gzip'" if how == "gzip, gzip" else "larger than 10,000,000 bytes"
    assert expected in r["stderr"], r["stderr"]
    assert r["peak_mb"] < 400, r["peak_mb"]
    assert r["seconds"] < 30, r


def test_the_cap_is_a_setting_and_counts_decompressed_bytes(tmp_path):
    """--max-response-mb moves the cap; an answer under it is stored, gzip
    or not, and one over it is a failed attempt, asked again next time."""
    big = "x" * 1_500_000

    def respond(tag, body):
        data = json.dumps({"choices": [{"message": {"content": big}, "finish_reason": "stop"}]}).encode()
        if "doc1" in tag:
            import gzip

            return raw(gzip.compress(data), headers={"Content-Encoding": "gzip"})
        return raw(data)

    db = text_project(tmp_path, n=2)
    with HostileOpenAI(respond) as server:
        small = cli("run", db, "--endpoint", server.base_url, "--model", "m", "--max-response-mb", 1)
        assert small.exit_code == 1 and small.output.count("larger than 1,000,000 bytes") == 2, small.output
        again = cli("run", db, "--endpoint", server.base_url, "--model", "m")  # default 10 MB
        assert again.exit_code == 0, again.output
    assert rows(db, "SELECT length(output) FROM runs WHERE model = 'm'") == [(1_500_000,), (1_500_000,)]


# -- odd replies: failed attempts with the reason, answers in flight kept --------------------------
@pytest.mark.parametrize(
    "bad,reason",
    [
        (reply(content=42), "unusable reply: the message content is a number, not text"),
        (reply(content=[{"type": "text", "text": 7}]), "unusable reply: a content part is a number, not text"),
        (
            reply(usage={"prompt_tokens": 1e308, "completion_tokens": 1}),
            "unusable reply: usage.prompt_tokens is 1e+308",
        ),
        (reply(usage={"prompt_tokens": 3, "completion_tokens": -5}), "usage.completion_tokens is -5"),
        (
            raw(b'{"choices": [{"message": {"content": "a"}}], "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
            "malformed response body: nested too deeply",
        ),
    ],
)
def test_an_unusable_reply_is_a_failed_attempt_and_answers_in_flight_are_kept(tmp_path, bad, reason):
    """A number as content (never an empty successful run), a token count
    of 1e308, a body nested past the recursion limit: the attempt fails
    with the reason while the other answers, still in flight, are stored;
    the next run asks only the failed one again."""
    db = text_project(tmp_path, n=3)
    with HostileOpenAI(lambda tag, body: bad if "doc0" in tag else reply(f"fine {tag}", delay=0.5)) as server:
        result = cli("run", db, "--endpoint", server.base_url, "--model", "m", "--concurrency", 3)
    assert result.exit_code == 1, result.output
    no_traceback(result)
    assert "asked 3, answered 2, failed 1" in result.output
    assert reason in result.output
    assert rows(
        db, "SELECT i.name, r.output FROM runs r JOIN items i ON i.id = r.item_id WHERE r.model = 'm' ORDER BY i.name"
    ) == [("doc1", "fine doc1|summarise|m|1"), ("doc2", "fine doc2|summarise|m|1")]
    assert rows(db, "SELECT item, error LIKE ? FROM calls WHERE status = 'failed'", [f"%{reason}%"]) == [("doc0", 1)]
    with FakeOpenAI() as fake:
        again = cli("run", db, "--endpoint", fake.base_url, "--model", "m")
    assert again.exit_code == 0 and set(fake.counts) == {"doc0|summarise|m|1"}


def test_a_judge_reply_nested_past_the_limit_or_overflowing_is_a_failed_attempt(tmp_path):
    """Pairwise judging: a reply nested 100,000 deep (RecursionError while
    reading it) and a reply with usage 1e308 are failed attempts with the
    reason; the other verdicts, in flight at the time, are stored."""
    lines = [
        {
            "item": "q",
            "prompt": "p",
            "model": m,
            "repetition": 1,
            "output": f"answer of {m}",
            "prompt_text": "Answer: {{INPUT_TEXT}}",
            "schema": "free",
        }
        for m in ("m1", "m2", "m3")
    ]
    db = jsonl_project(tmp_path, lines, {"q": "the question"})
    deep = '{"winner": "a", "why": ' + "[" * 100_000 + "]" * 100_000 + "}"
    asked = []

    def respond(tag, body):
        asked.append(tag)
        if len(asked) == 1:
            return reply(deep)
        if len(asked) == 2:
            return reply('{"winner": "a"}', usage={"prompt_tokens": 1e308})
        return reply('{"winner": "b", "rationale": "better"}', delay=0.3)

    with HostileOpenAI(respond) as server:
        result = cli(
            "judge", db, "--endpoint", server.base_url, "--model", "j", "--judge", "pairwise", "--concurrency", 6
        )
    assert result.exit_code == 1, result.output
    no_traceback(result)
    assert "asked 6, answered 4, failed 2" in result.output
    assert "unusable reply: nested too deeply to read" in result.output
    assert "unusable reply: usage.prompt_tokens is 1e+308" in result.output
    assert rows(db, "SELECT count(*) FROM verdicts WHERE judge = 'pairwise/j'") == [(4,)]
    assert rows(db, "SELECT count(*) FROM calls WHERE status = 'failed' AND kind = 'judge'") == [(2,)]


# -- bad endpoints: one line ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:99999/v1",
        "http://127.0.0.1:abc/v1",
        "http://[::1/v1",
        "http://127.0.0.1:0/v1",
        "http://bob:pw@127.0.0.1:abc/v1",
    ],
)
@pytest.mark.parametrize("command", ["run", "judge"])
def test_a_bad_endpoint_is_one_line(tmp_path, url, command):
    db = text_project(tmp_path, n=1)
    extra = ["--judge", "failter"] if command == "judge" else []
    result = cli(command, db, "--endpoint", url, "--model", "m", *extra)
    assert result.exit_code == 1, result.output
    no_traceback(result)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: --endpoint: the endpoint"), result.output
    assert "not a usable URL" in lines[0] and "pw" not in lines[0]


def test_bad_numbers_on_the_command_line_are_refused(tmp_path):
    for command in ("run", "judge"):
        shown = cli(command, "--help")
        assert (
            shown.exit_code == 0
            and "--retries INTEGER 0..20" in shown.output
            and "--max-response-mb FLOAT 0.001..1000" in shown.output
        ), shown.output
    db = text_project(tmp_path, n=1)
    for option, value in (
        ("--timeout", "nan"),
        ("--timeout", "inf"),
        ("--timeout", "0"),
        ("--retries", "21"),
        ("--concurrency", "0"),
        ("--max-response-mb", "nan"),
    ):
        result = cli("run", db, "--endpoint", "http://127.0.0.1:9/v1", "--model", "m", option, value)
        assert result.exit_code == 2 and "Error: Invalid value for" in result.output, (option, value, result.output)
        no_traceback(result)


@pytest.mark.parametrize(
    "extra,message",
    [
        ("retries: 1000000", "retries must be a whole number from 0 to 20, got 1000000"),
        (
            "retries: 99999999999999999999999999999999999999999",
            "retries must be a whole number from 0 to 20, got a number of more than 30 digits",
        ),
        ("retries: true", "retries must be a whole number from 0 to 20, got True"),
        ("retries: 2.5", "retries must be a whole number from 0 to 20, got 2.5"),
        ("timeout: .nan", "timeout must be a number from 0.1 to 86400, got nan"),
        ("timeout: 1.0e999", "timeout must be a number from 0.1 to 86400, got inf"),
        ("concurrency: 0", "concurrency must be a whole number from 1 to 256, got 0"),
        ("concurrency: [1, 2]", "concurrency must be a whole number from 1 to 256, got [1, 2]"),
    ],
)
def test_spec_values_obey_the_command_lines_bounds(tmp_path, extra, message):
    spec = failter_spec(tmp_path, extra)
    with FakeOpenAI() as fake:
        result = cli("run", tmp_path / "p.db", spec, "--endpoint", fake.base_url)
    assert result.exit_code == 1, result.output
    no_traceback(result)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0] == f"Error: {spec}: {message}", result.output
    assert not fake.requests  # refused before anything is asked


def test_spec_values_within_the_bounds_are_used(tmp_path):
    spec = failter_spec(tmp_path, "retries: 0\ntimeout: 0.5\nconcurrency: 2\n")
    with FakeOpenAI() as fake:
        fake.script["exp/a.md|t|m|1"] = ["sleep:1.5"]
        result = cli("run", tmp_path / "p.db", spec, "--endpoint", fake.base_url)
    assert result.exit_code == 1, result.output
    no_traceback(result)
    assert "no complete answer within 0.5 s" in result.output and "(after 1 attempts)" in result.output
    assert fake.counts["exp/a.md|t|m|1"] == 1


# -- YAML: one bounded loader -----------------------------------------------------------------------
def laughs(levels: int = 9) -> str:
    """The billion laughs: 9 levels of 9 aliases (9^9 strings when walked)."""
    out = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        out.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(out) + "\n"


def test_the_loader_refuses_bombs_deep_nesting_and_size_and_keeps_a_few_aliases(tmp_path):
    few = "base: &b {x: 1}\n" + "".join(f"k{i}: *b\n" for i in range(MAX_ALIASES))
    assert load_yaml(few)["k0"] == {"x": 1}
    with pytest.raises(YAMLLimitError, match="more than 10 aliases"):
        load_yaml(few + "one_more: *b\n")
    with pytest.raises(YAMLLimitError, match="aliases"):
        load_yaml(laughs())
    with pytest.raises(YAMLLimitError, match="nested deeper than 100"):
        load_yaml("[" * 50_000 + "]" * 50_000)
    with pytest.raises(YAMLLimitError, match=r"larger than 1 MB \(1,000,001 bytes\)"):
        load_yaml("x: " + "y" * 999_998)
    big = tmp_path / "big.yml"
    big.write_bytes(b"x: " + b"y" * 5_000_000)
    with pytest.raises(YAMLLimitError, match=r"larger than 1 MB \(5,000,003 bytes\)"):
        read_yaml_file(big)


def test_every_yaml_reader_in_reviewer_uses_the_bounded_loader():
    """yaml.load / safe_load / full_load anywhere in reviewer/ but the
    bounded module would let a bomb in again."""
    offenders = []
    for path in (ROOT / "reviewer").rglob("*.py"):
        if path.name == "bounded_yaml.py":
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"yaml\.(safe_load|load|full_load|unsafe_load|load_all|safe_load_all|compose|parse)\b", text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def artifacts_folder(tmp_path: Path, front: str = "", eval_text: str = "score: 70\nrationale: ok\n") -> Path:
    """A Failter experiment with one trial output (front matter ``front``) and its .eval."""
    exp = tmp_path / "exp"
    (exp / "inputs").mkdir(parents=True)
    (exp / "inputs" / "a.md").write_text("an input")
    out = exp / "artifacts" / "m_t"
    out.mkdir(parents=True)
    meta = front or "model: m\ntemplate: t.md\nsource-input-path: inputs/a.md\n"
    (out / "a.md").write_text(f"---\n{meta}---\nthe output\n")
    (out / "a.md.eval").write_text(eval_text)
    return exp


@pytest.mark.parametrize("where", ["spec", "front matter", ".eval"])
def test_a_yaml_bomb_is_refused_in_one_line_at_once(tmp_path, where):
    """A billion-laughs spec, front matter or .eval: refused with one line
    naming it, in a few seconds and little memory (the bomb ran to
    MemoryError at 2.2-5.5 GB after 30-60 s)."""
    db = tmp_path / "p.db"
    if where == "spec":
        spec = failter_spec(tmp_path, laughs(), templates="[*a8]")
        with FakeOpenAI() as fake:
            r = measured("run", db, spec, "--endpoint", fake.base_url)
        assert r["rc"] == 1, r
        assert error_lines(r["stderr"]) == [
            f"Error: cannot read the spec {spec}: more than 10 aliases (a YAML alias bomb?)"
        ], r["stderr"]
        assert not fake.requests
    else:
        bomb = laughs() + "model: *a8\ntemplate: t.md\nsource-input-path: inputs/a.md\n"
        exp = (
            artifacts_folder(tmp_path, front=bomb)
            if where == "front matter"
            else artifacts_folder(tmp_path, eval_text=laughs() + "score: *a8\n")
        )
        r = measured("import", db, exp)
        assert r["rc"] == 0, r
        what = "front matter refused" if where == "front matter" else "malformed .eval: refused"
        assert f"{what}: more than 10 aliases" in r["stdout"], r["stdout"]
    no_traceback(r)
    assert r["seconds"] < 30 and r["peak_mb"] < 400, r


@pytest.mark.parametrize("where", ["spec", "front matter", ".eval"])
def test_yaml_over_one_megabyte_is_refused(tmp_path, where):
    filler = "# " + "x" * 1_000_000 + "\n"
    db = tmp_path / "p.db"
    if where == "spec":
        spec = failter_spec(tmp_path, filler)
        result = cli("run", db, spec, "--endpoint", "http://127.0.0.1:9/v1")
        assert result.exit_code == 1 and "larger than 1 MB" in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1
    else:
        front = "model: m\ntemplate: t.md\nsource-input-path: inputs/a.md\n" + filler
        exp = (
            artifacts_folder(tmp_path, front=front)
            if where == "front matter"
            else artifacts_folder(tmp_path, eval_text="score: 70\n" + filler)
        )
        result = cli("import", db, exp)
        assert result.exit_code == 0, result.output
        assert (
            "front matter refused: larger than 1 MB"
            if where == "front matter"
            else "malformed .eval: larger than 1,000,000 bytes"
        ) in result.output, result.output
    no_traceback(result)


def test_a_prices_or_metrics_bomb_is_one_line(tmp_path):
    db = text_project(tmp_path, n=1)
    prices = tmp_path / "prices.yml"
    prices.write_text(laughs() + "m: *a8\n")
    result = cli("report", db, "--prices", prices)
    assert result.exit_code == 1 and error_lines(result.output) == [
        f"Error: {prices}: not a prices file: more than 10 aliases (a YAML alias bomb?)"
    ], result.output
    metrics = tmp_path / "metrics.yaml"
    metrics.write_text(laughs() + "patterns: *a8\n")
    result = cli("score", db, "--metrics", metrics)
    assert result.exit_code == 1 and "more than 10 aliases" in result.output, result.output
    no_traceback(result)


# -- the window: the same bounds and errors --------------------------------------------------------
@pytest.mark.gui
def test_the_window_runner_ends_an_endless_answer_at_the_deadline_and_refuses_a_bad_port(qtbot, make_window):
    window, db = make_window(n=2)
    runner = window.runner
    form = runner.show_form("run")
    fill(form, "http://127.0.0.1:99999/v1", "m")
    form.start()
    assert form.status.text() == (
        "Cannot start: the endpoint 'http://127.0.0.1:99999/v1' is not a usable URL: "
        "the port must be a number from 1 to 65535"
    )
    assert not runner.running()
    with HostileOpenAI(lambda tag, body: endless(0.05)) as server:
        fill(form, server.base_url, "m", concurrency=2, retries=0, timeout=1)
        form.start()
        qtbot.waitUntil(lambda: not runner.running(), timeout=10_000)
        qtbot.waitUntil(lambda: runner.summary is not None, timeout=5_000)
    assert runner.summary.failed == 2 and runner.summary.wall_s < 4, runner.summary
    assert "no complete answer within 1 s" in form.status.text()
