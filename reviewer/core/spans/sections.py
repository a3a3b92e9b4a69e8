"""Section detection and span section tagging (span-labeling-evaluation-design.md,
"Section Detection Module"; design properties P3 and P4).

A labeled prompt has a *main* part, and optionally a *technicalSpecs* part
from a header ``**TECHNICAL SPECS**`` / ``**Technical Specifications**`` and
an *alternatives* part from a header ``**ALTERNATIVE...**`` / ``**VARIATIONS**``
(case-insensitive). A section starts at its header (the first ``*``) and ends
where the next section starts, or at the end of the text.

Deviation from the code that wrote the snapshots (prompt-builder's
span-labeling-evaluation.ts): its patterns begin with ``(^|\\n)\\s*``, so its
sections start at the blank line *before* a header (two characters early on
every baseline prompt). The design puts the start at the header; we follow the
design. No baseline span starts in those two characters, so span tags agree.

The design's alternatives pattern is written ``\\*\\*(?:ALTERNATIVE|VARIATIONS)\\*\\*``,
which would not match ``**ALTERNATIVE APPROACHES**``; property 3 names the
header as ``"**ALTERNATIVE"`` (a prefix), so the pattern here allows more
words before the closing ``**``.

Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from reviewer.core.bounds import is_number

#: The three sections, in the order the design lists them.
SECTIONS: tuple[str, ...] = ("main", "technicalSpecs", "alternatives")
#: Header patterns (design, "Section header patterns (case-insensitive)").
TECHNICAL_SPECS_PATTERN = re.compile(r"\*\*(?:TECHNICAL SPECS|Technical Specifications)\*\*", re.IGNORECASE)
ALTERNATIVES_PATTERN = re.compile(r"\*\*(?:ALTERNATIVE[^*\n]*|VARIATIONS)\*\*", re.IGNORECASE)


@dataclass(frozen=True)
class Boundary:
    """A section's [start, end) character offsets in the prompt text."""

    start: int
    end: int

    def to_json(self) -> dict:
        """The design's SectionBoundary: {start, end}."""
        return {"start": self.start, "end": self.end}


@dataclass(frozen=True)
class PromptSections:
    """The design's PromptSections: main always, the other two when their header is present."""

    main: Boundary
    technicalSpecs: Boundary | None = None
    alternatives: Boundary | None = None

    def to_json(self) -> dict:
        """{main: {start, end}, technicalSpecs: {..} | None, alternatives: {..} | None}."""
        return {
            "main": self.main.to_json(),
            "technicalSpecs": self.technicalSpecs.to_json() if self.technicalSpecs else None,
            "alternatives": self.alternatives.to_json() if self.alternatives else None,
        }

    def boundaries(self) -> list[tuple[str, Boundary]]:
        """(section, boundary) of the sections present, in text order."""
        found = [("main", self.main)] + [
            (name, b) for name, b in (("technicalSpecs", self.technicalSpecs), ("alternatives", self.alternatives)) if b
        ]
        return sorted(found, key=lambda nb: nb[1].start)


def detect_sections(text: str) -> PromptSections:
    """The section boundaries of ``text`` from its headers (design property
    P3): main.start is 0; main.end is the first header's position (or the
    text length); technicalSpecs.start and alternatives.start are their
    headers' positions; a section ends where the other starts when that is
    later, else at the end. An empty text gives main 0-0 and no others."""
    text = text or ""
    tech = TECHNICAL_SPECS_PATTERN.search(text)
    alt = ALTERNATIVES_PATTERN.search(text)
    tech_start = tech.start() if tech else None
    alt_start = alt.start() if alt else None
    n = len(text)
    main_end = min(tech_start if tech_start is not None else n, alt_start if alt_start is not None else n)
    technical = None
    if tech_start is not None:
        technical = Boundary(tech_start, alt_start if alt_start is not None and alt_start > tech_start else n)
    alternatives = None
    if alt_start is not None:
        alternatives = Boundary(alt_start, tech_start if tech_start is not None and tech_start > alt_start else n)
    return PromptSections(main=Boundary(0, main_end), technicalSpecs=technical, alternatives=alternatives)


def span_section(start: int, sections: PromptSections) -> str:
    """The section a span belongs to by its start offset (design property
    P4): 'technicalSpecs' when start is within technicalSpecs, else
    'alternatives' when within alternatives, else 'main'."""
    t, a = sections.technicalSpecs, sections.alternatives
    if t is not None and t.start <= start < t.end:
        return "technicalSpecs"
    if a is not None and a.start <= start < a.end:
        return "alternatives"
    return "main"


def tag_spans(spans: Iterable[Mapping], sections: PromptSections) -> list[dict]:
    """Copies of ``spans`` with ``section`` set from their start offset
    (design tagSpansWithSections, property P4); a span without a finite
    numeric start (NaN, infinity: untrusted judge output) is tagged 'main'."""
    out = []
    for span in spans:
        start = span.get("start")
        section = span_section(int(start), sections) if is_number(start) and math.isfinite(start) else "main"
        out.append({**span, "section": section})
    return out


def text_section(fragment: str, text: str, sections: PromptSections) -> str:
    """The section where ``fragment`` first occurs in ``text`` (case-insensitive,
    surrounding blanks ignored), 'main' when it does not occur. The design
    cannot place missed elements ("would require the judge to report the
    section"); like the snapshots' own code we place them by where their text
    occurs."""
    needle = (fragment or "").strip().lower()
    if not needle:
        return "main"
    index = (text or "").lower().find(needle)
    return "main" if index < 0 else span_section(index, sections)


__all__ = [
    "ALTERNATIVES_PATTERN",
    "Boundary",
    "PromptSections",
    "SECTIONS",
    "TECHNICAL_SPECS_PATTERN",
    "detect_sections",
    "span_section",
    "tag_spans",
    "text_section",
]
