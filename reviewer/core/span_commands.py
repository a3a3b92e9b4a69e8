"""Golden-span edits as core Commands (docs/spans.md#keys: "Every edit is an
undoable command"): add a golden span on a labelled text, move its ends or
change its role, delete it. They act on a store with the golden-span methods
(reviewer.storage.spans.spans.GoldenSpanStore, mixed into the project store); a
re-added span keeps its id on redo.
"""

from __future__ import annotations

import unicodedata
from typing import Protocol

from reviewer.core.commands import Command, Effect
from reviewer.core.spans.golden import GoldenSpan, utf16_slice


class GoldenStore(Protocol):
    """What golden-span commands need from storage."""

    def add_golden_span(self, item_id: int, labelled: str, span: GoldenSpan) -> int:
        """Insert ``span`` on (item, labelled text), keeping ``span.id`` when set; its id."""

    def get_golden_span(self, span_id: int) -> tuple[int, GoldenSpan]:
        """(item id, span) of ``span_id``; KeyError when absent."""

    def update_golden_span(self, span_id: int, span: GoldenSpan) -> None:
        """Write start, end, role and text of ``span``; KeyError when absent."""

    def delete_golden_span(self, span_id: int) -> None:
        """Delete ``span_id``; KeyError when absent."""


def _clean(labelled: str, start: int, end: int) -> tuple[int, int]:
    start, end = sorted((max(0, int(start)), max(0, int(end))))
    if start == end:
        raise ValueError("a golden span needs at least one character")
    return start, end


def _edge(ch: str) -> bool:
    """Whitespace or punctuation (Unicode category P*): trimmed off a selection's ends."""
    return ch.isspace() or unicodedata.category(ch).startswith("P")


def trim_selection(labelled: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) (UTF-16 offsets of ``labelled``) without the whitespace
    and punctuation at its ends, so a selection made with Ctrl+Shift+Right
    ('Establishing Shot ') labels the words alone and exact span F1 can match
    it; the offsets move with the text (UTF-16 units). ValueError when
    nothing but whitespace and punctuation is selected."""
    start, end = _clean(labelled, start, end)
    text = utf16_slice(labelled, start, end)
    i, j = 0, len(text)
    while i < j and _edge(text[i]):
        i += 1
    while j > i and _edge(text[j - 1]):
        j -= 1
    if i == j:
        raise ValueError("a golden span needs a word: only whitespace or punctuation is selected")

    def units(part: str) -> int:
        return len(part.encode("utf-16-le")) // 2

    return start + units(text[:i]), end - units(text[j:])


class AddGoldenSpan(Command[GoldenStore]):
    """Label [start, end) (UTF-16 offsets) of ``labelled`` on item ``item_id``
    with ``role``: a golden span (docs/spans.md#keys, hand labelling), its
    ends trimmed of whitespace and punctuation (``trim_selection``)."""

    def __init__(self, item_id: int, labelled: str, start: int, end: int, role: str):
        start, end = trim_selection(labelled, start, end)
        self.item_id, self.labelled = item_id, labelled
        self.span = GoldenSpan(start=start, end=end, role=role.strip(), text=utf16_slice(labelled, start, end))
        self.text = f"label '{self.span.text[:30]}' as {self.span.role}"

    def do(self, store: GoldenStore) -> Effect:
        """Insert the span (same id again on redo); Effect with its item."""
        self.span.id = store.add_golden_span(self.item_id, self.labelled, self.span)
        return Effect(items={self.item_id})

    def undo(self, store: GoldenStore) -> Effect:
        """Delete the span added; Effect with its item."""
        assert self.span.id is not None  # set by do()
        store.delete_golden_span(self.span.id)
        return Effect(items={self.item_id})


class EditGoldenSpan(Command[GoldenStore]):
    """Move a golden span's ends (drag) and/or change its role."""

    def __init__(
        self,
        span_id: int,
        labelled: str,
        start: int | None = None,
        end: int | None = None,
        role: str | None = None,
    ):
        self.span_id, self.labelled = span_id, labelled
        self.start, self.end, self.role = start, end, role
        self.before: GoldenSpan | None = None
        self.item_id: int | None = None
        self.text = (
            "change golden span role" if role is not None and start is None and end is None else "move golden span"
        )

    def do(self, store: GoldenStore) -> Effect:
        """Write the new ends / role (the old ones kept for undo); Effect with its item."""
        self.item_id, before = store.get_golden_span(self.span_id)
        if self.before is None:
            self.before = before
        start = self.start if self.start is not None else before.start
        end = self.end if self.end is not None else before.end
        start, end = _clean(self.labelled, start, end)
        role = self.role.strip() if self.role is not None else before.role
        store.update_golden_span(
            self.span_id, GoldenSpan(start=start, end=end, role=role, text=utf16_slice(self.labelled, start, end))
        )
        return Effect(items={self.item_id})

    def undo(self, store: GoldenStore) -> Effect:
        """Put the old ends and role back; Effect with its item."""
        assert self.before is not None and self.item_id is not None  # set by do()
        store.update_golden_span(self.span_id, self.before)
        return Effect(items={self.item_id})


class DeleteGoldenSpan(Command[GoldenStore]):
    """Remove a golden span (Delete)."""

    def __init__(self, span_id: int, labelled: str):
        self.span_id, self.labelled = span_id, labelled
        self.item_id: int | None = None
        self.span: GoldenSpan | None = None
        self.text = "delete golden span"

    def do(self, store: GoldenStore) -> Effect:
        """Delete the span (kept for undo); Effect with its item."""
        self.item_id, self.span = store.get_golden_span(self.span_id)
        store.delete_golden_span(self.span_id)
        return Effect(items={self.item_id})

    def undo(self, store: GoldenStore) -> Effect:
        """Put the span back with its id; Effect with its item."""
        assert self.span is not None and self.item_id is not None  # set by do()
        self.span.id = self.span_id
        store.add_golden_span(self.item_id, self.labelled, self.span)
        return Effect(items={self.item_id})


__all__ = ["AddGoldenSpan", "DeleteGoldenSpan", "EditGoldenSpan", "GoldenStore"]
