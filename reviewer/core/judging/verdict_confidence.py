"""Where a verdict's confidence comes from, per dimension.

Three sources (:data:`SOURCES`):

* ``logprob``: the probability the judge model gave the token that carries
  a dimension's value, ``exp(logprob)``, from the token stream an
  OpenAI-compatible endpoint returns with ``logprobs: true``
  (:func:`value_token_confidences`). The value's token is found after the
  last occurrence of the dimension's key in the reply (``"score": 4``,
  ``grade: B``, ``**Score:** 80``): the token whose characters cover the
  first character of the value. The first token of a value is the model's
  decision (a 4 rather than a 3); the tokens after it follow from it.
* ``stated``: the judge's reply says how sure it is, 0-1
  (:func:`read_confidence`; the reply reader reads a ``confidence`` key).
* ``imported``: the imported file gave a ``confidence`` per verdict or line.

Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["SOURCES", "read_confidence", "stated_confidences", "value_token_confidences"]

#: The sources of a confidence, as stored.
SOURCES = ("logprob", "stated", "imported")

_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


def read_confidence(value: Any) -> float | None:
    """A stated or imported confidence as a probability in [0, 1]: a number
    within [0, 1], a string holding one, or a percentage string ('85 %' ->
    0.85). None for anything else (a bool, a number out of range, NaN,
    text): an unreadable confidence is no confidence, never a guess."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        m = _PERCENT.match(value)
        if m:
            x = float(m[1]) / 100.0
            return x if 0.0 <= x <= 1.0 else None
        try:
            value = float(value.strip().strip("*_`'\""))
        except ValueError:
            return None
    if not isinstance(value, (int, float)):
        return None
    x = float(value)
    return x if math.isfinite(x) and 0.0 <= x <= 1.0 else None


def stated_confidences(value: Any, dimensions: Iterable[str]) -> dict[str, float]:
    """{dimension: confidence} from what a reply or file states: one number
    for the whole verdict (every dimension gets it) or a mapping
    {dimension: number}; unreadable values are left out
    (:func:`read_confidence`)."""
    dims = list(dimensions)
    if isinstance(value, Mapping):
        wanted = {_norm(d): d for d in dims}
        out = {}
        for k, v in value.items():
            d = wanted.get(_norm(k))
            c = read_confidence(v)
            if d is not None and c is not None:
                out[d] = c
        return out
    c = read_confidence(value)
    return {} if c is None else {d: c for d in dims}


def _norm(name: Any) -> str:
    return str(name).strip().lower().replace("_", "-").replace(" ", "-")


def _key_pattern(name: str) -> str:
    parts = re.split(r"[-_ ]", name)
    return r"[-_ ]".join(re.escape(p) for p in parts)


def value_token_confidences(
    content: str,
    tokens: Sequence[tuple[str, float]],
    dimensions: Iterable[str],
    aliases: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, float]:
    """{dimension: exp(logprob)} of the token carrying each dimension's value
    (module doc).

    Args:
        content: the reply's text.
        tokens: the reply's token stream, (token text, logprob) in order;
            their texts joined must hold ``content`` (else nothing is found).
        dimensions: the dimensions to locate (those with a value).
        aliases: {dimension: keys the reply may use for it} (default the
            dimension's own name; e.g. Failter's 'score' may come as 'grade').

    Returns:
        The dimensions whose key and value token were found; a dimension
        whose key is not in the reply, or whose value lies outside the
        token stream, is left out.
    """
    if not tokens or not content:
        return {}
    joined = "".join(t for t, _ in tokens)
    base = joined.find(content) if joined != content else 0
    if base < 0:
        return {}
    starts, pos = [], 0
    for t, _ in tokens:
        starts.append(pos)
        pos += len(t)
    out: dict[str, float] = {}
    for dim in dimensions:
        keys = list((aliases or {}).get(dim) or ()) or [dim]
        best = None
        for name in keys:
            pattern = re.compile(
                r"(?<![\w-])[\"']?" + _key_pattern(str(name)) + r"[\"']?[*_`]*\s*[:=][*_`]*\s*[\"']?", re.IGNORECASE
            )
            for m in pattern.finditer(content):
                if best is None or m.start() > best.start():
                    best = m
        if best is None or best.end() >= len(content):
            continue
        at = base + best.end()
        i = _token_at(starts, at)
        if i is None:
            continue
        logprob = tokens[i][1]
        if isinstance(logprob, (int, float)) and math.isfinite(logprob) and logprob <= 0:
            out[dim] = math.exp(logprob)
    return out


def _token_at(starts: list[int], at: int) -> int | None:
    lo, hi = 0, len(starts) - 1
    if at < 0 or not starts:
        return None
    while lo < hi:  # the last token starting at or before ``at``
        mid = (lo + hi + 1) // 2
        if starts[mid] <= at:
            lo = mid
        else:
            hi = mid - 1
    return lo
