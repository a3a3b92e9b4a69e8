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
