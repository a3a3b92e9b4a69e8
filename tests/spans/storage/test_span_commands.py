"""Golden-span commands (docs/spans.md#keys) on the project store, with undo and
redo, and where judge findings are placed on a labelled text (§2)."""

from __future__ import annotations

import pytest

from reviewer.core.commands import UndoStack
from reviewer.core.models import Item
from reviewer.core.span_commands import AddGoldenSpan, DeleteGoldenSpan, EditGoldenSpan
from reviewer.core.spans.golden import complete_role, utf16_slice
from reviewer.core.spans.placement import place
from reviewer.storage.repo import items as repo_items
from reviewer.storage.spans import spans as span_store
from reviewer.storage.store import ProjectStore

TEXT = "A fox 🦊 runs at dawn.\n\n**TECHNICAL SPECS**\n- 8s"


def test_add_move_delete_golden_spans_undo_redo_keep_ids(project):
    item_id, _ = repo_items.upsert_item(project, Item(name="t", kind="text", text=TEXT))
    store, stack = ProjectStore(project, "ann"), UndoStack()
    fox = AddGoldenSpan(item_id, TEXT, 2, 5, "subject.identity")
    stack.push(fox, store)
    dawn_at = TEXT.index("dawn") + 1  # UTF-16: the emoji counts 2
    stack.push(AddGoldenSpan(item_id, TEXT, dawn_at, dawn_at + 4, "lighting.timeOfDay"), store)
    got = span_store.golden_spans(project, item_id, TEXT)
    assert [(g.text, g.role) for g in got] == [("fox", "subject.identity"), ("dawn", "lighting.timeOfDay")]
    stack.push(EditGoldenSpan(fox.span.id, TEXT, end=8), store)  # drag the end over the emoji
    assert span_store.golden_spans(project, item_id, TEXT)[0].text == "fox 🦊"
    stack.push(DeleteGoldenSpan(fox.span.id, TEXT), store)
    assert [g.text for g in span_store.golden_spans(project, item_id, TEXT)] == ["dawn"]
    stack.undo(store)  # delete undone: same id, moved ends
    back = span_store.golden_spans(project, item_id, TEXT)[0]
    assert (back.id, back.text) == (fox.span.id, "fox 🦊")
    stack.undo(store)
    assert span_store.golden_spans(project, item_id, TEXT)[0].text == "fox"
    for _ in range(3):
        stack.undo(store)
    assert span_store.golden_spans(project, item_id, TEXT) == []
    stack.redo(store)
    assert span_store.golden_spans(project, item_id, TEXT)[0].id == fox.span.id
    audit = project.db.execute("SELECT count(*) FROM audit WHERE table_name = 'golden_spans'").fetchone()[0]
    assert audit >= 8
    with pytest.raises(ValueError):
        AddGoldenSpan(item_id, TEXT, 3, 3, "shot.type")  # an empty span is no span


def test_golden_spans_belong_to_the_text_they_were_drawn_on(project):
    item_id, _ = repo_items.upsert_item(project, Item(name="t", kind="text", text=TEXT))
    UndoStack().push(AddGoldenSpan(item_id, "other text", 0, 5, "shot.type"), ProjectStore(project))
    assert span_store.golden_spans(project, item_id, TEXT) == []
    assert [g.text for g in span_store.golden_spans(project, item_id, "other text")] == ["other"]


def test_role_completion():
    assert complete_role("cam")[:2] == ["camera.movement", "camera.angle"]
    assert "lighting.colorTemp" in complete_role("color") and complete_role("zzz") == []
    assert utf16_slice(TEXT, 6, 8) == "🦊"


SPANS = [{"text": "fox", "start": 2, "end": 5}, {"text": "runs", "start": 9, "end": 13}]


def test_findings_sit_on_their_span_or_their_text_or_apart():
    assert place("FALSE_POSITIVE", 1, "runs", TEXT, SPANS) == (9, 13, 1)
    assert place("TAXONOMY", 0, "runs", TEXT, SPANS) == (9, 13, 1)  # index names a span with other text
    assert place("GRANULARITY", None, "FOX", TEXT, SPANS) == (2, 5, 0)
    assert place("MISSED", None, "Dawn", TEXT, SPANS) == (TEXT.index("dawn") + 1, TEXT.index("dawn") + 5, None)
    assert place("MISSED", None, "mist", TEXT, SPANS) is None  # listed apart
    assert place("FALSE_POSITIVE", None, "TECHNICAL SPECS", TEXT, SPANS)[2] is None  # on its text


def test_a_selection_is_trimmed_of_whitespace_and_punctuation_before_it_becomes_a_golden_span(project):
    """Ctrl+Shift+Right selects 'Establishing Shot ' with its space: the
    golden span is 'Establishing Shot', offsets moved (UTF-16 units past an
    emoji), so it matches the model's span exactly, not only relaxed."""
    from reviewer.core.spans.golden import exact_match, index_to_utf16

    text = "🎬 Establishing Shot of a harbour, (dawn)."
    item_id, _ = repo_items.upsert_item(project, Item(name="s", kind="text", text=text))
    start = index_to_utf16(text, text.index("Establishing"))
    add = AddGoldenSpan(item_id, text, start - 1, start + len("Establishing Shot "), "shot.type")
    assert (add.span.text, add.span.start, add.span.end) == ("Establishing Shot", start, start + 17)
    assert add.text == "label 'Establishing Shot' as shot.type"
    model = {"start": start, "end": start + 17, "text": "Establishing Shot", "role": "shot.type"}
    assert exact_match(
        model, {"start": add.span.start, "end": add.span.end, "text": add.span.text, "role": "shot.type"}
    )
    dawn = AddGoldenSpan(
        item_id, text, index_to_utf16(text, text.index("(")), index_to_utf16(text, len(text)), "lighting.timeOfDay"
    )
    assert dawn.span.text == "dawn"
    with pytest.raises(ValueError, match="only whitespace or punctuation"):
        AddGoldenSpan(
            item_id, text, index_to_utf16(text, text.index(",")), index_to_utf16(text, text.index(",") + 3), "shot.type"
        )
