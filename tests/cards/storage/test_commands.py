"""Core commands with undo, on the real project store."""

from __future__ import annotations

import pytest

from reviewer.core.commands import AddCard, AddFinding, AddPile, DecideFindings, DeleteCards, EditCards, UndoStack
from reviewer.core.models import BBox, Code, Status
from reviewer.storage.cards.scored import scored_runs
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.scoring import score_project
from reviewer.storage.store import ProjectStore
from tests.helpers.paths import SAMPLES


@pytest.fixture
def setup(project):
    import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    score_project(project)
    return project, ProjectStore(project, "ann"), UndoStack()


def test_add_edit_delete_card_undo_redo(setup):
    project, store, stack = setup
    item = repo_items.item_by_name(project, "table-01")
    n = len(repo_ground_truth.ground_truth(project, item.id).cards)
    stack.push(AddPile(item.id, "extra", [[0, 0], [10, 0], [10, 10], [0, 10]]), store)
    cmd = AddCard(item.id, "To see the ocean", "extra", BBox(x_min=1, y_min=2, x_max=5, y_max=6))
    stack.push(cmd, store)
    card_id = cmd.card.id
    gt = repo_ground_truth.ground_truth(project, item.id)
    assert len(gt.cards) == n + 1 and gt.cards[-1].pile == "extra"
    stack.push(EditCards({card_id: {"text": "To see the sea"}}), store)
    assert repo_ground_truth.ground_truth(project, item.id).cards[-1].text == "To see the sea"
    stack.push(DeleteCards([card_id]), store)
    assert len(repo_ground_truth.ground_truth(project, item.id).cards) == n
    stack.undo(store)  # delete undone: same id comes back
    assert repo_ground_truth.ground_truth(project, item.id).cards[-1].id == card_id
    stack.undo(store)  # edit undone
    assert repo_ground_truth.ground_truth(project, item.id).cards[-1].text == "To see the ocean"
    stack.redo(store)
    assert repo_ground_truth.ground_truth(project, item.id).cards[-1].text == "To see the sea"
    assert stack.undo_text() == "edit card"
    audit = project.db.execute("select count(*) from audit where table_name='cards' and actor='ann'").fetchone()[0]
    assert audit >= 5


def test_decide_and_undo(setup):
    project, store, stack = setup
    run = next(r for r in scored_runs(project) if len(r.findings) >= 2)
    ids = [f.id for f in run.findings]
    stack.push(DecideFindings(ids, Status.REJECTED, "ann", reason="fine"), store)
    assert all(repo_findings.finding(project, i).status == Status.REJECTED for i in ids)
    assert repo_findings.finding(project, ids[0]).reviewer == "ann"
    stack.undo(store)
    assert all(repo_findings.finding(project, i).status == Status.PROPOSED for i in ids)
    stack.push(DecideFindings(ids[:1], Status.CONFIRMED, "ann", final_code=Code.PARTIAL), store)
    f = repo_findings.finding(project, ids[0])
    assert f.final_code == Code.PARTIAL and f.status == Status.CONFIRMED
    assert not stack.can_redo


def test_add_finding_keeps_id_on_redo(setup):
    project, store, stack = setup
    run = scored_runs(project)[0]
    cmd = AddFinding(run.run["id"], Code.HALLUC, "ann", model_card="x")
    stack.push(cmd, store)
    fid = cmd.finding.id
    stack.undo(store)
    with pytest.raises(KeyError):
        repo_findings.finding(project, fid)
    stack.redo(store)
    assert repo_findings.finding(project, fid).source.value == "human"


def test_deleting_a_card_keeps_decisions_and_undo_brings_them_back(setup):
    project, store, stack = setup
    run = next(r for r in scored_runs(project) if any(f.code == Code.MISS for f in r.findings))
    miss = next(f for f in run.findings if f.code == Code.MISS)
    stack.push(DecideFindings([miss.id], Status.CONFIRMED, "ann"), store)
    stack.push(DeleteCards([miss.gt_card_id]), store)
    score_project(project, run_ids=[run.run["id"]])
    kept = repo_findings.finding(project, miss.id)  # a decision is never deleted by re-scoring
    assert kept.status == Status.CONFIRMED and kept.detail.startswith("[not found")
    stack.undo(store)  # the card comes back with its id; its findings point at it again
    score_project(project, run_ids=[run.run["id"]])
    again = [f for f in repo_findings.findings(project, run.run["id"]) if f.gt_card_id == miss.gt_card_id]
    assert [f.id for f in again] == [miss.id]  # no duplicate proposed finding
    assert again[0].status == Status.CONFIRMED and not again[0].detail.startswith("[not found")
    stack.undo(store)  # the confirm can still be undone
    assert repo_findings.finding(project, miss.id).status == Status.PROPOSED


def test_move_to_next_pile_cycles_in_pile_order():
    from reviewer.core.commands import move_to_next_pile
    from reviewer.core.models import Card, GroundTruth, Pile

    gt = GroundTruth(
        item="x",
        piles=[Pile(label="a"), Pile(label="b"), Pile(label="c")],
        cards=[Card(id=1, text="one", pile="c"), Card(id=2, text="two", pile="a"), Card(id=3, text="three")],
    )
    assert move_to_next_pile(gt, [1]).changes == {1: {"pile": "a"}}  # wraps around
    assert move_to_next_pile(gt, [2, 1], step=-1).changes == {1: {"pile": "b"}, 2: {"pile": "b"}}
    assert move_to_next_pile(gt, [3]).changes == {3: {"pile": "a"}}
    assert move_to_next_pile(gt, []) is None
    assert move_to_next_pile(GroundTruth(item="y", cards=[Card(id=1, text="t")]), [1]) is None


def test_a_command_that_fails_midway_writes_nothing(setup):
    """Several cards in one command: all or nothing."""
    project, store, stack = setup
    item = repo_items.item_by_name(project, "table-01")
    cards = repo_ground_truth.ground_truth(project, item.id).cards
    with pytest.raises(KeyError):
        stack.push(EditCards({cards[0].id: {"text": "changed"}, 999_999: {"text": "no such card"}}), store)
    assert repo_ground_truth.ground_truth(project, item.id).cards[0].text == cards[0].text
    assert not stack.can_undo
