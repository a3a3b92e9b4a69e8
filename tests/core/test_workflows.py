"""The workflow rule (reviewer.core.workflows) and how text items are named."""

from reviewer.core.workflows import Workflow, first_words, infer, parse


def test_the_first_matching_fact_picks_the_workflow():
    assert infer(photo=True) == Workflow.CARDS
    assert infer(photo=False) == Workflow.JUDGED
    assert infer(photo=False, case=True, spans=True, pair=True) == Workflow.CASE
    assert infer(photo=True, spans=True, pair=True) == Workflow.SPANS
    assert infer(photo=True, pair=True) == Workflow.CARDS
    assert infer(photo=False, pair=True) == Workflow.PAIRWISE


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
