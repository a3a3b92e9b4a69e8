"""Pull a model's answer out of its raw text and check it against the schema.

T-P5, step 1: "Parse model output (or note FORMAT error if unparseable)".
Raw text may be a llama.cpp log, prose, a ```json fence, or hold several JSON
blocks; the answer is the last JSON object that matches the prompt's schema
(an echo of the prompt's own example is skipped). Anything else is reported
as one FORMAT problem with a precise detail. Truncated JSON (max tokens hit)
is salvaged with json-repair when allowed; the run is then marked repaired.

Nothing here raises on any input: random bytes give a FORMAT problem.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from typing import (
    Any,
    Required,  # pydantic needs typing_extensions' before 3.12
)

import json_repair
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from reviewer.core.models import AnswerSchema, BBox, ModelCard

_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\r?\n?(.*?)(?:```|\Z)", re.S)


class _PileIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    label: str
    cards: list[str]


class _PilesAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    piles: list[_PileIn]


class _CardIn(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str
    bbox: BBox | None = None
    pile: str | int | None = None
    row: str | int | None = None


class _CardsAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    cards: list[_CardIn]


# The same schemas as TypedDicts: pydantic accepts exactly the same JSON values
# with them (same fields, same coercions) and builds plain dicts, which is
# cheaper; only their error messages differ, so an answer they reject is
# validated again with the models above for its FORMAT detail.
class _PileFields(TypedDict):
    __pydantic_config__ = ConfigDict(extra="ignore")  # type: ignore[misc]
    label: str
    cards: list[str]


class _PilesFields(TypedDict):
    __pydantic_config__ = ConfigDict(extra="ignore")  # type: ignore[misc]
    piles: list[_PileFields]


class _CardFields(TypedDict, total=False):
    __pydantic_config__ = ConfigDict(extra="ignore")  # type: ignore[misc]
    text: Required[str]
    bbox: BBox | None
    pile: str | int | None
    row: str | int | None


class _CardsFields(TypedDict):
    __pydantic_config__ = ConfigDict(extra="ignore")  # type: ignore[misc]
    cards: list[_CardFields]


_FAST_ADAPTERS: dict[AnswerSchema, TypeAdapter] = {
    AnswerSchema.PILES: TypeAdapter(_PilesFields),
    AnswerSchema.CARDS: TypeAdapter(_CardsFields),
}
_ADAPTERS: dict[AnswerSchema, TypeAdapter] = {
    AnswerSchema.PILES: TypeAdapter(_PilesAnswer),
    AnswerSchema.CARDS: TypeAdapter(_CardsAnswer),
}
_ENTRY_ADAPTERS: dict[AnswerSchema, TypeAdapter] = {
    AnswerSchema.PILES: TypeAdapter(_PileIn),
    AnswerSchema.CARDS: TypeAdapter(_CardIn),
}


@dataclass
class ParseResult:
    """What parsing found.

    ``json_valid``: a JSON object matching the schema was found as written.
    ``repaired``: it was not, but json-repair recovered one (cards are scored).
    ``parsed``: cards are available for scoring (json_valid or repaired).
    ``error``: the FORMAT detail, or None. ``error_offset``: character offset
    of the JSON error in the raw text, when there is one.
    ``span``: (start, end) of the chosen JSON in the raw text, when found.
    ``grouped``: the answer assigns cards to piles (spatial can be scored).
    """

    schema: AnswerSchema
    json_valid: bool = False
    repaired: bool = False
    cards: list[ModelCard] = field(default_factory=list)
    grouped: bool = False
    error: str | None = None
    error_offset: int | None = None
    span: tuple[int, int] | None = None
    data: Any = None

    @property
    def parsed(self) -> bool:
        """True when there are model cards to score."""
        return self.json_valid or self.repaired


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of character ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def json_objects(text: str) -> list[tuple[int, int, Any]]:
    """Every top-level JSON object decodable in ``text``.

    Returns [(start, end, value)] in order of appearance, character offsets.
    Objects nested in a decoded one are not listed again. Never raises.
    """
    found: list[tuple[int, int, Any]] = []
    pos = text.find("{")
    while pos != -1:
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError):
            pos = text.find("{", pos + 1)
            continue
        found.append((pos, end, value))
        pos = text.find("{", end)
    return found


#: builds the model cards of an answer in one validation call (as ModelCard(**fields) each)
_MODEL_CARDS = TypeAdapter(list[ModelCard])


def _to_cards(answer: _PilesAnswer | _CardsAnswer) -> tuple[list[ModelCard], bool]:
    """Model cards of a validated answer, and whether they carry piles."""
    if isinstance(answer, _PilesAnswer):
        cards = _MODEL_CARDS.validate_python([{"text": c, "pile": p.label} for p in answer.piles for c in p.cards])
        return cards, True
    fields = []
    grouped = False
    for c in answer.cards:
        pile = c.pile if c.pile is not None else c.row
        if pile is not None:
            grouped = True
            pile = str(pile)
        fields.append({"text": c.text, "pile": pile, "bbox": c.bbox})
    return _MODEL_CARDS.validate_python(fields), grouped


def _fields_to_cards(fields: dict[str, Any]) -> tuple[list[ModelCard], bool]:
    """``_to_cards`` of an answer validated as ``_PilesFields`` or
    ``_CardsFields`` (plain dicts)."""
    if "piles" in fields:
        cards = _MODEL_CARDS.validate_python(
            [{"text": c, "pile": p["label"]} for p in fields["piles"] for c in p["cards"]]
        )
        return cards, True
    entries = []
    grouped = False
    for c in fields["cards"]:
        pile = c.get("pile")
        if pile is None:
            pile = c.get("row")
        if pile is not None:
            grouped = True
            pile = str(pile)
        entries.append({"text": c["text"], "pile": pile, "bbox": c.get("bbox")})
    return _MODEL_CARDS.validate_python(entries), grouped


def _validation_detail(schema: AnswerSchema, exc: ValidationError) -> str:
    """One line naming the first schema errors by their pydantic path."""
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"{loc}: {err['msg']}")
    more = exc.error_count() - len(parts)
    tail = f" (+{more} more)" if more > 0 else ""
    return f"JSON does not match the {schema.value} schema: " + "; ".join(parts) + tail


def _same_json(a: Any, b: Any) -> bool:
    """Equal JSON values (dict key order ignored; 1 == 1.0)."""
    try:
        return a == b
    except RecursionError:  # pragma: no cover - absurdly deep input
        return False


_LOG_LINE = re.compile(r"^[A-Za-z][\w.-]*(?:[ \t]*[:=]|[ \t]+\w)", re.M)


def _region_end(raw: str, start: int) -> int:
    """End of a broken JSON block starting at ``start``: its closing fence,
    else the first later line that starts with a word (a log line such as
    'llama_perf_context_print: ...' or prose), else the end of the text."""
    fence = raw.find("```", start)
    end = fence if fence != -1 else len(raw)
    line_start = raw.find("\n", start)
    if line_start != -1 and line_start < end:
        m = _LOG_LINE.search(raw, line_start + 1, end)
        if m:
            end = m.start()
    return end


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``pos`` lies in one of ``spans``: sorted, non-overlapping
    (start, end) pairs, as ``json_objects`` gives them; O(log n)."""
    i = bisect.bisect_right(spans, (pos, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


def _broken_region(raw: str, key: str, decoded: list[tuple[int, int]]) -> tuple[int, int] | None:
    """Where the answer most likely is when no object matching the schema
    decodes: the last object opening with the schema's ``key``, else the last
    fenced block holding a '{', else the last '{' of the text; never a place
    inside an object that did decode (``decoded`` spans). (start, end)."""
    opens = [m for m in re.finditer(r'\{\s*"' + re.escape(key) + r'"\s*:', raw) if not _inside(m.start(), decoded)]
    if opens:
        start = opens[-1].start()
        return start, _region_end(raw, start)
    for m in reversed(list(_FENCE.finditer(raw))):
        brace = raw.find("{", m.start(2), m.end(2))
        while brace != -1 and _inside(brace, decoded):
            brace = raw.find("{", brace + 1, m.end(2))
        if brace != -1:
            return brace, _region_end(raw, brace)
    brace = raw.rfind("{")
    while brace != -1 and _inside(brace, decoded):
        brace = raw.rfind("{", 0, brace)
    return (brace, _region_end(raw, brace)) if brace != -1 else None


def _accepted(result: ParseResult, cards_grouped: tuple, start: int, end: int, value: Any) -> ParseResult:
    """``result`` with the answer found at ``start``-``end`` (JSON ``value``):
    its (cards, grouped), valid JSON, no error."""
    result.cards, result.grouped = cards_grouped
    result.json_valid = True
    result.span = (start, end)
    result.data = value
    result.error = None
    return result


def parse_answer(
    raw: str,
    schema: AnswerSchema,
    *,
    salvage: bool = True,
    prompt_example: Any = None,
) -> ParseResult:
    """Parse raw model text against ``schema`` (T-P5 step 1).

    ``prompt_example``: the JSON example in the prompt, skipped if echoed.
    ``salvage``: repair truncated JSON with json-repair (``--strict`` turns it
    off). For ``AnswerSchema.FREE`` nothing is parsed and no error is given.
    Never raises; every failure is described in ``ParseResult.error``.
    """
    result = ParseResult(schema=schema)
    if schema == AnswerSchema.FREE:
        return result
    if not isinstance(raw, str):
        raw = str(raw)
    if not raw.strip():
        result.error = "the output is empty"
        return result
    objects = json_objects(raw)
    accepted, mismatch = _match_objects(result, objects, schema, prompt_example)
    if accepted is not None:
        return accepted
    if mismatch is not None:
        start, end, error = mismatch
        result.error = _validation_detail(schema, error)
        result.error_offset = start
        result.span = (start, end)
        return result
    return _broken_answer(raw, schema, result, objects, salvage)


def _match_objects(
    result: ParseResult, objects: list[tuple[int, int, Any]], schema: AnswerSchema, prompt_example: Any
) -> tuple[ParseResult | None, tuple[int, int, ValidationError] | None]:
    """The last JSON object (``json_objects``: (start, end, value)) that validates against
    ``schema``, skipping an echo of ``prompt_example``: (``result`` accepted with it,
    None). Else (None, the last object with the schema's key that failed validation,
    or None). A value the models cannot validate at all leaves its error in ``result``."""
    adapter, fast = _ADAPTERS[schema], _FAST_ADAPTERS[schema]
    key = schema.value
    mismatch: tuple[int, int, ValidationError] | None = None
    for start, end, value in reversed(objects):
        if prompt_example is not None and _same_json(value, prompt_example):
            continue
        try:
            fields = fast.validate_python(value)
        except Exception:  # noqa: BLE001 - the models below give the same verdict and the detail
            fields = None
        if fields is not None:
            return _accepted(result, _fields_to_cards(fields), start, end, value), None
        try:
            answer = adapter.validate_python(value)
        except ValidationError as exc:
            if mismatch is None and isinstance(value, dict) and key in value:
                mismatch = (start, end, exc)
            continue
        except (ValueError, TypeError, RecursionError) as exc:  # pragma: no cover
            result.error = f"JSON could not be validated: {exc}"
            continue
        return _accepted(result, _to_cards(answer), start, end, value), None
    return None, mismatch


def _broken_answer(
    raw: str, schema: AnswerSchema, result: ParseResult, objects: list[tuple[int, int, Any]], salvage: bool
) -> ParseResult:
    """``result`` when no JSON object holds the answer: the error names the broken region
    that starts the answer (``_broken_region``) and, with ``salvage``, the cards
    json-repair recovers from it; or says no object matched or none was found."""
    key = schema.value
    region = _broken_region(raw, key, [(a, b) for a, b, _ in objects])
    if region is None:
        if objects:
            result.error = (
                f'no JSON object matching the {key} schema (no "{key}" field; '
                f"{len(objects)} other JSON object(s) found)"
            )
        else:
            result.error = f'no JSON object found in the output (expected {{"{key}": [...]}})'
        return result
    start, end = region
    state = _open_state(raw[start:end])
    _describe_json_error(raw, start, end, result, state)
    if salvage:
        _salvage(raw[start:end], schema, result, state[1])
        if result.repaired:
            result.span = (start, end)
            assert result.error is not None  # set by _describe_json_error: the region does not parse
            result.error += f"; recovered {len(result.cards)} card(s) with json-repair"
    return result


def _describe_json_error(
    raw: str, start: int, end: int, result: ParseResult, state: tuple[int, bool] | None = None
) -> None:
    """Set the FORMAT detail to the JSON error of raw[start:end] with its
    line and column in the raw text. ``state``: ``_open_state`` of
    raw[start:end] when the caller has it."""
    try:
        json.loads(raw[start:end])
    except json.JSONDecodeError as exc:
        offset = start + exc.pos
        line, col = line_col(raw, offset)
        depth, in_string = state if state is not None else _open_state(raw[start:end])
        truncated = in_string or depth > 0  # still open at the end: cut off (max tokens)
        what = "truncated JSON" if truncated else "invalid JSON"
        result.error = f"{what} at line {line} column {col} (char {offset}): {exc.msg}"
        result.error_offset = offset
    except (ValueError, RecursionError) as exc:
        result.error = f"invalid JSON: {exc}"
        result.error_offset = start
    else:  # decodes but is not an object of the schema
        result.error = "the JSON is not an object of the expected schema"
        result.error_offset = start


def _open_state(text: str) -> tuple[int, bool]:
    """(bracket depth, inside a string) at the end of ``text``."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return depth, in_string


def _salvage(text: str, schema: AnswerSchema, result: ParseResult, cut_in_string: bool) -> None:
    """Try json-repair on a broken block and keep every pile or card entry
    that matches the schema on its own; when the block was cut off inside a
    string (``cut_in_string``), the last card is dropped: a max-tokens cut is
    not a misreading. The run is then marked repaired."""
    try:
        value = json_repair.loads(text)
    except Exception:  # noqa: BLE001 - json-repair is untrusted code fed untrusted input
        return
    entries = value.get(schema.value) if isinstance(value, dict) else None
    if not isinstance(entries, list):
        return
    entry_adapter = _ENTRY_ADAPTERS[schema]
    kept = []
    last_kept = False
    for entry in entries:
        try:
            kept.append(entry_adapter.validate_python(entry))
            last_kept = True
        except (ValidationError, ValueError, TypeError):
            last_kept = False
    if cut_in_string and last_kept:
        if schema == AnswerSchema.PILES:
            last = kept[-1]
            last.cards = last.cards[:-1]
            if not last.cards:
                kept.pop()
        else:
            kept.pop()
    if schema == AnswerSchema.PILES:
        answer: _PilesAnswer | _CardsAnswer = _PilesAnswer(piles=kept)
    else:
        answer = _CardsAnswer(cards=kept)
    cards, grouped = _to_cards(answer)
    cards = [c for c in cards if c.text.strip()]
    if not cards:
        return
    result.cards, result.grouped = cards, grouped
    result.repaired = True
    result.data = value
