"""Every badge the window draws says what it means: a tooltip on the badge
and an entry in the '?' sheet; a boolean dimension's scale reads yes/no."""

from __future__ import annotations

from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.qt.judging.common import DIFFER_MARK
from reviewer.qt.judging.compare import VerdictCard, scale_text
from reviewer.qt.panels.shortcuts import BADGES, SHORTCUTS, shortcuts_for


def test_every_badge_is_on_the_key_sheet_of_every_perspective():
    for perspective in ("cards", "spans", "case", "judged output", "pairwise"):
        sheet = dict(shortcuts_for(perspective, SHORTCUTS, []))
        for mark in BADGES:
            assert f"badge {mark}" in sheet, (perspective, mark)
    assert DIFFER_MARK in BADGES


def test_the_differs_badge_explains_itself(qtbot):
    v = Verdict(
        subject="run:1", run_id=1, judge="judge-a", method=Method.RUBRIC, scale=Scale.ORDINAL5, scores={"tone": 1}
    )
    card = VerdictCard(v, "judge-a", True, ["tone"])
    qtbot.addWidget(card)
    card.mark("tone", True)
    label = card.value_labels["tone"]
    assert label.text().startswith(DIFFER_MARK)
    assert "differs from the other judges" in label.toolTip() and "not a broken rubric rule" in label.toolTip()
    card.mark("tone", False)
    assert label.toolTip() == ""
    card.set_highlighted(True)
    assert card.title.toolTip().startswith("▶")


def test_a_boolean_dimension_reads_yes_no():
    assert scale_text(None, [True, False]) == "yes/no"
    assert scale_text(None, ["true"]) == "yes/no"
    assert scale_text(Scale.ORDINAL5, [1, 2]) == "1-5"
    assert scale_text(None, []) == "?"
