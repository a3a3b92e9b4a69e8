"""A run claims what it asks (reviewer.storage.repo.reservations): two
`reviewer run` at once on one project send every request once; a killed
run's reservations are taken over by the next run, which asks the rest; a
read-only project is refused before any request. Every test talks to a
real HTTP server on 127.0.0.1 that it starts (tests/helpers/fake_openai.py)."""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time

import pytest

from reviewer.storage.project.db import open_project
from reviewer.storage.repo.reservations import Reservations, answer_key, process_alive, process_started
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.paths import ROOT
from tests.helpers.runs import KEY, cli, rows, text_project

ENV = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(ROOT)}


def run_cmd(db, url, *extra):
    return [
        sys.executable,
        "-m",
        "reviewer.cli",
        "run",
        str(db),
        "--endpoint",
        url,
        "--model",
        "m",
        "--repetitions",
        "2",
        "--concurrency",
        "2",
        *extra,
    ]


def everything(n):
    return {f"doc{i}|summarise|m|{r}" for i in range(n) for r in (1, 2)}


def stored_tags(db):
    return {
        f"{i}|summarise|m|{r}"
        for i, r in rows(
            db, "SELECT i.name, r.repetition FROM runs r JOIN items i ON i.id = r.item_id WHERE r.model = 'm'"
        )
    }


def asked(output: str) -> int:
    return int(re.search(r"asked (\d+)", output).group(1))


def test_two_runs_at_once_ask_every_request_once(tmp_path):
    db = text_project(tmp_path, n=20)
    with FakeOpenAI(delay=0.08) as fake:
        procs = [
            subprocess.Popen(
                run_cmd(db, fake.base_url), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for _ in range(2)
        ]
        outs = [p.communicate(timeout=120) for p in procs]
    for p, (_out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    assert set(fake.counts) == everything(20)
    assert all(n == 1 for n in fake.counts.values()), {t: n for t, n in fake.counts.items() if n > 1}
    assert all(asked(out) > 0 for out, _ in outs), outs  # both runs really ran at once
    assert sum(asked(out) for out, _ in outs) == 40
    assert rows(db, "SELECT count(*) FROM runs WHERE model = 'm'") == [(40,)]
    # no answer thrown away: every run has its call with its tokens
    assert rows(
        db,
        "SELECT count(*), sum(completion_tokens > 0) FROM calls "
        "WHERE kind = 'answer' AND status = 'ok' AND model = 'm'",
    ) == [(40, 40)]
    assert rows(db, "SELECT count(*) FROM reservations") == [(0,)]


def test_a_killed_run_is_taken_over_and_the_rest_asked_once(tmp_path):
    db = text_project(tmp_path, n=16)
    with FakeOpenAI(delay=0.1) as fake:
        killed = subprocess.Popen(run_cmd(db, fake.base_url), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 30
        while sum(fake.counts.values()) < 6 and time.time() < deadline:
            time.sleep(0.02)
        other = subprocess.Popen(
            run_cmd(db, fake.base_url), env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        while sum(fake.counts.values()) < 12 and time.time() < deadline:
            time.sleep(0.02)
        killed.send_signal(signal.SIGKILL)
        killed.communicate(timeout=30)
        out, err = other.communicate(timeout=120)
        assert other.returncode == 0, err
        before = dict(fake.counts)
        stored = stored_tags(db)
        fake.counts.clear()
        again = subprocess.run(run_cmd(db, fake.base_url), env=ENV, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
    assert stored_tags(db) == everything(16)
    assert not stored & set(fake.counts)  # nothing stored was asked again
    assert set(fake.counts) | stored == everything(16)
    # nothing was asked twice but what was in flight at the kill (<= --concurrency), asked again by the
    # run beside it (taking the killed run's reservations over) or by the last run
    total = {t: before.get(t, 0) + fake.counts.get(t, 0) for t in everything(16)}
    twice = sorted(t for t, n in total.items() if n > 1)
    assert len(twice) <= 2 and all(total[t] == 2 for t in twice), twice
    assert rows(db, "SELECT count(*) FROM runs WHERE model = 'm'") == [(32,)]
    assert rows(db, "SELECT count(*) FROM reservations") == [(0,)]


def test_a_dead_runs_reservation_is_taken_over_at_once(tmp_path):
    db = text_project(tmp_path, n=2)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert not process_alive(dead.pid) and process_alive(os.getpid())
    p = open_project(db)
    try:
        item, prompt = p.db.execute("SELECT i.id, p.id FROM items i, prompts p WHERE i.name = 'doc0'").fetchone()
        key = answer_key(item, prompt, "m", 1)
        with p.transaction():
            p.db.execute(
                "INSERT INTO reservations (key, owner, pid, host, claimed_at) VALUES (?, ?, ?, ?, ?)",
                [key, "killed-run", dead.pid, socket.gethostname(), "2026-01-01T00:00:00+00:00"],
            )
        with Reservations(p) as live:
            assert live.claim(key) == "claimed"  # the killed run's key is taken over
            with Reservations(p) as other:  # a second run of a live process: held
                assert other.claim(key) == "taken"
            assert live.claim(key, stored=lambda: True) == "stored"
        # a live process of another run holds its keys; one that merely reuses a killed run's pid does not
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        try:
            for started, outcome in ((process_started(sleeper.pid), "taken"), ("1", "claimed")):
                with p.transaction():
                    p.db.execute("DELETE FROM reservations")
                    p.db.execute(
                        "INSERT INTO reservations (key, owner, pid, started, host, claimed_at) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        [key, "other-run", sleeper.pid, started, socket.gethostname(), "2026-01-01T00:00:00+00:00"],
                    )
                with Reservations(p) as live:
                    assert live.claim(key) == outcome, started
            with p.transaction():
                p.db.execute("DELETE FROM reservations")
        finally:
            sleeper.kill()
            sleeper.wait()
        assert rows(db, "SELECT count(*) FROM reservations") == [(0,)]  # the run's keys are given back
    finally:
        p.close()
    with FakeOpenAI() as fake:
        result = cli("run", db, "--endpoint", fake.base_url, "--model", "m")
        assert result.exit_code == 0, result.output
    assert set(fake.counts) == {"doc0|summarise|m|1", "doc1|summarise|m|1"}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_read_only_project_is_refused_before_any_request(tmp_path):
    db = text_project(tmp_path, n=3)
    db.chmod(stat.S_IRUSR | stat.S_IRGRP)
    try:
        with FakeOpenAI() as fake:
            result = cli("run", db, "--endpoint", fake.base_url, "--model", "m", "--concurrency", "4")
            assert result.exit_code == 1 and "read-only" in result.output, result.output
            assert sum(fake.counts.values()) == 0  # refused before any request (4 were sent before)
            assert result.output.startswith("Error: cannot ask a model:") and result.output.count("\n") == 1
            result = cli("judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "failter")
            assert result.exit_code == 1 and "read-only" in result.output, result.output
            assert sum(fake.counts.values()) == 0
    finally:
        db.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_two_judges_at_once_in_one_process_ask_every_verdict_once(tmp_path):
    """The window's Run judge and another job in the same process (two
    connections, two threads) share the work as two processes do."""
    import threading

    from reviewer.pipeline.execute import Settings
    from reviewer.pipeline.judge import JudgeOptions, judge_runs
    from tests.helpers.judges import judge_answer

    db = text_project(tmp_path, n=12)
    summaries, errors = [], []
    with FakeOpenAI(answer=judge_answer, delay=0.05) as fake:

        def job():
            p = open_project(db)
            try:
                summaries.append(
                    judge_runs(
                        p,
                        Settings(endpoint=fake.base_url, concurrency=2),
                        JudgeOptions(kind="failter", model="j", repetitions=2),
                    )
                )
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
            finally:
                p.close()

        threads = [threading.Thread(target=job) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    assert not errors, errors
    assert len(fake.counts) == 24 and all(n == 1 for n in fake.counts.values())
    assert sum(s.asked for s in summaries) == 24 and all(s.asked for s in summaries)
    assert sum(s.taken + s.skipped for s in summaries) == 24
    assert rows(db, "SELECT count(*) FROM verdicts WHERE judge = 'rules-judge/j'") == [(24,)]
    assert rows(db, "SELECT count(*) FROM reservations") == [(0,)]
