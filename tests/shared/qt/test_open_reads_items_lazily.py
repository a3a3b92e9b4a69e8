"""Opening a project lists its items from four columns and reads an item
whole only when it is shown; the summary's worker reads them all whole
afterwards (decision record big-projects-stay-interactive). The list is the
same as the whole items give, in the same order, with the same workflows
and ground-truth counts."""

from __future__ import annotations

import threading

from reviewer.core.models import Card, GroundTruth, Item
from reviewer.qt.session import Session, summary
from reviewer.storage import workflows
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from tests.helpers.paths import SAMPLES


def _blank_and_named_cards(project) -> None:
    """One item gets a card with no text, another a named annotator's cards."""
    first, second = repo_items.items(project)[:2]
    gt = repo_ground_truth.ground_truth(project, first.id)
    repo_ground_truth.set_ground_truth(project, first.id, gt.model_copy(update={"cards": [*gt.cards, Card(text="  ")]}))
    named = GroundTruth(item=second.name, cards=[Card(text="Wild card")])
    repo_ground_truth.set_ground_truth(project, second.id, named, annotator="ada")


def test_the_list_is_read_from_four_columns_and_items_whole_when_shown(qtbot, tmp_path, monkeypatch):
    db = tmp_path / "p.db"
    s = Session("tester")
    assert s.open(db, create=True)
    assert s.import_source(SAMPLES, model="m") is not None
    for k in range(30):  # text items beside the photos
        repo_items.upsert_item(s.project, Item(name=f"note-{k}", kind="text", text=f"note {k} says {k * 7}"))
    _blank_and_named_cards(s.project)
    whole = repo_items.items(s.project)
    flows = workflows.item_workflows(s.project, whole)
    cards = {i.id: repo_ground_truth.ground_truth(s.project, i.id).cards for i in whole}
    s.close()

    asked: list[int] = []  # whole items read on the GUI thread (-1: all)
    on_worker: list[int] = []
    real = repo_items.items_by_id

    def counted(project, ids=None):
        mine = asked if threading.current_thread() is threading.main_thread() else on_worker
        mine.extend(ids if ids is not None else [-1])
        return real(project, ids)

    monkeypatch.setattr(repo_items, "items_by_id", counted)
    monkeypatch.setattr(summary, "SYNC_RUNS", 0)  # the summary (and the whole items) on the worker
    monkeypatch.setattr(summary, "START_DELAY_MS", 0)
    s = Session("tester")
    assert s.open(db)
    statuses = s.items()
    assert [st.id for st in statuses] == [i.id for i in whole]  # natural order, as the whole items
    assert [(st.name, st.kind, st.workflow) for st in statuses] == [(i.name, i.kind, flows[i.id]) for i in whole]
    for st in statuses:
        assert st.cards == len(cards[st.id])
        assert st.to_transcribe == sum(1 for c in cards[st.id] if not c.text.strip())
    assert any(st.to_transcribe for st in statuses)
    shown = {s.item_id}
    assert set(asked) <= shown, "open read whole items it does not show"
    # an item is read whole when asked for, once, and equals what the project holds
    last = statuses[-2]
    assert last.item == next(i for i in whole if i.id == last.id)
    n = len(asked)
    assert last.item is last.item and len(asked) == n
    assert s.item_named(whole[3].name) == whole[3]
    assert s.item_named("no such item") is None
    # the text items' texts come in one read, for titles and the search
    texts = s.item_texts()
    assert texts == {i.id: i.text for i in whole if i.kind == "text"}
    assert s.cache.item(statuses[0].id) is not None
    # the summary's worker reads every item whole: none is read on the GUI thread after it
    qtbot.waitUntil(s.summary_ready, timeout=20_000)
    assert on_worker == [-1]
    before = list(asked)
    assert [st.item for st in s.items()] == whole
    assert asked == before
    s.close()
