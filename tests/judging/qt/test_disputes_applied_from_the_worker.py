"""When the disputes of a big project are in, the window takes what the
writer worker read with them: no view reads the disputes, the verdicts or
every run's item again on the GUI thread (decision record
"big-projects-stay-interactive"). The queue is filled, its judges listed
and its subjects named by their items from the worker's result. While the
summary is read again on its worker after the stale runs were scored, the
disputes wait for it instead of being found beside it."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

pytest.importorskip("pytestqt")

from reviewer.core.judging.verdicts import Verdict
from reviewer.core.models import Prompt
from reviewer.qt.app import build
from reviewer.qt.session import Session
from reviewer.qt.session.disputes import ASYNC_VERDICTS
from reviewer.qt.session.session import ASYNC_STALE_RUNS
from reviewer.qt.session.summary import SYNC_RUNS
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from tests.helpers.paths import SAMPLES

pytestmark = pytest.mark.gui

SUBJECTS = ASYNC_VERDICTS // 2 + 50  # two judges each: over the threshold


@pytest.fixture
def db(tmp_path):
    """The card sample with two judges on every run (the first run's
    subject disputed) and on SUBJECTS more subjects without a run (every
    third disputed): over ASYNC_VERDICTS verdicts."""
    path = tmp_path / "p.db"
    p = open_project(path, create=True)
    import_source(p, SAMPLES, options=ImportOptions(model="m"))
    runs = sorted(repo_items.run_item_names(p))
    with p.transaction():
        for k, run_id in enumerate(runs):
            for judge, score in (("judge-a", 1), ("judge-b", 5 if k == 0 else 1)):
                judging.add_verdict(
                    p, Verdict(subject=f"run:{run_id}", run_id=run_id, judge=judge, scores={"quality": score})
                )
        for k in range(SUBJECTS):
            for judge, score in (("judge-a", 1), ("judge-b", 5 if k % 3 == 0 else 1)):
                judging.add_verdict(p, Verdict(subject=f"s{k:04d}", judge=judge, scores={"quality": score}))
    p.close()
    return path


def test_found_disputes_reach_the_views_without_a_read_on_the_gui_thread(qtbot, db, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    calls: Counter[tuple[str, bool]] = Counter()  # (read, on the GUI thread): how many

    def counted(name, module, real):
        def read(*args, **kwargs):
            calls[(name, threading.current_thread() is threading.main_thread())] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, read)

    for name in ("disputes", "verdicts"):
        counted(name, judging, getattr(judging, name))
    counted("run_item_names", repo_items, repo_items.run_item_names)

    window = build(db, ask_name=False, mode="review")
    qtbot.addWidget(window)
    session = window.session
    assert session.judging.refreshing()  # open returned; the writer finds the disputes
    for key in [k for k in calls if k[1]]:  # the GUI thread's reads at open; the worker's (running already) stay
        del calls[key]
    with qtbot.waitSignal(session.disputesChanged, timeout=120_000):
        pass
    on_gui = {name: n for (name, gui), n in calls.items() if gui}
    assert on_gui == {}
    assert calls[("disputes", False)] >= 1 and calls[("verdicts", False)] >= 1  # workers read them

    queue = window.adjudication.queue
    disputes = session.disputes()
    assert len(disputes) == 1 + len(range(0, SUBJECTS, 3))
    assert queue.model.rowCount() == len(disputes)
    assert [queue.judge_combo.itemText(k) for k in range(queue.judge_combo.count())] == ["(all)", "judge-a", "judge-b"]
    first_run = min(repo_items.run_item_names(session.project))
    item = repo_items.run_item_names(session.project)[first_run]
    shown = [queue.model.data(queue.model.index(r, 2)) for r in range(queue.model.rowCount())]
    assert f"{item} · run:{first_run}" in shown  # the subject named by its run's item
    assert session.current_dispute_id == queue.ordered_ids()[0]
    screen = window.adjudication.screen
    assert screen.dispute is not None and screen.dispute.id == session.current_dispute_id
    assert screen.names == ["judge-a", "judge-b"]
    window.close()


def test_after_scoring_the_disputes_wait_for_the_summary_on_its_worker(qtbot, db):
    p = open_project(db)
    prompt_id, _ = repo_items.upsert_prompt(p, Prompt(name="bulk", text="Read the cards."))
    items = [i.id for i in repo_items.items(p) if i.id is not None]
    repo_runs.add_numbered_runs(
        p,
        [
            repo_runs.NumberedRun(items[k % len(items)], prompt_id, "bulk", k // len(items) + 1, '{"cards": []}')
            for k in range(max(SYNC_RUNS, ASYNC_STALE_RUNS) + 100)
        ],
    )
    p.close()  # stale: open scores them on the writer worker
    session = Session("ann")
    order: list[str] = []
    waiting: list[bool] = []
    assert session.open(db)
    assert session.scoring()
    session.summaryChanged.connect(lambda: order.append("summary"))
    session.disputesChanged.connect(lambda: order.append("disputes"))
    session.scorer.done.connect(  # after the Session took the scores: the summary on its worker, the disputes waiting
        lambda _n: waiting.append(
            session.summariser.busy() and session.judging.refreshing() and not session.judging.writer.busy()
        )
    )
    with qtbot.waitSignal(session.disputesChanged, timeout=120_000):
        pass
    assert waiting == [True]
    assert order == ["summary", "disputes"]
    assert session.judging.judge_verdicts() and session.disputes()
    qtbot.waitUntil(lambda: not session.busy(), timeout=120_000)
    session.close()
