"""Reclassification keeps a finding's shape (decision
reclassification-keeps-the-finding-shape), and the reviewed metrics follow
card-scoring-rules.md §5 for every reclassification the keys allow.

The property test scores generated answers (every card read exactly, misread,
truncated, dropped or put in the other pile, plus junk cards), then walks
every allowed code of every finding, alone and all together, and compares
the reviewed metrics with §5 stated over the run's pairing: a card is
correct when it is *paired* with a model card (or its MISS was rejected)
and no finding on it still counts but SPATIAL; hallucinations are the findings that count as HALLUC;
a card is in the right pile unless a MISS or SPATIAL counts on it, or its
model card's pile maps elsewhere and no rejected MISS or SPATIAL says
otherwise.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.core.cards.metrics import run_metrics
from reviewer.core.cards.reclassify import allowed_codes, refusal
from reviewer.core.cards.scoring import score_run
from reviewer.core.models import (
    CODE_ORDER,
    AnswerSchema,
    Card,
    Code,
    Finding,
    GroundTruth,
    Pile,
    Prompt,
    Status,
)

LEFT = ["To be free from pain", "To have my financial affairs in order", "To be kept clean"]
RIGHT = ["To be mentally aware", "Wild Card", "To have human touch"]
GT = GroundTruth(
    item="table",
    piles=[Pile(label="left"), Pile(label="right")],
    cards=[Card(id=i, text=t, pile="left") for i, t in enumerate(LEFT)]
    + [Card(id=3 + i, text=t, pile="right") for i, t in enumerate(RIGHT)],
)
PILES = Prompt(name="piles", schema=AnswerSchema.PILES)
CARDS = Prompt(name="cards", schema=AnswerSchema.CARDS)
JUNK = ["Swim with sharks", "SLIDE 3 AGENDA", "xq zz"]


def _misread(text: str) -> str:
    words = text.split()
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    w = words[longest]
    words[longest] = w[:-2] + w[-1] + w[-2] if len(w) > 3 else w + "x"
    return " ".join(words)


def _answer(actions, junk, schema) -> str:
    left, right = [], []
    for card, action in zip(GT.cards, actions):
        if action == "drop":
            continue
        text = {"exact": card.text, "misread": _misread(card.text), "truncate": " ".join(card.text.split()[:-1])}.get(
            action, card.text
        )
        home = left if card.pile == "left" else right
        other = right if card.pile == "left" else left
        (other if action == "move" else home).append(text)
    right.extend(junk)
    if schema == AnswerSchema.PILES:
        return json.dumps({"piles": [{"label": "left", "cards": left}, {"label": "right", "cards": right}]})
    return json.dumps({"cards": [{"text": t} for t in left + right]})


def _effective(findings: list[Finding], card_id: int) -> set:
    return {f.effective_code for f in findings if f.gt_card_id == card_id and f.effective_code is not None}


def _section5(facts, findings: list[Finding]) -> tuple[int, int, int]:
    """(cards correct, hallucinations, cards in the right pile) as §5 states them."""
    correct = in_pile = 0
    for out in facts.outcomes:
        codes = _effective(findings, out.gt_card_id)
        rejected_miss = any(
            f.gt_card_id == out.gt_card_id and f.status == Status.REJECTED and f.code == Code.MISS for f in findings
        )  # the reviewer says the answer does read the card
        if (out.model_index is not None or rejected_miss) and codes <= {Code.SPATIAL}:
            correct += 1
        rejected_pile = any(
            f.gt_card_id == out.gt_card_id and f.status == Status.REJECTED and f.code in (Code.MISS, Code.SPATIAL)
            for f in findings
        )
        if codes & {Code.MISS, Code.SPATIAL}:
            pass
        elif rejected_pile or out.pile_ok:
            in_pile += 1
    halluc = sum(1 for f in findings if f.effective_code == Code.HALLUC)
    return correct, halluc, in_pile


def _check(score) -> None:
    m = run_metrics(score.facts, score.findings, reviewed=True)
    correct, halluc, in_pile = _section5(score.facts, score.findings)
    assert m.cards_correct == correct
    assert m.hallucinations == halluc
    assert m.text_accuracy == correct / len(score.facts.outcomes)
    if score.facts.spatial_scored:
        assert m.cards_in_right_pile == in_pile


ACTIONS = st.lists(st.sampled_from(["exact", "misread", "truncate", "drop", "move"]), min_size=6, max_size=6)


@settings(max_examples=60, deadline=None)
@given(ACTIONS, st.lists(st.sampled_from(JUNK), max_size=2, unique=True), st.sampled_from([PILES, CARDS]), st.data())
def test_every_allowed_reclassification_follows_section_5(actions, junk, prompt, data) -> None:
    score = score_run(_answer(actions, junk, prompt.schema), prompt, GT)
    spatial = score.facts.spatial_scored
    assert score.facts.outcomes
    _check(score)
    paired_cards = sum(1 for o in score.facts.outcomes if o.model_index is not None)
    for f in score.findings:
        allowed = allowed_codes(f, spatial)
        assert f.code in allowed
        if f.code in (Code.MISS, Code.HALLUC, Code.FORMAT):
            assert allowed == (f.code,)  # confirm or reject only
        if Code.SPATIAL in allowed:
            assert spatial
        for code in CODE_ORDER:
            assert (refusal(f, code, spatial) is None) == (code in allowed)
        for code in allowed:  # each allowed code alone
            f.final_code, f.status = code, Status.CONFIRMED
            _check(score)
            assert run_metrics(score.facts, score.findings, reviewed=True).cards_correct <= paired_cards
            assert refusal(f, code, spatial) is None
        f.final_code, f.status = None, Status.PROPOSED
    for f in score.findings:  # all together, some rejected
        choice = data.draw(st.sampled_from([*allowed_codes(f, spatial), None]))
        f.final_code, f.status = (choice, Status.CONFIRMED) if choice else (None, Status.REJECTED)
    _check(score)


def test_a_miss_cannot_become_a_hallucination_and_count_its_card_as_read() -> None:
    """The missed Wild Card made HALLUC once raised text accuracy from 30 % to
    50 %; now the key is refused, and a stored one still leaves the card unread."""
    score = score_run(_answer(["exact"] * 4 + ["drop", "exact"], [], AnswerSchema.PILES), PILES, GT)
    miss = next(f for f in score.findings if f.code == Code.MISS)
    assert allowed_codes(miss, True) == (Code.MISS,)
    assert "no model card" in (refusal(miss, Code.HALLUC, True) or "")
    before = run_metrics(score.facts, score.findings, reviewed=True)
    miss.final_code, miss.status = Code.HALLUC, Status.CONFIRMED
    after = run_metrics(score.facts, score.findings, reviewed=True)
    assert after.cards_correct == before.cards_correct == 5
    assert after.text_accuracy == before.text_accuracy


def test_spatial_is_offered_only_where_piles_are_scored() -> None:
    score = score_run(_answer(["truncate"] + ["exact"] * 5, [], AnswerSchema.CARDS), CARDS, GT)
    ocr = next(f for f in score.findings if f.code in (Code.OCR, Code.PARTIAL))
    assert allowed_codes(ocr, score.facts.spatial_scored) == (Code.OCR, Code.PARTIAL)
    assert "not scored" in (refusal(ocr, Code.SPATIAL, False) or "")


def test_a_refused_key_names_the_keys_that_fit_with_their_numbers() -> None:
    """The status line says which number keys reclassify a paired card
    (keys follow CODE_ORDER: 1 OCR, 3 SPATIAL, 6 PARTIAL), not only the
    codes' names."""
    score = score_run(_answer(["truncate"] + ["exact"] * 5, [], AnswerSchema.CARDS), CARDS, GT)
    ocr = next(f for f in score.findings if f.code in (Code.OCR, Code.PARTIAL))
    why = refusal(ocr, Code.MISS, False) or ""
    assert "keys 1 OCR, 6 PARTIAL; N rejects" in why, why
    assert "keys 1 OCR, 3 SPATIAL, 6 PARTIAL; N rejects" in (refusal(ocr, Code.HALLUC, True) or "")
