"""The window stays interactive on big projects. What is measured
here is what the window reads and redraws (rows, queries), never wall time
(benchmarks/bench_gui.py measures that)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt

from reviewer.core.commands import DecideFindings
from reviewer.core.models import Status
from reviewer.qt.panels.items import ItemsPanel
from reviewer.qt.panels.runs import RunsPanel
from reviewer.qt.panels.scores import ScoresPanel
from reviewer.qt.session import Session, summary
from reviewer.storage.cards import overview
from reviewer.storage.cards.scores import verdicts
from tests.helpers.paths import SAMPLES


def _open(tmp_path, qtbot) -> Session:
    s = Session("tester")
    assert s.open(tmp_path / "p.db", create=True)
    assert s.import_source(SAMPLES, model="m") is not None
    return s


@pytest.fixture
def big(qtbot, tmp_path, monkeypatch):
    """The sample project handled as a big one: summarised on the worker."""
    monkeypatch.setattr(summary, "SYNC_RUNS", 0)
    monkeypatch.setattr(summary, "START_DELAY_MS", 0)
    s = _open(tmp_path, qtbot)
    qtbot.waitUntil(lambda: s.summary_ready(), timeout=20000)
    yield s
    s.close()


def test_summary_is_computed_off_the_gui_thread_and_matches_storage(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(summary, "SYNC_RUNS", 0)
    s = _open(tmp_path, qtbot)
    assert s.score_rows() is None and s.busy()  # nothing computed on the GUI thread yet
    assert s.runs()  # the current item's runs are there at once, read by item
    assert len(s.run_lines()) < len(
        overview.scored_runs_of(s.project, [r[0] for r in s.project.db.execute("SELECT id FROM runs")])
    )
    with qtbot.waitSignal(s.summaryChanged, timeout=20000):
        pass
    assert not s.busy() and s.summary_ready()
    assert [a for a, _ in s.score_rows()] == verdicts(s.project)
    assert [r for _, r in s.score_rows()] == verdicts(s.project, reviewed=True)
    s.close()


def test_item_switch_reads_one_item_by_index(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(summary, "SYNC_RUNS", 0)
    monkeypatch.setattr(summary, "START_DELAY_MS", 60000)  # no summary during the test
    s = _open(tmp_path, qtbot)
    read: list[int] = []
    real = overview.item_runs
    monkeypatch.setattr(
        overview, "item_runs", lambda project, item_id, **kw: read.append(item_id) or real(project, item_id, **kw)
    )
    other = next(st.item.id for st in s.items() if st.item.id != s.item_id)
    s.set_item(other)
    assert read == [other]
    assert {r.run["item_id"] for r in s.runs()} == {other}
    back = s.items()[0].item.id if other != s.items()[0].item.id else s.items()[1].item.id
    s.set_item(back)
    s.set_item(other)  # cached now: not read again
    assert read.count(other) == 1
    s.close()


def test_review_counts_query_matches_the_runs(qtbot, big):
    counts = overview.review_counts(big.project)
    for st in big.items():
        assert counts[st.item.id] == overview.ReviewCounts.of(big.runs(st.item.id))
        assert (st.runs, st.reviewed) == (counts[st.item.id].runs, counts[st.item.id].reviewed)


def test_a_decision_updates_only_its_rows(qtbot, big):
    s = big
    scores, runs, items = ScoresPanel(s), RunsPanel(s), ItemsPanel(s)
    for w in (scores, runs, items):
        qtbot.addWidget(w)
    run = next(r for r in s.runs() if any(f.status == Status.PROPOSED for f in r.findings))
    s.set_run(run.run["id"])
    resets, changed = [], {"scores": [], "runs": [], "items": []}
    for name, model in (("scores", scores.model), ("runs", runs.model), ("items", items.model)):
        model.modelReset.connect(lambda n=name: resets.append(n))
        model.dataChanged.connect(
            lambda a, b, roles=(), n=name: (
                changed[n].extend(range(a.row(), b.row() + 1)) if Qt.DecorationRole not in roles else None
            )
        )  # not thumbnails
    monkeypatch_reads = overview.scored_runs_of
    calls: list[int] = []

    def spy(project, ids, **kw):
        calls.append(len(ids))
        return monkeypatch_reads(project, ids, **kw)

    overview.scored_runs_of = spy  # every read of whole runs by id, wherever the session makes it
    try:
        ids = [f.id for f in run.findings if f.status == Status.PROPOSED]
        assert s.execute(DecideFindings(ids, Status.REJECTED, "tester"))
        qtbot.wait(10)
    finally:
        overview.scored_runs_of = monkeypatch_reads
    assert resets == []
    assert calls == [1]  # the decided run is read again, nothing else
    assert len(set(changed["runs"])) == 1
    assert len(set(changed["items"])) == 1
    key = (run.run["prompt"], run.run["model"])
    rows = set(changed["scores"])
    assert {(s.score_rows()[k][0].prompt, s.score_rows()[k][0].model) for k in rows} == {key}
    assert {s.score_rows()[k][0].item for k in rows} == {run.run["item"], "*"}
    after_all = verdicts(s.project, reviewed=True)
    mine = {r.key(): r for _, r in s.score_rows()}
    bad = [
        (v.key(), {k: (x, getattr(mine[v.key()], k)) for k, x in v.__dict__.items() if getattr(mine[v.key()], k) != x})
        for v in after_all
        if mine[v.key()] != v
    ]
    assert not bad  # the rows kept in place are those storage computes


def test_scores_model_answers_from_cache_in_batches(qtbot, big):
    panel = ScoresPanel(big)
    qtbot.addWidget(panel)
    model = panel.model
    calls = []
    real = model.cell
    model.cell = lambda row, column: calls.append((row, column)) or real(row, column)
    model.forget()
    for _ in range(3):
        model.index(0, 3).data()
        model.index(0, 8).data()
    assert len(calls) == len(model.HEADERS)  # one row's cells made once, read from the cache after
    model.BATCH = 2
    model.reload()
    total = len(big.score_rows())
    assert model.rowCount() == min(2, total) and model.canFetchMore() == (total > 2)
    panel.proxy.sort(8)
    assert model.rowCount() == total  # sorting shows every row


def test_run_order_is_sorted_once_and_again_only_when_runs_are_added(big, qtbot, tmp_path):
    """Navigation (J/K past a run, the next run needing review) walks a run
    order sorted once, not a sort of every run per key press; a run added
    later (another import) takes its place in it."""
    ids, pos = big.run_order()
    lines = [big.line(i) for i in ids]
    assert [(x.item, x.prompt, x.model, x.repetition) for x in lines] == sorted(
        (x.item, x.prompt, x.model, x.repetition) for x in big.run_lines()
    )
    assert all(pos[i] == k for k, i in enumerate(ids))
    assert big.run_order() is big.run_order()  # cached
    src = tmp_path / "more.jsonl"
    src.write_text(
        '{"item": "table-01", "prompt": "spatial-grouping", "model": "a-first-model", '
        '"repetition": 1, "output": "no cards"}\n'
    )
    big.import_source(src)
    qtbot.waitUntil(lambda: big.summary_ready(), timeout=20000)
    ids2, pos2 = big.run_order()
    assert len(ids2) == len(ids) + 1
    new = next(i for i in ids2 if i not in pos)
    assert big.line(new).model == "a-first-model"
    assert [big.line(i).item for i in ids2] == sorted(big.line(i).item for i in ids2)


def test_pooled_rows_stay_equal_to_storage_over_decisions_in_every_item_and_undo(qtbot, big):
    """The '*' T-P1 rows are kept run by run (pooled sums); after decisions
    on runs of both items, a reclassification and undo they still equal a
    computation from scratch."""
    s = big

    def same() -> None:
        qtbot.wait(10)
        assert [r for _, r in s.score_rows()] == verdicts(s.project, reviewed=True)
        assert [a for a, _ in s.score_rows()] == verdicts(s.project)

    for st in s.items():
        s.set_item(st.item.id)
        for run in s.runs():
            proposed = [f.id for f in run.findings if f.status == Status.PROPOSED]
            if proposed:
                assert s.execute(DecideFindings(proposed[:1], Status.REJECTED, "tester"))
                same()
    run = next(r for r in s.runs() if r.findings)
    from reviewer.core.models import Code

    assert s.execute(DecideFindings([run.findings[-1].id], Status.CONFIRMED, "tester", final_code=Code.HALLUC))
    same()
    s.undo()
    same()
    s.undo()
    same()
