"""reviewer.core.judging.disputes: every dispute kind found with the right severity,
and not found within tolerance."""

from __future__ import annotations

import itertools
import random

import pytest

from reviewer.core.judging.dispute_common import primary_verdicts, severity_of
from reviewer.core.judging.dispute_metrics import METRIC_PROBLEMS, MetricProblem, metric_problems
from reviewer.core.judging.disputes import find_disputes
from reviewer.core.judging.verdicts import DisputeKind, Method, Scale, Verdict

_ids = itertools.count(1)


def v(
    subject="run:1",
    judge="j1",
    scores=None,
    *,
    method=Method.RUBRIC,
    scale=Scale.ORDINAL5,
    order=None,
    rep=1,
    issues=(),
):
    return Verdict(
        id=next(_ids),
        subject=subject,
        judge=judge,
        method=method,
        scale=scale,
        scores=scores or {},
        answer_order=order,
        repetition=rep,
        issues_found=list(issues),
    )


def pw(subject, judge, winner, order="ab", rep=1):
    return v(subject, judge, {"winner": winner}, method=Method.PAIRWISE, scale=Scale.WINNER, order=order, rep=rep)


def human(subject, judge, value, scale=Scale.WINNER, dim="winner"):
    return v(subject, judge, {dim: value}, method=Method.HUMAN, scale=scale)


def kinds(disputes):
    return [(d.kind, d.subject, d.dimension, d.severity) for d in disputes]


# -- judges disagree ------------------------------------------------------------


def test_judges_disagree_beyond_tolerance_severity_is_spread_over_range():
    a, b = v(judge="a", scores={"tone": 5}), v(judge="b", scores={"tone": 3})
    [d] = find_disputes([a, b])
    assert (d.kind, d.dimension, d.severity) == (DisputeKind.JUDGES, "tone", 0.5)  # 2 / 4
    assert d.verdict_ids == sorted([a.id, b.id])
    assert "a=5" in d.detail and "b=3" in d.detail


def test_judges_within_tolerance_are_not_disputed():
    assert find_disputes([v(judge="a", scores={"tone": 5}), v(judge="b", scores={"tone": 4})]) == []


def test_custom_tolerance():
    found = find_disputes(
        [v(judge="a", scores={"tone": 5}), v(judge="b", scores={"tone": 4})], tolerance={Scale.ORDINAL5: 0.0}
    )
    assert kinds(found) == [(DisputeKind.JUDGES, "run:1", "tone", 0.25)]


def test_grade_scale_uses_points():
    found = find_disputes(
        [
            v(judge="rules", scores={"grade": "A"}, scale=Scale.GRADE, method=Method.RULES),
            v(judge="gt", scores={"grade": "C"}, scale=Scale.GRADE, method=Method.GROUND_TRUTH),
        ]
    )
    assert kinds(found) == [(DisputeKind.JUDGES, "run:1", "grade", 0.4)]  # 100 vs 60 over 100
    assert (
        find_disputes(
            [
                v(judge="r", scores={"grade": "A"}, scale=Scale.GRADE),
                v(judge="g", scores={"grade": "B"}, scale=Scale.GRADE),
            ]
        )
        == []
    )  # 20 = tolerance


def test_pairwise_judges_disagree_flip_tie_and_undecided():
    assert kinds(find_disputes([pw("pair:1:2", "a", "1"), pw("pair:1:2", "b", "2")])) == [
        (DisputeKind.JUDGES, "pair:1:2", "winner", 1.0)
    ]
    assert kinds(find_disputes([pw("pair:1:2", "a", "1"), pw("pair:1:2", "b", "tie")])) == [
        (DisputeKind.JUDGES, "pair:1:2", "winner", 0.5)
    ]
    assert find_disputes([pw("pair:1:2", "a", "1"), pw("pair:1:2", "b", None)]) == []
    assert find_disputes([pw("pair:1:2", "a", "2"), pw("pair:1:2", "b", "2")]) == []


def test_judges_compare_order_ab_and_latest_repetition():
    # a flips between orders but its 'ab' verdict agrees with b: no judges dispute
    found = find_disputes(
        [pw("pair:1:2", "a", "1", "ab"), pw("pair:1:2", "a", "2", "ba"), pw("pair:1:2", "b", "1", "ab")]
    )
    assert [d.kind for d in found] == [DisputeKind.POSITION]
    # a judge seen only swapped speaks with its 'ba' verdict
    found = find_disputes([pw("pair:1:2", "a", "2", "ba"), pw("pair:1:2", "b", "1", "ab")])
    assert [d.kind for d in found] == [DisputeKind.JUDGES]
    # latest repetition: a's repetition 2 agrees with b
    found = find_disputes(
        [
            v(judge="a", scores={"overall": 1}, rep=1),
            v(judge="a", scores={"overall": 4}, rep=2),
            v(judge="b", scores={"overall": 4}),
        ]
    )
    assert [d.kind for d in found] == [DisputeKind.REPEAT]


def test_primary_verdict_choice():
    ab, ba = pw("pair:1:2", "a", "1", "ab"), pw("pair:1:2", "a", "2", "ba")
    assert primary_verdicts([ba, ab])[("pair:1:2", ("a", "pairwise"))] is ab
    assert primary_verdicts([ba])[("pair:1:2", ("a", "pairwise"))] is ba


def test_humans_are_never_judges():
    assert find_disputes([human("pair:1:2", "annotator1", "1"), human("pair:1:2", "annotator2", "2")]) == []


# -- position flips -------------------------------------------------------------


def test_position_flip_is_severity_one():
    ab, ba = pw("pair:1:2", "gpt", "1", "ab"), pw("pair:1:2", "gpt", "2", "ba")
    [d] = find_disputes([ab, ba])
    assert (d.kind, d.severity, d.verdict_ids) == (DisputeKind.POSITION, 1.0, [ab.id, ba.id])
    assert "gpt" in d.detail and "flip" in d.detail


def test_position_tie_mismatch_is_half_and_consistent_or_undecided_is_none():
    assert kinds(find_disputes([pw("p", "g", "1", "ab"), pw("p", "g", "tie", "ba")])) == [
        (DisputeKind.POSITION, "p", "winner", 0.5)
    ]
    assert find_disputes([pw("p", "g", "1", "ab"), pw("p", "g", "1", "ba")]) == []
    assert find_disputes([pw("p", "g", "1", "ab"), pw("p", "g", None, "ba")]) == []


def test_two_judges_flipping_on_one_pair_make_one_dispute():
    vs = [pw("p", "a", "1", "ab"), pw("p", "a", "2", "ba"), pw("p", "b", "2", "ab"), pw("p", "b", "1", "ba")]
    found = [d for d in find_disputes(vs) if d.kind == DisputeKind.POSITION]
    assert len(found) == 1 and found[0].verdict_ids == sorted(x.id for x in vs)
    assert "a position flip" in found[0].detail and "b position flip" in found[0].detail


# -- repeated runs ----------------------------------------------------------------


def test_repeat_spread_severity():
    vs = [v(judge="a", scores={"safety": s}, rep=r) for r, s in ((1, 5), (2, 5), (3, 2))]
    [d] = find_disputes(vs)
    assert (d.kind, d.severity) == (DisputeKind.REPEAT, 0.75)
    assert "#1=5" in d.detail and "#3=2" in d.detail


def test_repeat_within_tolerance_is_not_disputed():
    assert find_disputes([v(judge="a", scores={"safety": 4}, rep=1), v(judge="a", scores={"safety": 5}, rep=2)]) == []


def test_repeat_spread_pairwise_per_order():
    found = find_disputes([pw("p", "g", "1", "ab", rep=1), pw("p", "g", "2", "ab", rep=2)])
    assert kinds(found) == [(DisputeKind.REPEAT, "p", "winner", 1.0)]


# -- judge vs human -----------------------------------------------------------------


def _annotators(subject, *labels):
    return [human(subject, f"annotator{i}", x) for i, x in enumerate(labels, 1)]


def test_judge_vs_human_majority():
    hs = _annotators("p", "1", "1", "2")
    j = pw("p", "gpt", "2")
    [d] = find_disputes([j, *hs])
    assert (d.kind, d.severity) == (DisputeKind.HUMAN, 1.0)
    assert d.verdict_ids == sorted([j.id, *(h.id for h in hs)])
    assert "human majority 1" in d.detail
    assert find_disputes([pw("p", "gpt", "1"), *_annotators("p", "1", "1", "2")]) == []


def test_judge_vs_human_no_majority_is_no_dispute():
    assert find_disputes([pw("p", "gpt", "2"), *_annotators("p", "1", "2")]) == []


def test_judge_vs_human_tie_against_winner_is_half():
    assert kinds(find_disputes([pw("p", "gpt", "tie"), *_annotators("p", "2", "2", "2")])) == [
        (DisputeKind.HUMAN, "p", "winner", 0.5)
    ]


def test_gold_is_the_reference_when_present():
    vs = [pw("p", "gpt", "1"), human("p", "gold", "2"), *_annotators("p", "1", "1")]
    [d] = find_disputes(vs)
    assert d.kind == DisputeKind.HUMAN and "gold 2" in d.detail


def test_judge_vs_human_ordinal_beyond_tolerance():
    hs = [human("run:1", f"annotator{i}", x, Scale.ORDINAL5, "overall") for i, x in enumerate((2, 2, 3), 1)]
    assert kinds(find_disputes([v(judge="llm", scores={"overall": 4}), *hs])) == [
        (DisputeKind.HUMAN, "run:1", "overall", 0.5)
    ]
    assert find_disputes([v(judge="llm", scores={"overall": 3}), *hs]) == []


# -- judge vs structural metrics ------------------------------------------------------


def test_top_score_against_hallucinated_cards():
    j = v("run:7", "llama", {"tarot_coherence": 5, "overall": 5, "tone": 5})
    found = find_disputes([j], {"run:7": {"hallucinatedCards": ["The Tower"], "cardCoverage": 1.0}})
    assert kinds(found) == [
        (DisputeKind.METRICS, "run:7", "overall", 1.0),
        (DisputeKind.METRICS, "run:7", "tarot_coherence", 1.0),
    ]
    assert "The Tower" in found[0].detail and found[0].verdict_ids == [j.id]


def test_metrics_not_disputed_below_top_or_when_clean():
    assert find_disputes([v("run:7", "llama", {"tarot_coherence": 4})], {"run:7": {"hallucinatedCards": 2}}) == []
    assert (
        find_disputes(
            [v("run:7", "llama", {"tarot_coherence": 5})], {"run:7": {"hallucinatedCards": [], "cardCoverage": 0.95}}
        )
        == []
    )


def test_metrics_counts_coverage_tone_and_card_reading_findings():
    assert [d.dimension for d in find_disputes([v("s", "j", {"overall": 5})], {"s": {"hallucinatedCards": 2}})] == [
        "overall"
    ]
    assert [
        d.dimension for d in find_disputes([v("s", "j", {"tarot_coherence": 5})], {"s": {"cardCoverage": 0.5}})
    ] == ["tarot_coherence"]
    assert [d.dimension for d in find_disputes([v("s", "j", {"tone": 5})], {"s": {"deterministicLanguage": True}})] == [
        "tone"
    ]
    assert [d.dimension for d in find_disputes([v("s", "j", {"accuracy": 5})], {"s": {"halluc_findings": 1}})] == [
        "accuracy"
    ]


def test_own_issues_contradict_a_top_score():
    found = find_disputes([v("s", "j", {"tarot_coherence": 5, "overall": 3}, issues=["hallucinated card"])])
    assert kinds(found) == [(DisputeKind.METRICS, "s", "tarot_coherence", 1.0)]
    assert "issues_found" in found[0].detail


def test_metric_table_is_extensible():
    extra = METRIC_PROBLEMS + (MetricProblem("toxicity", ("safety",), lambda x: "toxic" if x > 0.5 else None),)
    assert find_disputes([v("s", "j", {"safety": 5})], {"s": {"toxicity": 0.9}}) == []
    assert kinds(find_disputes([v("s", "j", {"safety": 5})], {"s": {"toxicity": 0.9}}, problems=extra)) == [
        (DisputeKind.METRICS, "s", "safety", 1.0)
    ]
    assert metric_problems({"toxicity": "odd"}, extra) == []  # a failing test is skipped


# -- order and severity -----------------------------------------------------------


def test_most_severe_first_and_deterministic():
    vs = [
        v("run:2", "a", {"tone": 5}),
        v("run:2", "b", {"tone": 2}),  # 0.75
        v("run:10", "a", {"tone": 5}),
        v("run:10", "b", {"tone": 3}),  # 0.5
        pw("pair:1:2", "g", "1", "ab"),
        pw("pair:1:2", "g", "2", "ba"),  # 1.0
        v("run:3", "a", {"tone": 1}),
        v("run:3", "b", {"tone": 3}),
    ]  # 0.5
    found = find_disputes(vs)
    assert [(d.subject, d.severity) for d in found] == [
        ("pair:1:2", 1.0),
        ("run:2", 0.75),
        ("run:3", 0.5),
        ("run:10", 0.5),
    ]
    shuffled = vs[:]
    random.Random(1).shuffle(shuffled)
    assert find_disputes(shuffled) == found


@pytest.mark.parametrize(
    "values,scale,expected",
    [
        ([5.0, 1.0], Scale.ORDINAL5, 1.0),
        ([4.0, 4.0], Scale.ORDINAL5, 0.0),
        (["1", "2", "tie"], Scale.WINNER, 1.0),
        (["pass", "fail"], Scale.PASS_FAIL, 1.0),
        ([0.0, 30.0], Scale.PERCENT, 0.3),
        ([None, 5.0], Scale.ORDINAL5, 0.0),
    ],
)
def test_severity_of(values, scale, expected):
    assert severity_of(values, scale) == pytest.approx(expected)


def test_path_b_score_weighs_both_judges_or_keeps_the_one():
    from reviewer.core.judging.verdicts import path_b_score

    assert path_b_score(80.0, 40.0, 0.25, 0.75) == 50.0
    assert path_b_score(80.0, None, 0.25, 0.75) == 80.0
    assert path_b_score(None, 40.0, 0.25, 0.75) == 40.0
    assert path_b_score(None, None, 0.5, 0.5) is None
