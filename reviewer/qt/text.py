"""Untrusted text (model output, names, card texts) as the window shows it.

Every label, table cell, list row and tooltip shows at most a bounded
number of characters, with an ellipsis when cut, and control and Unicode
bidirectional characters made visible (reviewer.core.text.shown): a name
of a megabyte costs what a short one does and cannot reorder what is
around it. The full text is in the output view, a QPlainTextEdit whose
text is set once: lines longer than ``LONG_LINE`` are broken there
(``wrap_long_lines``), because Qt lays out a paragraph whole and a
megabyte paragraph without spaces takes it minutes; ``doc_pos`` maps an
offset of the raw text to its place in what is shown.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from reviewer.core.text import display_name, shown

#: Characters in a table cell, list row or one-line label.
CELL_CHARS = 120
#: Characters in a longer one-line label (status bar, run strip).
LINE_CHARS = 300
#: Characters in a tooltip (line breaks kept).
TIP_CHARS = 2000
#: Characters of a text item shown on the canvas paper.
PAPER_CHARS = 100_000
#: Longest line the output view shows unbroken.
LONG_LINE = 2000


def cell(text: object, limit: int = CELL_CHARS) -> str:
    """``text`` for one table cell or list row: one line, visible, bounded."""
    return display_name("" if text is None else text, limit)


def line(text: object, limit: int = LINE_CHARS) -> str:
    """``text`` for a one-line label (status bar, title): as ``cell``, longer."""
    return display_name("" if text is None else text, limit)


def block(text: object, limit: int = TIP_CHARS) -> str:
    """``text`` for a tooltip or a wrapped label: line breaks kept, other
    control characters visible, bounded."""
    return shown("" if text is None else text, limit, keep_newlines=True)


def paper(text: str, limit: int = PAPER_CHARS) -> str:
    """A text item's text for the canvas (laid out whole by Qt): at most
    ``limit`` characters, then a line saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n… ({len(text) - limit:,} more characters not shown here)"


def wrap_long_lines(raw: str, width: int = LONG_LINE) -> tuple[str, list[int]]:
    """(``raw`` with a line break inserted every ``width`` characters of a
    line longer than that, the raw offsets before which a break was
    inserted). Short lines, the usual case, cost one scan."""
    if len(raw) <= width or not any(len(part) > width for part in raw.split("\n")):
        return raw, []
    out, breaks, start = [], [], 0
    for part in raw.split("\n"):
        for i in range(0, len(part), width):
            if i:
                breaks.append(start + i)
            out.append(part[i : i + width])
        if not part:
            out.append("")
        start += len(part) + 1
    return "\n".join(out), breaks


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@lru_cache(maxsize=8)
def _position_marks(raw: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(offsets of the characters of ``raw`` that take two UTF-16 units,
    offsets of its CR LF pairs), ascending: one pass per text, kept for the
    texts in use, so each doc_pos is O(log n)."""
    if raw.isascii():
        astral: tuple[int, ...] = ()
    else:
        astral = tuple(m.start() for m in _ASTRAL.finditer(raw))
    crlf = tuple(m.start() for m in re.finditer("\r\n", raw)) if "\r" in raw else ()
    return astral, crlf


def doc_pos(raw: str, offset: int, breaks: Sequence[int] = ()) -> int:
    """The QTextDocument position of Python string offset ``offset`` of
    ``raw`` once shown with setPlainText (after ``wrap_long_lines``, whose
    ``breaks`` each add one position): Qt counts UTF-16 units and turns
    CR LF into one paragraph break (an offset between CR and LF is the
    position of the break). O(log n) after one pass over ``raw``."""
    offset = max(0, min(offset, len(raw)))
    astral, crlf = _position_marks(raw)
    return offset + bisect_left(astral, offset) - bisect_left(crlf, offset) + bisect_right(breaks, offset)


def doc_positions(raw: str, offsets: Sequence[int], breaks: Sequence[int] = ()) -> list[int]:
    """``doc_pos`` of many offsets of ``raw`` at once (the same values),
    vectorised."""
    astral, crlf = _position_marks(raw)
    at = np.clip(np.asarray(offsets, dtype=np.int64), 0, len(raw))
    pos = at.copy()
    passes: tuple[tuple[Sequence[int], Literal["left", "right"], int], ...] = (
        (astral, "left", 1),
        (crlf, "left", -1),
        (breaks, "right", 1),
    )
    for marks, side, sign in passes:
        if len(marks):
            pos += sign * np.searchsorted(np.asarray(marks, dtype=np.int64), at, side=side)
    return pos.tolist()


def break_at_spaces(text: str, limit: int = LONG_LINE) -> tuple[str, bool]:
    """(``text`` with every line longer than ``limit`` characters broken at
    the first space at or after each ``limit`` characters, the space
    replaced by a line break, whether a line longer than twice ``limit`` is
    left: one without such a space). Every document position (UTF-16 offset) stays
    the same, which views whose positions are offsets of the text need (the
    span pane). Qt lays out a paragraph whole, so a 10 MB line takes it
    seconds, and minutes without spaces unless it may wrap anywhere
    (QTextOption.WrapAnywhere, for the lines left long). O(n), about
    n / limit steps."""
    if len(text) <= limit:
        return text, False
    whole = False
    breaks = []
    pos, n = 0, len(text)
    line_end = -1  # where the long line being broken ends, once known
    while n - pos > limit:
        if pos > line_end:
            newline = text.rfind("\n", pos, pos + limit + 1)
            if newline != -1:  # the line at pos is short: go on after its end
                pos = newline + 1
                continue
            line_end = text.find("\n", pos + limit)
            line_end = n if line_end == -1 else line_end
        elif line_end - pos <= limit:  # the rest of the long line is short
            pos = line_end + 1
            continue
        space = text.find(" ", pos + limit, line_end)
        end = line_end if space == -1 else space
        whole = whole or end - pos > 2 * limit
        if space == -1:
            pos = line_end + 1
        else:
            breaks.append(space)
            pos = space + 1
    if not breaks:
        return text, whole
    parts, last = [], 0
    for b in breaks:
        parts.append(text[last:b])
        last = b + 1
    parts.append(text[last:])
    return "\n".join(parts), whole


def plain_label(text: str = "", bold: bool = False, wrap: bool = True, selectable: bool = False) -> QLabel:
    """A QLabel that shows ``text`` literally (Qt.TextFormat.PlainText: never
    rich text): word-wrapped unless ``wrap`` is False, ``bold`` for a
    heading, ``selectable`` by the mouse for text a reviewer may copy."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if bold:
        font = label.font()
        font.setBold(True)
        label.setFont(font)
    return label


def plural(n: int, word: str) -> str:
    """'1 card', '3 cards': ``n`` and ``word``, with an s unless ``n`` is 1."""
    return f"{n} {word}{'s' if n != 1 else ''}"
