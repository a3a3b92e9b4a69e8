"""One reader of judge replies, for live judging and imported ``.eval``
files alike (Failter's scoring strategies, scoring.clj; its eval.clj
``.eval`` files; ground-truth-judge-proposal.md §4.1 for the nested form).

A reply (or an ``.eval`` text) is read into a mapping of lower-case keys
('_' read as '-') by the first of these that gives one:

1. the last fenced block (```yaml / ```json / ```) holding a mapping with
   a known key (grade, score, rationale, ...);
2. the whole text as YAML, when it is a mapping with a known key;
3. the last JSON object in the text;
4. plain ``key: value`` lines of the known keys (a leading '- ', '**' or
   '#' and a trailing '**' are allowed: ``**Score:** 80``); a line that
   does not start a known key continues the last value, so a rationale may
   run over several lines.

A score is then read from a mapping (:func:`read_score`):

* ``grade``: a letter A-F (``B+`` read as B; ``Excellent`` is not a grade),
  Failter's ``:letter-grade`` strategy;
* ``score``: a number, Failter's ``:numeric-100`` strategy (0-100), or on a
  declared ``scale`` ('1-5', '0-100', 'A-F'); ``80/100``, ``80%`` and
  ``4/5`` declare their scale; ``score: B`` is read as a grade;
* ``error`` (a judgement that failed, as reviewer writes it into an
  ``.eval``) or nothing readable: no score, with the reason.

A template may ask the judge for a stated ``confidence`` (0-1, or a
percentage) in its verdict: :func:`stated_confidence` reads it (one number
for the verdict, or {dimension: number}).

Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from reviewer.core.bounded_yaml import load_yaml
from reviewer.core.judging.verdict_confidence import stated_confidences
from reviewer.core.judging.verdicts import GRADE_POINTS, Scale

#: The keys a plain-lines reply may hold (others continue the last value).
PLAIN_KEYS = {
    "grade",
    "score",
    "rationale",
    "evaluation-method",
    "judge-model",
    "scale",
    "error",
    "raw-reply",
    "rules-based-eval",
    "ground-truth-eval",
    "confidence",
}
_FENCE = re.compile(r"```[ \t]*([A-Za-z]*)[ \t]*\r?\n(.*?)```", re.DOTALL)
_LINE = re.compile(r"^[\s>#*_`-]*([A-Za-z][\w-]*)[*_`]*\s*:[*_`]*\s?(.*)$")
_GRADE = re.compile(r"^([A-DF])[+-]?(?![A-Za-z])", re.IGNORECASE)
_NUMBER = re.compile(r"^(-?\d+(?:\.\d+)?)\s*(%|/\s*100\b|/\s*5\b|out of 100\b|out of 5\b)?", re.IGNORECASE)
_SCALES = {
    "1-5": Scale.ORDINAL5,
    "1..5": Scale.ORDINAL5,
    "0-100": Scale.PERCENT,
    "0..100": Scale.PERCENT,
    "a-f": Scale.GRADE,
}


def key(name: Any) -> str:
    """A key as compared: lower case, trimmed, '_' and ' ' read as '-'."""
    return str(name).strip().lower().replace("_", "-").replace(" ", "-")


def _mapping(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict) and value:
        return {key(k): v for k, v in value.items()}
    return None


def _yaml(text: str) -> Any:
    try:
        return load_yaml(text)  # bounded: an alias bomb or an over-long reply reads as nothing
    except (yaml.YAMLError, ValueError, RecursionError):
        return None


def last_object(text: str) -> dict | None:
    """The last (outermost) JSON object in ``text`` that parses, or None. The
    one scanner of judge replies (llm_judges.last_json_object adds its
    fallback). Raises RecursionError for a reply nested past the
    interpreter's limit: a live judge's such reply is a failed attempt (the
    pipeline says why); ``reply_fields`` reads it as nothing."""
    decoder = json.JSONDecoder()
    found = None
    i = text.find("{")
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(value, dict):
            found = value
        i = text.find("{", end)
    return found


def _last_object_or_none(text: str) -> dict | None:
    try:
        return last_object(text)
    except RecursionError:  # a nesting bomb reads as no object, at once
        return None


def plain_lines(text: str) -> dict[str, str]:
    """The ``key: value`` lines of the known keys (module doc, step 4)."""
    out: dict[str, str] = {}
    last = None
    for line in text.splitlines():
        m = _LINE.match(line)
        if m and key(m[1]) in PLAIN_KEYS:
            last = key(m[1])
            out[last] = m[2].strip().strip("*_`").strip()
        elif last is not None and line.strip():
            out[last] = (out[last] + "\n" + line.strip()).strip()
    return out


def reply_fields(text: Any) -> dict[str, Any]:
    """The mapping a reply or ``.eval`` text holds (module doc); {} when
    nothing can be read. Never raises."""
    if not isinstance(text, str) or not text.strip():
        return {}
    fences = _FENCE.findall(text)
    for _, body in reversed(fences):
        found = _mapping(_yaml(body)) or _mapping(_last_object_or_none(body))
        if found and any(k in PLAIN_KEYS for k in found):
            return found
    found = _mapping(_yaml(text))
    if found and any(k in PLAIN_KEYS for k in found):
        return found
    found = _mapping(_last_object_or_none(text))
    if found:
        return found
    unfenced = "\n".join(line for line in text.splitlines() if not line.strip().startswith("```"))
    return plain_lines(unfenced)


def scale_named(value: Any) -> Scale | None:
    """The scale a ``scale:`` value names ('1-5', '0-100', 'A-F'), or None."""
    return _SCALES.get(str(value).strip().lower().replace(" ", ""))


@dataclass(frozen=True)
class Score:
    """A score read from a judgement: ``grade`` (a letter) or ``value`` (a
    number) with the ``scale`` it declares (None: not declared, a bare
    number); ``problem``: why there is no score (then both are None)."""

    grade: str | None = None
    value: float | None = None
    scale: Scale | None = None
    problem: str = ""

    @property
    def decided(self) -> bool:
        """A score was read."""
        return self.grade is not None or self.value is not None


def _grade(value: Any) -> str | None:
    m = _GRADE.match(str(value).strip().strip("*_`'\"[]() "))
    return m[1].upper() if m else None


def read_score(block: dict[str, Any]) -> Score:
    """The score of one judgement's mapping (keys as :func:`key` makes
    them; module doc). Never raises: a judgement without a readable score
    comes back with ``problem`` set."""
    block = {key(k): v for k, v in block.items()}
    declared = None
    if block.get("scale") not in (None, ""):
        declared = scale_named(block["scale"])
        if declared is None:
            return Score(problem=f"unknown scale {block['scale']!r} (1-5, 0-100 or A-F)")
    if block.get("error") not in (None, "") and block.get("grade") in (None, "") and block.get("score") in (None, ""):
        return Score(problem=f"the judgement failed: {block['error']}")
    grade, score = block.get("grade"), block.get("score")
    if grade is not None and str(grade).strip():
        letter = _grade(grade)
        if letter is None:
            return Score(problem=f"grade {grade!r} is not one of {', '.join(GRADE_POINTS)}")
        return Score(grade=letter, scale=Scale.GRADE)
    if score is None or isinstance(score, bool) or not str(score).strip():
        return Score(problem="no grade or score")
    if declared == Scale.GRADE or (isinstance(score, str) and _grade(score) and not _NUMBER.match(score.strip())):
        letter = _grade(score)
        if letter is None:
            return Score(problem=f"score {score!r} is not a grade A-F")
        return Score(grade=letter, scale=Scale.GRADE)
    m = _NUMBER.match(str(score).strip().strip("*_`'\"[] "))
    if not m:
        return Score(problem=f"score {score!r} is not a number")
    value = float(m[1])
    suffix = (m[2] or "").replace(" ", "").lower()
    scale = declared or (
        {
            "%": Scale.PERCENT,
            "/100": Scale.PERCENT,
            "outof100": Scale.PERCENT,
            "/5": Scale.ORDINAL5,
            "outof5": Scale.ORDINAL5,
        }.get(suffix)
    )
    low, high = (1, 5) if scale == Scale.ORDINAL5 else (0, 100)
    if not low <= value <= high:
        return Score(problem=f"score {score!r} is off its scale {(scale or Scale.PERCENT).value}")
    return Score(value=value, scale=scale)


def rationale_of(block: dict[str, Any]) -> str:
    """The rationale of a judgement's mapping ('' when none), fences cut."""
    value = {key(k): v for k, v in block.items()}.get("rationale")
    return "" if value is None else str(value).split("```")[0].strip()


def stated_confidence(block: Any, dimensions: list[str]) -> dict[str, float]:
    """{dimension: the confidence the judge states} from a reply's mapping
    (its ``confidence`` key: a number 0-1 or a percentage for every
    dimension, or {dimension: number}); {} when there is none or it cannot
    be read (reviewer.core.judging.verdict_confidence.read_confidence)."""
    if not isinstance(block, dict):
        return {}
    value = {key(k): v for k, v in block.items()}.get("confidence")
    return stated_confidences(value, dimensions) if value is not None else {}
