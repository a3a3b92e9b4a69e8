"""Tables as text, in one place: the fixed-width text table, Markdown
tables and the escaping that makes untrusted text inert in Markdown, and
the CSV cells that a spreadsheet will not run as formulas. Every report
(cards, judging, spans, test cases) renders its tables with these.

Pure functions; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from reviewer.core.text import bounded, display_name, visible

#: Longest name (characters) shown in a table cell; longer ones end in '…'.
CELL_LIMIT = 120


def text_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A fixed-width text table with a rule under the header; every cell
    goes through display_name (control and bidi characters made visible,
    at most CELL_LIMIT characters), so names from files cannot drive the
    terminal or stretch the table."""
    header = [display_name(h, CELL_LIMIT) for h in header]
    rows = [[display_name(c, CELL_LIMIT) for c in r] for r in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h)) for i, h in enumerate(header)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


#: Characters that start inline Markdown (code, emphasis, links, HTML,
#: entities, tables, strikethrough): always backslash-escaped.
_MD_INLINE = re.compile(r"([\\`*\[\]<>&|~])")
#: An underscore that could open or close emphasis (not between letters or digits).
_MD_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: What makes a line a heading, list item, quote or setext underline.
_MD_LINE_START = re.compile(r"^(\s*(?:[#+=-]|\d+(?=[.)])))")


def md_text(text: object, line_start: bool = True) -> str:
    """Untrusted text (model, judge or file names, judge output) made inert in
    Markdown with backslash escapes (CommonMark: a backslash-escaped
    character is literal), never HTML entities, so it reads as written in
    the Markdown source and when rendered: line breaks become spaces (it
    stays in its table cell or list item); every
    backslash, backtick, '*', '[', ']', '<', '>', '&', '|' and '~', every
    underscore not inside a word get a backslash; with ``line_start`` (the
    text may begin a line or list item: not in a table cell) so do a
    leading '#', '+', '-', '=' and the '.' or ')' after a leading number.
    Then control and bidi characters are made visible (core.text.visible:
    '<U+202E>', which CommonMark reads as neither a tag nor an autolink).
    ``a > b`` becomes ``a \\> b``."""
    s = str(text).replace("\r", " ").replace("\n", " ")
    s = _MD_INLINE.sub(r"\\\1", s)
    s = _MD_UNDERSCORE.sub(r"\\_", s)
    m = _MD_LINE_START.match(s) if line_start else None
    if m:
        at = m.end(1) if s[m.end(1) - 1].isdigit() else m.end(1) - 1
        s = s[:at] + "\\" + s[at:]
    return visible(s)


def markdown_rows(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a GitHub-flavoured Markdown table whose cells are
    Markdown already (made inert by the caller with :func:`md_text`, or
    constants): the header, the rule, a line per row. The one place the
    table syntax is written."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def markdown_cell(text: object, limit: int = CELL_LIMIT) -> str:
    """Untrusted text as one table cell: cut to ``limit`` characters, then
    made inert with :func:`md_text` (a cell never begins a line)."""
    return md_text(bounded(text, limit), line_start=False)


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table of untrusted text; every cell goes
    through :func:`markdown_cell` (md_text, cut to CELL_LIMIT characters)."""
    return "\n".join(markdown_rows([markdown_cell(h) for h in header], ([markdown_cell(c) for c in r] for r in rows)))


# -- CSV ------------------------------------------------------------------------------------------
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?%?$")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A CSV cell that a spreadsheet will not run as a formula (OWASP "CSV
    injection"): text beginning with '=', '+', '-', '@', tab or carriage
    return gets a leading apostrophe ("'=HYPERLINK(...)"); numbers (also as
    text, like '-0.5' or '+3%') and other values are returned unchanged."""
    if not isinstance(value, str) or not value.startswith(_FORMULA_START):
        return value
    if _NUMBER.match(value):
        return value
    return "'" + value


def csv_row(values) -> list:
    """A row for ``csv.writer`` with every text cell made visible
    (:func:`visible`, line breaks kept) and neutralised (:func:`csv_cell`);
    numbers and None pass unchanged."""
    return [csv_cell(visible(v)) if isinstance(v, str) else v for v in values]
