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
    with ``casefold`` the other parts compare without case."""
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t.casefold() if casefold else t)
                 for t in _DIGITS.split(text) if t)
