"""Opening a project with many verdicts shows it at once: its disputes are
found and stored on the dispute state's writer worker (a connection of its
own, one short write transaction), the message line says so, and
disputesChanged comes when they are in."""

from __future__ import annotations

from reviewer.core.judging.verdicts import Verdict
from reviewer.qt.session import Session
from reviewer.qt.session.disputes import ASYNC_VERDICTS
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from tests.helpers.paths import SAMPLES

SUBJECTS = ASYNC_VERDICTS // 2 + 100  # two judges each: over the threshold


def test_open_returns_before_the_disputes_are_found(qtbot, tmp_path):
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    import_source(p, SAMPLES, options=ImportOptions(model="m"))
    for k in range(SUBJECTS):
        for judge, score in (("a", 1), ("b", 5 if k % 2 else 1)):  # every other subject disputed (1-5 scale)
            judging.add_verdict(p, Verdict(subject=f"s{k:04d}", judge=judge, scores={"quality": score}))
    p.close()

    session = Session("ann")
    messages: list[str] = []
    session.message.connect(messages.append)
    assert session.open(db)
    assert session.judging.refreshing()  # open returned; the writer is still at it
    assert session.judging.judge_verdicts() == []  # nothing read on the GUI thread
    assert session.items()  # the window has its items already
    with qtbot.waitSignal(session.disputesChanged, timeout=120_000):
        pass
    assert not session.judging.refreshing()
    assert len(session.judging.judge_verdicts()) == 2 * SUBJECTS
    disputed = {d.subject for d in session.judging.disputes()}
    assert disputed and all(int(s[1:]) % 2 for s in disputed)
    assert "finding disputes…" in messages
    assert any(m.startswith("disputes found: ") for m in messages)
    session.close()


def test_few_verdicts_are_found_at_once(qtbot, tmp_path):
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    import_source(p, SAMPLES, options=ImportOptions(model="m"))
    judging.add_verdict(p, Verdict(subject="s", judge="a", scores={"quality": 1}))
    judging.add_verdict(p, Verdict(subject="s", judge="b", scores={"quality": 5}))
    p.close()
    session = Session("ann")
    assert session.open(db)
    assert not session.judging.refreshing()
    assert len(session.judging.judge_verdicts()) == 2
    assert [d.subject for d in session.judging.disputes()] == ["s"]
    session.close()
