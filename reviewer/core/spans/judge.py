"""The enhanced span-labeling judge asked through an endpoint
(span-labeling-evaluation-design.md: "Enhanced Judge Prompt", "Zod Schema
Validation", "Span Formatting for Judge"; docs/runner.md#judges).

* Spans are shown as ``[i] 'text' (role, 0.95)`` (formatSpansForJudge).
* The reply's JSON object is validated against the design's
  EnhancedJudgeResult schema (pydantic here, Zod there). A valid reply whose
  falsePositives / taxonomyErrors / granularityErrors name a spanIndex
  outside the spans is kept, with that spanIndex marked -1 (the design only
  warns). A reply that fails validation goes through the fallback
  (convertBasicToEnhanced: the design's defaults, via
  :func:`reviewer.core.spans.snapshots.normalise_judge_result`). No JSON
  object at all: undecided (None), the raw text kept by the caller.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, conint

from reviewer.core.spans.snapshots import CATEGORIES, SCORE_KEYS, normalise_judge_result
from reviewer.core.templates import load, render

SPAN = "span-v1"
_Score = Field(ge=1, le=5)


class _Scores(BaseModel):
    coverage: float = _Score
    precision: float = _Score
    granularity: float = _Score
    taxonomy: float = _Score
    technicalSpecs: float = _Score


class _Missed(BaseModel):
    text: str
    expectedRole: str
    category: str
    severity: Literal["critical", "important", "minor"]


class _FalsePositive(BaseModel):
    spanIndex: conint(ge=0)  # type: ignore[valid-type]
    text: str
    assignedRole: str
    reason: Literal["section_header", "abstract_concept", "non_visual", "instruction_text", "duplicate", "other"]


class _Taxonomy(BaseModel):
    spanIndex: conint(ge=0)  # type: ignore[valid-type]
    text: str
    assignedRole: str
    expectedRole: str


class _Granularity(BaseModel):
    spanIndex: conint(ge=0)  # type: ignore[valid-type]
    text: str
    issue: Literal["too_fine", "too_coarse"]
    suggestion: str


class _CategoryScore(BaseModel):
    coverage: float = _Score
    precision: float = _Score


class EnhancedJudgeResult(BaseModel):
    """The design's EnhancedJudgeResultSchema (extra keys allowed)."""

    model_config = ConfigDict(extra="allow")
    scores: _Scores
    totalScore: float = Field(ge=0, le=25)
    missedElements: list[_Missed]
    falsePositives: list[_FalsePositive]
    taxonomyErrors: list[_Taxonomy]
    granularityErrors: list[_Granularity]
    categoryScores: dict[Literal[CATEGORIES], _CategoryScore]  # type: ignore[valid-type]
    notes: str


def format_spans(spans: list[Any]) -> str:
    """``[i] 'text' (role, 0.95)`` per span, one a line (confidence with two
    decimals; a span without one shows 0.00)."""
    lines = []
    for i, span in enumerate(spans):
        span = span if isinstance(span, dict) else {"text": str(span)}
        try:
            conf = float(span.get("confidence") or 0)
        except (TypeError, ValueError):
            conf = 0.0
        lines.append(f"[{i}] '{span.get('text', '')}' ({span.get('role', '')}, {conf:.2f})")
    return "\n".join(lines)


def span_messages(prompt_text: str, spans: list[Any]) -> list[dict]:
    """System (ENHANCED_JUDGE_SYSTEM_PROMPT) and user messages for judging
    the ``spans`` labeled in ``prompt_text``."""
    user = render(
        load(SPAN, "user.md"),
        {"PROMPT_TEXT": prompt_text, "SPANS": format_spans(spans) or "(none)", "SPAN_COUNT": len(spans)},
    )
    return [{"role": "system", "content": load(SPAN, "system.md").strip()}, {"role": "user", "content": user.strip()}]


def read_span_reply(data: dict | None, span_count: int) -> tuple[dict | None, str]:
    """(judge result in the enhanced shape, how it was read: 'valid',
    'valid, N spanIndex out of range marked -1', 'fallback: <first
    validation error>', 'no JSON object') for the reply's JSON object
    ``data``. None when ``data`` is None."""
    if data is None:
        return None, "no JSON object"
    try:
        EnhancedJudgeResult.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        return normalise_judge_result(data), f"fallback: {'.'.join(map(str, err['loc']))}: {err['msg']}"
    result = normalise_judge_result(data)
    marked = 0
    for key in ("falsePositives", "taxonomyErrors", "granularityErrors"):
        for entry in result[key]:
            if entry.get("spanIndex", -1) >= span_count:
                entry["spanIndex"] = -1
                marked += 1
    return result, "valid" + (f", {marked} spanIndex out of range marked -1" if marked else "")


def span_scores(result: dict | None) -> dict[str, float | None]:
    """The verdict scores of a judge result: the five 1-5 scores (0, the
    fallback's 'not scored', as None) and totalScore; all None when
    undecided."""
    if result is None:
        return {**dict.fromkeys(SCORE_KEYS), "totalScore": None}
    out: dict[str, float | None] = {k: (v if 1 <= v <= 5 else None) for k, v in result["scores"].items()}
    out["totalScore"] = float(result["totalScore"])
    return out
