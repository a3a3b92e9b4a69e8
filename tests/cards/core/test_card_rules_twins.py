"""Regression twins of two ways the scorer once parted from the card scoring
rules (docs/scoring-rules.md), on texts and boxes invented here:

- a misread run-together token (§2) was no reading at all, so its card
  became MISS or PARTIAL instead of OCR;
- any overlap counted as a box lying on a card (§6), so a heading that
  grazes a note, or a block that grazes its neighbour, became PARTIAL for it.

Plus the §4 truncation: the word a truncation cuts short is missing.
"""

from __future__ import annotations

import json

from reviewer.core.cards.boxes import lies_on
from reviewer.core.cards.scoring import score_run
from reviewer.core.models import AnswerSchema, BBox, BoxConvention, Card, Code, GroundTruth, Pile, Prompt

PILES = Prompt(name="piles", schema=AnswerSchema.PILES)
BOXED = Prompt(name="boxes", schema=AnswerSchema.CARDS, box_convention=BoxConvention.UNIT)
SIZE = 1000


def truth(*cards: tuple[str, tuple[int, int, int, int] | None]) -> GroundTruth:
    return GroundTruth(
        item="t",
        piles=[Pile(label="p")],
        cards=[
            Card(id=i + 1, text=t, pile="p", bbox=BBox(x_min=b[0], y_min=b[1], x_max=b[2], y_max=b[3]) if b else None)
            for i, (t, b) in enumerate(cards)
        ],
    )


def piles(*texts: str) -> str:
    return json.dumps({"piles": [{"label": "p", "cards": list(texts)}]})


def boxed(*cards: tuple[str, tuple[int, int, int, int]]) -> str:
    keys = ("x_min", "y_min", "x_max", "y_max")
    return json.dumps({"cards": [{"text": t, "bbox": dict(zip(keys, (v / SIZE for v in b)))} for t, b in cards]})


def codes(score) -> dict[tuple[str, str | None], str]:
    return {(f.code.value, f.gt_card or f.model_card): f.detail for f in score.findings}


# -- §2: a misread run-together token is a reading --------------------------------
def test_a_misread_run_together_token_reads_the_joined_words() -> None:
    gt = truth(("Garden party", None), ("Fresh bread", None), ("STOCK TRACKING", None))
    score = score_run(piles("Gardnparfy", "Fresh bread", "STOCKTREKINS"), PILES, gt)
    found = codes(score)
    assert set(found) == {("OCR", "Garden party"), ("OCR", "STOCK TRACKING")}, found
    # the detail says which card words the token stood for
    assert "gardnparfy = garden party" in found["OCR", "Garden party"]
    assert "stocktrekins = stock tracking" in found["OCR", "STOCK TRACKING"]


def test_a_token_that_reads_one_word_alone_is_no_run_together_reading() -> None:
    # 'kind' shares all its letters with "bekind", but Be gives none of its own
    score = score_run(piles("Kind"), PILES, truth(("Be kind", None)))
    (f,) = score.findings
    assert f.code == Code.PARTIAL and f.detail.endswith("missing: be"), f.detail
    assert "kind = be kind" not in f.detail


# -- §4: a truncation relates the cards, but its word is missing -------------------
def test_a_truncated_word_is_missing_a_misread_beginning_is_not() -> None:
    gt = truth(("Weekly PERFORMANCE review", None))
    (f,) = score_run(piles("Weekly PERFuR review"), PILES, gt).findings
    assert f.code == Code.PARTIAL and f.detail.endswith("missing: performance"), f.detail
    assert "perfur cuts performance short" in f.detail
    (f,) = score_run(piles("Weekly PERFORM review"), PILES, gt).findings
    assert f.code == Code.OCR and "perform = performance" in f.detail, f.detail


# -- §6: a box lies on a card when they share half of the smaller box --------------
NOTES = (
    ("Weekly tasking of staff", (100, 300, 300, 500)),
    ("Budget review", (400, 300, 600, 500)),
    ("Office moves", (700, 300, 900, 500)),
)


def test_lies_on_needs_half_of_the_smaller_box() -> None:
    note = BBox(x_min=100, y_min=300, x_max=300, y_max=500)
    heading = BBox(x_min=50, y_min=260, x_max=950, y_max=320)  # grazes the note's top
    block = BBox(x_min=90, y_min=290, x_max=610, y_max=510)  # a merged block over two notes
    assert not lies_on(heading, note) and not lies_on(note, heading)
    assert lies_on(block, note) and lies_on(note, block)
    assert lies_on(heading, note, share=0.05)


def test_a_heading_that_grazes_a_note_is_no_evidence_for_it() -> None:
    gt = truth(*NOTES)
    answer = boxed(
        ("Plans and tasks:", (50, 260, 950, 320)),  # printed heading over the notes' tops
        ("Budget review", (405, 305, 595, 495)),
        ("Office moves", (705, 305, 895, 495)),
    )
    score = score_run(answer, BOXED, gt, width=SIZE, height=SIZE)
    found = codes(score)
    assert set(found) == {("HALLUC", "Plans and tasks:"), ("MISS", "Weekly tasking of staff")}, found
    assert "its box lies on no card it reads" in found["HALLUC", "Plans and tasks:"]


def test_a_block_that_grazes_its_neighbour_is_no_evidence_for_it() -> None:
    gt = truth(*NOTES)
    answer = boxed(
        ("Budgt reveiw", (110, 310, 420, 490)),  # lies on the first note, grazes the second
        ("Office moves", (705, 305, 895, 495)),
        ("Weekly tasking of staff", (100, 300, 300, 500)),
    )
    score = score_run(answer, BOXED, gt, width=SIZE, height=SIZE)
    found = codes(score)
    assert ("PARTIAL", "Budget review") not in found and ("OCR", "Budget review") not in found, found
    assert set(found) == {("HALLUC", "Budgt reveiw"), ("MISS", "Budget review")}, found


def test_a_merged_block_over_two_notes_lies_on_each() -> None:
    gt = truth(*NOTES)
    answer = boxed(
        ("Weekly tasking of staff Budget", (90, 290, 610, 510)),
        ("Office moves", (705, 305, 895, 495)),
    )
    score = score_run(answer, BOXED, gt, width=SIZE, height=SIZE)
    found = codes(score)
    assert found.keys() == {("OCR", "Weekly tasking of staff"), ("MISS", "Budget review")}, found
    detail = found["OCR", "Weekly tasking of staff"]
    assert "§6: its box lies on 'weekly tasking of staff', 'budget review'" in detail, detail
