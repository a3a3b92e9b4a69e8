"""card-scoring-rules.md §4 as clarified: a recognised reading (§2, run-together
tokens included) counts wherever it stands in the model card; only the fallback
for unrecognisable tokens looks at word order. Hand-made answers, never the dev data."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.core.cards.scoring import score_run
from reviewer.core.models import AnswerSchema, Card, Code, GroundTruth, Pile, Prompt

PILES = Prompt(name="piles", schema=AnswerSchema.PILES)


def truth(*texts: str) -> GroundTruth:
    return GroundTruth(item="t", piles=[Pile(label="p")], cards=[Card(text=t, pile="p") for t in texts])


def answer(*cards: str) -> str:
    return json.dumps({"piles": [{"label": "p", "cards": list(cards)}]})


def text_findings(output: str, gt: GroundTruth) -> list[tuple[str, str]]:
    return [
        (f.code.value, f.detail) for f in score_run(output, PILES, gt).findings if f.code in (Code.OCR, Code.PARTIAL)
    ]


def test_lines_in_reverse_order_are_ocr_not_partial() -> None:
    # a reader of a rotated photo gives the card's two lines in reverse order
    gt = truth("To be kept clean", "To keep my sense of humour")
    assert text_findings(answer("kept clean To be x"), gt)[0][0] == "OCR"
    code, detail = text_findings(answer("Cle4n Te be Kept"), gt)[0]
    assert code == "OCR"
    assert "mixed in" not in detail  # 'Te' stands for To in its place: not another card's word
    # run-together readings count wherever they stand
    code, detail = text_findings(answer("senseof hvmour tokeepmy"), gt)[0]
    assert code == "OCR", detail
    assert "tokeepmy = to keep my" in detail


def test_a_word_read_nowhere_is_still_missing() -> None:
    gt = truth("To be kept clean")
    code, detail = text_findings(answer("clean kept"), gt)[0]
    assert code == "PARTIAL"
    assert detail.endswith("missing: to, be")
    # a truncation keeps only part of the word: missing, wherever it stands
    code, detail = text_findings(answer("clean To be ke"), gt)[0]
    assert code == "PARTIAL" and detail.endswith("missing: kept"), detail


def _read_and_missing(detail: str) -> tuple[set[str], set[str]]:
    """The card words a PARTIAL detail lists as read and as missing."""
    m = re.match(r"§4 PARTIAL: reads \d+ of \d+ words \((.*)\)(?:; §6: [^;]*)?; missing: (.*)$", detail)
    assert m, detail
    read: set[str] = set()
    if m.group(1) != "none":
        for part in m.group(1).split(", "):
            if part.endswith(" short"):
                continue  # 'perfur cuts performance short': a truncation, not a reading (§4)
            read.update(part.split("=", 1)[-1].split())
    return read, set(m.group(2).split(", "))


WORDS = [
    "keep",
    "my",
    "sense",
    "of",
    "humour",
    "to",
    "be",
    "kept",
    "clean",
    "stay",
    "home",
    "safe",
    "support",
    "network",
    "performance",
    "die",
    "at",
]


def _mutate(word: str, how: int) -> str:
    if how == 0 or len(word) < 3:
        return word
    if how == 1:
        return word[:-2] + "x" + word[-1]  # a misread letter
    if how == 2:
        return word[: max(1, len(word) // 2)]  # a truncation
    return word.upper()


@st.composite
def cases(draw):
    cards = draw(
        st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6, unique=True), min_size=1, max_size=3)
    )
    model = []
    for _ in range(draw(st.integers(1, 3))):
        picks = draw(st.lists(st.tuples(st.sampled_from(WORDS), st.integers(0, 3)), min_size=1, max_size=7))
        tokens = [_mutate(w, how) for w, how in picks]
        glue = draw(st.lists(st.booleans(), min_size=len(tokens), max_size=len(tokens)))
        text = tokens[0]
        for t, g in zip(tokens[1:], glue):  # some tokens run together
            text += ("" if g else " ") + t
        model.append(text)
    return [" ".join(c) for c in cards], model


@settings(max_examples=300, deadline=None)
@given(cases())
def test_no_detail_lists_a_word_as_both_read_and_missing(case) -> None:
    cards, model = case
    for code, detail in text_findings(answer(*model), truth(*cards)):
        if code == "PARTIAL":
            read, missing = _read_and_missing(detail)
            assert not read & missing, detail
