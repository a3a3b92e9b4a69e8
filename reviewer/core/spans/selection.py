"""Growing a selection of a labelled text by a word or a sentence (the span
pane's W and S keys, docs/spans.md#keys), so a span of a few words costs a
key per word. Python string indices; the window converts to UTF-16."""

from __future__ import annotations

import re

#: A word: letters or digits, with inner apostrophes and hyphens ("flour-dusted", "35mm", "don't").
WORD = re.compile(r"\w+(?:['’\-]\w+)*")
#: Where a sentence ends: ., ! or ? before a space or the end, or a line break.
SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


def _first_word(text: str, pos: int):
    """The word holding ``pos`` (or starting there), else the next word after it; None when none."""
    return next((m for m in WORD.finditer(text) if m.end() > pos), None)


def grow(text: str, start: int, end: int, unit: str = "word") -> tuple[int, int]:
    """The selection [start, end) of ``text`` grown by one ``unit``:

    * 'word': with nothing selected (start == end), the word at or after
      ``start``; else the selection up to the end of the next word;
    * 'sentence': with nothing selected, from the word at or after ``start``
      to the last word of its sentence; else up to the last word of the next
      sentence end after the selection (a sentence ends at ., ! or ? before
      a space, or at a line break). The end never takes the punctuation.

    Words are WORD matches. The selection is returned unchanged when there is
    nothing further to take; ValueError for another unit."""
    if unit not in ("word", "sentence"):
        raise ValueError(f"grow by 'word' or 'sentence', not {unit!r}")
    start, end = sorted((max(0, start), min(len(text), end)))
    first = _first_word(text, end)
    if first is None:
        return start, end
    if start == end:
        start = first.start()
    if unit == "word":
        return start, first.end()
    stop = SENTENCE_END.search(text, first.end())
    limit = stop.start() if stop else len(text)
    last = first.end()
    for m in WORD.finditer(text, first.end()):
        if m.end() > limit:
            break
        last = m.end()
    return start, last


__all__ = ["SENTENCE_END", "WORD", "grow"]
