"""The span-labeling judge's response: the enhanced schema, the fallback
parser for basic or malformed responses, and the span list shown to the judge
(span-labeling-evaluation-design.md, "Zod Schema Validation", "Span Formatting
for Judge"; design properties P1, P2 and P11).

Pure: no I/O.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewer.core.spans.snapshots import CATEGORIES, DEFAULT_CATEGORY_SCORE, SCORE_KEYS

Score = Annotated[float, Field(ge=1, le=5)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Scores(_Strict):
    """The five 1-5 scores (design EnhancedJudgeResult.scores)."""

    coverage: Score
    precision: Score
    granularity: Score
    taxonomy: Score
    technicalSpecs: Score


class MissedElement(_Strict):
    """A visual element the labeler should have extracted."""

    text: str
    expectedRole: str
    category: str
    severity: Literal["critical", "important", "minor"]


class FalsePositive(_Strict):
    """A span that should not have been extracted, and why."""

    spanIndex: int = Field(ge=0)
    text: str
    assignedRole: str
    reason: Literal["section_header", "abstract_concept", "non_visual", "instruction_text", "duplicate", "other"]


class TaxonomyError(_Strict):
    """A span with the wrong role."""

    spanIndex: int = Field(ge=0)
    text: str
    assignedRole: str
    expectedRole: str


class GranularityError(_Strict):
    """A span whose boundaries are too fine or too coarse."""

    spanIndex: int = Field(ge=0)
    text: str
    issue: Literal["too_fine", "too_coarse"]
    suggestion: str


class CategoryScore(_Strict):
    """Coverage and precision of one taxonomy category (1-5 each)."""

    coverage: Score
    precision: Score


class CategoryScores(_Strict):
    """The nine categories' scores."""

    shot: CategoryScore
    subject: CategoryScore
    action: CategoryScore
    environment: CategoryScore
    lighting: CategoryScore
    camera: CategoryScore
    style: CategoryScore
    technical: CategoryScore
    audio: CategoryScore


class EnhancedJudgeResult(_Strict):
    """The design's EnhancedJudgeResultSchema (zod), field for field."""

    scores: Scores
    totalScore: float = Field(ge=0, le=25)
    missedElements: list[MissedElement]
    falsePositives: list[FalsePositive]
    taxonomyErrors: list[TaxonomyError]
    granularityErrors: list[GranularityError]
    categoryScores: CategoryScores
    notes: str


def _plain(value: Any) -> Any:
    """Floats that are whole numbers as ints, so a round trip keeps 4 as 4."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def validate_enhanced(data: Any) -> tuple[dict | None, list[str]]:
    """(the result as a plain dict, []) when ``data`` satisfies the enhanced
    schema, else (None, [validation errors]). Unknown keys are dropped, as
    zod does. Design property P1 (schema round trip)."""
    if not isinstance(data, Mapping):
        return None, ["not a JSON object"]
    try:
        model = EnhancedJudgeResult.model_validate(data)
    except ValidationError as exc:
        return None, [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
    return _plain(model.model_dump(mode="json")), []


def _text_of(entry: Any) -> str:
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Mapping):
        return str(entry.get("text") or "")
    return ""


def _default_scores(raw: Any) -> dict:
    if isinstance(raw, Mapping):
        out = {}
        for key in SCORE_KEYS:
            try:
                number = float(raw.get(key, 0))
            except (TypeError, ValueError):
                number = 0.0
            out[key] = _plain(number if not math.isnan(number) else 0.0)
        return out
    return dict.fromkeys(SCORE_KEYS, 0)


def convert_basic_to_enhanced(basic: Any) -> dict:
    """A basic-format (or malformed) judge response as an enhanced result with
    the design's defaults (convertBasicToEnhanced; design property P2):
    scores as given else all 0; totalScore as given else 0; missedElements
    from strings (or objects' text) with expectedRole and category 'unknown'
    and severity 'minor'; falsePositives from incorrectExtractions with
    spanIndex -1, assignedRole 'unknown' and reason 'other'; no taxonomy or
    granularity errors; every category scored 3 / 3; notes as given else
    'Converted from basic format'. Never raises."""
    basic = basic if isinstance(basic, Mapping) else {}
    total = basic.get("totalScore")
    try:
        total_value = float(total) if total is not None and not isinstance(total, bool) else 0.0
    except (TypeError, ValueError):
        total_value = 0.0
    missed = basic.get("missedElements") if isinstance(basic.get("missedElements"), list) else []
    wrong = basic.get("incorrectExtractions") if isinstance(basic.get("incorrectExtractions"), list) else []
    notes = basic.get("notes")
    return {
        "scores": _default_scores(basic.get("scores")),
        "totalScore": _plain(total_value if not math.isnan(total_value) else 0.0),
        "missedElements": [
            {"text": _text_of(m), "expectedRole": "unknown", "category": "unknown", "severity": "minor"} for m in missed
        ],
        "falsePositives": [
            {"spanIndex": -1, "text": _text_of(w), "assignedRole": "unknown", "reason": "other"} for w in wrong
        ],
        "taxonomyErrors": [],
        "granularityErrors": [],
        "categoryScores": {
            cat: {"coverage": DEFAULT_CATEGORY_SCORE, "precision": DEFAULT_CATEGORY_SCORE} for cat in CATEGORIES
        },
        "notes": notes if isinstance(notes, str) and notes else "Converted from basic format",
    }


_JSON_OBJECT = re.compile(r"\{[\s\S]*\}")


def parse_judge_response(content: str, span_count: int) -> tuple[dict, list[str]]:
    """(enhanced judge result, warnings) from a judge's raw response text
    (design parseJudgeResponse; properties P1 and P2). The JSON is the text
    from the first '{' to the last '}'. A response satisfying the enhanced
    schema is returned as is, with a warning per spanIndex beyond the spans
    (the entry is kept, its spanIndex set to -1: "Invalid spanIndex: keep the
    error entry but mark spanIndex as -1"); otherwise it is converted with
    :func:`convert_basic_to_enhanced`. No JSON or invalid JSON gives the
    fallback with zero scores ("return fallback result with zero scores")."""
    match = _JSON_OBJECT.search(content or "")
    if not match:
        return convert_basic_to_enhanced({}), ["No JSON in judge response"]
    try:
        parsed = json.loads(match.group(0))
    except ValueError as exc:
        return convert_basic_to_enhanced({}), [f"Invalid JSON in judge response: {exc}"]
    result, errors = validate_enhanced(parsed)
    if result is None:
        return convert_basic_to_enhanced(parsed), ["Judge response failed enhanced validation, using fallback"]
    warnings = []
    for key in ("falsePositives", "taxonomyErrors", "granularityErrors"):
        for entry in result[key]:
            if entry["spanIndex"] > span_count - 1:
                warnings.append(f"Invalid spanIndex {entry['spanIndex']} (max: {span_count - 1})")
                entry["spanIndex"] = -1
    return result, warnings


def format_spans_for_judge(spans: Sequence[Mapping]) -> str:
    """The numbered span list of the judge prompt, one line per span:
    ``[index] 'text' (role, confidence)`` with the confidence to 2 decimals
    (design formatSpansForJudge; property P11). The snapshots' own code adds
    start, end and section and uses double quotes; we follow the design."""
    lines = []
    for index, span in enumerate(spans):
        try:
            confidence = float(span.get("confidence", 0))
        except (TypeError, ValueError):
            confidence = 0.0
        if not math.isfinite(confidence):
            confidence = 0.0
        fixed = Decimal(confidence).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)  # JS toFixed(2)
        lines.append(f"[{index}] '{span.get('text', '')}' ({span.get('role', '')}, {fixed})")
    return "\n".join(lines)


__all__ = [
    "DEFAULT_CATEGORY_SCORE",
    "EnhancedJudgeResult",
    "convert_basic_to_enhanced",
    "format_spans_for_judge",
    "parse_judge_response",
    "validate_enhanced",
]
