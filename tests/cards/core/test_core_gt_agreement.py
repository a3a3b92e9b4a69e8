"""Core rules of annotator agreement (reviewer.core.cards.gt_agreement,
reviewer.core.annotators, reviewer.core.cards.gt_geometry), against values
computed by hand."""

from __future__ import annotations

import pytest

from reviewer.core.annotators import agreement_rows, comparisons, ground_truth_disputes
from reviewer.core.cards.gt_agreement import compare, consensus_edit, match_cards
from reviewer.core.cards.gt_geometry import drawn_on_stored_frame, stored_to_upright
from reviewer.core.judging.verdicts import DisputeKind
from reviewer.core.models import BBox, Card, GroundTruth, Pile


def card(text, pile, x, y, w=100, h=50, cid=None):
    return Card(id=cid, text=text, pile=pile, bbox=BBox(x_min=x, y_min=y, x_max=x + w, y_max=y + h))


def ten(piles):
    """10 cards in a column, 100 x 50 each, 100 px apart, in the given piles."""
    return GroundTruth(
        item="t",
        piles=[Pile(label="L"), Pile(label="R")],
        cards=[card(f"card {k}", p, 0, 100 * k, cid=k + 1) for k, p in enumerate(piles)],
    )


def test_pile_kappa_with_one_card_in_another_pile():
    a = ten("LLLLLRRRRR")
    b = ten("LLLLLRRRLR")
    rows = {
        r.statistic: r.value
        for r in agreement_rows(comparisons({"t": {"a": a, "b": b}}))
        if r.dimension == "ground truth: t"
    }
    # p_o = 9/10; marginals a L5 R5, b L6 R4: p_e = .5 x .6 + .5 x .4 = .5; kappa = (.9 - .5) / .5
    assert rows["cohen_kappa_pile"] == pytest.approx(0.8)
    # nominal alpha, 10 units x 2 raters: coincidences L-L 10, R-R 8, L-R 1, R-L 1; n_L = 11, n_R = 9, n = 20
    # alpha = 1 - (n - 1) o_LR x 2 / (n_L n_R x 2) = 1 - 19 x 2 / 198
    assert rows["krippendorff_alpha_pile"] == pytest.approx(1 - 38 / 198)
    assert rows["iou_f1"] == pytest.approx(1.0)
    found = compare(a, b, "a", "b")
    assert [(d.aspect, d.dimension) for d in found.differences] == [("pile", "pile: a #9 / b #9")]


def test_missing_cards_and_text_only_ground_truth():
    a = GroundTruth(item="t", cards=[Card(text="To pray"), Card(text="Wild Card")])
    b = GroundTruth(item="t", cards=[Card(text="to PRAY!"), Card(text="To be at peace")])
    found = compare(a, b, "a", "b")
    assert (found.matched, found.f1) == (1, pytest.approx(0.5))  # §1: 'To pray' = 'to PRAY!'
    assert found.text_agreement == 1.0
    disputes = ground_truth_disputes([found])
    assert [(d.kind, d.dimension) for d in disputes] == [
        (DisputeKind.GT_MISSING, "missing: a #2 / b #-"),
        (DisputeKind.GT_MISSING, "missing: a #- / b #2"),
    ]


def test_iou_matching_prefers_the_best_assignment():
    # 100 x 50 boxes at x 0, 10 (a) and 5, 12 (b): IoU a1-b1 95/105, a2-b1 95/105, a1-b2 88/112,
    # a2-b2 98/102; the best total pairs a1-b1 and a2-b2 (1.866 against 1.691)
    a = GroundTruth(item="t", cards=[card("x", None, 0, 0), card("y", None, 10, 0)])
    b = GroundTruth(item="t", cards=[card("x", None, 5, 0), card("y", None, 12, 0)])
    pairs = [(p.a, p.b) for p in match_cards(a, b)]
    assert pairs == [(0, 0), (1, 1)]


def test_consensus_edits():
    consensus = GroundTruth(item="t", piles=[Pile(label="L")], cards=[card("To pray", "L", 0, 0, cid=7)])
    a = GroundTruth(item="t", piles=[Pile(label="L")], cards=[card("To pray", "L", 0, 0)])
    b = GroundTruth(
        item="t",
        piles=[Pile(label="L"), Pile(label="N")],
        cards=[card("To prey", "L", 0, 0), card("New", "N", 500, 500)],
    )
    diffs = {d.aspect: d for d in compare(a, b, "a", "b").differences}
    text = consensus_edit(consensus, diffs["text"], "b")
    assert (text.op, text.card_id, text.changes) == ("update", 7, {"text": "To prey"})
    assert consensus_edit(consensus, diffs["text"], "a").op == "none"
    added = consensus_edit(consensus, diffs["missing"], "b", {"N": [[0, 0], [1, 0], [1, 1]]})
    assert (added.op, added.card.text, added.pile) == ("add", "New", ("N", [[0, 0], [1, 0], [1, 1]]))
    assert consensus_edit(consensus, diffs["missing"], "a").op == "none"


def test_stored_frame_points_turn_upright():
    # a 1200 x 1600 stored photo with EXIF 6 is 1600 x 1200 upright: (x, y) -> (1600 - y, x)
    assert stored_to_upright((100, 200), 6, 1200, 1600) == (1400, 100)
    # EXIF 8 turns the other way: (x, y) -> (y, 1200 - x)
    assert stored_to_upright((100, 200), 8, 1200, 1600) == (200, 1100)
    assert drawn_on_stored_frame(1200, 1600, 6, 1600, 1200)
    assert not drawn_on_stored_frame(1600, 1200, 6, 1600, 1200)
    assert not drawn_on_stored_frame(1200, 1600, 1, 1200, 1600)
