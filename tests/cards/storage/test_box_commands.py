"""Proposed boxes (reviewer.core.cards.pre_annotation.proposals_from_run and
reviewer.core.box_commands) on the real project store with the bundled
sample: a proposal is never ground truth until accepted; every command
undoes and redoes to the same state."""

from __future__ import annotations

import pytest

from reviewer.core.box_commands import (
    AcceptProposedBox,
    AdjustProposedBox,
    DropProposedBox,
    ProposeBoxes,
    moved_edge,
)
from reviewer.core.cards.pre_annotation import ProposedBox, proposals_from_run
from reviewer.core.commands import UndoStack
from reviewer.core.models import BBox, GroundTruth
from reviewer.storage.cards.proposed_boxes import KEY, proposed_boxes
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.scoring import score_project
from reviewer.storage.store import ProjectStore
from tests.helpers.boxes import boxes_run
from tests.helpers.paths import SAMPLES


@pytest.fixture
def setup(project):
    import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    item = repo_items.item_by_name(project, "table-01")
    gt = repo_ground_truth.ground_truth(project, item.id)
    repo_ground_truth.set_ground_truth(
        project,
        item.id,
        GroundTruth(
            item="table-01",
            piles=gt.piles,
            cards=[c.model_copy(update={"bbox": None if i < 3 else c.bbox}) for i, c in enumerate(gt.cards)],
        ),
    )
    score_project(project)
    return project, item, ProjectStore(project, "ann"), UndoStack()


def test_moved_edge_moves_one_edge_and_never_past_the_other():
    b = BBox(x_min=10, y_min=20, x_max=110, y_max=60)
    assert moved_edge(b, "bottom", 15.04) == BBox(x_min=10, y_min=20, x_max=110, y_max=75.0)
    assert moved_edge(b, "left", -5) == BBox(x_min=5, y_min=20, x_max=110, y_max=60)
    assert moved_edge(b, "top", 100) == BBox(x_min=10, y_min=59, x_max=110, y_max=60)  # stops 1 px short
    with pytest.raises(ValueError, match="no edge 'middle'"):
        moved_edge(b, "middle", 1)


def test_a_runs_boxes_are_proposed_only_where_the_ground_truth_has_none(setup):
    project, item, _, _ = setup
    run = boxes_run(project, "table-01")
    gt = repo_ground_truth.ground_truth(project, item.id)
    got = proposals_from_run(gt, run.facts.outcomes, run.cards, run.facts.box_convention, item.width, item.height, "r")
    boxless = {c.id: c.text for c in gt.cards if c.bbox is None}
    assert len(got) == 3 and {p.card_id for p in got} == set(boxless)
    assert all(boxless[p.card_id] == p.text for p in got)  # the run's text, here right
    assert [p.id for p in got] == [1, 2, 3] and all(p.source == "r" for p in got)
    # no boxes without the image size or a convention
    assert proposals_from_run(gt, run.facts.outcomes, run.cards, None, item.width, item.height) == []
    assert proposals_from_run(gt, run.facts.outcomes, run.cards, run.facts.box_convention, None, None) == []


def test_propose_adjust_drop_accept_and_undo_them_all(setup):
    project, item, store, stack = setup
    run = boxes_run(project, "table-01")
    gt = repo_ground_truth.ground_truth(project, item.id)
    got = proposals_from_run(gt, run.facts.outcomes, run.cards, run.facts.box_convention, item.width, item.height)
    stack.push(ProposeBoxes(item.id, got), store)
    assert proposed_boxes(project, item.id) == got
    assert repo_ground_truth.ground_truth(project, item.id) == gt  # not ground truth
    stack.push(ProposeBoxes(item.id, got[:1]), store)  # a second proposal of the same box gets its own id
    assert [p.id for p in proposed_boxes(project, item.id)] == [1, 2, 3, 4]
    stack.undo(store)
    moved = moved_edge(got[0].box, "bottom", 40)
    effect = stack.push(AdjustProposedBox(item.id, got[0].id, moved), store)
    assert not effect.items  # proposals are not ground truth: nothing to re-score
    stack.push(DropProposedBox(item.id, got[1].id), store)
    first = proposed_boxes(project, item.id)[0]
    assert first.box == moved
    effect = stack.push(AcceptProposedBox(item.id, first, repo_ground_truth.ground_truth(project, item.id)), store)
    assert effect.items == {item.id}
    now = repo_ground_truth.ground_truth(project, item.id)
    assert next(c for c in now.cards if c.id == first.card_id).bbox == moved and len(now.cards) == len(gt.cards)
    assert [p.id for p in proposed_boxes(project, item.id)] == [got[2].id]
    with pytest.raises(KeyError):
        stack.push(DropProposedBox(item.id, got[1].id), store)  # dropped already
    for _ in range(4):
        stack.undo(store)
    assert proposed_boxes(project, item.id) == [] and repo_ground_truth.ground_truth(project, item.id) == gt
    assert project.meta(KEY.format(item.id)) is None  # nothing left behind
    for _ in range(4):
        stack.redo(store)
    assert repo_ground_truth.ground_truth(project, item.id) == now
    assert [p.id for p in proposed_boxes(project, item.id)] == [got[2].id]


def test_accepting_a_proposal_without_a_card_adds_one_or_places_the_unplaced_card_of_its_text(setup):
    project, item, store, stack = setup
    gt = repo_ground_truth.ground_truth(project, item.id)
    unplaced = next(c for c in gt.cards if c.bbox is None)
    box = BBox(x_min=1, y_min=2, x_max=30, y_max=40)
    stack.push(ProposeBoxes(item.id, [ProposedBox(id=1, text=unplaced.text.upper(), box=box)]), store)
    stack.push(ProposeBoxes(item.id, [ProposedBox(id=1, text="A new card", box=box, pile="left")]), store)
    a, b = proposed_boxes(project, item.id)
    stack.push(AcceptProposedBox(item.id, a, repo_ground_truth.ground_truth(project, item.id)), store)
    stack.push(AcceptProposedBox(item.id, b, repo_ground_truth.ground_truth(project, item.id)), store)
    now = repo_ground_truth.ground_truth(project, item.id)
    assert next(c for c in now.cards if c.id == unplaced.id).bbox == box  # placed (§1 equality), not added
    added = next(c for c in now.cards if c.text == "A new card")
    assert added.bbox == box and added.pile == "left" and len(now.cards) == len(gt.cards) + 1


def test_go_wish_boxes_are_proposed_for_ground_truth_without_boxes(tmp_path):
    """go-wish-spike (real data, skipped when absent): its ground truth has no boxes, so every box of
    the Qwen bounding-boxes run is proposed for the card it matched, with the text Qwen read."""
    from reviewer.storage.cards.scores import scored_runs
    from reviewer.storage.project.db import open_project
    from tests.helpers.paths import shared

    data = shared("go-wish-spike")
    p = open_project(tmp_path / "g.db", create=True)
    try:
        import_source(p, data, options=ImportOptions(model="qwen3-vl-2b-q4km"))
        score_project(p)
        runs = [r for r in scored_runs(p) if r.run["prompt"] == "bounding-boxes"]
        assert {r.run["item"] for r in runs} == {"01-controlled", "02-angled"}
        for run in runs:
            item = repo_items.item_by_name(p, run.run["item"])
            gt = repo_ground_truth.ground_truth(p, item.id)
            assert all(c.bbox is None for c in gt.cards)
            got = proposals_from_run(
                gt, run.facts.outcomes, run.cards, run.facts.box_convention, item.width, item.height
            )
            assert len(got) == len(gt.cards) and len({b.card_id for b in got}) == len(gt.cards)
            assert [b.text for b in got] == [c.text.strip() for c in run.cards if c.bbox is not None]
            assert all(0 <= b.box.x_min < b.box.x_max <= item.width for b in got)
    finally:
        p.close()
