"""A right reading in one key: while a ground-truth card is drawn, the text
field lists the model card whose box lies on it, the unplaced cards and
every reading of the photo; Enter takes the first, Up/Down choose, typing
filters. Real keys and mouse on the window, offscreen, on table-01."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from reviewer.core.cards.text_choices import ON_THE_BOX, READ, UNPLACED
from reviewer.core.commands import DeleteCards, EditCards
from tests.helpers.canvas import at, db_cards, drag

pytestmark = pytest.mark.gui


class Keys:
    """Presses keys with qtbot and counts them."""

    def __init__(self, qtbot):
        self.qtbot, self.count = qtbot, 0

    def __call__(self, widget, key, modifier=Qt.NoModifier) -> None:
        self.count += 1
        self.qtbot.keyClick(widget, key, modifier)

    def type(self, widget, text: str) -> None:
        self.count += len(text)
        self.qtbot.keyClicks(widget, text)


@pytest.fixture
def window(card_window):
    s = card_window.session
    run = next(r for r in s.runs() if r.run["prompt"] == "bounding-boxes" and not r.findings)  # the right one
    s.set_run(run.run["id"])
    return card_window


def card_named(s, text):
    return next(c for c in db_cards(s).values() if c.text == text)


def drag_box(qtbot, view, b):
    drag(qtbot, view, at(view, b.x_min + 6, b.y_min + 4), at(view, b.x_max - 6, b.y_max - 4))


def test_a_card_whose_model_reading_is_right_costs_at_most_four_keys_and_the_drag(qtbot, window):
    s, view = window.session, window.canvas
    gone = card_named(s, "To pray")
    assert s.execute(DeleteCards([gone.id]))
    before = len(db_cards(s))
    keys = Keys(qtbot)
    keys(view, Qt.Key_C)  # draw a card
    drag_box(qtbot, view, gone.bbox)
    editor = view.inline_editor()
    assert editor is not None and editor.choices.isVisible()
    assert editor.choices.chosen() == "To pray"  # the model card whose box lies on it comes first
    keys(editor, Qt.Key_Return)
    assert keys.count <= 4
    assert keys.count == 2  # measured: C, Enter (and the drag)
    now = db_cards(s)
    assert len(now) == before + 1
    added = next(c for c in now.values() if c.text == "To pray")
    assert added.text == "To pray" and added.bbox is not None and added.pile == "right"


def test_the_choices_come_in_order_and_up_down_and_typing_choose(qtbot, window):
    s, view = window.session, window.canvas
    pray = card_named(s, "To pray")
    clean = card_named(s, "To be kept clean")
    assert s.execute(DeleteCards([pray.id]))
    assert s.execute(EditCards({clean.id: {"bbox": None}}, text="take its box"))  # an unplaced card
    choices = view.text_choices((pray.bbox.x_min, pray.bbox.y_min, pray.bbox.x_max, pray.bbox.y_max))
    texts = [value for _shown, value in choices]
    assert texts[:2] == ["To pray", "To be kept clean"]
    assert ON_THE_BOX in choices[0][0] and UNPLACED in choices[1][0]
    assert all(READ in shown for shown, _v in choices[2:])
    # readings of the other runs come too (an OCR error of a piles run), placed cards' texts do not
    assert "To be free from pan" in texts and "To die at home" not in texts
    keys = Keys(qtbot)
    keys(view, Qt.Key_C)
    drag_box(qtbot, view, pray.bbox)
    editor = view.inline_editor()
    keys(editor, Qt.Key_Down)
    assert editor.choices.chosen() == "To be kept clean"
    keys(editor, Qt.Key_Up)
    keys(editor, Qt.Key_Up)  # up from the first: none chosen, Enter would take the typed text
    assert editor.choices.chosen() is None
    keys(editor, Qt.Key_Down)
    assert editor.choices.chosen() == "To pray"
    keys.type(editor, "pan")  # typing filters
    assert editor.choices.chosen() == "To be free from pan"
    assert editor.choices.count() == 1
    keys(editor, Qt.Key_Escape)
    assert view.inline_editor() is None and len(db_cards(s)) == 9
    # the unplaced card chosen by typing is placed, not added again
    keys(view, Qt.Key_C)
    drag_box(qtbot, view, clean.bbox)
    editor = view.inline_editor()
    keys.type(editor, "kept")
    keys(editor, Qt.Key_Return)
    assert db_cards(s)[clean.id].bbox is not None and len(db_cards(s)) == 9


def test_shift_enter_keeps_the_text_as_typed(qtbot, window):
    s, view = window.session, window.canvas
    pray = card_named(s, "To pray")
    assert s.execute(DeleteCards([pray.id]))
    qtbot.keyClick(view, Qt.Key_C)
    drag_box(qtbot, view, pray.bbox)
    editor = view.inline_editor()
    qtbot.keyClicks(editor, "To pra")
    assert editor.choices.chosen() == "To pray"
    qtbot.keyClick(editor, Qt.Key_Return, Qt.ShiftModifier)
    assert any(c.text == "To pra" for c in db_cards(s).values())


def test_editing_a_text_keeps_it_unless_a_choice_is_taken(qtbot, window):
    s, view = window.session, window.canvas
    home = card_named(s, "To die at home")
    b = home.bbox
    p = at(view, (b.x_min + b.x_max) / 2, (b.y_min + b.y_max) / 2)
    qtbot.mouseDClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, QPoint(p))
    editor = view.inline_editor()
    assert editor is not None and editor.text() == "To die at home"
    assert editor.choices.chosen() is None  # nothing chosen: Enter keeps the text
    qtbot.keyClick(editor, Qt.Key_Return)
    assert db_cards(s)[home.id].text == "To die at home"


def test_enter_on_a_selected_card_offers_the_reading_on_its_box(qtbot, window):
    s, view = window.session, window.canvas
    home = card_named(s, "To die at home")
    assert s.execute(EditCards({home.id: {"text": "To die at hame"}}, text="a typo"))
    s.select_cards([home.id])
    view.setFocus()
    keys = Keys(qtbot)
    keys(view, Qt.Key_Return)  # the selected card's text, the texts offered listed
    editor = view.inline_editor()
    assert editor is not None and editor.text() == "To die at hame" and editor.choices.chosen() is None
    keys(editor, Qt.Key_Down)
    assert editor.choices.chosen() == "To die at home"  # the model card lying on its box
    keys(editor, Qt.Key_Return)
    assert db_cards(s)[home.id].text == "To die at home" and keys.count == 3
    s.select_cards([])
    qtbot.keyClick(view, Qt.Key_Return)  # nothing selected: nothing opens
    assert view.inline_editor() is None
