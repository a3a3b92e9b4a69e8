"""The rubric a reviewer reads while labelling first (core.judging.rubrics.rubric_for):
an imported pairwise benchmark's verdicts name no shipped template, so the
pairwise judge template's criteria say what a good answer is."""

from __future__ import annotations

from reviewer.core.judging.rubrics import rubric_for, rubric_text


def test_a_pairwise_winner_without_a_template_reads_the_pairwise_criteria():
    text = rubric_for("Vanilla", "winner", "winner")  # LLMBar's GPT-4 Vanilla: no shipped template
    assert text == rubric_text("pairwise-v1") and "instruction" in text
    assert "Score 'winner'" not in text


def test_a_shipped_rubric_wins_and_other_scales_name_their_dimension():
    assert rubric_for("tarot-rubric-v2.0.0@abc", "tone", "1-5") == rubric_text("tarot-rubric-v2.0.0")
    assert rubric_for(None, "overall", "1-5") == "Score 'overall' on the 1-5 scale."
