"""Text normalisation for card matching (T-P5 step 2, "exact or fuzzy text match")."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_NON_WORD = re.compile(r"[^\w\s]+")
_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=65536)
def normalize(text: str) -> str:
    """Normalise a card text for comparison: Unicode NFKC, case folded,
    punctuation (anything not a letter, digit, underscore or space) replaced by
    a space, runs of whitespace collapsed, ends stripped.

    >>> normalize("  WILD  Card! ")
    'wild card'
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _NON_WORD.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str, casefold: bool = False) -> tuple:
    """Sort key that orders the digit runs of ``text`` as numbers:
    'pandalm-2' before 'pandalm-10', 'pair:2:3' before 'pair:10:11';
    with ``casefold`` the other parts compare without case. Digit runs are
    decimal digits (``\\d``); other digit-like characters ('²') are text."""
    return tuple(
        (0, int(t), "") if t.isdecimal() else (1, 0, t.casefold() if casefold else t) for t in _DIGITS.split(text) if t
    )


# -- untrusted text shown safely ---------------------------------------------------
#: Unicode bidirectional controls (embeddings, overrides, isolates, marks):
#: they reorder what a terminal or viewer shows ('photo\u202egnp.exe' reads
#: 'photoexe.png'), so they are made visible like control characters.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _is_hidden(ch: str) -> bool:
    code = ord(ch)
    if ch in "\n\t":
        return False
    return code < 0x20 or 0x7F <= code <= 0x9F or ch in BIDI_CONTROLS


_HIDDEN_CHARS = "\x00-\x08\x0b-\x1f\x7f-\x9f" + "".join(sorted(BIDI_CONTROLS))
#: What :func:`visible` replaces (the same characters as ``_is_hidden``), one regular expression.
_HIDDEN = re.compile(f"[{_HIDDEN_CHARS}]")
_HIDDEN_OR_NEWLINE = re.compile(f"[{_HIDDEN_CHARS}\n]")


def visible(text: object, keep_newlines: bool = True) -> str:
    """``text`` with every C0 and C1 control character (U+0000-U+001F,
    U+007F-U+009F; newline and tab kept, newline too only with
    ``keep_newlines``) and every Unicode bidirectional control (U+061C,
    U+200E/F, U+202A-U+202E, U+2066-U+2069) replaced by its code point in
    angle brackets, e.g. ESC -> '<U+001B>', RLO -> '<U+202E>'. So terminal
    escapes cannot act and reordered names cannot pass for others; the rest
    of the text is unchanged. For names shown to a person; raw model output
    is stored and exported as it is.

    >>> visible("photo\\u202egnp.exe")
    'photo<U+202E>gnp.exe'
    """
    s = str(text)
    pattern = _HIDDEN if keep_newlines else _HIDDEN_OR_NEWLINE
    if pattern.search(s) is None:
        return s
    return pattern.sub(lambda m: f"<U+{ord(m.group()):04X}>", s)


def bounded(text: object, limit: int = 80) -> str:
    """``text`` cut to at most ``limit`` characters (``limit`` >= 1), the
    last one an ellipsis '…' when anything was cut. Counts code points.

    >>> bounded("abcdef", 4)
    'abc…'
    """
    s = str(text)
    if limit < 1:
        raise ValueError("limit must be at least 1")
    return s if len(s) <= limit else s[: limit - 1] + "\u2026"


def display_name(text: object, limit: int = 120) -> str:
    """A name from untrusted input (model, judge, prompt, item, file) as it
    may be shown in one line: :func:`visible` (line breaks made visible too),
    then :func:`bounded` to ``limit`` characters. Only the first ``limit``
    + 1 characters are looked at, so a name of megabytes costs no more than
    a short one.

    >>> display_name("x" * 1_000_000, 5)
    'xxxx…'
    """
    return shown(text, limit, keep_newlines=False)


def shown(text: object, limit: int, keep_newlines: bool = True) -> str:
    """``text`` made :func:`visible` and :func:`bounded` to ``limit``
    characters, the same as ``bounded(visible(text), limit)`` but reading
    only the first ``limit`` + 1 characters (each character shows as one or
    more), so it is cheap on texts of any length.

    >>> shown("a\u202eb" + "c" * 50, 8)
    'a<U+202…'
    """
    s = str(text)
    return bounded(visible(s[: limit + 1], keep_newlines=keep_newlines), limit)
