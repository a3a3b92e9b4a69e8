"""reviewer.core.spans.snapshots: span-labeling judge results and the statistics of a
snapshot's summary block (span-labeling-evaluation-design.md, properties 5
and 6), on invented results and on the real baseline snapshot."""

from __future__ import annotations

import json

import pytest

from reviewer.core.spans import snapshots as spans
from tests.helpers.paths import shared


def _judge(cats=None, fps=(), tax=(), missed=(), gran=(), total=20, scores=None):
    return {
        "scores": scores or {"coverage": 4, "precision": 4, "granularity": 4, "taxonomy": 4, "technicalSpecs": 4},
        "totalScore": total,
        "missedElements": list(missed),
        "falsePositives": list(fps),
        "taxonomyErrors": list(tax),
        "granularityErrors": list(gran),
        "categoryScores": cats if cats is not None else {c: {"coverage": 3, "precision": 3} for c in spans.CATEGORIES},
        "notes": "n",
    }


def _result(judge, **kw):
    return {
        "promptId": kw.get("pid", "p"),
        "input": "i",
        "output": "o",
        "spans": [],
        "judgeResult": judge,
        "error": kw.get("error"),
    }


def _cats(**pairs):
    out = {c: {"coverage": 3, "precision": 3} for c in spans.CATEGORIES}
    out.update({k: {"coverage": v[0], "precision": v[1]} for k, v in pairs.items()})
    return out


def test_round_half_up_is_javascripts_math_round():
    assert spans.round_half_up(2.125) == 2.13  # Python's round gives 2.12
    assert round(2.125, 2) == 2.12
    # values checked against node: Math.round(x * 100) / 100
    assert spans.round_half_up(2.675) == 2.68
    assert spans.round_half_up(1.005) == 1.0  # 1.005 * 100 is 100.49999999999999
    assert spans.round_half_up(-0.025) == -0.02  # halves go up, also below 0
    assert spans.round_half_up(0.49999999999999994, 0) == 0  # floor(x + 0.5) would give 1
    assert spans.round_half_up(1.0) == 1.0


def test_category_averages_skip_pairs_outside_1_to_5_and_failed_results():
    results = [
        _result(_judge(_cats(audio=(0, 0), shot=(5, 4)))),
        _result(_judge(_cats(audio=(2, 0), shot=(1, 2)))),
        _result(_judge(_cats(audio=(4, 3), shot=(3, 3)))),
        _result(_judge(_cats(audio=(5, 5), shot=(5, 5)), total=0)),  # failed judge call: not counted
        _result(None, error="timeout"),  # no judge result
    ]
    avg = spans.category_averages(results)
    assert set(avg) == set(spans.CATEGORIES)
    # design: category scores are 1-5 and invalid categories are skipped, so (0,0) and (2,0) are
    # both left out (the snapshots' own code kept (2,0))
    assert avg["audio"] == {"coverage": 4.0, "precision": 3.0}
    assert avg["shot"] == {"coverage": 3.0, "precision": 3.0}
    assert spans.category_averages([]) == {c: {"coverage": 0, "precision": 0} for c in spans.CATEGORIES}


def test_category_averages_round_half_up():
    covs = [3, 3, 2, 2, 2, 2, 2, 1]  # mean 2.125
    results = [_result(_judge(_cats(style=(c, 4)))) for c in covs]
    assert spans.category_averages(results)["style"]["coverage"] == 2.13
    assert spans.category_averages(results, digits=None)["style"]["coverage"] == 2.125


def test_missing_and_out_of_range_category_scores():
    cats = _cats()
    del cats["audio"]
    cats["camera"] = {"coverage": 9, "precision": "x"}  # clamped to 5, not a number -> 0: invalid pair
    cats["style"] = {"coverage": 9, "precision": 2}  # clamped to 5: a valid pair
    avg = spans.category_averages([_result(_judge(cats))])
    assert avg["audio"] == {"coverage": 0, "precision": 0}
    assert avg["camera"] == {"coverage": 0, "precision": 0}
    assert avg["style"] == {"coverage": 5.0, "precision": 2.0}


def test_false_positive_reasons_count_unknown_as_other():
    fps = [
        {"text": "a", "assignedRole": "x", "reason": "duplicate"},
        {"text": "b", "assignedRole": "x", "reason": "duplicate"},
        {"text": "c", "assignedRole": "x", "reason": "made_up"},
        {"text": "d", "assignedRole": "x", "reason": "section_header", "spanIndex": None},
    ]
    counts = spans.false_positive_reasons([_result(_judge(fps=fps)), _result(_judge(fps=fps, total=0))])
    assert counts == {
        "section_header": 1,
        "abstract_concept": 0,
        "non_visual": 0,
        "instruction_text": 0,
        "duplicate": 2,
        "other": 1,
    }
    assert list(counts) == list(spans.FALSE_POSITIVE_REASONS)


def test_taxonomy_confusions_rank_ties_first_seen_and_keep_ten():
    def te(a, e, text="t"):
        return {"text": text, "assignedRole": a, "expectedRole": e, "spanIndex": 0}

    first = [te("b", "x", "b1"), te("a", "x", "a1"), te("a", "x", "a2")]
    second = [te("b", "x", "b2"), te("c", "y"), te("a", "x", "a3"), te("a", "x", "a4")]
    second += [te(f"r{i}", "z") for i in range(12)]
    confusions = spans.taxonomy_confusions([_result(_judge(tax=first)), _result(_judge(tax=second))])
    assert len(confusions) == 10
    assert (confusions[0].assigned, confusions[0].expected, confusions[0].count) == ("a", "x", 4)
    assert confusions[0].examples == ("a1", "a2", "a3")  # at most 3, in order found
    assert (confusions[1].assigned, confusions[1].count) == ("b", 2)
    assert [c.assigned for c in confusions[2:]] == ["c"] + [f"r{i}" for i in range(7)]  # ties: first seen
    assert confusions[0].to_json() == {
        "assignedRole": "a",
        "expectedRole": "x",
        "count": 4,
        "examples": ["a1", "a2", "a3"],
    }
    assert len(spans.taxonomy_confusions([_result(_judge(tax=second))], top=None)) == 15


def test_legacy_judge_result_is_normalised():
    legacy = {
        "scores": {"coverage": 3, "precision": 2, "granularity": 4, "taxonomy": 4, "technicalSpecs": 5},
        "totalScore": 18,
        "missedElements": ["dog"],
        "incorrectExtractions": ["TECHNICAL SPECS"],
    }
    j = spans.normalise_judge_result(legacy)
    assert j["falsePositives"] == [{"text": "TECHNICAL SPECS", "assignedRole": "unknown", "reason": "other"}]
    assert j["missedElements"][0]["category"] == "unknown"
    assert spans.false_positive_reasons([_result(legacy)])["other"] == 1
    assert spans.missed_by_category([_result(legacy)]) == {"unknown": 1}
    assert spans.issue_lines(legacy) == [
        'missed: "dog" (unknown: unknown, minor)',
        'false positive: "TECHNICAL SPECS" as unknown (other)',
    ]


def test_issue_lines_are_readable():
    judge = _judge(
        missed=[
            {
                "text": "golden hour",
                "expectedRole": "lighting.timeOfDay",
                "category": "lighting",
                "severity": "important",
            }
        ],
        fps=[{"text": "TECHNICAL SPECS", "assignedRole": "technical", "reason": "section_header", "spanIndex": 12}],
        tax=[
            {
                "text": "slow pan",
                "assignedRole": "action.movement",
                "expectedRole": "camera.movement",
                "spanIndex": None,
            }
        ],
        gran=[
            {"text": "soft", "spanIndex": 3, "issue": "too_fine", "suggestion": "soft highlights"},
            {"text": "man in rain", "spanIndex": 4, "reason": "too_coarse"},
        ],
    )
    assert spans.issue_lines(judge) == [
        'missed: "golden hour" (lighting: lighting.timeOfDay, important)',
        'false positive: "TECHNICAL SPECS" as technical (section_header) [span 12]',
        'taxonomy: "slow pan" action.movement -> camera.movement',
        'granularity: "soft" too_fine (suggest: soft highlights) [span 3]',
        'granularity: "man in rain" too_coarse [span 4]',
    ]


def test_score_range():
    assert spans.score_range(_judge()) == "1-5"
    assert spans.score_range(_judge(scores={"coverage": 80, "precision": 100})) == "0-100"
    assert spans.score_range(_judge(scores={"coverage": 180})) is None
    assert spans.score_range({"scores": {}}) is None


def test_compare_summary_reports_differences():
    results = [_result(_judge(fps=[{"text": "a", "assignedRole": "x", "reason": "duplicate"}]))]
    mine = spans.summary(results)
    assert all(not d for d in spans.compare_summary(mine, dict(mine)).values())
    theirs = json.loads(json.dumps(mine))
    theirs["falsePositiveReasons"]["duplicate"] = 2
    theirs["avgCategoryScores"]["shot"]["coverage"] = 2.99
    del theirs["topTaxonomyErrors"]
    diffs = spans.compare_summary(mine, theirs)
    assert "topTaxonomyErrors" not in diffs
    assert diffs["falsePositiveReasons"] == ["falsePositiveReasons.duplicate: computed 1, file 2"]
    assert diffs["avgCategoryScores"] == ["avgCategoryScores.shot.coverage: computed 3.0, file 2.99"]


# -- the real snapshot (MIT, read from ../shared/data) -----------------------------
@pytest.fixture(scope="module")
def baseline():
    path = shared("span-labeling") / "snapshots" / "baseline.json"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return json.loads(path.read_text(encoding="utf-8"))


def test_baseline_category_averages_equal_the_summary_block_except_invalid_pairs(baseline):
    """Property 5: avgCategoryScores. The block equals ours except action and
    audio, where one result each has a pair with precision 0 (outside 1-5):
    the file's code counted it, the design skips it."""
    assert len(baseline["results"]) == 54
    ours, block = spans.category_averages(baseline["results"]), baseline["summary"]["avgCategoryScores"]
    assert {c: v for c, v in ours.items() if c not in ("action", "audio")} == {
        c: v for c, v in block.items() if c not in ("action", "audio")
    }
    assert ours["action"] == {"coverage": 1.96, "precision": 2.38} and block["action"] == {
        "coverage": 1.94,
        "precision": 2.33,
    }
    assert ours["audio"] == {"coverage": 1.51, "precision": 1.79} and block["audio"] == {
        "coverage": 1.5,
        "precision": 1.75,
    }


def test_baseline_false_positive_reasons_equal_the_summary_block(baseline):
    """Property 6: falsePositiveReasons."""
    counts = spans.false_positive_reasons(baseline["results"])
    assert counts == baseline["summary"]["falsePositiveReasons"]
    assert sum(counts.values()) == 81


def test_baseline_taxonomy_confusions_equal_the_summary_block(baseline):
    """Property 6: topTaxonomyErrors, order, counts and examples."""
    confusions = [c.to_json() for c in spans.taxonomy_confusions(baseline["results"])]
    assert confusions == baseline["summary"]["topTaxonomyErrors"]


def test_baseline_other_summary_fields(baseline):
    summary = baseline["summary"]
    assert spans.average_total(baseline["results"]) == summary["avgScore"]
    assert spans.missed_by_category(baseline["results"]) == summary["missedCountsByCategory"]
    diffs = spans.compare_summary(spans.summary(baseline["results"]), summary)
    assert {k for k, d in diffs.items() if d} == {"avgCategoryScores"}
