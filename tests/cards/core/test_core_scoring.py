"""reviewer.core.cards.scoring: matching and T-P5 classification of one run."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.core.cards.scoring import map_piles, score_run
from reviewer.core.models import (
    AnswerSchema,
    BoxConvention,
    Card,
    Code,
    GroundTruth,
    Pile,
    Prompt,
    ScoringConfig,
)
from reviewer.core.text import normalize

PILES_PROMPT = Prompt(name="piles", schema=AnswerSchema.PILES)
CARDS_PROMPT = Prompt(name="cards", schema=AnswerSchema.CARDS)
FREE_PROMPT = Prompt(name="free", schema=AnswerSchema.FREE)
CONFIG = ScoringConfig()

LEFT = ["To be free from pain", "To have my financial affairs in order", "To be kept clean"]
RIGHT = ["To be mentally aware", "Wild Card", "To have human touch"]


def gt_of(left=LEFT, right=RIGHT, ids: bool = False) -> GroundTruth:
    texts = [(t, "left") for t in left] + [(t, "right") for t in right]
    return GroundTruth(
        item="table",
        piles=[Pile(label="left"), Pile(label="right")],
        cards=[Card(id=(100 + i) if ids else None, text=t, pile=p) for i, (t, p) in enumerate(texts)],
    )


GT = gt_of()


def piles_out(*piles) -> str:
    answer = {"piles": [{"label": label, "cards": list(cards)} for label, cards in piles]}
    return "Here you go:\n```json\n" + json.dumps(answer, indent=2) + "\n```\n"


def cards_out(cards) -> str:
    return "```json\n" + json.dumps({"cards": cards}) + "\n```"


def codes(score) -> Counter:
    return Counter(f.code for f in score.findings)


def by_gt(score) -> dict:
    return {f.gt_card_id: f for f in score.findings if f.gt_card_id is not None}


def card_id(text: str) -> int:
    return [c.text for c in GT.cards].index(text)


# --- a clean run -----------------------------------------------------------------


def test_perfect_answer_has_no_findings() -> None:
    s = score_run(piles_out(("left", LEFT), ("right", RIGHT)), PILES_PROMPT, GT)
    assert s.findings == []
    f = s.facts
    assert f.scored and f.parsed and f.json_valid and not f.repaired
    assert f.spatial_scored
    assert f.cards_reported == 6
    assert all(o.text_ok and o.pile_ok for o in f.outcomes)
    assert [o.gt_card_id for o in f.outcomes] == list(range(6))
    assert f.pile_mapping == {"left": "left", "right": "right"}
    assert f.config_version == CONFIG.version


def test_pile_labels_need_not_match_and_order_does_not_matter() -> None:
    s = score_run(piles_out(("group B", RIGHT[::-1]), ("group A", LEFT[::-1])), PILES_PROMPT, GT)
    assert s.findings == []
    assert s.facts.pile_mapping == {"group B": "right", "group A": "left"}


def test_case_and_punctuation_differences_are_correct() -> None:
    right = ["TO BE MENTALLY AWARE.", "WILD CARD", "to have human-touch"]
    s = score_run(piles_out(("left", LEFT), ("right", right)), PILES_PROMPT, GT)
    assert s.findings == []
    s = score_run(piles_out(("left", LEFT), ("right", ["Wild Card!"])), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.MISS: 2})
    assert s.facts.outcomes[card_id("Wild Card")].text_ok


# --- each code on a hand-made case -----------------------------------------------------


def test_ocr() -> None:
    left = ["To be free from pan"] + LEFT[1:]
    s = score_run(piles_out(("left", left), ("right", RIGHT)), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.OCR: 1})
    f = s.findings[0]
    assert f.gt_card == "To be free from pain" and f.model_card == "To be free from pan"
    assert f.gt_card_id == 0 and f.model_index == 0
    assert f.detail.startswith("§4 OCR") and "pan = pain" in f.detail
    assert not s.facts.outcomes[0].text_ok


def test_partial() -> None:
    left = [LEFT[0], "To have my financial", LEFT[2]]
    s = score_run(piles_out(("left", left), ("right", RIGHT)), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.PARTIAL: 1})
    f = s.findings[0]
    assert f.gt_card_id == 1 and f.model_index == 1
    assert f.detail.startswith("§4 PARTIAL") and "missing: affairs, in, order" in f.detail


def test_longer_reading_with_every_word_is_ocr() -> None:
    # card-scoring-rules.md §4: every word of the card is there, other words
    # are mixed in: OCR, not PARTIAL.
    left = [LEFT[0], LEFT[1], "To be kept clean and dry every single day"]
    s = score_run(piles_out(("left", left), ("right", RIGHT)), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.OCR: 1})
    assert "other words mixed in: and, dry, every, single, day" in s.findings[0].detail


def test_miss() -> None:
    s = score_run(piles_out(("left", LEFT), ("right", RIGHT[:2])), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.MISS: 1})
    f = s.findings[0]
    assert f.gt_card == "To have human touch" and f.gt_card_id == 5
    assert f.model_index is None and f.model_card is None
    assert s.facts.outcomes[5].model_index is None
    assert s.facts.outcomes[5].pile_ok is False


def test_halluc_unknown_card() -> None:
    right = RIGHT + ["Swim with sharks"]
    s = score_run(piles_out(("left", LEFT), ("right", right)), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.HALLUC: 1})
    f = s.findings[0]
    assert f.model_card == "Swim with sharks" and f.model_index == 6
    assert f.gt_card_id is None and f.gt_card is None
    assert f.detail.startswith("§4 HALLUC: reads no word of any card")


def test_halluc_duplicate_card() -> None:
    right = RIGHT + ["wild card"]
    s = score_run(piles_out(("left", LEFT), ("right", right)), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.HALLUC: 1})
    f = s.findings[0]
    assert f.model_index == 6
    assert "duplicates" in f.detail and "Wild Card" in f.detail
    # The first reading is the one matched; the card itself is correct.
    assert s.facts.outcomes[card_id("Wild Card")].model_index == 4
    assert s.facts.outcomes[card_id("Wild Card")].text_ok


def test_near_duplicate_resembles() -> None:
    right = RIGHT + ["Wild Cart"]
    s = score_run(piles_out(("left", LEFT), ("right", right)), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.HALLUC: 1})
    detail = s.findings[0].detail
    assert "reads wild, cart = card of 'Wild Card', which #5 reads exactly (§1)" in detail
    assert s.facts.outcomes[card_id("Wild Card")].text_ok  # the exact reading wins


def test_exact_reading_wins_over_an_earlier_misreading() -> None:
    right = ["Wild Cart", "Wild Card", RIGHT[0], RIGHT[2]]
    s = score_run(piles_out(("left", LEFT), ("right", right)), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.HALLUC: 1})
    assert s.findings[0].model_card == "Wild Cart"


def test_spatial() -> None:
    left = LEFT + ["To be mentally aware"]
    right = RIGHT[1:]
    s = score_run(piles_out(("left", left), ("right", right)), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.SPATIAL: 1})
    f = s.findings[0]
    assert f.gt_card == "To be mentally aware" and f.gt_card_id == 3 and f.model_index == 3
    assert "'left'" in f.detail  # names the model pile
    assert "belongs to 'right'" in f.detail
    o = s.facts.outcomes[3]
    assert o.text_ok and o.pile_ok is False and o.model_pile == "left"


def test_ocr_in_wrong_pile_is_ocr_only() -> None:
    left = LEFT + ["To be mentaly awar"]
    s = score_run(piles_out(("left", left), ("right", RIGHT[1:])), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.OCR: 1})
    assert s.facts.outcomes[3].pile_ok is False  # still recorded as a fact


def test_partial_in_wrong_pile_is_partial_only() -> None:
    left = [LEFT[0], LEFT[2]]
    right = RIGHT + ["To have my financial"]
    s = score_run(piles_out(("left", left), ("right", right)), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.PARTIAL: 1})


def test_spatial_detail_for_unmapped_pile_and_no_pile() -> None:
    s = score_run(piles_out(("left", LEFT), ("right", RIGHT[:2]), ("extra", [RIGHT[2]])), PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.SPATIAL: 1})
    assert "'extra'" in s.findings[0].detail
    assert "maps to no ground-truth pile" in s.findings[0].detail
    cards = (
        [{"text": t, "pile": "left"} for t in LEFT]
        + [{"text": t, "pile": "right"} for t in RIGHT[:2]]
        + [{"text": RIGHT[2]}]
    )
    s = score_run(cards_out(cards), CARDS_PROMPT, GT)
    assert codes(s) == Counter({Code.SPATIAL: 1})
    assert "in no pile" in s.findings[0].detail


def test_format_unparseable() -> None:
    s = score_run("I can see six cards on the table but cannot list them.", PILES_PROMPT, GT)
    assert codes(s) == Counter({Code.FORMAT: 1})
    f = s.findings[0]
    assert f.gt_card_id is None and f.model_index is None
    assert "no JSON" in f.detail
    facts = s.facts
    assert facts.scored and not facts.parsed and not facts.json_valid
    assert facts.parse_error == f.detail
    # The cards are there as outcomes but none is matched (no MISS: one error, one code).
    assert len(facts.outcomes) == 6 and all(o.model_index is None for o in facts.outcomes)


def test_format_schema_mismatch() -> None:
    s = score_run(cards_out([{"name": t} for t in LEFT]), CARDS_PROMPT, GT)
    assert codes(s) == Counter({Code.FORMAT: 1})
    assert "cards.0.text" in s.findings[0].detail


def test_empty_output() -> None:
    s = score_run("", PILES_PROMPT, GT)
    assert [f.code for f in s.findings] == [Code.FORMAT]
    assert s.findings[0].detail == "the output is empty"
    assert s.cards == [] and s.facts.cards_reported == 0


QWEN_BOXES = [
    {"text": "To be free from pain", "bbox": {"x_min": 62, "y_min": 95, "x_max": 231, "y_max": 440}},
    {"text": "To be kept clean", "bbox": {"x_min": 268, "y_min": 102, "x_max": 455, "y_max": 452}},
    {"text": "Wild Card", "bbox": {"x_min": 517, "y_min": 540, "x_max": 702, "y_max": 931}},
]


def test_format_convention_mismatch_names_both() -> None:
    prompt = Prompt(name="boxes", schema=AnswerSchema.CARDS, box_convention=BoxConvention.UNIT)
    s = score_run(cards_out(QWEN_BOXES), prompt, GT, width=4508, height=3381)
    fmt = [f for f in s.findings if f.code == Code.FORMAT]
    assert len(fmt) == 1
    assert "0-1000" in fmt[0].detail and "asked for 0-1" in fmt[0].detail
    assert s.facts.box_convention == BoxConvention.GRID1000
    # The cards are still scored.
    assert codes(s)[Code.MISS] == 3 and s.facts.json_valid


@pytest.mark.parametrize("asked", [None, BoxConvention.GRID1000])
def test_no_convention_finding_when_matching_or_unstated(asked) -> None:
    prompt = Prompt(name="boxes", schema=AnswerSchema.CARDS, box_convention=asked)
    s = score_run(cards_out(QWEN_BOXES), prompt, GT, width=4508, height=3381)
    assert Code.FORMAT not in codes(s)
    assert s.facts.box_convention == BoxConvention.GRID1000


def test_ambiguous_boxes_use_config_convention() -> None:
    # 800x1000 image: every box fits both the image in pixels and the grid.
    s = score_run(cards_out(QWEN_BOXES), CARDS_PROMPT, GT, width=800, height=1000)
    assert s.facts.box_convention == BoxConvention.GRID1000
    cfg = ScoringConfig(ambiguous_box_convention=BoxConvention.PIXELS)
    s = score_run(cards_out(QWEN_BOXES), CARDS_PROMPT, GT, cfg, width=800, height=1000)
    assert s.facts.box_convention == BoxConvention.PIXELS
    # Unambiguous boxes ignore the setting.
    s = score_run(cards_out(QWEN_BOXES), CARDS_PROMPT, GT, cfg, width=4508, height=3381)
    assert s.facts.box_convention == BoxConvention.GRID1000


def test_ambiguous_boxes_are_no_format_error_when_they_fit_the_asked_convention() -> None:
    prompt = Prompt(name="boxes", schema=AnswerSchema.CARDS, box_convention=BoxConvention.PIXELS)
    s = score_run(cards_out(QWEN_BOXES), prompt, GT, width=800, height=1000)
    assert Code.FORMAT not in codes(s)


def test_truncated_answer_is_scored_on_recovered_cards() -> None:
    full = piles_out(("left", LEFT), ("right", RIGHT))
    cut = full[: full.index('"Wild Card"') + 5]
    s = score_run(cut, PILES_PROMPT, GT)
    assert s.facts.repaired and not s.facts.json_valid and s.facts.parsed
    assert s.facts.parse_error.startswith("truncated JSON")
    fmt = [f for f in s.findings if f.code == Code.FORMAT]
    assert len(fmt) == 1 and fmt[0].detail.startswith("truncated JSON")
    for text in LEFT + ["To be mentally aware"]:
        assert s.facts.outcomes[card_id(text)].text_ok
    assert by_gt(s)[card_id("To have human touch")].code == Code.MISS
    # strict: nothing salvaged, only the FORMAT finding.
    s = score_run(cut, PILES_PROMPT, GT, strict=True)
    assert [f.code for f in s.findings] == [Code.FORMAT]
    assert not s.facts.parsed
    s = score_run(cut, PILES_PROMPT, GT, ScoringConfig(salvage=False))
    assert [f.code for f in s.findings] == [Code.FORMAT]


def test_echoed_example_is_skipped() -> None:
    example = {"piles": [{"label": "left", "cards": ["card text 1"]}]}
    out = piles_out(("left", LEFT), ("right", RIGHT)) + "\nSchema used: " + json.dumps(example)
    # without the example, the echo is the answer: 'card' reads Wild Card (§2)
    assert codes(score_run(out, PILES_PROMPT, GT)) == Counter({Code.MISS: 5, Code.PARTIAL: 1})
    assert score_run(out, PILES_PROMPT, GT, example=example).findings == []


# --- unscored runs -----------------------------------------------------------------------


def test_free_text_prompt_gives_no_findings() -> None:
    s = score_run("Six cards in two groups.", FREE_PROMPT, GT)
    assert s.findings == [] and s.facts.scored is False and s.facts.parsed is False
    s = score_run("", FREE_PROMPT, GT)
    assert s.findings == [] and s.facts.scored is False


@pytest.mark.parametrize("truth", [None, GroundTruth(item="table")])
def test_ground_truth_without_cards(truth) -> None:
    s = score_run("not json at all", PILES_PROMPT, truth)
    assert s.facts.scored is False
    assert [f.code for f in s.findings] == [Code.FORMAT]
    s = score_run(piles_out(("left", LEFT)), PILES_PROMPT, truth)
    assert s.facts.scored is False and s.facts.json_valid
    assert s.findings == []  # nothing to call a hallucination against
    assert s.facts.cards_reported == 3


def test_cards_schema_without_piles_is_not_spatially_scored() -> None:
    cards = [{"text": t} for t in LEFT + RIGHT]
    s = score_run(cards_out(cards), CARDS_PROMPT, GT)
    assert s.findings == []
    assert s.facts.spatial_scored is False and s.facts.pile_mapping == {}
    assert all(o.pile_ok is None for o in s.facts.outcomes)


def test_ground_truth_without_piles_is_not_spatially_scored() -> None:
    truth = GroundTruth(item="t", cards=[Card(text=t) for t in LEFT])
    s = score_run(piles_out(("a", LEFT[:1]), ("b", LEFT[1:])), PILES_PROMPT, truth)
    assert s.findings == [] and s.facts.spatial_scored is False


def test_rows_map_to_piles() -> None:
    cards = [{"text": t, "row": 1} for t in LEFT] + [{"text": t, "row": 2} for t in RIGHT]
    s = score_run(cards_out(cards), CARDS_PROMPT, GT)
    assert s.findings == []
    assert s.facts.spatial_scored
    assert s.facts.pile_mapping == {"1": "left", "2": "right"}


def test_stored_card_ids_are_used() -> None:
    gt = gt_of(ids=True)
    s = score_run(piles_out(("left", LEFT), ("right", RIGHT[:2])), PILES_PROMPT, gt)
    assert [(f.code, f.gt_card_id) for f in s.findings] == [(Code.MISS, 105)]
    assert [o.gt_card_id for o in s.facts.outcomes] == list(range(100, 106))


# --- pile mapping ------------------------------------------------------------------------------


def test_map_piles_maximises_shared_cards() -> None:
    # model pile "left" holds two cards of gt "right" and one of gt "left".
    model_piles = ["left", "left", "left", "right"]
    gt_piles = ["right", "right", "left", "left"]
    pairs = [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert map_piles(pairs, model_piles, gt_piles) == {"left": "right", "right": "left"}


def test_map_piles_ties_broken_by_label_similarity() -> None:
    model_piles = ["Left pile", "Right pile"]
    gt_piles = ["right", "left"]
    assert map_piles([], model_piles, gt_piles) == {"Left pile": "left", "Right pile": "right"}
    # Equal shared counts (one each way): labels decide.
    model_piles = ["left", "left", "right", "right"]
    gt_piles = ["left", "right", "left", "right"]
    pairs = [(0, 0), (1, 1), (2, 2), (3, 3)]
    assert map_piles(pairs, model_piles, gt_piles) == {"left": "left", "right": "right"}
    assert map_piles(pairs, ["right", "right", "left", "left"], gt_piles) == {
        "right": "right",
        "left": "left",
    }


def test_map_piles_more_model_piles_than_truth() -> None:
    model_piles = ["a", "b", "c"]
    gt_piles = ["left", "right", "right"]
    mapping = map_piles([(0, 0), (1, 1), (2, 2)], model_piles, gt_piles)
    assert mapping["a"] == "left"
    assert sorted(v for v in mapping.values() if v) == ["left", "right"]
    assert list(mapping.values()).count(None) == 1


def test_map_piles_without_piles() -> None:
    assert map_piles([], [None, None], ["left"]) == {}
    assert map_piles([(0, 0)], ["a"], [None]) == {"a": None}


# --- properties --------------------------------------------------------------------------------

POOL = [
    "To be free from pain",
    "To have my financial affairs in order",
    "To be kept clean",
    "To be mentally aware",
    "Wild Card",
    "To have human touch",
    "To keep my sense of humor",
    "To say goodbye to important people",
    "To not be a burden to my family",
    "To have a doctor I trust",
    "To pray",
    "To be able to talk about what scares me",
]
FAKE = ["Swim with sharks", "Lorem ipsum", "To bake bread on Sundays", "?!", "To be"]
PILE_LABELS = ["left", "center", "right"]


def _perturb(text: str, how: int) -> str:
    if how == 0:
        return text
    if how == 1:
        return text.upper() + "!"
    if how == 2:
        return text[: max(1, len(text) // 2)]
    if how == 3:
        return text[:-2] if len(text) > 3 else text + "x"
    return text.replace("e", "c")


@st.composite
def scenario(draw):
    idx = draw(st.lists(st.integers(0, len(POOL) - 1), min_size=0, max_size=8, unique=True))
    truth_piles = [draw(st.sampled_from(PILE_LABELS)) for _ in idx]
    with_ids = draw(st.booleans())
    truth = GroundTruth(
        item="t",
        cards=[
            Card(id=(50 + k) if with_ids else None, text=POOL[i], pile=p)
            for k, (i, p) in enumerate(zip(idx, truth_piles))
        ],
    )
    model = []
    for i in idx:
        for _ in range(draw(st.integers(0, 2))):  # missed, read once, or duplicated
            model.append((_perturb(POOL[i], draw(st.integers(0, 4))), draw(st.sampled_from(PILE_LABELS))))
    for _ in range(draw(st.integers(0, 3))):
        model.append((draw(st.sampled_from(FAKE)), draw(st.sampled_from(PILE_LABELS))))
    model = draw(st.permutations(model))
    return truth, model


@settings(max_examples=150, deadline=None)
@given(scenario())
def test_one_code_per_error(data) -> None:
    truth, model = data
    piles: dict[str, list[str]] = {}
    for text, pile in model:
        piles.setdefault(pile, []).append(text)
    out = piles_out(*piles.items())
    s = score_run(out, PILES_PROMPT, truth)
    facts = s.facts
    assert facts.json_valid and facts.cards_reported == len(model)
    cards_order = [t for label in piles for t in piles[label]]
    assert [c.text for c in s.cards] == cards_order

    # each ground-truth card appears in at most one finding
    gt_ids = Counter(f.gt_card_id for f in s.findings if f.gt_card_id is not None)
    assert all(n == 1 for n in gt_ids.values())
    if not truth.cards:
        # nothing to score against: no finding at all for a valid answer
        assert not facts.scored and s.findings == []
        return
    assert facts.scored
    matched = {o.model_index for o in facts.outcomes if o.model_index is not None}
    # every unmatched model card gets exactly one HALLUC; matched ones none
    halluc = Counter(f.model_index for f in s.findings if f.code == Code.HALLUC)
    assert set(halluc) == set(range(len(model))) - matched
    assert all(n == 1 for n in halluc.values())
    # model indices are used once at most across findings
    used = Counter(f.model_index for f in s.findings if f.model_index is not None)
    assert all(n == 1 for n in used.values())
    assert len(facts.outcomes) == len(truth.cards)
    assert len(matched) == len([o for o in facts.outcomes if o.model_index is not None])
    finding_of = {f.gt_card_id: f for f in s.findings if f.gt_card_id is not None}
    for o in facts.outcomes:
        f = finding_of.get(o.gt_card_id)
        if o.model_index is None:
            assert f is not None and f.code == Code.MISS
        elif not o.text_ok:
            assert f is not None and f.code in (Code.OCR, Code.PARTIAL)
            assert f.model_index == o.model_index
        elif o.pile_ok is False:
            assert f is not None and f.code == Code.SPATIAL
        else:
            assert f is None
        if o.text_ok:
            assert normalize(o.model_text) == normalize(o.gt_text)
    n_expected = sum(1 for o in facts.outcomes if o.gt_card_id in finding_of) + len(halluc)
    assert len(s.findings) == n_expected


@settings(max_examples=100, deadline=None)
@given(scenario())
def test_exact_copy_of_truth_has_no_findings(data) -> None:
    truth, _ = data
    piles: dict[str, list[str]] = {}
    for c in truth.cards[::-1]:
        piles.setdefault(c.pile, []).append(c.text)
    s = score_run(piles_out(*piles.items()), PILES_PROMPT, truth)
    assert s.findings == []


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300), st.sampled_from([PILES_PROMPT, CARDS_PROMPT, FREE_PROMPT]))
def test_score_run_never_raises(output, prompt) -> None:
    s = score_run(output, prompt, GT, width=1600, height=1200)
    if prompt.schema_ == AnswerSchema.FREE:
        assert s.findings == []
    elif not s.facts.parsed:
        assert [f.code for f in s.findings][:1] == [Code.FORMAT]
