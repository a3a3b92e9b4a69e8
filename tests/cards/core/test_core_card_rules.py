"""card-scoring-rules.md applied by reviewer.core.cards (pairing, word_presence) and scoring:
one test per rule, on hand-made answers (never on the dev data)."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.core.cards.box_fit import raw_to_upright
from reviewer.core.cards.pairing import pair_cards
from reviewer.core.cards.readings import card_words, squashed
from reviewer.core.cards.scoring import score_run
from reviewer.core.models import AnswerSchema, BBox, BoxConvention, Card, Code, GroundTruth, Pile, Prompt, ScoringConfig

CONFIG = ScoringConfig()
PILES = Prompt(name="piles", schema=AnswerSchema.PILES)
CARDS = Prompt(name="cards", schema=AnswerSchema.CARDS, box_convention=BoxConvention.UNIT)


def truth(*texts: str, pile: str = "top-row") -> GroundTruth:
    return GroundTruth(item="t", piles=[Pile(label=pile)], cards=[Card(text=t, pile=pile) for t in texts])


def piles(*cards: str, label: str = "top-row") -> str:
    return "```json\n" + json.dumps({"piles": [{"label": label, "cards": list(cards)}]}) + "\n```"


def found(output: str, gt: GroundTruth, prompt: Prompt = PILES, **kw) -> Counter:
    return Counter((f.code.value, f.gt_card, f.model_card) for f in score_run(output, prompt, gt, **kw).findings)


# --- §1 equality ------------------------------------------------------------------


def test_equality_ignores_spacing_and_punctuation() -> None:
    gt = truth("To die at home", "To have a doctor who knows me as a whole person")
    assert found(piles("To die athome", "To have a doctor, who knows me asa whole-person!"), gt) == Counter()
    assert squashed("  TO DIE   at-home ") == squashed("todieathome")


# --- §2 relatedness ---------------------------------------------------------------


def test_misreadings_and_truncations_are_recognised() -> None:
    gt = truth("Stay Home", "SUPPORT NETWORK", "INPUT TO PERFORMANCE")
    # L-lome = Home (misreading), SWPPLET = SUPPORT, PERFuR = PERFORMANCE (truncation)
    out = found(piles("L-lome", "SWPPLET", "PERFuR"), gt)
    assert out == Counter(
        {
            ("PARTIAL", "Stay Home", "L-lome"): 1,
            ("PARTIAL", "SUPPORT NETWORK", "SWPPLET"): 1,
            ("PARTIAL", "INPUT TO PERFORMANCE", "PERFuR"): 1,
        }
    )


def test_stop_words_and_short_misreadings_are_no_evidence() -> None:
    gt = truth("Be Safe", "To be kept clean")
    # 'To be' holds only stop words; 'Re' misreads the 2-letter 'Be': both HALLUC
    out = score_run(piles("To be", "Re"), PILES, gt)
    assert Counter(f.code for f in out.findings) == Counter({Code.HALLUC: 2, Code.MISS: 2})
    assert all("reads no word of any card" in f.detail for f in out.findings if f.code == Code.HALLUC)


def test_run_together_words_are_one_token() -> None:
    gt = truth("To be free from pain")
    # 'Tobe' = To be: the card is complete, only spacing differs -> correct
    assert found(piles("Tobe free frompain"), gt) == Counter()
    # with a misread word, every word is still there -> OCR, not PARTIAL
    assert found(piles("Tobe free from paln"), gt) == Counter(
        {("OCR", "To be free from pain", "Tobe free from paln"): 1}
    )


def test_each_model_word_stands_for_its_best_card_word() -> None:
    # 'SLIAREPONT' reads SHAREPOINT far better than REPORTS: it is no evidence for REPORTS
    gt = truth("SHAREPOINT comms", "WEEKLY REPORTS")
    out = score_run(piles("SLIAREPONT"), PILES, gt)
    assert [(f.code, f.gt_card) for f in out.findings if f.code != Code.MISS] == [(Code.PARTIAL, "SHAREPOINT comms")]


# --- §3 matching --------------------------------------------------------------------


def test_split_card_matches_the_larger_fragment() -> None:
    gt = truth("To die at home", "Wild Card")
    out = score_run(piles("To die", "at home", "Wild Card"), PILES, gt)
    codes = {(f.code, f.model_card) for f in out.findings}
    # same word count: 'at home' wins on characters (§3 tie 4)
    assert codes == {(Code.PARTIAL, "at home"), (Code.HALLUC, "To die")}
    halluc = next(f for f in out.findings if f.code == Code.HALLUC)
    assert "matched to #2 'at home'" in halluc.detail and "§3: more characters" in halluc.detail


def test_more_recognised_words_win_a_merged_block() -> None:
    gt = truth("To have human touch", "To be kept clean", "Wild Card")
    # one block interleaves two cards: it goes to the one it holds more of
    out = found(piles("To have To be human touch kept", "Wild Card"), gt)
    assert out == Counter(
        {("OCR", "To have human touch", "To have To be human touch kept"): 1, ("MISS", "To be kept clean", None): 1}
    )


def test_matching_pairs_as_many_cards_as_possible() -> None:
    # 'Online Phone' reads both cards; 'Phone' reads only one. Maximum
    # matching pairs both rather than leaving 'Phone' HALLUC.
    gt = truth("Online Chat", "Phone a friend")
    out = found(piles("Online Phone", "Phone"), gt)
    assert out == Counter({("PARTIAL", "Online Chat", "Online Phone"): 1, ("PARTIAL", "Phone a friend", "Phone"): 1})


def test_exact_reading_wins_a_tie_over_a_misreading() -> None:
    # both one-word readings of a 2-word card: 'Safe' exact beats 'L-lome'
    p = pair_cards(["L-lome Safe"], ["Stay Home", "Be Safe"], CONFIG)
    assert p.pairs == [(0, 1)]


# --- §4 codes -----------------------------------------------------------------------


def test_card_for_wild_card_is_partial() -> None:
    out = score_run(piles("CARD"), PILES, truth("Wild Card"))
    assert [(f.code, f.gt_card) for f in out.findings] == [(Code.PARTIAL, "Wild Card")]
    assert "missing: wild" in out.findings[0].detail


def test_ocr_when_every_word_is_there_misread() -> None:
    gt = truth("To go out", "To have human touch")
    # Te for To, g0 for go: within one letter in their place -> OCR
    assert found(piles("Te g0 out", "To have hum_ touch"), gt) == Counter(
        {("OCR", "To go out", "Te g0 out"): 1, ("OCR", "To have human touch", "To have hum_ touch"): 1}
    )


def test_truncated_word_is_missing_so_partial() -> None:
    gt = truth("NATURE OF THE PROGRAMME")
    # 'o' keeps only the beginning of 'OF': the word is missing
    assert found(piles("Nature o THE RAMMe"), gt) == Counter(
        {("PARTIAL", "NATURE OF THE PROGRAMME", "Nature o THE RAMMe"): 1}
    )


def test_word_of_another_card_does_not_fill_a_place() -> None:
    gt = truth("Stay Safe", "KEEP YOUR DISTANCE")
    # 'Keer' has Safe's length but reads KEEP: Safe is missing
    out = found(piles("Stay Keer", "YOUR DISTANCE"), gt)
    assert out[("PARTIAL", "Stay Safe", "Stay Keer")] == 1
    # a token of the right length that reads no card word fills the place
    out = found(piles("Stay Sxfq", "YOUR DISTANCE"), gt)
    assert out[("OCR", "Stay Safe", "Stay Sxfq")] == 1


def test_merged_block_of_three_notes_is_one_partial_not_halluc_and_misses() -> None:
    gt = truth("LIKE TEAM ETHIC", "NATURE OF THE PROGRAMME", "EVERY DAY is different")
    block = "yenm Nature og ETHIC THE RAM Every IS differant"
    out = found(piles(block), gt)
    assert sum(v for k, v in out.items() if k[0] == "HALLUC") == 0
    assert out[("PARTIAL", "EVERY DAY is different", block)] == 1
    assert sum(v for k, v in out.items() if k[0] == "MISS") == 2


def test_spatial_only_through_the_pile_mapping() -> None:
    gt = GroundTruth(
        item="t",
        piles=[Pile(label="top-row"), Pile(label="bottom-row")],
        cards=[
            Card(text="Wild Card", pile="top-row"),
            Card(text="To be kept clean", pile="top-row"),
            Card(text="To have human touch", pile="bottom-row"),
        ],
    )
    rows = (
        "```json\n"
        + json.dumps(
            {
                "piles": [
                    {"label": "row-1", "cards": ["Wild Card", "To be kept clean"]},
                    {"label": "row-3", "cards": ["To have human touch"]},
                ]
            }
        )
        + "\n```"
    )
    assert found(rows, gt) == Counter()  # correctly grouped rows with other names
    mixed = (
        "```json\n"
        + json.dumps(
            {
                "piles": [
                    {"label": "row-1", "cards": ["Wild Card", "To have human touch"]},
                    {"label": "row-2", "cards": ["To be kept clean"]},
                ]
            }
        )
        + "\n```"
    )
    assert sum(1 for f in score_run(mixed, PILES, gt).findings if f.code == Code.SPATIAL) == 1


def test_format_is_at_most_one_per_run() -> None:
    gt = truth("Wild Card")
    cut = '{"cards": [{"text": "Wild Card", "bbox": {"x_min": 100, "y_min": 100, "x_max": 500, "y_max": 400}}'
    s = score_run(cut, CARDS, gt, width=1000, height=800)
    assert [f.code for f in s.findings].count(Code.FORMAT) == 1


# --- §6 position ----------------------------------------------------------------------


def _cards(*cards) -> str:
    return json.dumps(
        {"cards": [{"text": t, "bbox": dict(zip(("x_min", "y_min", "x_max", "y_max"), b))} for t, b in cards]}
    )


def _boxed_truth() -> GroundTruth:
    return GroundTruth(
        item="t",
        piles=[Pile(label="p")],
        cards=[
            Card(text="TASKING OF TEAM", pile="p", bbox=BBox(x_min=100, y_min=400, x_max=400, y_max=700)),
            Card(text="Wild Card", pile="p", bbox=BBox(x_min=500, y_min=400, x_max=800, y_max=700)),
        ],
    )


def test_a_heading_whose_box_lies_on_no_card_is_halluc() -> None:
    out = _cards(("Tools and tasks:", (0.05, 0.02, 0.5, 0.1)), ("Wild Card", (0.5, 0.4, 0.8, 0.7)))
    s = score_run(out, CARDS, _boxed_truth(), width=1000, height=1000)
    halluc = [f for f in s.findings if f.code == Code.HALLUC]
    assert [f.model_card for f in halluc] == ["Tools and tasks:"]
    assert "box lies on no card" in halluc[0].detail
    assert s.facts.box_frame == "upright"
    # the same words in the card's place are a PARTIAL reading of it
    out = _cards(("tasks", (0.1, 0.4, 0.4, 0.7)), ("Wild Card", (0.5, 0.4, 0.8, 0.7)))
    s = score_run(out, CARDS, _boxed_truth(), width=1000, height=1000)
    assert [(f.code, f.gt_card) for f in s.findings] == [(Code.PARTIAL, "TASKING OF TEAM")]


def test_boxes_read_off_the_stored_pixels_are_recognised() -> None:
    # the reader ignored EXIF orientation 8: its boxes are in the stored frame
    upright = [(0.1, 0.4, 0.4, 0.7), (0.5, 0.4, 0.8, 0.7)]
    inverse = {8: lambda b: (1 - b[3], b[0], 1 - b[1], b[2])}[8]
    stored = [inverse(b) for b in upright]
    assert [raw_to_upright(b, 8) for b in stored] == [pytest_approx(b) for b in upright]
    out = _cards(("TASKING OF TEAM", stored[0]), ("Wild Crd", stored[1]), ("heading", (0.0, 0.0, 0.05, 0.05)))
    s = score_run(out, CARDS, _boxed_truth(), width=1000, height=1000, orientation=8)
    assert s.facts.box_frame == "stored"
    assert Counter(f.code for f in s.findings) == Counter({Code.OCR: 1, Code.HALLUC: 1})


def pytest_approx(b):
    import pytest

    return pytest.approx(b)


# --- properties -------------------------------------------------------------------------

WORDS = ["to", "be", "free", "from", "pain", "wild", "card", "home", "stay", "safe", "keep", "your", "tasks", "x"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=6),
    st.lists(st.text(max_size=30), max_size=8),
)
def test_every_card_gets_one_outcome_and_every_model_card_at_most_one_code(gt_texts, model_texts) -> None:
    gt = truth(*gt_texts)
    s = score_run(piles(*model_texts), PILES, gt)
    assert len(s.facts.outcomes) == len(gt_texts)
    per_card = Counter(f.gt_card_id for f in s.findings if f.gt_card_id is not None)
    assert all(v == 1 for v in per_card.values())
    per_model = Counter(f.model_index for f in s.findings if f.model_index is not None)
    assert all(v == 1 for v in per_model.values())
    matched = {o.model_index for o in s.facts.outcomes if o.model_index is not None}
    halluc = {f.model_index for f in s.findings if f.code == Code.HALLUC}
    assert matched.isdisjoint(halluc) and matched | halluc == set(range(len(model_texts)))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=6), st.lists(st.text(max_size=40), max_size=6))
def test_pairing_is_one_to_one_and_never_raises(model_texts, gt_texts) -> None:
    p = pair_cards(model_texts, gt_texts, CONFIG)
    assert len({m for m, _ in p.pairs}) == len(p.pairs) == len({g for _, g in p.pairs})
    for m, g in p.pairs:
        assert (m, g) in p.evidence
    assert all(isinstance(w, tuple) for w in map(card_words, model_texts))
