"""The workflow rule (reviewer.core.workflows) and how text items are named."""

import pytest

from reviewer.core.workflows import Workflow, first_words, infer, parse


def test_the_first_matching_fact_picks_the_workflow():
    assert infer(photo=True) == Workflow.CARDS
    assert infer(photo=False) == Workflow.JUDGED
    assert infer(photo=False, case=True, spans=True, pair=True) == Workflow.CASE
    assert infer(photo=True, spans=True, pair=True) == Workflow.SPANS
    assert infer(photo=True, pair=True) == Workflow.CARDS
    assert infer(photo=False, pair=True) == Workflow.PAIRWISE


def test_each_of_the_five_gives_its_part_of_the_rule_from_its_own_package(monkeypatch):
    from reviewer.core import workflows

    parts = workflows.RECOGNITIONS
    assert set(parts) == set(Workflow)
    from reviewer.core.cards import registration as cards
    from reviewer.core.cases import registration as cases
    from reviewer.core.judging import registration as judging
    from reviewer.core.spans import registration as spans

    own = (cards.RECOGNITION, cases.RECOGNITION, spans.RECOGNITION, judging.PAIRWISE, judging.JUDGED)
    assert sorted(parts.values(), key=repr) == sorted(own, key=repr)
    assert [p.workflow for p in sorted(parts.values(), key=lambda p: p.rank)] == [
        Workflow.CASE,
        Workflow.SPANS,
        Workflow.CARDS,
        Workflow.PAIRWISE,
        Workflow.JUDGED,
    ]
    # Their order in menus and documentation is their registrations' too.
    assert workflows.workflow_order() == (
        Workflow.CARDS,
        Workflow.SPANS,
        Workflow.CASE,
        Workflow.JUDGED,
        Workflow.PAIRWISE,
    )
    assert workflows.all_workflows()[:5] == workflows.workflow_order()
    # Without the judging package's part, a text with no other fact matches no rule.
    monkeypatch.setitem(parts, Workflow.JUDGED, workflows.Recognition(Workflow.JUDGED, fact="never", rank=1000))
    assert infer(photo=False, pair=True) == Workflow.PAIRWISE
    with pytest.raises(LookupError):
        infer(photo=False)


def test_a_stored_value_this_version_does_not_know_reads_as_none():
    assert parse("spans") == Workflow.SPANS
    assert parse("judged output") == Workflow.JUDGED
    assert parse("holograms") is None and parse(None) is None


def test_text_items_are_named_by_their_first_words_without_markdown_markers():
    assert first_words("# Our little pond\n\nWe dug it", "pond.md", words=4) == "Our little pond We…"
    assert first_words("Short.", "x") == "Short."
    assert first_words("  \n# \n", "id-7") == "id-7"
    long = "a" * 100
    assert first_words(long, "x", chars=20) == "a" * 19 + "…"


def test_text_items_are_told_apart_by_the_words_that_differ():
    from reviewer.core.workflows import distinct_titles

    tarot = [
        ("tarot-1", "Question: How can I settle into my new job? Spread: Three-Card"),
        ("tarot-2", "Question: Should I repaint the kitchen? Spread: Three-Card"),
        ("tarot-3", "Question: Should I repaint the kitchen? Spread: Three-Card"),  # identical text
    ]
    assert distinct_titles(tarot) == [
        "tarot-1 · How can I settle into my new job?…",
        "tarot-2 · Should I repaint the kitchen? Spread: Three-Card",  # equal texts: told apart by their id
        "tarot-3 · Should I repaint the kitchen? Spread: Three-Card",
    ]
    shared = "The sentence you are given might be too wordy, complicated, or unclear. Rewrite it"
    panda = [(f"pandalm-{i}", f"{shared}\n\n{tail}") for i, tail in enumerate(["My rate is high.", "Call me soon."])]
    assert distinct_titles(panda) == ["pandalm-0 · My rate is high.", "pandalm-1 · Call me soon."]
    assert distinct_titles([("a", ""), ("a", "")]) == ["a", "a (2)"]  # equal names get a suffix
    assert distinct_titles([("p", "Rewrite it"), ("q", "Rewrite it shorter")]) == ["p · Rewrite it", "q · shorter"]
    assert distinct_titles([("solo", "One text alone here")]) == ["solo · One text alone here"]
