"""Opening a project shows it at once: its stale runs are scored on the
Session's writer worker (a connection of its own, short write
transactions), with progress on the message line, and the views are told
when the scores are in."""

from __future__ import annotations

import gc
import time

from reviewer.core.models import Prompt
from reviewer.qt.session import Session
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from tests.helpers.paths import SAMPLES

RUNS = 2_000


def _unscored(db) -> int:
    p = open_project(db)
    try:
        return p.db.execute(
            "SELECT count(*) FROM runs r LEFT JOIN run_scores s ON s.run_id = r.id WHERE s.run_id IS NULL"
        ).fetchone()[0]
    finally:
        p.close()


def test_open_returns_before_the_stale_runs_are_scored(qtbot, tmp_path):
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    import_source(p, SAMPLES, options=ImportOptions(model="m"))  # not scored
    prompt_id, _ = repo_items.upsert_prompt(p, Prompt(name="bulk", text="Read the cards."))
    items = [i.id for i in repo_items.items(p) if i.id is not None]
    runs = [
        repo_runs.NumberedRun(items[k % len(items)], prompt_id, "bulk", k // len(items) + 1, '{"cards": []}')
        for k in range(RUNS)
    ]
    repo_runs.add_numbered_runs(p, runs)
    p.close()
    stale = _unscored(db)
    assert stale >= RUNS

    session = Session("ann")
    messages: list[str] = []
    session.message.connect(messages.append)
    started = time.perf_counter()
    assert session.open(db)
    opened = time.perf_counter() - started
    assert session.scoring()  # open returned; the writer is still at it
    assert session.items()  # the window has its items already
    before = {st.item.id: st.runs for st in session.items()}
    kept = session.items()[0]
    with qtbot.waitSignal(session.scorer.done, timeout=120_000) as done:
        pass
    scored = time.perf_counter() - started
    assert done.args[0] >= RUNS and not session.scoring()
    assert _unscored(db) == 0
    assert scored > opened
    assert any(m.startswith("scoring stale runs:") for m in messages)
    assert any(m.startswith("scored ") for m in messages)
    # the scores read again: the items are the same objects, their counts of scored runs new
    qtbot.waitUntil(lambda: not session.busy(), timeout=120_000)
    assert session.items()[0] is kept
    assert sum(st.runs for st in session.items()) > sum(before.values())
    assert session.runs(kept.item.id) and all(r.run["id"] for r in session.runs(kept.item.id))
    # a big project's caches are kept out of the collector's full passes once loaded, and given back on close
    assert gc.isenabled() and gc.get_freeze_count() > 0
    session.close()
    assert gc.isenabled() and gc.get_freeze_count() == 0
