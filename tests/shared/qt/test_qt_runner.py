"""The runner in the window (docs/runner.md#in-the-window): the Run menu's "Run model…" and "Run judge…"
forms against the fake OpenAI server on 127.0.0.1 (tests/helpers/
fake_openai.py): runs and verdicts appear while the job goes on, Cancel
keeps what was stored and a second start continues, and the event loop
never waits for the network."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
from PySide6.QtCore import Qt, QTimer

from reviewer.qt.runner.forms import eta_text
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.runner_form import fill, model_runs
from tests.helpers.runs import KEY, rows

pytestmark = pytest.mark.gui


def test_run_model_form_shows_runs_as_they_arrive_and_never_blocks(qtbot, make_window, tmp_path):
    window, db = make_window(n=8)
    runner = window.runner
    assert [a.text() for a in runner.menu.actions()] == ["Run &model…", "Run &judge…"]
    ticks, gaps, last = [0], [], [time.monotonic()]

    def tick():
        now = time.monotonic()
        gaps.append(now - last[0])
        last[0] = now
        ticks[0] += 1

    timer = QTimer(interval=20, timeout=tick)
    seen_while_running = []
    with FakeOpenAI(delay=0.15) as fake:
        runner.actions["run"].trigger()
        form = runner.forms["run"]
        assert form.isVisible() and form.prompts.count() == 1 and form.items.count() == 8
        url = fake.base_url
        fill(form, url, "m1", repetitions=2, concurrency=2, max_tokens=64)
        form.temperature.setValue(0.3)
        timer.start()
        last[0] = time.monotonic()
        qtbot.mouseClick(form.start_button, Qt.LeftButton)
        assert runner.running() and not form.start_button.isEnabled() and form.cancel_button.isEnabled()

        def partial():
            n = len(model_runs(window, "m1"))
            if runner.running() and 0 < n < 16:
                seen_while_running.append(n)
            return not runner.running()

        qtbot.waitUntil(partial, timeout=30_000)
        qtbot.waitUntil(lambda: runner.summary is not None or runner.error is not None, timeout=5_000)
        timer.stop()
    assert runner.error is None, runner.error
    assert seen_while_running, "runs appeared only at the end"
    assert model_runs(window, "m1") == sorted((f"doc{i}", r) for i in range(8) for r in (1, 2))
    s = runner.summary
    assert (s.asked, s.answered, s.failed, s.cancelled) == (16, 16, 0, False)
    assert form.progress.value() == form.progress.maximum() == 16
    assert "asked 16, answered 16" in form.status.text()
    # the event loop kept turning: 16 answers at 0.15 s on 2 connections take >= 1.2 s
    assert ticks[0] >= 20 and max(gaps) < 1.0, (ticks[0], max(gaps))  # a blocked loop: one gap >= 1.2 s
    # what was sent: the form's parameters, the key only in the header
    bodies = [body for _, body, _ in fake.requests]
    assert {b["max_tokens"] for b in bodies} == {64} and {b["temperature"] for b in bodies} == {0.3}
    assert all(h["Authorization"] == f"Bearer {KEY}" for _, _, h in fake.requests)
    assert rows(db, "SELECT count(*) FROM runs r JOIN run_scores s ON s.run_id = r.id WHERE r.model = 'm1'") == [(16,)]
    # the endpoint and model are remembered, the key never
    window.settings.sync()
    ini = (tmp_path / "config" / "reviewer.ini").read_text()
    assert url in ini and "m1" in ini and KEY not in ini


def test_cancel_keeps_what_was_stored_and_a_second_start_continues(qtbot, make_window):
    window, db = make_window(n=10)
    runner = window.runner
    with FakeOpenAI(delay=0.2) as fake:
        form = runner.show_form("run")
        fill(form, fake.base_url, "m", concurrency=1)
        form.start()
        qtbot.waitUntil(lambda: len(model_runs(window, "m")) >= 3, timeout=30_000)
        qtbot.mouseClick(form.cancel_button, Qt.LeftButton)
        qtbot.waitUntil(lambda: not runner.running(), timeout=5_000)  # in-flight requests are abandoned
        qtbot.waitUntil(lambda: runner.summary is not None, timeout=5_000)
        assert (
            runner.summary.cancelled
            and form.status.text().startswith("Cancelled after ")
            and "; Start resumes" in form.status.text()
            and "command" not in form.status.text()
        )
        stored = {
            f"{item}|summarise|m|{rep}"
            for item, rep in rows(
                db, "SELECT i.name, r.repetition FROM runs r JOIN items i ON i.id = r.item_id WHERE r.model = 'm'"
            )
        }
        assert 3 <= len(stored) < 10
        assert {f"{i}|summarise|m|{r}" for i, r in model_runs(window, "m")} == stored  # the window shows them all
        asked_before = set(fake.counts)
        fake.counts.clear()
        form.start()  # again: only what is missing is asked
        qtbot.waitUntil(lambda: not runner.running(), timeout=30_000)
        qtbot.waitUntil(lambda: runner.summary is not None and not runner.summary.cancelled, timeout=5_000)
    assert not stored & set(fake.counts)  # nothing stored was asked again
    assert set(fake.counts) | stored == {f"doc{i}|summarise|m|1" for i in range(10)}
    assert runner.summary.skipped == len(stored) and runner.summary.answered == 10 - len(stored)
    assert len(asked_before - stored) <= 1  # at most the one request in flight at Cancel was lost
    assert len(model_runs(window, "m")) == 10


def test_closing_the_window_during_a_run_cancels_it(qtbot, make_window):
    window, db = make_window(n=10)
    with FakeOpenAI(delay=0.3) as fake:
        form = window.runner.show_form("run")
        fill(form, fake.base_url, "m", concurrency=1)
        form.start()
        qtbot.waitUntil(lambda: sum(fake.counts.values()) >= 2, timeout=10_000)
        started = time.monotonic()
        window.close()
        assert not window.runner.running() and time.monotonic() - started < 5
    assert rows(db, "SELECT count(*) FROM runs WHERE model = 'm'")[0][0] < 10


def test_form_refuses_credentials_in_the_url_and_a_missing_model(qtbot, make_window):
    window, _ = make_window(n=2)
    form = window.runner.show_form("run")
    fill(form, "http://bob:secret@127.0.0.1:9/v1", "m")
    form.start()
    assert "user:password" in form.status.text() and not window.runner.running()
    fill(form, "http://127.0.0.1:9/v1", "")
    form.start()
    assert "model" in form.status.text() and not window.runner.running()
    assert "secret" not in str(window.settings.value("runner/endpoint", ""))


def test_run_judge_form_stores_verdicts_that_appear_in_the_window(qtbot, make_window):
    window, db = make_window(n=4)
    runner = window.runner

    def judge(body, tag):
        return "```yaml\ngrade: B\nrationale: fine\n```" if "Grading Scale" in json.dumps(body) else "?"

    with FakeOpenAI(answer=judge, delay=0.05) as fake:
        form = runner.show_form("judge")
        assert form.run_models.count() == 1  # the seed runs' model
        form.judge_kind.setCurrentText("failter")
        fill(form, fake.base_url, "j1")
        form.start()
        qtbot.waitUntil(lambda: not runner.running(), timeout=30_000)
        qtbot.waitUntil(lambda: runner.summary is not None, timeout=5_000)
        assert runner.summary.answered == 4 and len(fake.requests) == 4
        vs = [v for v in window.session.judging.judge_verdicts() if v.judge == "rules-judge/j1"]
        assert len(vs) == 4 and {v.scores["score"] for v in vs} == {80.0}
        form.start()  # again: nothing is asked
        qtbot.waitUntil(lambda: not runner.running() and runner.summary is not None, timeout=10_000)
        assert len(fake.requests) == 4 and runner.summary.skipped == 4
    assert rows(db, "SELECT count(*) FROM verdicts WHERE judge = 'rules-judge/j1'") == [(4,)]


def test_eta_text():
    assert eta_text(10.0, 0, 10) == "" and eta_text(10.0, 10, 10) == ""
    assert eta_text(10.0, 5, 10) == "about 10 s left"
    assert eta_text(60.0, 1, 3) == "about 2 min 0 s left"
    assert eta_text(3600.0, 1, 3) == "about 2 h 0 min left"


def test_model_output_is_shown_as_plain_text(qtbot, make_window):
    window, _ = make_window(n=1)
    with FakeOpenAI(answer=lambda body, tag: "<b>bold</b>") as fake:
        fake.script["doc0|summarise|m|1"] = ["400"]
        form = window.runner.show_form("run")
        fill(form, fake.base_url, "m", retries=0)
        form.start()
        qtbot.waitUntil(lambda: not window.runner.running() and window.runner.summary is not None, timeout=10_000)
    assert form.status.textFormat() == Qt.PlainText and "HTTP 400" in form.status.text()
    con = sqlite3.connect(window.session.project.path)
    assert con.execute("SELECT count(*) FROM calls WHERE status = 'failed'").fetchone() == (1,)
    con.close()
