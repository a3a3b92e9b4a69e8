"""The span-labeling design's correctness properties P1-P11
(span-labeling-evaluation-design.md), one hypothesis test per property, named
after it, plus examples of the rules where the design and the snapshots' own
code disagree."""

from __future__ import annotations

import json
import math
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.core.spans import golden as g
from reviewer.core.spans.compare import compare_snapshots
from reviewer.core.spans.responses import (
    convert_basic_to_enhanced,
    format_spans_for_judge,
    parse_judge_response,
    validate_enhanced,
)
from reviewer.core.spans.sections import detect_sections, span_section, tag_spans
from reviewer.core.spans.snapshots import (
    CATEGORIES,
    FALSE_POSITIVE_REASONS,
    category_averages,
    false_positive_reasons,
    taxonomy_confusions,
)
from reviewer.core.spans.summary import (
    bucket_of,
    compute_summary,
    confidence_analysis,
    load_snapshot,
    recommend_threshold,
)

settings.register_profile("spans", max_examples=100, deadline=None)
settings.load_profile("spans")

score = st.integers(1, 5)
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
role = st.sampled_from(g.ROLES)
category_scores = st.fixed_dictionaries(
    {c: st.fixed_dictionaries({"coverage": score, "precision": score}) for c in CATEGORIES}
)
missed = st.fixed_dictionaries(
    {
        "text": text,
        "expectedRole": role,
        "category": st.sampled_from(CATEGORIES),
        "severity": st.sampled_from(["critical", "important", "minor"]),
    }
)
fp = st.fixed_dictionaries(
    {
        "spanIndex": st.integers(0, 20),
        "text": text,
        "assignedRole": role,
        "reason": st.sampled_from(FALSE_POSITIVE_REASONS),
    }
)
te = st.fixed_dictionaries({"spanIndex": st.integers(0, 20), "text": text, "assignedRole": role, "expectedRole": role})
ge = st.fixed_dictionaries(
    {
        "spanIndex": st.integers(0, 20),
        "text": text,
        "issue": st.sampled_from(["too_fine", "too_coarse"]),
        "suggestion": text,
    }
)
enhanced = st.fixed_dictionaries(
    {
        "scores": st.fixed_dictionaries(
            {k: score for k in ("coverage", "precision", "granularity", "taxonomy", "technicalSpecs")}
        ),
        "totalScore": st.integers(0, 25),
        "missedElements": st.lists(missed, max_size=4),
        "falsePositives": st.lists(fp, max_size=4),
        "taxonomyErrors": st.lists(te, max_size=4),
        "granularityErrors": st.lists(ge, max_size=4),
        "categoryScores": category_scores,
        "notes": text,
    }
)


@given(enhanced)
def test_p1_enhanced_judge_result_schema_round_trip(result):
    parsed, errors = validate_enhanced(json.loads(json.dumps(result)))
    assert errors == [] and parsed == result
    again, warnings = parse_judge_response("Here you go:\n```json\n" + json.dumps(result) + "\n```", 21)
    assert again == result and warnings == []


@given(
    st.one_of(
        st.fixed_dictionaries(
            {
                "scores": st.fixed_dictionaries({"coverage": score}),
                "missedElements": st.lists(text, max_size=3),
                "incorrectExtractions": st.lists(text, max_size=3),
            }
        ),
        st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    )
)
def test_p2_fallback_parsing_produces_valid_defaults(basic):
    out = convert_basic_to_enhanced(basic)
    assert set(out) == {
        "scores",
        "totalScore",
        "missedElements",
        "falsePositives",
        "taxonomyErrors",
        "granularityErrors",
        "categoryScores",
        "notes",
    }
    assert out["categoryScores"] == {c: {"coverage": 3, "precision": 3} for c in CATEGORIES}  # the design's 3
    assert out["taxonomyErrors"] == [] and out["granularityErrors"] == []
    assert [m["text"] for m in out["missedElements"]] == list(basic.get("missedElements") or [])
    assert all(m["category"] == "unknown" and m["severity"] == "minor" for m in out["missedElements"])
    assert all(f["spanIndex"] == -1 and f["reason"] == "other" for f in out["falsePositives"])
    assert len(out["falsePositives"]) == len(basic.get("incorrectExtractions") or [])
    parsed, warnings = parse_judge_response(json.dumps(basic), 3)
    assert parsed == out and warnings


def test_p2_no_json_and_out_of_range_span_index():
    out, warnings = parse_judge_response("the judge timed out", 5)
    assert out["totalScore"] == 0 and out["scores"] == dict.fromkeys(out["scores"], 0) and warnings
    result = {
        "scores": dict.fromkeys(("coverage", "precision", "granularity", "taxonomy", "technicalSpecs"), 4),
        "totalScore": 20,
        "missedElements": [],
        "taxonomyErrors": [],
        "granularityErrors": [],
        "falsePositives": [{"spanIndex": 9, "text": "x", "assignedRole": "shot.type", "reason": "other"}],
        "categoryScores": {c: {"coverage": 4, "precision": 4} for c in CATEGORIES},
        "notes": "",
    }
    out, warnings = parse_judge_response(json.dumps(result), 3)
    assert out["falsePositives"][0]["spanIndex"] == -1 and warnings == ["Invalid spanIndex 9 (max: 2)"]


HEADERS = [
    "**TECHNICAL SPECS**",
    "**Technical Specifications**",
    "**technical specs**",
    "**ALTERNATIVE APPROACHES**",
    "**ALTERNATIVE**",
    "**VARIATIONS**",
    "**Variations**",
]
plain = st.text(st.characters(whitelist_categories=("Ll", "Lu", "Zs"), whitelist_characters="\n.-:"), max_size=60)


@given(plain, st.lists(st.tuples(st.sampled_from(HEADERS), plain), max_size=2))
def test_p3_section_boundary_detection(head, parts):
    text = head + "".join("\n\n" + h + "\n" + body for h, body in parts)
    s = detect_sections(text)
    tech = [text.find(h) for h, _ in parts if "TECHNICAL" in h.upper()]
    alt = [text.find(h) for h, _ in parts if "TECHNICAL" not in h.upper()]
    assert s.main.start == 0
    firsts = [x for x in (min(tech, default=None), min(alt, default=None)) if x is not None]
    assert s.main.end == (min(firsts) if firsts else len(text))
    assert (s.technicalSpecs.start if s.technicalSpecs else None) == min(tech, default=None)
    assert (s.alternatives.start if s.alternatives else None) == min(alt, default=None)
    for b in (s.technicalSpecs, s.alternatives):
        if b:
            assert b.start < b.end <= len(text)


def test_p3_empty_prompt_and_header_position():
    s = detect_sections("")
    assert (s.main.start, s.main.end, s.technicalSpecs, s.alternatives) == (0, 0, None, None)
    text = "Wide shot.\n\n**TECHNICAL SPECS**\n- 8s\n\n**ALTERNATIVE APPROACHES**\n- dusk"
    s = detect_sections(text)
    assert text[s.technicalSpecs.start :].startswith("**TECHNICAL")  # the design: at the header, not the blank line
    assert s.technicalSpecs.end == s.alternatives.start == text.index("**ALTERNATIVE")


@given(st.integers(0, 200), st.integers(0, 200), st.integers(0, 200), st.integers(0, 200))
def test_p4_span_section_tagging_correctness(start, a, b, c):
    text = "x" * 200
    lo, mid = sorted((a, b))
    text = text[:lo] + "**TECHNICAL SPECS**" + text[lo:mid] + "**VARIATIONS**" + text[mid:]
    s = detect_sections(text)
    section = span_section(start, s)
    if s.technicalSpecs and s.technicalSpecs.start <= start < s.technicalSpecs.end:
        assert section == "technicalSpecs"
    elif s.alternatives and s.alternatives.start <= start < s.alternatives.end:
        assert section == "alternatives"
    else:
        assert section == "main"
    [tagged] = tag_spans([{"start": start, "end": start + 1, "text": "t"}], s)
    assert tagged["section"] == section


def _result(judge, spans=(), pid="p", output="o"):
    return {"promptId": pid, "input": "i", "output": output, "spans": list(spans), "judgeResult": judge}


@given(st.lists(enhanced, min_size=1, max_size=6))
def test_p5_summary_category_score_aggregation(judges):
    judges = [dict(j, totalScore=max(1, j["totalScore"])) for j in judges]
    avg = category_averages([_result(j) for j in judges], digits=None)
    for c in CATEGORIES:
        for k in ("coverage", "precision"):
            expected = sum(j["categoryScores"][c][k] for j in judges) / len(judges)
            assert math.isclose(avg[c][k], expected)


@given(st.lists(enhanced, min_size=0, max_size=6))
def test_p6_summary_error_aggregation(judges):
    judges = [dict(j, totalScore=max(1, j["totalScore"])) for j in judges]
    results = [_result(j) for j in judges]
    reasons = false_positive_reasons(results)
    for r in FALSE_POSITIVE_REASONS:
        assert reasons[r] == sum(1 for j in judges for f in j["falsePositives"] if f["reason"] == r)
    pairs: dict = {}
    for j in judges:
        for e in j["taxonomyErrors"]:
            pairs[(e["assignedRole"], e["expectedRole"])] = pairs.get((e["assignedRole"], e["expectedRole"]), 0) + 1
    top = taxonomy_confusions(results)
    assert len(top) == min(10, len(pairs))
    assert [c.count for c in top] == sorted((c.count for c in top), reverse=True)
    assert all(pairs[(c.assigned, c.expected)] == c.count for c in top)
    if top:  # nothing left out counts more than the last kept
        kept = {(c.assigned, c.expected) for c in top}
        assert all(n <= top[-1].count for k, n in pairs.items() if k not in kept)


old_snapshot = st.fixed_dictionaries(
    {
        "timestamp": st.just("2025-01-01"),
        "judgeModel": st.just("j"),
        "results": st.lists(
            st.fixed_dictionaries(
                {
                    "promptId": st.text(min_size=1, max_size=5),
                    "input": text,
                    "output": text,
                    "spanCount": st.integers(0, 5),
                    "judgeResult": st.fixed_dictionaries(
                        {
                            "scores": st.fixed_dictionaries({"coverage": score}),
                            "totalScore": st.integers(0, 25),
                            "missedElements": st.lists(text, max_size=2),
                            "incorrectExtractions": st.lists(text, max_size=2),
                        }
                    ),
                }
            ),
            max_size=4,
        ),
        "summary": st.fixed_dictionaries({"avgScore": st.floats(0, 25)}),
    }
)


@given(old_snapshot)
def test_p7_backward_compatibility_with_defaults(data):
    loaded = load_snapshot(data)
    s = compute_summary(loaded)
    assert set(s["avgCategoryScores"]) == set(CATEGORIES)
    assert set(s["falsePositiveReasons"]) == set(FALSE_POSITIVE_REASONS)
    assert set(s["errorsBySection"]) == {"main", "technicalSpecs", "alternatives"}
    judged = [r for r in data["results"] if r["judgeResult"]["totalScore"] > 0]
    assert s["falsePositiveReasons"]["other"] == sum(len(r["judgeResult"]["incorrectExtractions"]) for r in judged)
    if judged:  # basic results score every category 3 / 3 (the design's default)
        assert all(v == {"coverage": 3, "precision": 3} for v in s["avgCategoryScores"].values())
    assert s["topTaxonomyErrors"] == [] and loaded["summary"] == data["summary"]


spans_st = st.lists(
    st.fixed_dictionaries(
        {
            "text": text,
            "role": role,
            "confidence": st.floats(0, 1),
            "start": st.integers(0, 100),
            "end": st.integers(0, 100),
        }
    ),
    max_size=12,
)


@given(
    spans_st,
    st.lists(st.integers(0, 15), max_size=6),
    st.lists(st.integers(0, 15), max_size=4),
    st.lists(st.integers(-1, 15), max_size=4),
)
def test_p8_confidence_bucket_computation(spans, fps, tes, ges):
    judge = {
        "falsePositives": [{"spanIndex": i} for i in fps],
        "taxonomyErrors": [{"spanIndex": i} for i in tes],
        "granularityErrors": [{"spanIndex": i} for i in ges],
        "totalScore": 20,
    }
    ca = confidence_analysis([_result(judge, spans)])
    named = {i for i in fps + tes + ges if 0 <= i < len(spans)}
    for name, low, high in (("high", 0.8, 9), ("medium", 0.6, 0.8), ("low", -1, 0.6)):
        members = [i for i, s in enumerate(spans) if low <= s["confidence"] < high]
        b = ca["buckets"][name]
        assert b["total"] == len(members)
        assert b["errors"] == len([i for i in members if i in named])
        assert b["errorRate"] == (b["errors"] / b["total"] if b["total"] else 0)
    assert bucket_of(0.8) == "high" and bucket_of(0.6) == "medium" and bucket_of(0.59) == "low"


rate = st.floats(0, 1)


@given(rate, rate, rate)
def test_p9_confidence_threshold_recommendation(high, medium, low):
    buckets = {"high": {"errorRate": high}, "medium": {"errorRate": medium}, "low": {"errorRate": low}}
    threshold, notes = recommend_threshold(buckets)
    if low > 0.5:
        assert threshold == 0.6
    elif medium > 0.5:
        assert threshold == 0.8
    else:
        assert threshold is None and "appropriate" in notes


def _snap(scores, confusions, pid_scores):
    results = [
        _result(
            {
                "scores": {},
                "totalScore": t,
                "missedElements": [],
                "falsePositives": [],
                "taxonomyErrors": [{"text": "x", "assignedRole": a, "expectedRole": e} for a, e in confusions],
                "granularityErrors": [],
                "categoryScores": scores,
                "notes": "",
            },
            pid=pid,
        )
        for pid, t in pid_scores
    ]
    return load_snapshot({"judgeModel": "j", "results": results})


pairs_st = st.lists(st.tuples(st.sampled_from(g.ROLES[:4]), st.sampled_from(g.ROLES[:4])), max_size=4)


@given(
    category_scores,
    category_scores,
    pairs_st,
    pairs_st,
    st.lists(st.integers(1, 25), min_size=1, max_size=5),
    st.lists(st.integers(1, 25), min_size=1, max_size=5),
)
def test_p10_snapshot_comparison_deltas(cat_a, cat_b, conf_a, conf_b, totals_a, totals_b):
    a = _snap(cat_a, conf_a, list(enumerate(totals_a)))
    b = _snap(cat_b, conf_b, list(enumerate(totals_b)))
    sa, sb = compute_summary(a), compute_summary(b)
    c = compare_snapshots(a, b, sa, sb)
    for cat in CATEGORIES:
        for k in ("coverage", "precision"):
            assert math.isclose(c["category_deltas"][cat][k], cat_b[cat][k] - cat_a[cat][k], abs_tol=1e-9)
    new = {(x["assigned_role"], x["expected_role"]) for x in c["new_confusions"]}
    resolved = {(x["assigned_role"], x["expected_role"]) for x in c["resolved_confusions"]}
    assert new == set(conf_b) - set(conf_a) and resolved == set(conf_a) - set(conf_b)
    assert math.isclose(c["score_delta"], sb["avgScore"] - sa["avgScore"])
    for d in c["regressions"]:
        assert d["delta"] <= -3
    for d in c["improvements"]:
        assert d["delta"] >= 3
    shared = min(len(totals_a), len(totals_b))
    moved = [totals_b[i] - totals_a[i] for i in range(shared)]
    assert len(c["regressions"]) == sum(1 for m in moved if m <= -3)
    assert len(c["improvements"]) == sum(1 for m in moved if m >= 3)


one_line = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=30)


@given(st.lists(st.fixed_dictionaries({"text": one_line, "role": role, "confidence": st.floats(0, 1)}), max_size=12))
def test_p11_span_formatting_for_judge(spans):
    out = format_spans_for_judge(spans)
    lines = out.split("\n") if spans else [""]
    assert (out == "") == (not spans)
    for i, (line, span) in enumerate(zip(lines, spans)):
        assert line.startswith(f"[{i}] '{span['text']}' ({span['role']}, ")
        conf = re.search(r", (\d+\.\d\d)\)$", line)
        assert conf and abs(float(conf.group(1)) - span["confidence"]) <= 0.005 + 1e-9


def test_p11_example_from_the_design():
    assert (
        format_spans_for_judge([{"text": "Medium Shot", "role": "shot.type", "confidence": 0.95}])
        == "[0] 'Medium Shot' (shot.type, 0.95)"
    )
    assert (
        format_spans_for_judge([{"text": "a", "role": "r", "confidence": 0.125}]) == "[0] 'a' (r, 0.13)"
    )  # JS toFixed


# -- golden spans and span F1 -----------------------------------------------------------
gspan = st.builds(
    lambda s, n, r: {"start": s, "end": s + n, "role": r},
    st.integers(0, 50),
    st.integers(1, 10),
    st.sampled_from(g.ROLES[:3]),
)


@given(st.lists(gspan, max_size=6), st.lists(gspan, max_size=6))
def test_span_f1_exact_is_at_most_relaxed_and_identity_is_perfect(pred, gold):
    exact, relaxed = g.match_counts(pred, gold, "exact"), g.match_counts(pred, gold, "relaxed")
    assert exact.tp <= relaxed.tp <= min(len(pred), len(gold))
    same = g.match_counts(gold, gold, "exact")
    assert same.tp == len(gold) and (same.f1 == 1.0 or not gold)


@given(st.text(max_size=20), st.integers(0, 30))
def test_utf16_offsets_round_trip(text, index):
    index = min(index, len(text))
    assert g.utf16_to_index(text, g.index_to_utf16(text, index)) == index
