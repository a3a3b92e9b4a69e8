"""Where the judge's findings sit on a labelled text (docs/spans.md):
FALSE_POSITIVE, TAXONOMY and GRANULARITY on the span they name by index
when that span has the finding's text, else on the first span with that text
(judges sometimes number a span list other than the stored one: on the
baseline 10 of 174 indices name a span with other text), else where the text
occurs; MISSED where its text first occurs in the text (case-insensitive);
anything else is listed apart.

Offsets are UTF-16 code units, as the spans'. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from reviewer.core.spans.golden import index_to_utf16


def _norm(text: str) -> str:
    return " ".join((text or "").lower().split())


def _offsets(span: Mapping) -> tuple[int, int] | None:
    """A span's (start, end) as ints, or None when they are not numbers
    (NaN, infinity: untrusted judge output)."""
    try:
        return int(span.get("start", 0)), int(span.get("end", 0))
    except (TypeError, ValueError, OverflowError):
        return None


def place(
    code: str, index: int | None, text: str, labelled: str, spans: Sequence[Mapping]
) -> tuple[int, int, int | None] | None:
    """(start, end, span index or None) where a finding of ``code`` sits on
    ``labelled``, or None when it cannot be placed (listed apart). ``index``:
    the span the judge named; ``text``: the finding's text (the span's, or the
    missed element's)."""
    if code != "MISSED":
        key = _norm(text)
        if (
            index is not None
            and 0 <= index < len(spans)
            and (not key or _norm(str(spans[index].get("text", ""))) == key)
        ):
            offsets = _offsets(spans[index])
            if offsets is not None:
                return (*offsets, index)
        for i, s in enumerate(spans):
            if key and _norm(str(s.get("text", ""))) == key:
                offsets = _offsets(s)
                if offsets is not None:
                    return (*offsets, i)
    needle = (text or "").strip().lower()
    if not needle:
        return None
    at = (labelled or "").lower().find(needle)
    if at < 0:
        return None
    start = index_to_utf16(labelled, at)
    return start, start + index_to_utf16(needle, len(needle)), None


__all__ = ["place"]
