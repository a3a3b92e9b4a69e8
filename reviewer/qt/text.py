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

from bisect import bisect_right

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
            out.append(part[i:i + width])
        if not part:
            out.append("")
        start += len(part) + 1
    return "\n".join(out), breaks


def doc_pos(raw: str, offset: int, breaks: list[int] = ()) -> int:
    """The QTextDocument position of Python string offset ``offset`` of
    ``raw`` once shown with setPlainText (after ``wrap_long_lines``, whose
    ``breaks`` each add one position): Qt counts UTF-16 units and turns
    CR LF into one paragraph break."""
    offset = max(0, min(offset, len(raw)))
    prefix = raw[:offset]
    pos = len(prefix.encode("utf-16-le")) // 2 - prefix.count("\r\n")
    if prefix.endswith("\r") and raw[offset:offset + 1] == "\n":
        pos -= 1
    return pos + bisect_right(breaks, offset)
