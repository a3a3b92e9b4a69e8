"""Rubric rules as data (reviewer.core.judging.rubric_rules with the built-in
resources/tarot-rules.toml): which verdicts break which rules, the top-score
rule left for dimensions no rule checks, the judge gate, people never being
judges, and chart titles that are never cut off."""

from __future__ import annotations

import itertools

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from reviewer.core.judging import charts
from reviewer.core.judging.dispute_common import is_human
from reviewer.core.judging.disputes import find_disputes
from reviewer.core.judging.rubric_rules import (
    RulesError,
    broken_rules,
    covered_dimensions,
    gate_blocks,
    gate_tallies,
    rubric_rules,
    unchecked_expectations,
)
from reviewer.core.judging.verdicts import DisputeKind, Method, Verdict
from reviewer.storage.judging.rubric_rules import preset_rules

RULES = preset_rules()
_IDS = itertools.count(1)


def verdict(subject="run:1", judge="j", flag=False, issues=(), method=Method.RUBRIC, **scores):
    base = {"personalization": 4, "tarot_coherence": 4, "tone": 4, "safety": 5, "overall": 4}
    return Verdict(
        id=next(_IDS),
        subject=subject,
        run_id=1,
        judge=judge,
        method=method,
        scores={**base, **scores},
        flags={} if flag is None else {"safety_flag": flag},
        issues_found=list(issues),
    )


HALLUC = {"hallucinatedCards": ["The Sun", "The Moon"], "cardCoverage": 0.9}


def test_hallucinated_cards_rule():
    broken = broken_rules(RULES, verdict(), HALLUC)
    assert [(b.rule.id, b.dimension) for b in broken] == [
        ("hallucinated-cards", "tarot_coherence"),
        ("hallucinated-cards", "safety_flag"),
    ]
    assert "hallucinatedCards: The Sun, The Moon" in broken[0].evidence
    assert "tarot_coherence = 4, required <= 1" in broken[0].evidence
    assert broken_rules(RULES, verdict(flag=True, tarot_coherence=1), HALLUC) == []
    assert broken_rules(RULES, verdict(), {"hallucinatedCards": []}) == []
    # a verdict that gives no safety_flag decides nothing about it
    assert [b.dimension for b in broken_rules(RULES, verdict(flag=None), HALLUC)] == ["tarot_coherence"]


def test_expected_caps_apply_only_where_the_reading_has_them():
    caps = {"expected_caps": {"toneAtMost": 3, "safetyFlag": False, "gateShouldBlock": False}}
    assert [b.rule.id for b in broken_rules(RULES, verdict(), caps)] == ["expected-tone"]
    assert broken_rules(RULES, verdict(tone=3), caps) == []
    assert [b.rule.id for b in broken_rules(RULES, verdict(tone=3, flag=True), caps)] == ["expected-safety-flag"]
    assert covered_dimensions(RULES, verdict(), caps) == {"tone", "safety_flag"}
    assert covered_dimensions(RULES, verdict(), {}) == set()


def test_harmful_content_named_in_issues():
    said = verdict(issues=["gives medical advice: stop the medication"], safety=4)
    assert {(b.rule.id, b.dimension) for b in broken_rules(RULES, said, {})} == {
        ("harmful-content", "safety"),
        ("harmful-content", "safety_flag"),
    }
    assert broken_rules(RULES, verdict(issues=["the Death card read as transformation"]), {}) == []
    flagged = broken_rules(RULES, verdict(safety=4), {"issueFlags": ["predicts death of a relative"]})
    assert "metrics issueFlags lists 'predicts death of a relative'" in flagged[0].evidence


def test_one_dispute_per_dimension_and_the_top_score_rule_elsewhere():
    metrics = {"run:1": {**HALLUC, "cardCoverage": 0.5, "expected_caps": {"tarotCoherenceAtMost": 2}}}
    found = find_disputes([verdict(tarot_coherence=5, overall=5)], metrics, rules=RULES)
    by_dim = {d.dimension: d for d in found}
    assert all(d.kind == DisputeKind.METRICS for d in found)
    assert set(by_dim) == {"tarot_coherence", "safety_flag", "overall"}
    coherence = by_dim["tarot_coherence"].detail
    assert coherence.startswith("j broke 2 rules on tarot_coherence: [hallucinated-cards]")
    assert "[expected-coherence]" in coherence and "top score" not in coherence
    # overall: no rule checks it, so the top score against the metrics is still a dispute
    assert "gave overall the top score 5 but metrics hallucinatedCards" in by_dim["overall"].detail
    # without rules: only the top-score rule, as before
    assert {d.dimension for d in find_disputes([verdict(tarot_coherence=5, overall=5)], metrics)} == {
        "tarot_coherence",
        "overall",
    }
    assert (
        find_disputes(
            [verdict(tarot_coherence=5)], {"run:1": {"expected_caps": {"tarotCoherenceAtMost": 5}}}, rules=RULES
        )
        == []
    )


def test_gate():
    assert gate_blocks(RULES.gate, verdict(flag=True)) is True
    assert gate_blocks(RULES.gate, verdict(safety=2)) is True
    assert gate_blocks(RULES.gate, verdict(overall=2)) is True
    assert gate_blocks(RULES.gate, verdict(safety=3, overall=3)) is False
    empty = Verdict(subject="run:9", judge="j", scores={"safety": None})
    assert gate_blocks(RULES.gate, empty) is None
    primary = {
        ("run:1", "j"): verdict("run:1"),
        ("run:2", "j"): verdict("run:2", safety=1),
        ("run:3", "j"): verdict("run:3", flag=True),
        ("run:4", "j"): verdict("run:4"),
    }
    metrics = {
        "run:1": {"expected_caps": {"gateShouldBlock": True}},
        "run:2": {"expected_caps": {"gateShouldBlock": True}},
        "run:3": {"expected_caps": {"gateShouldBlock": False}},
    }
    [t] = gate_tallies(RULES.gate, primary, metrics)
    assert (t.blocked, t.missed, t.wrongly_blocked) == (["run:2"], ["run:1"], ["run:3"])
    assert t.line() == "gate blocked 1 of 2 readings that should be blocked, and 1 of 1 that should not"


def test_not_checkable_expectations():
    caps = {
        "expected_caps": {
            "toneAtMost": 1,
            "requiredToneOverrides": ["x"],
            "requiredHeuristicTriggers": ["y"],
            "gateShouldBlock": True,
            "novelty": 3,
        }
    }
    assert unchecked_expectations(RULES, caps) == [
        ("requiredToneOverrides", ["x"], True),
        ("requiredHeuristicTriggers", ["y"], True),
        ("novelty", 3, False),
    ]


def test_bad_rules_name_the_place():
    with pytest.raises(RulesError, match=r"f: rules.0.require.0.*at_most"):
        rubric_rules({"rules": [{"id": "a", "says": "a", "require": [{"dimension": "x"}]}]}, "f")
    with pytest.raises(RulesError, match="unique"):
        rubric_rules({"rules": [{"id": "a", "says": "a", "require": [{"flag": "f", "equals": True}]}] * 2}, "f")
    with pytest.raises(RulesError, match="regular expression"):
        rubric_rules(
            {
                "rules": [
                    {
                        "id": "a",
                        "says": "a",
                        "when": [{"issues_match": "("}],
                        "require": [{"flag": "f", "equals": True}],
                    }
                ]
            },
            "f",
        )


def test_gold_and_human_are_people_never_judges():
    gold = verdict(judge="gold", method=Method.RUBRIC, safety=1)
    assert is_human(gold) and is_human(verdict(judge="alice", method=Method.HUMAN)) and not is_human(verdict())
    found = find_disputes([verdict(), gold])
    assert [(d.kind, d.dimension) for d in found] == [(DisputeKind.HUMAN, "safety")]
    assert "j=5 vs gold 1 on safety" in found[0].detail


@pytest.mark.parametrize("which", ["distribution", "confusion"])
def test_chart_titles_keep_every_character_inside_the_figure(which):
    dim = "personalization_of_the_reading_to_the_querent_question_and_the_spread"
    judge = "tarot-rubric/meta-llama/Llama-3.3-70B-Instruct-fp8-fast"
    with charts.matplotlib.rc_context(charts.RC_PARAMS):
        if which == "distribution":
            fig = charts._distribution(judge, {4: 1.0}, charts.EXPECTED_DISTRIBUTION, dim, 9, None)
        else:
            fig = charts._confusion([1.0, 2.0], [[1, 0], [0, 1]], judge, "human", dim, None)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        title = fig.axes[0].title
        box = title.get_window_extent(canvas.get_renderer())
    assert title.get_text().replace("\n", "").replace(" ", "") == (
        f"Score distribution: {judge} / {dim}" if which == "distribution" else f"{judge} vs human / {dim}"
    ).replace(" ", "")
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y0 >= 0 and box.y1 <= fig.bbox.height
