"""reviewer.core.cards.metrics: run metrics (auto and reviewed) and T-P1 verdicts."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.core.cards.metrics import prompt_verdict, prompt_verdicts, run_metrics, verdict_of
from reviewer.core.cards.scoring import score_run
from reviewer.core.models import (
    AnswerSchema,
    Card,
    Code,
    GroundTruth,
    Pile,
    Prompt,
    RunMetrics,
    ScoringConfig,
    Status,
    TP1Verdict,
)

CONFIG = ScoringConfig()
PROMPT = Prompt(name="piles", schema=AnswerSchema.PILES)
LEFT = ["To be free from pain", "To have my financial affairs in order", "To be kept clean"]
RIGHT = ["To be mentally aware", "Wild Card", "To have human touch"]
GT = GroundTruth(
    item="table",
    piles=[Pile(label="left"), Pile(label="right")],
    cards=[Card(text=t, pile="left") for t in LEFT] + [Card(text=t, pile="right") for t in RIGHT],
)


def out(left, right) -> str:
    return json.dumps({"piles": [{"label": "left", "cards": left}, {"label": "right", "cards": right}]})


def scored(left, right):
    return score_run(out(left, right), PROMPT, GT)


def only(score, code: Code):
    found = [f for f in score.findings if f.code == code]
    assert len(found) == 1
    return found[0]


# --- run_metrics ---------------------------------------------------------------------


def test_perfect_run() -> None:
    s = scored(LEFT, RIGHT)
    m = run_metrics(s.facts, s.findings)
    assert m.scored and m.json_valid and not m.repaired
    assert (m.cards_visible, m.cards_reported, m.cards_correct) == (6, 6, 6)
    assert m.text_accuracy == 1.0 and m.spatial_accuracy == 1.0
    assert m.cards_in_right_pile == 6
    assert m.hallucinations == 0 and m.findings == 0


def test_auto_metrics_count_every_code() -> None:
    # OCR, PARTIAL, MISS, SPATIAL, HALLUC: one each.
    left = ["To be free from pan", "To have my financial", "To be mentally aware"]
    right = ["Wild Card", "To have human touch", "Swim with sharks"]
    s = scored(left, right)
    assert sorted(f.code.value for f in s.findings) == sorted(["OCR", "PARTIAL", "MISS", "SPATIAL", "HALLUC"])
    m = run_metrics(s.facts, s.findings)
    assert m.cards_visible == 6 and m.cards_reported == 6
    # correct: mentally aware (wrong pile but read right), wild card, human touch
    assert m.cards_correct == 3 and m.text_accuracy == 0.5
    # right pile: pain, financial (OCR/PARTIAL cards in the right pile), wild, touch
    assert m.cards_in_right_pile == 4
    assert m.spatial_accuracy == pytest.approx(4 / 6)
    assert m.hallucinations == 1 and m.findings == 5


def test_rejected_ocr_counts_as_correct_in_reviewed_only() -> None:
    s = scored(["To be free from pan"] + LEFT[1:], RIGHT)
    f = only(s, Code.OCR)
    f.status = Status.REJECTED
    auto = run_metrics(s.facts, s.findings)
    reviewed = run_metrics(s.facts, s.findings, reviewed=True)
    assert auto.cards_correct == 5 and auto.findings == 1
    assert reviewed.cards_correct == 6 and reviewed.findings == 0
    assert reviewed.text_accuracy == 1.0


def test_confirmed_finding_counts_the_same_in_both() -> None:
    s = scored(["To be free from pan"] + LEFT[1:], RIGHT)
    only(s, Code.OCR).status = Status.CONFIRMED
    assert run_metrics(s.facts, s.findings, reviewed=True) == run_metrics(s.facts, s.findings)


def test_reclassify_ocr_to_spatial() -> None:
    s = scored(["To be free from pan"] + LEFT[1:], RIGHT)
    f = only(s, Code.OCR)
    f.final_code = Code.SPATIAL
    f.status = Status.CONFIRMED
    auto = run_metrics(s.facts, s.findings)
    reviewed = run_metrics(s.facts, s.findings, reviewed=True)
    assert auto.cards_correct == 5 and auto.cards_in_right_pile == 6
    assert reviewed.cards_correct == 6  # text now counts as read correctly
    assert reviewed.cards_in_right_pile == 5  # but the pile is wrong
    assert reviewed.spatial_accuracy == pytest.approx(5 / 6)


def test_reclassify_spatial_to_ocr() -> None:
    s = scored(LEFT + ["To be mentally aware"], RIGHT[1:])
    f = only(s, Code.SPATIAL)
    f.final_code = Code.OCR
    auto = run_metrics(s.facts, s.findings)
    reviewed = run_metrics(s.facts, s.findings, reviewed=True)
    assert (auto.cards_correct, auto.cards_in_right_pile) == (6, 5)
    assert reviewed.cards_correct == 5


def test_rejected_spatial_puts_the_card_in_the_right_pile() -> None:
    s = scored(LEFT + ["To be mentally aware"], RIGHT[1:])
    only(s, Code.SPATIAL).status = Status.REJECTED
    assert run_metrics(s.facts, s.findings).cards_in_right_pile == 5
    assert run_metrics(s.facts, s.findings, reviewed=True).cards_in_right_pile == 6


def test_rejected_halluc_lowers_hallucinations() -> None:
    s = scored(LEFT, RIGHT + ["Swim with sharks", "To bake bread on Sundays"])
    halluc = [f for f in s.findings if f.code == Code.HALLUC]
    assert len(halluc) == 2
    halluc[0].status = Status.REJECTED
    assert run_metrics(s.facts, s.findings).hallucinations == 2
    reviewed = run_metrics(s.facts, s.findings, reviewed=True)
    assert reviewed.hallucinations == 1 and reviewed.findings == 1
    halluc[1].final_code = Code.FORMAT
    assert run_metrics(s.facts, s.findings, reviewed=True).hallucinations == 0


def test_halluc_on_a_card_counts_as_hallucination_and_the_card_as_not_read() -> None:
    # reclassification-keeps-the-finding-shape: the keys never offer it, but a
    # HALLUC stored on a card (an older project) never makes the card read.
    s = scored(["To be free from pan"] + LEFT[1:], RIGHT)
    only(s, Code.OCR).final_code = Code.HALLUC
    reviewed = run_metrics(s.facts, s.findings, reviewed=True)
    assert reviewed.hallucinations == 1
    assert reviewed.cards_correct == 5


def test_rejected_miss_counts_as_correct_in_reviewed() -> None:
    s = scored(LEFT, RIGHT[:2])
    only(s, Code.MISS).status = Status.REJECTED
    auto = run_metrics(s.facts, s.findings)
    reviewed = run_metrics(s.facts, s.findings, reviewed=True)
    assert (auto.cards_correct, auto.cards_in_right_pile) == (5, 5)
    assert (reviewed.cards_correct, reviewed.cards_in_right_pile) == (6, 6)


def test_unparseable_run_reads_nothing() -> None:
    s = score_run("sorry, no idea", PROMPT, GT)
    m = run_metrics(s.facts, s.findings)
    assert m.scored and not m.json_valid
    assert m.cards_visible == 6 and m.cards_correct == 0 and m.text_accuracy == 0.0
    assert m.findings == 1
    # rejecting the FORMAT finding does not invent correct cards
    s.findings[0].status = Status.REJECTED
    assert run_metrics(s.facts, s.findings, reviewed=True).cards_correct == 0


def test_unscored_run_has_no_accuracies() -> None:
    s = score_run(out(LEFT, RIGHT), PROMPT, None)
    m = run_metrics(s.facts, s.findings)
    assert not m.scored and m.json_valid
    assert m.text_accuracy is None and m.spatial_accuracy is None
    assert m.cards_visible == 0 and m.cards_reported == 6


def test_repaired_run_is_scored_and_flagged() -> None:
    full = out(LEFT, RIGHT)
    cut = full[: full.index("Wild Card") - 1]
    s = score_run(cut, PROMPT, GT)
    m = run_metrics(s.facts, s.findings)
    assert m.repaired and not m.json_valid
    assert m.cards_correct == 4  # three left cards and "To be mentally aware"
    assert m.text_accuracy == pytest.approx(4 / 6)


# --- verdicts -------------------------------------------------------------------------


def rm(
    visible: int, correct: int, *, halluc: int = 0, json_valid: bool = True, in_pile=None, scored: bool = True
) -> RunMetrics:
    return RunMetrics(
        scored=scored,
        json_valid=json_valid,
        cards_visible=visible,
        cards_correct=correct,
        cards_reported=correct,
        cards_in_right_pile=in_pile,
        text_accuracy=correct / visible if visible else None,
        spatial_accuracy=(in_pile / visible) if in_pile is not None and visible else None,
        hallucinations=halluc,
    )


@pytest.mark.parametrize(
    "visible, correct, verdict",
    [
        (5, 4, TP1Verdict.PASS),  # exactly 0.80
        (10, 8, TP1Verdict.PASS),
        (10000, 7999, TP1Verdict.AMBIGUOUS),  # 0.7999
        (5, 3, TP1Verdict.AMBIGUOUS),  # exactly 0.60
        (10, 6, TP1Verdict.AMBIGUOUS),
        (10000, 5999, TP1Verdict.FAIL),  # 0.5999
        (10, 0, TP1Verdict.FAIL),
        (10, 10, TP1Verdict.PASS),
    ],
)
def test_text_accuracy_edges(visible, correct, verdict) -> None:
    v = prompt_verdict("p", "i", [rm(visible, correct)], CONFIG)
    assert v.text_accuracy == correct / visible
    assert v.verdict == verdict


def test_hallucination_in_one_run_is_ambiguous_even_at_100_percent() -> None:
    v = prompt_verdict("p", "i", [rm(6, 6, halluc=1), rm(6, 6), rm(6, 6)], CONFIG)
    assert v.text_accuracy == 1.0
    assert v.hallucination_runs == 1
    assert v.verdict == TP1Verdict.AMBIGUOUS
    assert any("hallucination" in r for r in v.reasons)


def test_hallucinations_in_two_runs_fail() -> None:
    v = prompt_verdict("p", "i", [rm(6, 6, halluc=1), rm(6, 6, halluc=3), rm(6, 6)], CONFIG)
    assert v.hallucination_runs == 2
    assert v.verdict == TP1Verdict.FAIL


def test_hallucination_run_threshold_is_configurable() -> None:
    runs = [rm(6, 6, halluc=1), rm(6, 6, halluc=1)]
    assert prompt_verdict("p", "i", runs, ScoringConfig(fail_hallucination_runs=3)).verdict == (TP1Verdict.AMBIGUOUS)


def test_low_text_fails_whatever_hallucinations() -> None:
    v = prompt_verdict("p", "i", [rm(10, 5)], CONFIG)
    assert v.verdict == TP1Verdict.FAIL
    assert "text accuracy" in v.reasons[0]


@pytest.mark.parametrize("valid, ok", [(3, True), (2, True), (1, False), (0, False)])
def test_json_valid_two_of_three(valid, ok) -> None:
    runs = [rm(5, 5, json_valid=i < valid) for i in range(3)]
    v = prompt_verdict("p", "i", runs, CONFIG)
    assert v.json_valid_runs == valid
    assert v.json_ok is ok
    assert any("valid JSON" in r for r in v.reasons) is (not ok)


@pytest.mark.parametrize("in_pile, ok", [(7, True), (8, True), (6, False)])
def test_spatial_secondary_signal(in_pile, ok) -> None:
    v = prompt_verdict("p", "i", [rm(10, 10, in_pile=in_pile)], CONFIG)
    assert v.spatial_accuracy == in_pile / 10
    assert v.spatial_ok is ok
    # a secondary signal never changes the verdict
    assert v.verdict == TP1Verdict.PASS


def test_spatial_none_without_grouping() -> None:
    v = prompt_verdict("p", "i", [rm(10, 10)], CONFIG)
    assert v.spatial_accuracy is None and v.spatial_ok is None


def test_pooled_accuracy_over_runs_of_different_sizes() -> None:
    # mean of run accuracies would be (1.0 + 0.0 + 0.8) / 3 = 0.6 (ambiguous);
    # pooled: (1 + 0 + 8) / (1 + 9 + 10) = 0.45 (fail).
    runs = [rm(1, 1), rm(9, 0), rm(10, 8)]
    v = prompt_verdict("p", "i", runs, CONFIG)
    assert (v.cards_visible, v.cards_correct) == (20, 9)
    assert v.text_accuracy == pytest.approx(0.45)
    assert v.verdict == TP1Verdict.FAIL
    runs = [rm(10, 10, in_pile=10), rm(30, 30, in_pile=15)]
    assert prompt_verdict("p", "i", runs, CONFIG).spatial_accuracy == pytest.approx(25 / 40)


def test_unscored_runs_count_for_json_only() -> None:
    runs = [rm(5, 4), rm(0, 0, scored=False, json_valid=True), rm(0, 0, scored=False, json_valid=False, halluc=2)]
    v = prompt_verdict("p", "i", runs, CONFIG)
    assert v.runs == 3
    assert v.text_accuracy == 0.8 and v.verdict == TP1Verdict.PASS
    assert v.hallucination_runs == 0
    assert v.json_valid_runs == 2 and v.json_ok is True


def test_no_scored_run_is_unscored() -> None:
    v = prompt_verdict("p", "i", [rm(0, 0, scored=False)], CONFIG)
    assert v.verdict == TP1Verdict.UNSCORED and v.text_accuracy is None
    assert verdict_of(None, 0, CONFIG) == (TP1Verdict.UNSCORED, ["no scored run"])
    empty = prompt_verdict("p", "i", [], CONFIG)
    assert empty.verdict == TP1Verdict.UNSCORED and empty.json_ok is None and empty.runs == 0


def test_verdict_thresholds_come_from_config() -> None:
    cfg = ScoringConfig(pass_text_accuracy=0.9, fail_text_accuracy=0.5)
    assert verdict_of(0.85, 0, cfg)[0] == TP1Verdict.AMBIGUOUS
    assert verdict_of(0.5, 0, cfg)[0] == TP1Verdict.AMBIGUOUS
    assert verdict_of(0.49, 0, cfg)[0] == TP1Verdict.FAIL
    assert verdict_of(0.9, 0, cfg)[0] == TP1Verdict.PASS


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 1), st.integers(0, 5))
def test_verdict_of_matches_t_p1(acc, halluc_runs) -> None:
    verdict, reasons = verdict_of(acc, halluc_runs, CONFIG)
    assert reasons
    if acc < 0.60 or halluc_runs >= 2:
        assert verdict == TP1Verdict.FAIL
    elif acc >= 0.80 and halluc_runs == 0:
        assert verdict == TP1Verdict.PASS
    else:
        assert verdict == TP1Verdict.AMBIGUOUS


def test_prompt_verdicts_rows() -> None:
    rows = [
        ("p2", "photo-b", rm(10, 10)),
        ("p1", "photo-b", rm(10, 5)),
        ("p1", "photo-a", rm(10, 9)),
        ("p1", "photo-a", rm(10, 10)),
        ("p2", "photo-a", rm(10, 7, halluc=1)),
    ]
    out = prompt_verdicts(rows, CONFIG)
    assert [(v.prompt, v.item) for v in out] == [
        ("p1", "photo-a"),
        ("p1", "photo-b"),
        ("p1", "*"),
        ("p2", "photo-a"),
        ("p2", "photo-b"),
        ("p2", "*"),
    ]
    v = {(v.prompt, v.item): v for v in out}
    assert v["p1", "photo-a"].runs == 2 and v["p1", "photo-a"].verdict == TP1Verdict.PASS
    assert v["p1", "photo-b"].verdict == TP1Verdict.FAIL
    star = v["p1", "*"]
    assert star.runs == 3 and (star.cards_visible, star.cards_correct) == (30, 24)
    assert star.verdict == TP1Verdict.PASS  # pooled 0.80 exactly
    assert v["p2", "photo-a"].verdict == TP1Verdict.AMBIGUOUS
    assert v["p2", "*"].hallucination_runs == 1
    assert v["p2", "*"].text_accuracy == pytest.approx(17 / 20)
    assert v["p2", "*"].verdict == TP1Verdict.AMBIGUOUS
    assert prompt_verdicts([], CONFIG) == []


def test_end_to_end_three_runs() -> None:
    runs = [
        score_run(out(LEFT, RIGHT), PROMPT, GT),
        score_run(out(["To be free from pan"] + LEFT[1:], RIGHT), PROMPT, GT),
        score_run("no answer", PROMPT, GT),
    ]
    metrics = [run_metrics(s.facts, s.findings) for s in runs]
    v = prompt_verdict("piles", "table", metrics, CONFIG)
    assert (v.cards_visible, v.cards_correct) == (18, 11)
    assert v.verdict == TP1Verdict.AMBIGUOUS  # 11/18 = 61 %
    assert v.json_valid_runs == 2 and v.json_ok is True
    # reviewing away the OCR finding does not change the band here (12/18 = 67 %)
    runs[1].findings[0].status = Status.REJECTED
    reviewed = [run_metrics(s.facts, s.findings, reviewed=True) for s in runs]
    assert prompt_verdict("piles", "table", reviewed, CONFIG).cards_correct == 12


def test_runs_of_different_models_are_never_pooled():
    """A prompt answered by two models gets a verdict per model."""
    good, bad = rm(10, 10), rm(10, 2)
    out = prompt_verdicts([("p", "i", good, "model-a"), ("p", "i", bad, "model-b")], CONFIG)
    by_model = {(v.model, v.item): v.verdict for v in out}
    assert by_model[("model-a", "*")] == TP1Verdict.PASS
    assert by_model[("model-b", "*")] == TP1Verdict.FAIL


# --- T-P1 as written: "valid JSON in >= 2 of 3 runs" ----------------------------------


def test_valid_json_signal_needs_three_runs() -> None:
    one = run_metrics(scored(LEFT, RIGHT).facts, [])
    v = prompt_verdict("p", "*", [one], CONFIG)
    # fewer runs than the rule needs cannot meet it: 0 in the export, never NULL
    assert v.json_ok is False and v.json_signal == "1/1 (3 runs needed)"
    assert any("needs 3" in r and "not met" in r for r in v.reasons)
    three = prompt_verdict("p", "*", [one, one, one], CONFIG)
    assert three.json_ok is True and three.json_signal == "3/3"
    assert not any("needs 3" in r for r in three.reasons)
    # a custom rule needing 2 runs decides with 2
    two = prompt_verdict("p", "*", [one, one], ScoringConfig(json_runs_needed=2))
    assert two.json_ok is True and two.json_signal == "2/2"
