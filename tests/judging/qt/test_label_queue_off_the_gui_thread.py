"""On a project with many verdicts the label-first page's plan (the stored
fair queue brought up to date, the budget over every verdict) is made on
the Session's label planner, a writer worker: replanning returns at once,
saying so, and the plan arrives afterwards with its queue stored."""

from __future__ import annotations

from reviewer.core.judging.verdicts import Verdict
from reviewer.qt.judging.label_first import LabelFirstPage
from reviewer.qt.judging.label_keys import LabelFirstController
from reviewer.qt.session import Session
from reviewer.qt.session.disputes import ASYNC_VERDICTS
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project

SUBJECTS = ASYNC_VERDICTS + 100


def _queued(db) -> int:
    p = open_project(db)
    try:
        return len(labels.queue(p, "a", "quality"))
    finally:
        p.close()


def test_the_label_queue_is_planned_on_the_writer(qtbot, tmp_path):
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    for k in range(SUBJECTS):
        judging.add_verdict(p, Verdict(subject=f"s{k:04d}", judge="a", scores={"quality": 1 + k % 5}))
    p.close()

    session = Session("ann")
    assert session.open(db)
    page = LabelFirstPage(session)
    qtbot.addWidget(page)
    controller = LabelFirstController(session, page)
    page.set_judges(session.reads.judge_dimensions(), "a", "quality")
    controller.replan()
    assert session.planner.busy() and page.plan is None  # returned; the writer plans
    assert page.prompt.text() == "Planning the label-first queue…"
    with qtbot.waitSignal(session.planner.planned, timeout=120_000):
        pass
    assert page.plan is not None and page.plan.queue_size == _queued(db) > 0
    assert controller.subject in page.plan.order
    session.close()
