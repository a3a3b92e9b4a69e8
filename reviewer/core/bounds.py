"""Values validated at the door: what a number read from an imported file
may be before it is stored.

JSON as Python reads it accepts ``NaN``, ``Infinity`` and ``1e309`` (which
becomes infinity), and any integer however large; SQLite stores at most
64-bit integers, Qt cannot paint a non-finite coordinate, and a NaN makes
JSON exports invalid. So every number an importer stores passes one of
these checks first, and a value that fails is skipped with a one-line
reason (``BadValue``'s message), never stored:

* a **pixel** coordinate is a finite number within +-``MAX_PIXEL``
  (no photo side reaches a million pixels; a box that reaches outside its
  photo but not that far is clamped by the importer, with a note);
* a pixel **size** (a declared image width or height) is a finite number
  in (0, ``MAX_PIXEL``];
* an **offset** or a **count** is an integer (not a bool) in
  0..``MAX_INT`` (what SQLite's INTEGER holds);
* an **id** is an integer within SQLite's INTEGER or a string;
* any other **number** is finite (:func:`first_non_finite` finds one in
  free JSON such as a test case's expected behaviour).
"""

from __future__ import annotations

import math
from typing import Annotated, Any, TypeGuard

from pydantic import Field

#: The largest pixel coordinate or size taken from a file (pixels).
MAX_PIXEL = 1_000_000.0
#: The largest integer an offset, a count or an id may be (SQLite INTEGER).
MAX_INT = 2**63 - 1


class BadValue(ValueError):
    """A value that cannot be what its field is; the message is one line
    naming the field and the value."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def is_number(value: Any) -> TypeGuard[int | float]:
    """True for an int or float that is not a bool (the one test of "a
    number" in model, judge and file values: JSON true is no 1)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def finite(value: Any, what: str) -> float:
    """``value`` as a float when it is a finite number (a numeric string
    is not); BadValue naming ``what`` otherwise."""
    if not is_number(value):
        raise BadValue(f"{what} {_shown(value)} is not a number")
    try:
        out = float(value)
    except OverflowError:  # an int past the float range
        raise BadValue(f"{what} {_shown(value)} is not a finite number") from None
    if not math.isfinite(out):
        raise BadValue(f"{what} {_shown(value)} is not a finite number")
    return out


def pixel(value: Any, what: str) -> float:
    """A pixel coordinate: a finite number within +-MAX_PIXEL (module doc)."""
    out = finite(value, what)
    if abs(out) > MAX_PIXEL:
        raise BadValue(f"{what} {_shown(value)} is beyond any photo (|v| <= {MAX_PIXEL:.0f} px)")
    return out


def pixel_size(value: Any, what: str) -> float:
    """A declared image width or height: a finite number in (0, MAX_PIXEL]."""
    out = finite(value, what)
    if not 0 < out <= MAX_PIXEL:
        raise BadValue(f"{what} {_shown(value)} is not an image size (0 < size <= {MAX_PIXEL:.0f} px)")
    return out


def count(value: Any, what: str, limit: int = MAX_INT) -> int:
    """An offset or a count: an int (not a bool) in 0..``limit``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadValue(f"{what} {_shown(value)} is not a whole number")
    if not 0 <= value <= limit:
        raise BadValue(f"{what} {_shown(value)} is out of range (0..{limit})")
    return value


def ident(value: Any, what: str) -> int | str:
    """An id: an int within SQLite's INTEGER or a string (not a bool, a
    float, a list or an object)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and -MAX_INT - 1 <= value <= MAX_INT:
        return value
    raise BadValue(f"{what} {_shown(value)} is not an id (a whole number or a text)")


def first_non_finite(value: Any, path: str = "") -> str | None:
    """The path ('expectedBehavior.citationCount', 'spans[2]') of the first
    number in a JSON value that is not finite or is an integer past
    MAX_INT, or None when there is none. Iterative (any depth)."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return where or "value"
        if isinstance(node, int) and not isinstance(node, bool) and abs(node) > MAX_INT:
            return where or "value"
        if isinstance(node, dict):
            stack += [(v, f"{where}.{k}" if where else str(k)) for k, v in reversed(list(node.items()))]
        elif isinstance(node, (list, tuple)):
            stack += [(v, f"{where}[{i}]") for i, v in reversed(list(enumerate(node)))]
    return None


def drawable_points(points: Any) -> list[tuple[float, float]] | None:
    """``points`` ([[x, y], ...]) as float pairs when every coordinate is a
    pixel (:func:`pixel`), else None: the guard for values already stored
    (a project imported before these checks), so that nothing downstream,
    the canvas above all, meets NaN or infinity."""
    try:
        return [(pixel(p[0], "x"), pixel(p[1], "y")) for p in points]
    except (BadValue, TypeError, IndexError, KeyError):
        return None


def drawable_box(x_min: Any, y_min: Any, x_max: Any, y_max: Any) -> tuple[float, float, float, float] | None:
    """The four values of a stored box as pixels, or None when any is
    missing or not a pixel (:func:`drawable_points`)."""
    pts = drawable_points([(x_min, y_min), (x_max, y_max)])
    return None if pts is None else (pts[0][0], pts[0][1], pts[1][0], pts[1][1])


#: An integer field of a pydantic model read from a file: within SQLite's
#: INTEGER (a run id, a repetition), so that storing or looking it up never
#: overflows; pydantic's one-line message names the field.
SqlInt = Annotated[int, Field(ge=-MAX_INT - 1, le=MAX_INT)]
