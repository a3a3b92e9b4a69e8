"""The CICADA rule metrics as data, scored by hand.

Every expected score below is computed from the seed's scoring
(test-case-evaluation-framework.md, "Metrics"), written out in the comment
beside it: citationAccuracy 1.0 / error 0.0 / -0.2 per warning;
theoryCoherence 1.0 / error 0.3 / -0.15 per warning; storyCoherence 1.0 /
error 0.0 / -0.2 per warning; overallCorrectness 1.0 / error 0.0 / -0.15
per warning; case score by category (citation: CA; theory: 0.6 TC + 0.4 CA;
story: 0.7 SC + 0.3 OC; general: OC), pass at >= 0.7.
"""

from __future__ import annotations

import pytest

from reviewer.core.cases.metrics import Condition, MetricsError, evaluate, metric_set
from reviewer.core.cases.model import TestCase, parse_dataset, query_of
from reviewer.core.cases.scoring import case_score, citations, findings_of
from reviewer.core.models import CaseCode, Finding, Source, Status
from reviewer.storage.cases.cases import preset_metrics

M = preset_metrics()

MION = TestCase(
    id="c-mion",
    dataset="citation-accuracy",
    query="How does Mion's behavior differ between Onikakushi and Watanagashi?",
    context={"userId": "t", "episodeScope": ["onikakushi", "watanagashi"]},
    expected={
        "shouldCite": True,
        "citationCount": 2,
        "episodeReferences": ["onikakushi", "watanagashi"],
        "shouldMentionCharacters": ["Mion"],
    },
    metadata={"category": "citation", "difficulty": "medium", "description": "comparison"},
)
DAM = TestCase(
    id="c-dam",
    dataset="citation-accuracy",
    query="What is the significance of the dam project?",
    context={"userId": "t"},
    expected={"shouldCite": True, "citationCount": 3, "shouldMentionCharacters": []},
    metadata={"category": "citation", "difficulty": "hard"},
)
RENA = TestCase(
    id="s-rena",
    dataset="story-coherence",
    query="Tell me about Rena's character",
    context={"userId": "t", "episodeScope": ["onikakushi"]},
    expected={
        "shouldCite": True,
        "episodeReferences": ["onikakushi"],
        "shouldMentionCharacters": ["Rena"],
        "shouldAvoidSpoilers": True,
    },
    metadata={"category": "story", "difficulty": "easy"},
)
TWINS = TestCase(
    id="t-twins",
    dataset="theory-coherence",
    query="I think Mion and Shion might be switching places. What evidence supports this?",
    context={"userId": "t", "episodeScope": ["watanagashi"]},
    expected={
        "shouldCite": True,
        "citationCount": 2,
        "episodeReferences": ["watanagashi"],
        "shouldMentionCharacters": ["Mion", "Shion"],
    },
    metadata={"category": "theory", "difficulty": "medium"},
)
CAST = TestCase(
    id="g-cast",
    dataset="general-correctness",
    query="Who are the main characters in Higurashi?",
    context={"userId": "t"},
    expected={"shouldCite": False, "shouldMentionCharacters": ["Keiichi", "Rena", "Mion", "Satoko", "Rika"]},
    metadata={"category": "general", "difficulty": "easy"},
)
SETTING = TestCase(
    id="g-setting",
    dataset="general-correctness",
    query="What is the setting of Higurashi?",
    context={"userId": "t"},
    expected={"shouldCite": False},
    metadata={"category": "general", "difficulty": "easy"},
)

PERFECT = (
    "Mion seems cheerful in Onikakushi because she leads the club games "
    "[Episode: onikakushi, Chapter: 2, Speaker: Mion]. However, in Watanagashi the evidence suggests "
    "her behavior might differ, as the festival shows [Episode: watanagashi, Chapter: 5, Speaker: Mion]."
)


def fired(case, answer):
    return {(o.metric, o.check) for o in evaluate(M, case, answer) if o.fired}


def scored(case, answer):
    """Fired checks of the metrics that make the case's score (theory checks run on every case but
    count only where the category weighs them)."""
    weights = M.scoring.categories[case.category]
    return {(m, c) for m, c in fired(case, answer) if m in weights}


def auto(case, answer):
    return case_score(case, findings_of(evaluate(M, case, answer), answer), M)


def test_preset_has_the_four_metrics_and_the_cicada_case_scoring():
    assert [m.name for m in M.metrics] == [
        "citationAccuracy",
        "theoryCoherence",
        "storyCoherence",
        "overallCorrectness",
    ]
    assert M.scoring.pass_mark == 0.7
    assert M.scoring.categories["theory"] == {"theoryCoherence": 0.6, "citationAccuracy": 0.4}
    assert M.scoring.categories["story"] == {"storyCoherence": 0.7, "overallCorrectness": 0.3}


def test_an_answer_that_passes_everything_scores_1():
    assert fired(MION, PERFECT) == set()
    s = auto(MION, PERFECT)
    assert {m: v.score for m, v in s.metrics.items()} == {
        "citationAccuracy": 1.0,
        "theoryCoherence": 1.0,
        "storyCoherence": 1.0,
        "overallCorrectness": 1.0,
    }
    assert s.score == 1.0 and s.passed


def test_missing_required_citation_scores_0():
    answer = (
        "Mion is loud and cheerful in Onikakushi, but in Watanagashi her behavior seems to differ "
        "because of the festival."
    )
    got = fired(MION, answer)
    # required (error) fires, and with it count and episodes (warnings): 0.0 - 0.4, floor 0.0
    assert {("citationAccuracy", "required"), ("citationAccuracy", "count"), ("citationAccuracy", "episodes")} <= got
    s = auto(MION, answer)
    assert s.metrics["citationAccuracy"].score == 0.0
    assert s.metrics["theoryCoherence"].score == pytest.approx(0.3 - 0.15)  # citations error; no evidence word
    assert s.score == 0.0 and not s.passed


def test_one_citation_short_scores_0_8():
    answer = (
        "The dam project drives the village's resistance [Episode: onikakushi, Chapter: 3, Speaker: Mion] "
        "and its significance returns later [Episode: watanagashi, Chapter: 1, Speaker: Oishi]."
    )
    assert ("citationAccuracy", "count") in fired(DAM, answer)
    s = auto(DAM, answer)
    assert s.metrics["citationAccuracy"].score == pytest.approx(0.8)  # 1.0 - 0.2 (one warning)
    assert s.metrics["citationAccuracy"].warnings == ["citationAccuracy/count: Expected at least 3 citations, found 2"]
    assert s.score == pytest.approx(0.8) and s.passed


def test_citation_outside_the_episode_scope_scores_0():
    answer = (
        "Rena's character is kind and cheerful at first, and she often laughs with Keiichi "
        "[Episode: onikakushi, Chapter: 1, Speaker: Rena] [Episode: Tatarigoroshi, Chapter: 3, Speaker: Rena]."
    )
    outcomes = {(o.metric, o.check): o for o in evaluate(M, RENA, answer)}
    scope = outcomes[("storyCoherence", "scope")]
    assert scope.fired and scope.message == "Response cites episodes outside scope: Tatarigoroshi"
    assert answer[scope.spans[0][0] : scope.spans[0][1]].startswith("[Episode: Tatarigoroshi")  # what is highlighted
    s = auto(RENA, answer)
    assert s.metrics["storyCoherence"].score == 0.0  # scope violation: error
    assert s.metrics["overallCorrectness"].score == 1.0
    assert s.score == pytest.approx(0.7 * 0.0 + 0.3 * 1.0) and not s.passed


def test_an_answer_under_50_characters_scores_0():
    answer = "It is set in a quiet village."  # 29 characters
    s = auto(SETTING, answer)
    assert s.metrics["overallCorrectness"].errors[0].startswith("overallCorrectness/length")
    assert s.metrics["overallCorrectness"].score == 0.0
    assert s.score == 0.0 and not s.passed


def test_theory_warnings_and_the_missing_citation_error():
    answer = (
        "Mion and Shion are twins and the evidence is in the festival scenes "
        "[Episode: watanagashi, Chapter: 4, Speaker: Shion] [Episode: watanagashi, Chapter: 6, Speaker: Mion]."
    )
    assert fired(TWINS, answer) == {("theoryCoherence", "logic"), ("theoryCoherence", "hedging")}
    s = auto(TWINS, answer)
    assert s.metrics["theoryCoherence"].score == pytest.approx(0.7)  # 1.0 - 2 x 0.15
    assert s.score == pytest.approx(0.6 * 0.7 + 0.4 * 1.0) and s.passed  # 0.82
    uncited = (
        "Mion and Shion might be switching places, because the evidence suggests the twins trade roles "
        "during the festival in Watanagashi."
    )
    s = auto(TWINS, uncited)
    assert s.metrics["theoryCoherence"].score == pytest.approx(0.3)  # coherent but missing citations
    assert s.metrics["citationAccuracy"].score == 0.0
    assert s.score == pytest.approx(0.6 * 0.3) and not s.passed  # 0.18
    one_twin = PERFECT.replace("her behavior", "Mion's behavior")  # no Shion: characters warning
    assert ("theoryCoherence", "characters") in fired(TWINS, one_twin)


def test_each_remaining_check_fires_on_a_failing_answer():
    incomplete = PERFECT.replace("Chapter: 5, Speaker: Mion", "Chapter: 5")
    assert fired(MION, incomplete) == {("citationAccuracy", "complete")}
    assert auto(MION, incomplete).score == pytest.approx(0.8)
    one_episode = PERFECT.replace("Episode: watanagashi", "Episode: onikakushi")
    assert fired(MION, one_episode) == {("citationAccuracy", "episodes")}
    spoiler = (
        "Rena's character turns out to be kind, and her laughter with Keiichi is warm "
        "[Episode: onikakushi, Chapter: 1, Speaker: Rena]."
    )
    assert scored(RENA, spoiler) == {("storyCoherence", "spoilers")}
    assert auto(RENA, spoiler).metrics["storyCoherence"].score == pytest.approx(0.8)
    nobody = (
        "This character is kind and cheerful and likes cute things a great deal "
        "[Episode: onikakushi, Chapter: 1, Speaker: Keiichi]."
    )
    got = scored(RENA, nobody)
    assert ("storyCoherence", "characters") in got and ("overallCorrectness", "coverage") in got
    contradiction = PERFECT + " This contradicts what Keiichi said."
    assert fired(MION, contradiction) == {("storyCoherence", "contradictions")}
    no_info = "I don't have information about the main characters of Higurashi, sorry about that."
    got = scored(CAST, no_info)
    assert ("overallCorrectness", "no-information") in got
    assert auto(CAST, no_info).score == 0.0
    tone = "Obviously the main characters of Higurashi are Keiichi, Rena, Mion, Satoko and Rika."
    assert scored(CAST, tone) == {("overallCorrectness", "tone")}
    assert auto(CAST, tone).score == pytest.approx(0.85)  # 1.0 - 0.15
    two_of_five = "The main characters of Higurashi include Keiichi and Rena, two classmates at school."
    assert scored(CAST, two_of_five) == {("overallCorrectness", "coverage")}  # 2/5 < 50 %
    off_topic = "Cicadas sing loudly during the hot summer evenings in rural Japanese villages."
    got = scored(SETTING, off_topic)
    assert got == {("overallCorrectness", "relevance")}  # 0 of what, setting, higurashi
    assert auto(SETTING, off_topic).score == pytest.approx(0.85)


def test_checks_that_are_off_do_not_fire():
    # general: shouldCite false, no episode scope, no spoiler flag; no-information only on easy
    answer = "Higurashi is set in Hinamizawa, a small rural village in Japan during June 1983."
    assert fired(SETTING, answer) == {
        ("theoryCoherence", "evidence"),
        ("theoryCoherence", "logic"),
        ("theoryCoherence", "hedging"),
    }
    assert auto(SETTING, answer).score == 1.0  # general scores overallCorrectness only
    hard = DAM.model_copy(update={"metadata": {"category": "general", "difficulty": "hard"}})
    assert ("overallCorrectness", "no-information") not in fired(
        hard, "I cannot find anything on the dam project in the episodes I have."
    )


def _finding(code, metric, check="x", status=Status.PROPOSED, final=None, source=Source.AUTO):
    return Finding(
        code=code,
        detail=f"{metric}/{check}: m",
        attrs={"metric": metric, "check": check},
        status=status,
        final_code=final,
        source=source,
    )


def test_reviewed_scores_follow_the_decisions():
    warn = _finding(CaseCode.WARNING, "citationAccuracy", "count")
    assert case_score(DAM, [warn], M).score == pytest.approx(0.8)
    rejected = warn.model_copy(update={"status": Status.REJECTED})
    assert case_score(DAM, [rejected], M).score == pytest.approx(0.8)  # automatic: proposed codes
    assert case_score(DAM, [rejected], M, reviewed=True).score == 1.0  # the warning is no warning
    as_error = warn.model_copy(update={"status": Status.CONFIRMED, "final_code": CaseCode.ERROR})
    assert case_score(DAM, [as_error], M, reviewed=True).score == 0.0
    added = Finding(
        code=CaseCode.WARNING,
        source=Source.HUMAN,
        status=Status.CONFIRMED,
        final_code=CaseCode.WARNING,
        detail="added by reviewer",
    )
    # a person's check counts for the category's primary metric (theory: theoryCoherence)
    s = case_score(TWINS, [added], M, reviewed=True)
    assert s.metrics["theoryCoherence"].score == pytest.approx(0.85)
    assert s.score == pytest.approx(0.6 * 0.85 + 0.4 * 1.0)
    assert case_score(TWINS, [added], M).score == 1.0  # not in the automatic score


def test_citations_found_and_episodes_referenced():
    assert citations(M, PERFECT) == (2, ["onikakushi", "watanagashi"])
    assert citations(M, "no citation") == (0, [])


def test_conditions():
    assert Condition.parse("metadata.difficulty == easy").holds(CAST)
    assert not Condition.parse("metadata.difficulty == easy").holds(DAM)
    assert Condition.parse("metadata.difficulty != easy").holds(DAM)
    assert Condition.parse("not expected.shouldCite").holds(CAST)
    assert not Condition.parse("context.episodeScope").holds(DAM)
    assert query_of(DAM) == "What is the significance of the dam project?"


def test_a_broken_regex_names_the_metric_and_the_check():
    data = {
        "metrics": [
            {
                "name": "mine",
                "checks": [
                    {"id": "bad", "message": "m", "severity": "error", "test": {"kind": "present", "regex": "[oops"}}
                ],
            }
        ]
    }
    with pytest.raises(MetricsError, match=r"^my\.toml: .*metric mine, check bad: broken regex '\[oops'"):
        metric_set(data, "my.toml")
    data["metrics"][0]["checks"][0]["test"]["regex"] = "@nothing"
    with pytest.raises(MetricsError, match="no pattern named 'nothing'"):
        metric_set(data, "my.toml")
    data["metrics"][0]["checks"][0]["severity"] = "fatal"
    with pytest.raises(
        MetricsError, match="^my.toml: metric mine, check bad, severity: Input should be .error. or .warning.$"
    ):
        metric_set(data, "my.toml")


def test_dataset_problems_name_the_file_and_the_case():
    data = [
        {"id": "a", "query": "q?", "expectedBehavior": {}, "metadata": {"category": "general"}},
        {"query": "q?", "expectedBehavior": {}, "metadata": {"category": "general"}},
        {"id": "a", "query": "q2?", "expectedBehavior": {}, "metadata": {"category": "general"}},
        {"id": "b", "query": "q?", "expectedBehavior": {}, "metadata": {"category": "poetry"}},
    ]
    found, problems = parse_dataset(data, "set", "set.json")
    assert [c.id for c in found] == ["a"]
    assert problems == [
        ("set.json case 2", "the case has no id"),
        ("set.json case 3 ('a')", "duplicate id 'a' (an earlier case of the file has it)"),
        ("set.json case 4 ('b')", "unknown category 'poetry' (known: citation, theory, story, general)"),
    ]
