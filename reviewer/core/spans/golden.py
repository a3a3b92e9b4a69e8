"""Golden spans: hand-labelled spans of a text, the golden-set file format
(prompt-builder's server/src/llm/span-labeling/evaluation/golden-set/*.json),
and span precision, recall and F1 of labelled spans against golden spans
(exact, and relaxed as golden-set-results-latest.json reports it:
RelaxedF1Evaluator, IoU above 0.5 and the same role).

Offsets are UTF-16 code units, as the files (written by JavaScript) and Qt
count them; :func:`utf16_slice` reads a span's text in Python.

Pure: no I/O.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from reviewer.core.spans.matching import matcher
from reviewer.core.spans.snapshots import CATEGORIES

#: The taxonomy's category.attribute roles (those the golden set, the
#: snapshots and their judge use), for role completion when labelling.
ROLES: tuple[str, ...] = (
    "shot.type",
    "subject.identity",
    "subject.appearance",
    "subject.wardrobe",
    "subject.emotion",
    "action.movement",
    "action.state",
    "action.gesture",
    "environment.location",
    "environment.context",
    "environment.weather",
    "lighting.source",
    "lighting.quality",
    "lighting.timeOfDay",
    "lighting.colorTemp",
    "camera.movement",
    "camera.angle",
    "camera.lens",
    "camera.focus",
    "camera.aperture",
    "style.aesthetic",
    "style.colorGrade",
    "style.filmStock",
    "technical.duration",
    "technical.aspectRatio",
    "technical.frameRate",
    "technical.resolution",
    "audio.score",
    "audio.soundEffect",
    "audio.ambient",
)
#: IoU a relaxed match must exceed (RelaxedF1Evaluator: ``iou > 0.5``).
RELAXED_IOU = 0.5


def category_of(role: str) -> str:
    """The taxonomy category of a role: the part before the first dot
    ('camera.movement' -> 'camera'); 'unknown' when it is not one of the nine."""
    head = (role or "").split(".", 1)[0]
    return head if head in CATEGORIES else "unknown"


def complete_role(prefix: str) -> list[str]:
    """Roles starting with ``prefix`` (case-insensitive), then roles
    containing it, each in taxonomy order: the completion list of the role
    field when labelling a golden span."""
    p = (prefix or "").strip().lower()
    starts = [r for r in ROLES if r.lower().startswith(p)]
    return starts + [r for r in ROLES if p in r.lower() and r not in starts]


#: characters outside the Basic Multilingual Plane: two UTF-16 code units each
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@lru_cache(maxsize=16)
def _astral_indices(text: str) -> tuple[int, ...]:
    """Python indices of the characters of ``text`` that take two UTF-16
    code units, ascending; one pass over the text, kept for the texts in use
    so that converting many offsets of one text stays near-linear."""
    if text.isascii():
        return ()
    return tuple(m.start() for m in _ASTRAL.finditer(text))


def utf16_to_index(text: str, offset: int) -> int:
    """The Python string index of a UTF-16 offset into ``text`` (clamped to
    the text): the first index whose UTF-16 offset is at least ``offset``
    (so an offset inside a surrogate pair gives the index after it).
    O(log n) per call after one pass over ``text``."""
    astral = _astral_indices(text)
    if not astral:
        return max(0, min(math.ceil(offset), len(text)))
    lo, hi = 0, len(text)
    while lo < hi:  # the first i with i + (astral characters before i) >= offset
        mid = (lo + hi) // 2
        if mid + bisect.bisect_left(astral, mid) >= offset:
            hi = mid
        else:
            lo = mid + 1
    return lo


def index_to_utf16(text: str, index: int) -> int:
    """The UTF-16 offset of Python string index ``index`` into ``text``
    (``index`` clamped to the text). O(log n) per call after one pass."""
    index = max(0, min(index, len(text)))
    return index + bisect.bisect_left(_astral_indices(text), index)


def utf16_slice(text: str, start: int, end: int) -> str:
    """``text`` between two UTF-16 offsets (what JavaScript's slice gives)."""
    return text[utf16_to_index(text, start) : utf16_to_index(text, end)]


@dataclass
class GoldenSpan:
    """One hand-labelled span: UTF-16 [start, end), role (category.attribute)
    and text; ``extra``: further keys of the file's span (kept for export)."""

    start: int
    end: int
    role: str
    text: str = ""
    id: int | None = None
    extra: dict = field(default_factory=dict)
    key_order: tuple[str, ...] = ("text", "start", "end", "role")

    def to_json(self) -> dict:
        """The golden-set file's span: {text, start, end, role, ...extra}, keys
        in the order the file had them."""
        values = {"text": self.text, "start": self.start, "end": self.end, "role": self.role, **self.extra}
        order = [k for k in self.key_order if k in values] + [k for k in values if k not in self.key_order]
        return {k: values[k] for k in order}


@dataclass
class GoldenPrompt:
    """One prompt of a golden-set file: id, text, golden spans; ``extra``:
    further keys of the prompt (notes), ``truth_extra``: further keys of its
    groundTruth (isAdversarial), kept for export in the file's order."""

    id: str
    text: str
    spans: list[GoldenSpan]
    extra: dict = field(default_factory=dict)
    truth_extra: dict = field(default_factory=dict)
    key_order: tuple[str, ...] = ("id", "text", "groundTruth")


#: The largest span offset taken from a file: UTF-16 code units of a text
#: of 2 GiB, far past any golden-set text and within SQLite's INTEGER.
MAX_OFFSET = 2**31


def parse_golden_set(data: Any) -> tuple[dict, list[GoldenPrompt], list[str]]:
    """(metadata, prompts, problems) of a golden-set file's JSON
    ({metadata, prompts: [{id, text, groundTruth: {spans}}]}); prompts
    without an id or text and spans without numeric offsets, or with
    offsets that no text has (negative, start after end, past
    ``MAX_OFFSET``), are left out with a problem line each."""
    problems: list[str] = []
    if not isinstance(data, Mapping) or not isinstance(data.get("prompts"), list):
        return {}, [], ["not a golden-set file (needs prompts)"]
    prompts = []
    for i, p in enumerate(data["prompts"]):
        if not isinstance(p, Mapping) or not isinstance(p.get("id"), str) or not isinstance(p.get("text"), str):
            problems.append(f"prompt {i}: no id or text")
            continue
        truth = p.get("groundTruth")
        if not isinstance(truth, Mapping):
            truth = {}
        spans = []
        for j, s in enumerate(truth.get("spans") or []):
            if not isinstance(s, Mapping) or not all(
                isinstance(s.get(k), int) and not isinstance(s.get(k), bool) for k in ("start", "end")
            ):
                problems.append(f"{p['id']} span {j}: no start and end")
                continue
            if not 0 <= s["start"] <= s["end"] <= MAX_OFFSET:  # values validated at the door (core.bounds)
                problems.append(
                    f"{p['id']} span {j}: offsets {s['start']}..{s['end']} are not 0 <= start <= end <= {MAX_OFFSET}"
                )
                continue
            spans.append(
                GoldenSpan(
                    start=s["start"],
                    end=s["end"],
                    role=str(s.get("role") or ""),
                    text=str(s.get("text") if s.get("text") is not None else ""),
                    extra={k: v for k, v in s.items() if k not in ("text", "start", "end", "role")},
                    key_order=tuple(s.keys()),
                )
            )
        prompts.append(
            GoldenPrompt(
                id=p["id"],
                text=p["text"],
                spans=spans,
                extra={k: v for k, v in p.items() if k not in ("id", "text", "groundTruth")},
                truth_extra={k: v for k, v in truth.items() if k != "spans"},
                key_order=tuple(p.keys()),
            )
        )
    metadata = dict(data["metadata"]) if isinstance(data.get("metadata"), Mapping) else {}
    return metadata, prompts, problems


def golden_set_json(metadata: Mapping, prompts: Sequence[GoldenPrompt]) -> dict:
    """A golden-set file's JSON from its metadata and prompts, keys in the
    order the file had them (the inverse of :func:`parse_golden_set`)."""
    out_prompts = []
    for p in prompts:
        values = {
            "id": p.id,
            "text": p.text,
            "groundTruth": {"spans": [s.to_json() for s in p.spans], **p.truth_extra},
            **p.extra,
        }
        order = [k for k in p.key_order if k in values] + [k for k in values if k not in p.key_order]
        out_prompts.append({k: values[k] for k in order})
    return {"metadata": dict(metadata), "prompts": out_prompts}


# -- precision, recall, F1 ------------------------------------------------------
def iou(a: Mapping, b: Mapping) -> float:
    """Intersection over union of two spans' [start, end) (0 when either
    lacks numeric offsets or the union is empty)."""
    try:
        a0, a1, b0, b1 = (float(a["start"]), float(a["end"]), float(b["start"]), float(b["end"]))
    except (KeyError, TypeError, ValueError):
        return 0.0
    inter = max(0.0, min(a1, b1) - max(a0, b0))
    union = max(a1, b1) - min(a0, b0)
    return inter / union if union > 0 else 0.0


def exact_match(pred: Mapping, gold: Mapping) -> bool:
    """Same start, end and role."""
    return (pred.get("start"), pred.get("end"), pred.get("role")) == (
        gold.get("start"),
        gold.get("end"),
        gold.get("role"),
    )


def relaxed_match(pred: Mapping, gold: Mapping) -> bool:
    """IoU above 0.5 and the same role (RelaxedF1Evaluator)."""
    return iou(pred, gold) > RELAXED_IOU and pred.get("role") == gold.get("role")


@dataclass(frozen=True)
class Counts:
    """True positives, predicted spans and golden spans."""

    tp: int = 0
    predicted: int = 0
    golden: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.predicted + other.predicted, self.golden + other.golden)

    @property
    def precision(self) -> float:
        """tp / predicted (0 when nothing was predicted)."""
        return self.tp / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        """tp / golden (0 when there is no golden span)."""
        return self.tp / self.golden if self.golden else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall (0 when both are 0)."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def match_counts(predicted: Sequence[Mapping], golden: Sequence[Mapping], mode: str = "relaxed") -> Counts:
    """Counts of one text: each predicted span, in order, matches the first
    unmatched golden span it fits (``mode`` 'exact': same offsets and role;
    'relaxed': IoU above 0.5 and the same role), as RelaxedF1Evaluator.evaluateSpans."""
    fits = exact_match if mode == "exact" else relaxed_match
    index = matcher(golden, mode, fits)  # the plain loop's matches, through an index (spans.matching)
    tp = sum(1 for p in predicted if index.take(p) is not None)
    return Counts(tp, len(predicted), len(golden))


def span_f1(
    pairs: Iterable[tuple[Sequence[Mapping], Sequence[Mapping]]], mode: str = "relaxed", key=None
) -> dict[str, Counts]:
    """Counts over many texts ((predicted, golden) per text): {'all': summed
    over the texts} plus, per group, the counts of the spans whose group
    (``key(role)``: the role itself by default, :func:`category_of` for
    categories) is that group, matched within each text; groups whose golden
    spans number 0 are left out, as the golden-set results report
    ``byCategory`` only for roles with support."""
    key = key or (lambda role: role)
    total = Counts()
    groups: dict[str, Counts] = {}
    for predicted, golden in pairs:
        total = total + match_counts(predicted, golden, mode)
        by_group: dict[str, tuple[list, list]] = {}
        for side, spans in enumerate((predicted, golden)):
            for s in spans:
                by_group.setdefault(key(str(s.get("role") or "")), ([], []))[side].append(s)
        for name, (p, g) in by_group.items():
            groups[name] = groups.get(name, Counts()) + match_counts(p, g, mode)
    out = {"all": total}
    out.update({k: v for k, v in sorted(groups.items()) if v.golden > 0})
    return out


__all__ = [
    "Counts",
    "GoldenPrompt",
    "GoldenSpan",
    "RELAXED_IOU",
    "ROLES",
    "category_of",
    "complete_role",
    "exact_match",
    "golden_set_json",
    "index_to_utf16",
    "iou",
    "match_counts",
    "parse_golden_set",
    "relaxed_match",
    "span_f1",
    "utf16_slice",
    "utf16_to_index",
]
