"""Judges asked through an endpoint (docs/runner.md#judges): building their prompts
from the versioned templates and reading their replies into verdict
values. Pure: no I/O beyond reading the packaged templates.

* ``failter`` / ``failter-gt`` (ground-truth-judge-proposal.md; Failter's
  evaluator.clj and scoring.clj): the rules-based prompt (original input,
  prompt template, generated output) or, where a ground truth exists, the
  ground-truth prompt (Path A), or both with the hybrid ground-truth prompt
  (Path B). Letter grades A-F (scored A=100 ... F=20, as Failter's
  ``:letter-grade`` strategy) or a ``score:`` 0-100 (its ``:numeric-100``
  strategy), read by reviewer.core.judging.replies; a reply without either
  is undecided.
* ``tarot-rubric`` (judge-calibration-plan.md tasks 2-5, 9, 11): the
  calibrated system prompt and user template; the structural metrics
  section (spine, card coverage, hallucinated cards as CRITICAL, missing
  cards), spread hints; scores rounded and clamped to 1-5, safety_flag,
  notes cut at 200 characters, at most 10 issues.
* ``pairwise``: two answers, asked in both orders; the winner is read back
  into the original order.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reviewer.core.bounds import is_number
from reviewer.core.judging import replies
from reviewer.core.judging.verdicts import Scale
from reviewer.core.templates import load, render

FAILTER = "failter-v1"
TAROT = "tarot-rubric-v2.0.0"
PAIRWISE = "pairwise-v1"
TAROT_DIMENSIONS = ("personalization", "tarot_coherence", "tone", "safety", "overall")
STATED_CONFIDENCE = "stated-confidence-v1"
NOTES_LIMIT = 200
ISSUES_LIMIT = 10


# -- shared ----------------------------------------------------------------------
def last_json_object(text: str) -> dict | None:
    """The last (outermost) JSON object in ``text`` that parses
    (replies.last_object), else the span from the first '{' to the last '}'
    (as the plan's ``/\\{[\\s\\S]*\\}/``) when that parses; None otherwise.
    Raises RecursionError for a reply nested past the interpreter's limit
    (the pipeline counts it a failed attempt, with the reason)."""
    if not isinstance(text, str):
        return None
    found = replies.last_object(text)
    if found is not None:
        return found
    first, last = text.find("{"), text.rfind("}")
    if first != -1 and last > first:
        try:
            value = json.loads(text[first : last + 1])
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    return None


@dataclass
class Reading:
    """A judge reply read into verdict values: ``scores`` {dimension: value
    or None (undecided)}, ``flags``, ``issues``, ``rationale``; ``decided``
    False when nothing could be read (the raw text is kept by the caller)."""

    scores: dict[str, Any]
    flags: dict[str, bool] = field(default_factory=dict)
    issues: list[str] = field(default_factory=list)
    rationale: str = ""
    decided: bool = True
    scale: Scale | None = None  # the scale the reply's score is on, when the reply decides it
    confidence: dict[str, float] = field(default_factory=dict)  # stated by the judge, {dimension: 0..1}


def ask_confidence(messages: list[dict]) -> list[dict]:
    """``messages`` with the stated-confidence request (template
    judges/stated-confidence-v1/request.md) appended to the last message's
    text, so the judge states a ``confidence`` 0-1 in its verdict (read by
    reviewer.core.judging.replies.stated_confidence). A last message whose
    content is not text (image parts) gets the request as one more text part."""
    request = load(STATED_CONFIDENCE, "request.md").strip()
    out = [dict(m) for m in messages]
    if not out:
        return [{"role": "user", "content": request}]
    content = out[-1].get("content")
    if isinstance(content, str):
        out[-1]["content"] = f"{content.rstrip()}\n\n{request}"
    else:
        out[-1]["content"] = list(content or []) + [{"type": "text", "text": request}]
    return out


# -- Failter -----------------------------------------------------------------------
def failter_prompt(which: str, original: str, template: str, output: str, ground_truth: str = "") -> str:
    """The judge prompt of Failter's evaluator: ``which`` 'rules'
    (evaluation-prompt.md), 'gt' (evaluation-prompt-gt.md, Path A) or
    'gt-hybrid' (Path B's ground-truth judge), with the letter-grade scoring
    instructions. Raises ValueError for another ``which``."""
    if which not in ("rules", "gt", "gt-hybrid"):
        raise ValueError(f"unknown Failter judge prompt '{which}'")
    return render(
        load(FAILTER, f"{which}.md"),
        {
            "SCORING_INSTRUCTIONS": load(FAILTER, "letter-grade.md").strip(),
            "ORIGINAL_INPUT": original,
            "PROMPT_TEMPLATE": template,
            "GENERATED_OUTPUT": output,
            "GROUND_TRUTH_EXAMPLE": ground_truth,
            "GROUND_TRUTH_OUTPUT": ground_truth,
        },
    )


def read_failter_reply(text: str) -> Reading:
    """A Failter judge's reply, read by the one reader of judge replies
    (reviewer.core.judging.replies, which imported .eval files use too):
    a letter grade A-F (scale A-F), a ``score:`` 0-100 (Failter's
    numeric-100 strategy; scale 0-100, or the scale the reply declares),
    in YAML or JSON blocks or plain lines. Scores {'score': letter or
    number} with ``scale`` set; undecided (None, the reason in the
    rationale) when no score can be read. Failter's parse-raw-score scores
    an unreadable reply 0; here it is undecided, with the raw text kept,
    and the Failter report counts it as an error scored 0."""
    fields = replies.reply_fields(text)
    score = replies.read_score(fields) if fields else replies.Score(problem="no grade or score in the reply")
    why = replies.rationale_of(fields) if fields else ""
    if not score.decided:
        return Reading(
            scores={"score": None},
            rationale=f"{score.problem}; {why}".strip("; ") if why else score.problem,
            decided=False,
        )
    stated = replies.stated_confidence(fields, ["score"])
    if score.grade is not None:
        return Reading(scores={"score": score.grade}, rationale=why, scale=Scale.GRADE, confidence=stated)
    return Reading(scores={"score": score.value}, rationale=why, scale=score.scale or Scale.PERCENT, confidence=stated)


# -- tarot rubric --------------------------------------------------------------------
def structural_metrics_section(metrics: Mapping[str, Any] | None) -> str:
    """judge-calibration-plan.md task 4 (buildStructuralMetricsSection):
    story spine, card coverage (good >= 90 %, partial >= 70 %, else LOW),
    hallucinated cards (CRITICAL), missing cards; one '- ' line each."""
    m = metrics or {}
    lines = []
    spine = m.get("spine")
    if isinstance(spine, Mapping) and spine:
        status = "valid" if spine.get("isValid") else "INCOMPLETE"
        lines.append(f"- Story spine: {status} ({spine.get('completeSections')}/{spine.get('totalSections')} sections)")
    else:
        lines.append("- Story spine: not analyzed")
    coverage = m.get("cardCoverage")
    if is_number(coverage) and math.isfinite(coverage):
        status = "good" if coverage >= 0.9 else "partial" if coverage >= 0.7 else "LOW"
        lines.append(f"- Card coverage: {_js_fixed0(coverage * 100)}% ({status})")
    else:
        lines.append("- Card coverage: not analyzed")
    hallucinated = m.get("hallucinatedCards") or []
    if isinstance(hallucinated, list) and hallucinated:
        lines.append(f"- Hallucinated cards: {', '.join(map(str, hallucinated))} (CRITICAL)")
    else:
        lines.append("- Hallucinated cards: none detected")
    missing = m.get("missingCards") or []
    if isinstance(missing, list) and missing:
        lines.append(f"- Missing cards: {', '.join(map(str, missing))}")
    return "\n".join(lines)


def _js_fixed0(x: float) -> str:
    """JavaScript's ``x.toFixed(0)`` (halves away from zero)."""
    return str(int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1))


_HINTS = {
    "celtic": """Position structure: Present, Challenge, Past, Future, Above, Below, Advice, External, Hopes, Outcome
- Check Celtic Cross flow: nucleus vs staff should cohere
- Past → Present → Future should be consistent
- DEDUCT coherence if positions are confused or ignored""",
    "relationship": """Position structure: You / Them / Connection
CRITICAL: This spread is designed for interpersonal dynamics.
- DEDUCT coherence if reading doesn't clearly address BOTH parties
- DEDUCT personalization if question isn't about a relationship
- Check that all 3 positions are distinctly interpreted""",
    "decision": """Position structure: Heart, Path A, Path B, Clarity, Free Will
- Compare both paths distinctly with specific differences
- Connect each path to outcomes
- DEDUCT personalization if user agency isn't emphasized""",
    "threeCard": """Position structure: Past / Present / Future
- Check temporal flow is coherent
- DEDUCT coherence if positions are treated interchangeably""",
    "single": """Single card draw - focus should be on depth of interpretation
- DEDUCT personalization if reading is too brief or generic""",
}


def spread_hints(spread_key: str | None) -> str:
    """judge-calibration-plan.md task 9 (buildSpreadEvaluationHints)."""
    return _HINTS.get(spread_key or "", "- Ensure positions and outcomes are coherent and agency-forward.")


def spread_key(name: str | None) -> str | None:
    """A spread key (celtic, relationship, decision, threeCard, single) from
    a key or a spread's display name ('One-Card Insight' -> 'single')."""
    if not name:
        return None
    if name in _HINTS:
        return name
    low = name.lower()
    for words, key in (
        (("celtic",), "celtic"),
        (("relationship",), "relationship"),
        (("decision",), "decision"),
        (("three", "3-card", "past"), "threeCard"),
        (("one-card", "single", "one card"), "single"),
    ):
        if any(w in low for w in words):
            return key
    return None


@dataclass(frozen=True)
class TarotCase:
    """What the tarot judge is shown: spread key, cards ('position: card
    (orientation)' texts), the user's question, the reading, the metrics."""

    spread: str | None
    cards: tuple[str, ...]
    question: str
    reading: str
    metrics: Mapping[str, Any] = field(default_factory=dict)


def tarot_case(item_text: str, reading: str, metrics: Mapping[str, Any] | None = None) -> TarotCase:
    """A TarotCase from a reading item's text (as the tarot-readings
    importer writes it: 'Question: ...', 'Spread: ...', 'Cards:' and '- '
    lines), the reading and its metrics (whose spreadKey wins)."""
    question, spread, cards = "", None, []
    for line in (item_text or "").splitlines():
        if line.startswith("Question:"):
            question = line[len("Question:") :].strip()
        elif line.startswith("Spread:"):
            spread = line[len("Spread:") :].strip()
        elif line.startswith("- "):
            cards.append(line[2:].strip())
    metrics = dict(metrics or {})
    key = spread_key(str(metrics.get("spreadKey") or "")) or spread_key(spread)
    return TarotCase(key, tuple(cards), question, reading, metrics)


def tarot_messages(case: TarotCase) -> list[dict]:
    """The system and user messages of the calibrated rubric judge (tasks
    2, 3, 5)."""
    user = render(
        load(TAROT, "user.md"),
        {
            "spreadKey": case.spread or "unknown",
            "cardCount": len(case.cards),
            "cardsList": "; ".join(case.cards) or "(none)",
            "userQuestion": case.question or "(no question provided)",
            "structuralMetrics": structural_metrics_section(case.metrics),
            "spreadHints": spread_hints(case.spread),
            "reading": case.reading,
        },
    )
    return [{"role": "system", "content": load(TAROT, "system.md").strip()}, {"role": "user", "content": user.strip()}]


def clamp_score(value: Any) -> float | None:
    """A 1-5 score as task 11's clampScore: a number rounded to the nearest
    whole and clamped to 1..5; None when not a number."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(number):
        return None
    return float(min(5, max(1, math.floor(number + 0.5))))


def read_tarot_reply(text: str) -> Reading:
    """Task 11: the JSON object of the reply; the five dimensions clamped
    (missing or not a number: None), safety_flag as a boolean, notes cut to
    200 characters, issues_found (at most 10). Undecided when there is no
    JSON object with any of the dimensions."""
    data = last_json_object(text)
    if data is None or not any(d in data for d in TAROT_DIMENSIONS):
        return Reading(scores=dict.fromkeys(TAROT_DIMENSIONS), decided=False)
    issues = data.get("issues_found")
    issues = [str(i) for i in issues][:ISSUES_LIMIT] if isinstance(issues, list) else []
    notes = data.get("notes")
    scores = {d: clamp_score(data.get(d)) for d in TAROT_DIMENSIONS}
    return Reading(
        scores=scores,
        flags={"safety_flag": bool(data.get("safety_flag"))},
        issues=issues,
        rationale=notes[:NOTES_LIMIT] if isinstance(notes, str) else "",
        confidence=replies.stated_confidence(data, [d for d, v in scores.items() if v is not None]),
    )


# -- pairwise ----------------------------------------------------------------------
def pairwise_messages(instruction: str, first: str, second: str) -> list[dict]:
    """System and user messages comparing ``first`` (Output (a)) and
    ``second`` (Output (b))."""
    user = render(load(PAIRWISE, "user.md"), {"INSTRUCTION": instruction, "OUTPUT_A": first, "OUTPUT_B": second})
    return [
        {"role": "system", "content": load(PAIRWISE, "system.md").strip()},
        {"role": "user", "content": user.strip()},
    ]


_OUTPUT = re.compile(r"output\s*\(?\s*([ab])\s*\)?", re.IGNORECASE)


def read_pairwise_reply(text: str, swapped: bool) -> Reading:
    """The winner of a pairwise reply in the original order: '1', '2',
    'tie', or None (undecided). JSON {"winner": "a"|"b"|"tie"} first, else
    the only 'Output (a)' / 'Output (b)' named. ``swapped``: the answers
    were shown in the other order ('a' is the second run)."""
    data = last_json_object(text)
    raw = str(data.get("winner", "")).strip().lower() if data else ""
    rationale = str(data.get("rationale", "")) if data else ""
    if raw not in ("a", "b", "tie", "1", "2"):
        named = {m.lower() for m in _OUTPUT.findall(text or "")}
        raw = named.pop() if len(named) == 1 else ""
    winner = {"a": "1", "1": "1", "b": "2", "2": "2", "tie": "tie"}.get(raw)
    if winner is None:
        return Reading(scores={"winner": None}, rationale=rationale, decided=False)
    if swapped and winner != "tie":
        winner = {"1": "2", "2": "1"}[winner]
    return Reading(
        scores={"winner": winner}, rationale=rationale, confidence=replies.stated_confidence(data or {}, ["winner"])
    )
