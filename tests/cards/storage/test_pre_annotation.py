"""Ground truth from a run (docs/window.md): the pure computations of
reviewer.core.cards.pre_annotation and the two undoable commands, on the
real project store with the bundled sample."""

from __future__ import annotations

import pytest

from reviewer.core.cards.boxes import to_pixels
from reviewer.core.cards.pre_annotation import boxes_from_run, draft_from_run
from reviewer.core.commands import Batch, UndoStack, accept_run_cards, use_run_boxes
from reviewer.core.models import BBox, BoxConvention, GroundTruth, ModelCard
from reviewer.storage.cards.scored import scored_runs
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
    score_project(project)
    return project, ProjectStore(project, "ann"), UndoStack()


def test_draft_from_run_makes_piles_in_order_and_pixel_boxes():
    cards = [
        ModelCard(text="To pray", pile="right", bbox=BBox(x_min=0.5, y_min=0.25, x_max=0.75, y_max=0.5)),
        ModelCard(text="  ", pile="left"),
        ModelCard(text="To die at home", pile="left"),
        ModelCard(text="To be kept clean", pile="right"),
    ]
    gt = draft_from_run("t", cards, BoxConvention.UNIT, 800, 400)
    assert [p.label for p in gt.piles] == ["right", "left"]  # blank card skipped, order first seen
    assert [c.text for c in gt.cards] == ["To pray", "To die at home", "To be kept clean"]
    assert gt.cards[0].bbox == BBox(x_min=400, y_min=100, x_max=600, y_max=200)
    assert gt.cards[1].bbox is None
    # no size: no boxes, still cards
    assert all(c.bbox is None for c in draft_from_run("t", cards, BoxConvention.UNIT, None, None).cards)


def test_boxes_from_run_fills_only_cards_without_a_box(setup):
    project, _, _ = setup
    item = repo_items.item_by_name(project, "table-01")
    run = boxes_run(project, "table-01")
    gt = repo_ground_truth.ground_truth(project, item.id)
    assert (
        boxes_from_run(gt, run.facts.outcomes, run.cards, run.facts.box_convention, item.width, item.height) == {}
    )  # every card has a box already
    bare = GroundTruth(
        item=gt.item,
        piles=gt.piles,
        cards=[c.model_copy(update={"bbox": None}) if n % 2 else c for n, c in enumerate(gt.cards)],
    )
    boxes = boxes_from_run(bare, run.facts.outcomes, run.cards, run.facts.box_convention, item.width, item.height)
    assert set(boxes) == {c.id for n, c in enumerate(gt.cards) if n % 2}


def test_use_run_boxes_converts_to_pixels_undo_redo(setup):
    project, store, stack = setup
    item = repo_items.item_by_name(project, "table-01")
    gt = repo_ground_truth.ground_truth(project, item.id)
    repo_ground_truth.set_ground_truth(
        project,
        item.id,
        GroundTruth(item=gt.item, piles=gt.piles, cards=[c.model_copy(update={"bbox": None}) for c in gt.cards]),
    )
    score_project(project)
    run = boxes_run(project, "table-01")
    assert run.facts.box_convention == BoxConvention.UNIT
    bare = repo_ground_truth.ground_truth(project, item.id)
    cmd = use_run_boxes(
        item.id,
        bare,
        run.facts.outcomes,
        run.cards,
        run.facts.box_convention,
        item.width,
        item.height,
        "bounding-boxes #1",
    )
    assert cmd is not None and "10 card(s)" in cmd.text
    stack.push(cmd, store)
    after = {c.text: c.bbox for c in repo_ground_truth.ground_truth(project, item.id).cards}
    model = next(m for m in run.cards if m.text == "To die at home")
    want = to_pixels(model.bbox, BoxConvention.UNIT, item.width, item.height)
    got = after["To die at home"]
    assert abs(got.x_min - want.x_min) < 0.1 and abs(got.y_max - want.y_max) < 0.1
    assert got.x_max > 100  # pixels, not fractions
    original = {c.text: c.bbox for c in gt.cards}
    assert abs(got.x_min - original["To die at home"].x_min) < 15  # the perfect run's boxes fit the photo
    stack.undo(store)
    assert all(c.bbox is None for c in repo_ground_truth.ground_truth(project, item.id).cards)
    stack.redo(store)
    assert repo_ground_truth.ground_truth(project, item.id).cards[0].bbox == got
    # nothing left without a box: no command
    assert (
        use_run_boxes(
            item.id,
            repo_ground_truth.ground_truth(project, item.id),
            run.facts.outcomes,
            run.cards,
            run.facts.box_convention,
            item.width,
            item.height,
        )
        is None
    )


def test_accept_run_cards_as_draft_ground_truth_undo_redo(setup):
    project, store, stack = setup
    item = repo_items.item_by_name(project, "table-02")
    run = next(
        r
        for r in scored_runs(project)
        if (r.run["item"], r.run["prompt"], r.run["repetition"]) == ("table-02", "spatial-grouping", 2)
    )  # perfect, three piles
    assert (
        accept_run_cards(
            item.id, repo_ground_truth.ground_truth(project, item.id), run.cards, None, item.width, item.height
        )
        is None
    )  # the photo has ground truth already
    repo_ground_truth.set_ground_truth(project, item.id, GroundTruth(item="table-02"))
    empty = repo_ground_truth.ground_truth(project, item.id)
    cmd = accept_run_cards(
        item.id, empty, run.cards, run.facts.box_convention, item.width, item.height, "spatial-grouping #2"
    )
    assert isinstance(cmd, Batch)
    stack.push(cmd, store)
    gt = repo_ground_truth.ground_truth(project, item.id)
    assert [p.label for p in gt.piles] == ["left", "center", "right"]
    assert sorted(c.text for c in gt.cards) == sorted(m.text for m in run.cards)
    assert all(c.pile in {"left", "center", "right"} for c in gt.cards)
    ids = [c.id for c in gt.cards]
    assert stack.history() == [cmd.text]  # one undo step
    stack.undo(store)
    after_undo = repo_ground_truth.ground_truth(project, item.id)
    assert after_undo.cards == [] and after_undo.piles == []
    stack.redo(store)
    again = repo_ground_truth.ground_truth(project, item.id)
    assert [c.id for c in again.cards] == ids and [c.pile for c in again.cards] == [c.pile for c in gt.cards]


def test_accept_run_cards_with_boxes(setup):
    project, store, stack = setup
    item = repo_items.item_by_name(project, "table-02")
    run = boxes_run(project, "table-02")
    repo_ground_truth.set_ground_truth(project, item.id, GroundTruth(item="table-02"))
    cmd = accept_run_cards(
        item.id,
        repo_ground_truth.ground_truth(project, item.id),
        run.cards,
        run.facts.box_convention,
        item.width,
        item.height,
    )
    stack.push(cmd, store)
    gt = repo_ground_truth.ground_truth(project, item.id)
    assert gt.cards and all(c.bbox is not None for c in gt.cards)
    assert all(0 <= c.bbox.x_min < c.bbox.x_max <= item.width + 1 for c in gt.cards)
    assert max(c.bbox.x_max for c in gt.cards) > 1.5  # pixels, not fractions
