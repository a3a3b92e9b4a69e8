"""The texts offered for a ground-truth card (reviewer.core.cards.text_choices)
and rule §6's "lies on" (reviewer.core.cards.boxes.lies_on)."""

from __future__ import annotations

from reviewer.core.cards.boxes import lies_on
from reviewer.core.cards.text_choices import ON_THE_BOX, READ, UNPLACED, Reading, matching, text_choices
from reviewer.core.models import BBox, Card, GroundTruth


def box(x0, y0, x1, y1) -> BBox:
    return BBox(x_min=x0, y_min=y0, x_max=x1, y_max=y1)


def test_lies_on_needs_half_of_the_smaller_box():
    card = box(0, 0, 100, 100)
    assert lies_on(box(0, 0, 100, 50), card)  # a top line inside the card
    assert lies_on(box(50, 0, 150, 100), card)  # exactly half
    assert not lies_on(box(51, 0, 151, 100), card)  # just under half
    assert lies_on(box(-10, -10, 300, 300), card)  # a merged block over the card: all of the smaller
    assert not lies_on(box(90, 90, 200, 200), card)  # grazes the corner
    assert lies_on(box(100, 50, 0, 0), card)  # min and max in either order
    assert not lies_on(box(10, 10, 10, 50), card)  # no area
    assert lies_on(box(50, 0, 150, 100), card, share=0.5) and not lies_on(box(50, 0, 150, 100), card, share=0.6)


def test_choices_come_on_the_box_then_unplaced_then_every_reading():
    gt = GroundTruth(
        item="t",
        cards=[
            Card(id=1, text="To die at home", bbox=box(0, 0, 100, 100)),
            Card(id=2, text="To pray", bbox=None, pile="right"),
            Card(id=3, text="Wild Card", bbox=None),
        ],
    )
    readings = [
        Reading("To be kept clean", box(210, 0, 290, 40), "bb #1"),  # lies on the new box
        Reading("to be kept  clean!", box(205, 0, 295, 45), "bb #2"),  # the same text by §1: once
        Reading("To die at home", box(0, 0, 100, 100), "bb #1"),  # a placed card's text: not offered
        Reading("To pry", None, "piles #1"),
        Reading("To pray", None, "piles #1"),  # offered once, as the unplaced card
        Reading("  ", None, "piles #1"),
    ]
    got = text_choices(box(200, 0, 300, 100), gt, readings)
    assert [(c.text, c.why) for c in got] == [
        ("To be kept clean", ON_THE_BOX),
        ("To pray", UNPLACED),
        ("Wild Card", UNPLACED),
        ("To pry", READ),
    ]
    assert got[1].source == "right" and got[0].source == "bb #1"
    # the card being edited is not offered as unplaced (a model's reading of it still is); without a
    # box nothing lies on it
    assert [(c.text, c.why) for c in text_choices(None, gt, readings, exclude=2)] == [
        ("Wild Card", UNPLACED),
        ("To be kept clean", READ),
        ("To pry", READ),
        ("To pray", READ),
    ]
    # a placed card's text lying on the box is offered (the box says so)
    assert text_choices(box(0, 0, 100, 100), gt, readings)[0].text == "To die at home"


def test_typing_filters_the_choices_in_order():
    choices = text_choices(
        None, GroundTruth(item="t"), [Reading(t, None, "") for t in ("To pray", "To be  free", "Pain")]
    )
    assert [c.text for c in matching(choices, "  p")] == ["To pray", "Pain"]
    assert [c.text for c in matching(choices, "be free")] == ["To be  free"]
    assert matching(choices, "") == choices
