"""Proposed boxes are confirmed, not silently taken: *Use this run's boxes*
proposes each box with the run's text; Tab, Enter, arrows and Delete on the
photo confirm, move or drop them; a proposal is never ground truth until it
is accepted, and every step is in the undo history. Real keys, offscreen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.core.box_commands import AcceptProposedBox
from reviewer.qt.cards import pre_annotate
from reviewer.qt.cards.proposed_boxes import FAR_PX
from reviewer.storage.cards.proposed_boxes import proposed_boxes
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import ground_truth as repo_ground_truth
from tests.helpers.card_project import make_project, run_id
from tests.helpers.window import open_window

pytestmark = pytest.mark.gui


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    return tmp_path


def stored(path, item_id):
    """(ground truth, proposals) as another connection reads them."""
    p = open_project(path)
    try:
        return repo_ground_truth.ground_truth(p, item_id), proposed_boxes(p, item_id)
    finally:
        p.close()


def test_take_a_runs_boxes_accept_two_adjust_one_drop_one_and_undo(qtbot, env):
    w = open_window(qtbot, make_project(env, strip_boxes=["table-01"]), item="table-01", prompt="bounding-boxes")
    s, view = w.session, w.canvas
    s.set_run(run_id(w, "bounding-boxes", 1))
    item = s.item()
    w.actions_by_name["use_boxes"].trigger()
    gt, proposals = stored(s.project.path, item.id)
    assert len(proposals) == 10 and all(c.bbox is None for c in gt.cards)  # not ground truth yet
    assert all(p.card_id is not None for p in proposals)  # each names the card it would place
    assert w.proposed_boxes.label.text().startswith("10 proposed boxes left")
    assert proposals[0].text == "To die at home" and proposals[0].box.x_min < item.width / 2
    view.setFocus()
    qtbot.keyClick(view, Qt.Key_Return)  # accept the first
    qtbot.keyClick(view, Qt.Key_Down, Qt.ShiftModifier)  # the bottom edge of the next, further down
    moved = stored(s.project.path, item.id)[1][0]
    assert moved.text == "To be free from pain"
    assert moved.box.y_max == pytest.approx(proposals[1].box.y_max + view.px(FAR_PX), abs=0.11)
    assert moved.box.y_min == proposals[1].box.y_min
    qtbot.keyClick(view, Qt.Key_Return)  # accept it as moved
    qtbot.keyClick(view, Qt.Key_Tab)  # skip one
    qtbot.keyClick(view, Qt.Key_Delete)  # drop the one after it
    gt, left = stored(s.project.path, item.id)
    boxed = {c.text: c.bbox for c in gt.cards if c.bbox is not None}
    assert boxed == {"To die at home": proposals[0].box, "To be free from pain": moved.box}
    assert len(gt.cards) == 10  # placed, not added
    assert [p.text for p in left] == [p.text for p in proposals[2:] if p.id != proposals[3].id]
    assert w.proposed_boxes.label.text().startswith("7 proposed boxes left")
    assert s.stack.history()[-5:] == [
        "propose bounding-boxes · m #1's 10 box(es)",
        "accept proposed box 'To die at home'",
        "move the bottom edge",
        "accept proposed box 'To be free from pain'",
        "drop proposed box",
    ]
    for _ in range(5):
        qtbot.keyClick(w, Qt.Key_Z, Qt.ControlModifier)
    gt, none_left = stored(s.project.path, item.id)
    assert none_left == [] and all(c.bbox is None for c in gt.cards) and not w.proposed_boxes.label.isVisible()
    for _ in range(5):
        qtbot.keyClick(w, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    again, left_again = stored(s.project.path, item.id)
    assert {c.text: c.bbox for c in again.cards if c.bbox is not None} == boxed
    assert [(p.id, p.text, p.box) for p in left_again] == [(p.id, p.text, p.box) for p in left]
    w.canvas.loader.wait()


def test_arrows_choose_the_edge_they_point_at_and_keys_are_the_windows_without_proposals(qtbot, env):
    w = open_window(qtbot, make_project(env, strip_boxes=["table-01"]), item="table-01", prompt="bounding-boxes")
    s, view = w.session, w.canvas
    s.set_run(run_id(w, "bounding-boxes", 1))
    w.actions_by_name["use_boxes"].trigger()
    first = w.proposed_boxes.current_box()
    view.setFocus()
    qtbot.keyClick(view, Qt.Key_Left)  # across the bottom edge: chooses the left one
    assert w.proposed_boxes.edge == "left" and w.proposed_boxes.current_box() == first
    qtbot.keyClick(view, Qt.Key_Left)
    assert w.proposed_boxes.current_box().box.x_min < first.box.x_min
    assert w.proposed_boxes.current_box().box.x_max == first.box.x_max
    # a second use of the same run's boxes proposes nothing twice
    assert not pre_annotate.use_boxes(s) and len(w.proposed_boxes.boxes()) == 10
    # accepting a proposal whose card has a box already is ground truth as before (no second card)
    gt = s.ground_truth()
    p = w.proposed_boxes.boxes()[1]
    assert s.execute(AcceptProposedBox(s.item_id, p, gt))
    assert len(s.ground_truth().cards) == 10
    # with every proposal gone, Delete deletes the selected cards again (the window's key)
    assert len(w.proposed_boxes.boxes()) == 9
    for _ in range(9):
        qtbot.keyClick(view, Qt.Key_Delete)
    assert w.proposed_boxes.boxes() == [] and not w.proposed_boxes.active()
    card = next(c for c in s.ground_truth().cards if c.bbox is not None)
    s.select_cards([card.id])
    qtbot.keyClick(view, Qt.Key_Delete)
    assert card.id not in {c.id for c in s.ground_truth().cards}
    w.canvas.loader.wait()


def test_undo_of_a_proposal_edit_shows_its_item_and_proposal(qtbot, env):
    w = open_window(qtbot, make_project(env, strip_boxes=["table-01"]), item="table-01", prompt="bounding-boxes")
    s, view = w.session, w.canvas
    s.set_run(run_id(w, "bounding-boxes", 1))
    table01 = s.item_id
    w.actions_by_name["use_boxes"].trigger()
    view.setFocus()
    qtbot.keyClick(view, Qt.Key_Tab)
    qtbot.keyClick(view, Qt.Key_Tab)
    third = w.proposed_boxes.current_box()
    qtbot.keyClick(view, Qt.Key_Delete)
    assert w.proposed_boxes.current_box() != third
    s.set_item(next(st.item.id for st in s.items() if st.item.name == "table-02"))
    assert w.proposed_boxes.boxes() == [] and not w.proposed_boxes.label.isVisible()
    qtbot.keyClick(w, Qt.Key_Z, Qt.ControlModifier)
    assert s.item_id == table01 and w.proposed_boxes.current_box() == third
    w.canvas.loader.wait()
