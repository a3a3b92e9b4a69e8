"""On a big project the items' review counts are not read with one
aggregate query at open: they come with the summary (counted from its
RunLines off the GUI thread) and then equal what the query gives."""

from __future__ import annotations

from reviewer.qt.session import Session, runs, summary
from reviewer.storage.cards import overview
from tests.helpers.paths import SAMPLES


def test_review_counts_arrive_with_the_summary(qtbot, tmp_path, monkeypatch):
    db = tmp_path / "p.db"
    s = Session("tester")
    assert s.open(db, create=True)
    assert s.import_source(SAMPLES, model="m") is not None
    s.close()
    monkeypatch.setattr(summary, "SYNC_RUNS", 0)
    monkeypatch.setattr(summary, "START_DELAY_MS", 0)
    monkeypatch.setattr(runs, "COUNTS_WITH_SUMMARY_RUNS", 1)
    calls = []
    real = overview.review_counts
    monkeypatch.setattr(overview, "review_counts", lambda *a, **k: calls.append(a) or real(*a, **k))
    s = Session("tester")
    assert s.open(db)
    assert calls == []  # no aggregate query at open
    assert s.cache.counts_later()
    with qtbot.waitSignal(s.summaryChanged, timeout=20_000):
        pass
    assert not s.cache.counts_later()
    expected = real(s.project)
    assert expected
    for st in s.items():
        c = expected.get(st.item.id)
        assert (st.runs, st.reviewed, st.no_findings) == ((c.runs, c.reviewed, c.no_findings) if c else (0, 0, 0))
    assert s.cache.progress()["runs"] == sum(c.runs for c in expected.values())
    s.close()
