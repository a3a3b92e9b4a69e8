"""The annotator switch of the window (docs/window.md): the canvas shows the
consensus, one annotator's or every annotator's ground truth, each in its
own colour; D steps through the item's differences; in adjudication mode a
ground-truth dispute is settled with 1 / 2 (one undoable command that edits
the consensus and re-scores)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from reviewer.core.annotators import GT_KINDS
from reviewer.qt.canvas.prepared import prepare
from reviewer.qt.cards.annotators import ALL_VIEW, CONSENSUS_VIEW
from reviewer.qt.palette import ANNOTATOR_COLORS
from reviewer.storage.dispute_queue import refresh_disputes
from tests.helpers.window import open_window

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, two, tmp_path, monkeypatch):
    """The window on the two-annotator sample (alice, bob), on table-01."""
    refresh_disputes(two)
    path = two.path
    two.close()
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = open_window(qtbot, path, size=(1600, 1000), item="table-01")
    yield w
    w.close()


def _press(qtbot, w, key, mods=Qt.NoModifier):
    w.canvas.setFocus()
    qtbot.keyClick(w.canvas, key, mods)


def test_the_switch_shows_each_annotators_boxes_in_its_own_colour(qtbot, window):
    w = window
    view, canvas = w.annotators, w.canvas
    assert view.mode == CONSENSUS_VIEW and view.choices() == [CONSENSUS_VIEW, "alice", "bob", ALL_VIEW]
    consensus = canvas.overlay()
    assert len(consensus.cards) == 10 and not consensus.others  # the consensus: editable cards, nobody else's

    _press(qtbot, w, Qt.Key_E)  # -> alice
    o = canvas.overlay()
    assert view.mode == "alice" and w.annotator_bar.combo.currentData() == "alice"
    assert not o.cards and not o.piles  # no consensus shape a tool could move
    assert o.colors_of("annotator") == {"alice": {ANNOTATOR_COLORS[0]}}
    assert len([s for s in o.others if s.kind == "annotator"]) == 10
    assert "editing acts on the consensus (not shown)" in w.annotator_bar.legend_lines()

    _press(qtbot, w, Qt.Key_E)  # -> bob
    o = canvas.overlay()
    assert o.colors_of("annotator") == {"bob": {ANNOTATOR_COLORS[1]}}
    wild = next(s for s in o.others if s.kind == "annotator" and "Wild Card" in s.label)
    assert wild.rect[1] == pytest.approx(861.6 + 140)  # bob's own box, 140 px lower

    w.annotator_bar.combo.setCurrentIndex(w.annotator_bar.combo.findData(ALL_VIEW))
    o = canvas.overlay()
    assert view.mode == ALL_VIEW
    colours = o.colors_of("annotator")
    assert colours == {"alice": {ANNOTATOR_COLORS[0]}, "bob": {ANNOTATOR_COLORS[1]}}
    assert o.annotators[:2] == [("alice", ANNOTATOR_COLORS[0]), ("bob", ANNOTATOR_COLORS[1])]
    assert w.annotator_bar.legend_lines()[:2] == ["alice", "bob"]
    # what is painted: one layer per annotator, in its colour, with its 10 boxes
    prepared = prepare(o)
    painted = {layer.pens[-1].color().name().upper(): len(layer.shapes) for layer in prepared.layers["annotators"]}
    assert painted == {QColor(ANNOTATOR_COLORS[0]).name().upper(): 10, QColor(ANNOTATOR_COLORS[1]).name().upper(): 10}
    styles = {layer.pens[-1].style() for layer in prepared.layers["annotators"]}
    assert len(styles) == 2  # and a line style each, so coinciding boxes both show

    _press(qtbot, w, Qt.Key_E)  # all -> back to the consensus
    assert view.mode == CONSENSUS_VIEW and len(canvas.overlay().cards) == 10 and not canvas.overlay().others


def test_editing_acts_on_the_consensus_while_an_annotator_is_shown(qtbot, window):
    w = window
    w.session.select_cards([w.session.ground_truth().cards[0].id])
    w.annotators.set_mode("bob")
    assert w.session.selected_cards == []  # nothing hidden stays selected for Delete
    w.session.set_tool("card")
    assert "draws on the consensus" in w.message_label.text()


def test_d_cycles_the_items_differences(qtbot, window):
    w = window
    view = w.annotators
    assert [d.aspect for d in view.differences()] == ["box", "text", "text"]  # most severe first
    seen = []
    for _ in range(4):
        _press(qtbot, w, Qt.Key_D)
        o = w.canvas.overlay()
        chosen = [s for s in o.differences if s.selected]
        assert {s.annotator for s in chosen} == {"alice", "bob"}  # both sides drawn
        assert {s.color for s in chosen} == {ANNOTATOR_COLORS[0], ANNOTATOR_COLORS[1]}
        seen.append((view.difference_index, w.message_label.text()))
    assert [i for i, _ in seen] == [0, 1, 2, 0]  # cycles
    assert seen[0][1].startswith("difference 1 of 3 · gt-box-differs") and "Wild Card" in seen[0][1]
    assert "dispute " in seen[0][1] and "F3 settles it" in seen[0][1]
    assert "gt-text-differs" in seen[1][1] and "'To pray'" in seen[1][1] and "'To prey'" in seen[1][1]
    box = [s for s in w.canvas.overlay().differences if s.selected]
    bob = next(s for s in box if s.annotator == "bob")
    assert bob.rect[1] == pytest.approx(861.6 + 140)
    assert w.canvas.visible_rect().intersects(w.canvas.visible_rect())  # panned without error
    _press(qtbot, w, Qt.Key_D, Qt.ShiftModifier)  # back
    assert view.difference_index == 2
    # another item without differences: D says so, nothing highlighted
    table2 = next(st.item.id for st in w.session.items() if st.item.name == "table-02")
    w.session.set_item(table2)
    assert view.difference_index is None and not w.canvas.overlay().differences
    _press(qtbot, w, Qt.Key_D)
    assert "the annotators agree on table-02" in w.message_label.text()
    assert "3 ground-truth dispute(s) on other items" in w.message_label.text()


def test_deciding_a_ground_truth_dispute_edits_the_consensus_and_undo_restores_it(qtbot, window):
    w = window
    s = w.session
    w.set_mode("adjudication")
    table = next(st.item.id for st in s.items() if st.item.name == "table-01")
    texts = lambda: sorted(c.text for c in s.ground_truth(table).cards)  # noqa: E731
    before = texts()
    assert "To be kept clean" in before and "To be kept clear" not in before
    clean = next(d for d in s.disputes() if d.kind in GT_KINDS and "To be kept clean" in d.detail)
    s.set_dispute(clean.id)
    screen = w.adjudication.screen
    assert screen.difference is not None and screen.sides.isVisible()
    assert [b.text() for b in screen.sides.buttons] == ["1 · side with alice", "2 · side with bob"]
    assert screen.output_boxes[1].text.toPlainText().startswith("text: To be kept clear")
    assert not screen.input_box.image.pixmap().isNull()  # the photo cut to both boxes
    runs = [r.run["id"] for r in s.runs(table)]
    gt_cards = lambda: {f.gt_card for r in runs for f in s.scored_run(r).findings}  # noqa: E731
    assert "To be kept clear" not in gt_cards()
    w.adjudication.focus_queue()
    qtbot.keyClick(w.adjudication.queue.view, Qt.Key_2)  # bob's side
    assert "To be kept clear" in texts() and "To be kept clean" not in texts()
    adj = next(a for a in s.adjudications() if a.dimension == clean.dimension)
    assert (adj.value, adj.sided_with, adj.reviewer) == ("To be kept clear", "bob", s.reviewer)
    assert "To be kept clear" in gt_cards()  # the item's runs were re-scored against the new consensus
    assert s.current_dispute_id != clean.id  # on to the next dispute to decide
    qtbot.keyClick(w.adjudication.queue.view, Qt.Key_Z, Qt.ControlModifier)  # one undo: both back
    assert texts() == before
    assert not any(a.dimension == clean.dimension for a in s.adjudications())
    assert s.current_dispute_id == clean.id  # the view went to the dispute undone
    assert "To be kept clear" not in gt_cards()
    # the button does the same as the key
    screen.sides.buttons[0].click()  # alice's side: the consensus already says so, only the record
    assert texts() == before
    assert next(a for a in s.adjudications() if a.dimension == clean.dimension).sided_with == "alice"
