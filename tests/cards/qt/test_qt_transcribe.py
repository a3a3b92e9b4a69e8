"""The window with cards that are not where they should be: drawing a card
whose text is an unplaced card's places that card (no extra card, no extra
MISS); cards to transcribe (boxes without text) are counted on the item and
T / Shift+T walk through them. Offscreen, real keys and mouse."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.core.commands import AddCard, EditCards
from reviewer.core.models import BBox, Code
from reviewer.qt.panels.items import status_line
from reviewer.storage.repo import ground_truth as repo_ground_truth
from tests.helpers.canvas import at, drag, type_and_enter

pytestmark = pytest.mark.gui


@pytest.fixture
def window(card_window):
    return card_window


def cards(s):
    return {c.id: c for c in repo_ground_truth.ground_truth(s.project, s.item_id).cards}


def misses(s):
    return sorted(f.gt_card for f in s.run().findings if f.code == Code.MISS)


def test_drawing_an_unplaced_cards_text_places_that_card(qtbot, window):
    s, view = window.session, window.canvas
    target = next(c for c in cards(s).values() if c.bbox is not None)
    assert s.execute(EditCards({target.id: {"bbox": None}}, text="take the box away"))
    assert target.id in view.overlay().unplaced
    before_cards, before_misses = len(cards(s)), misses(s)
    s.set_tool("card")
    drag(qtbot, view, at(view, 1400, 1100), at(view, 1550, 1180))
    # the same text by §1 equality: other case, spacing and punctuation
    type_and_enter(qtbot, view, "  " + target.text.upper().replace(" ", "  ") + "!")
    now = cards(s)
    assert len(now) == before_cards  # no 11th card
    assert now[target.id].bbox is not None and now[target.id].text == target.text
    assert target.id not in view.overlay().unplaced
    assert misses(s) == before_misses  # no new MISS for a second copy of the card
    assert s.selected_cards == [target.id]
    s.undo()
    assert cards(s)[target.id].bbox is None and len(cards(s)) == before_cards
    # a text no unplaced card has still adds a card
    s.select_cards([])  # (a selected unplaced card would take the box without a question)
    drag(qtbot, view, at(view, 1400, 1100), at(view, 1550, 1180))
    type_and_enter(qtbot, view, "Something else")
    assert len(cards(s)) == before_cards + 1


def test_cards_to_transcribe_are_counted_and_walked_with_t(qtbot, window):
    s, view = window.session, window.canvas
    runs_before = {f.gt_card for f in s.run().findings}
    boxes = [BBox(x_min=1300, y_min=900 + 60 * k, x_max=1500, y_max=950 + 60 * k) for k in range(2)]
    for box in boxes:
        assert s.execute(AddCard(s.item_id, "", pile="right", bbox=box))
    blank = [cid for cid, c in cards(s).items() if not c.text]
    assert len(blank) == 2
    status = next(st for st in s.items() if st.item.id == s.item_id)
    assert status.to_transcribe == 2 and "2 cards to transcribe" in status_line(status)
    assert any("2 cards to transcribe" in text for text, _color in view.overlay().legend)
    # left out of scoring: no MISS for a card with no text
    assert "" not in {f.gt_card for f in s.run().findings}
    assert {f.gt_card for f in s.run().findings} == runs_before
    panel = window.findings_panel.view
    qtbot.keyClick(panel, Qt.Key_T)
    assert s.selected_cards == [blank[0]]
    qtbot.keyClick(panel, Qt.Key_T)
    assert s.selected_cards == [blank[1]]
    qtbot.keyClick(panel, Qt.Key_T, Qt.ShiftModifier)
    assert s.selected_cards == [blank[0]]
    type_and_enter(qtbot, view, "To be kept clean")
    assert cards(s)[blank[0]].text == "To be kept clean"
    status = next(st for st in s.items() if st.item.id == s.item_id)
    assert status.to_transcribe == 1 and "1 card to transcribe" in status_line(status)
    # transcribed, it is scored: a MISS in this run, which has no such card
    assert "To be kept clean" in misses(s)
