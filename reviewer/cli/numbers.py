"""Every number at the door of the command line: one click type for every
numeric option, checked by one rule (reviewer.pipeline.limits.Bound.check):
finite (never NaN or infinity), within the option's declared range, whole
where it must be. What fails is a usage error (exit code 2) with one line
naming the option: ``Error: Invalid value for '--min-tpr': must be a number
from 0 to 1, got nan``.

A new numeric option declares its range and nothing else::

    @click.option("--min-tpr", type=finite(0, 1))             # a number
    @click.option("--min-n", type=whole(1, 10**9))            # a whole number
    @click.option("--retries", type=bounded(limits.RETRIES))  # a setting a Failter spec has too

A number inside a text option (``--weights 0.4:0.6``) is checked by the
same rule with ``check_number``. ``tests/reliability/test_reliability_numbers.py``
walks every command's parameters and fails on a numeric option of another
type.
"""

from __future__ import annotations

import contextlib
from typing import Any

import click

from reviewer.pipeline import limits
from reviewer.pipeline.limits import Bound, Number


class Finite(click.ParamType):
    """The click type of a numeric option within ``bound`` (module doc)."""

    def __init__(self, bound: Bound):
        self.bound = bound
        self.name = "integer" if bound.whole else "float"

    def get_metavar(self, param: Any, ctx: Any = None) -> str:  # click 8.1 (param) and 8.2+ (param, ctx)
        """The type and its range, as the help shows it ('INTEGER 0..20')."""
        return f"{self.name.upper()} {self.bound.range_text()}"

    def convert(self, value: Any, param: Any, ctx: Any) -> Number:
        """``value`` (a string from the command line, or a default) checked
        by the bound; a usage error naming the option otherwise."""
        try:
            return check_number(value, self.bound)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def check_number(value: Any, bound: Bound) -> Number:
    """``value`` (a number, or a string holding one) as an int or float
    within ``bound``. Raises ValueError with one line for anything else."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text) if bound.whole else float(text)
        except ValueError:
            with contextlib.suppress(ValueError):  # '1e3' or '2.0' for a whole number: the bound says whether it is one
                value = float(text) if bound.whole else value
            if isinstance(value, str):
                kind = "a whole number" if bound.whole else "a number"
                raise ValueError(f"{value[:60]!r} is not {kind}") from None
    return bound.check(value)


def finite(least: Number, most: Number) -> Finite:
    """The type of an option taking a finite number from ``least`` to ``most``."""
    return Finite(Bound("", least, most, whole=False))


def whole(least: int, most: int) -> Finite:
    """The type of an option taking a whole number from ``least`` to ``most``."""
    return Finite(Bound("", least, most, whole=True))


def bounded(bound: Bound) -> Finite:
    """The type of an option whose range a Failter spec's value shares
    (reviewer.pipeline.limits: the same bound and message)."""
    return Finite(bound)


#: A seed option: 0 to 2^32 - 1.
SEED = bounded(limits.SEED)
#: An id of a row in the project (SQLite INTEGER).
ROW_ID = whole(1, 2**63 - 1)
#: A share or probability.
SHARE = finite(0, 1)
#: Each number of --weights RULES:GT.
WEIGHT = Bound("each weight", 0, 1_000_000, whole=False)


__all__ = ["Finite", "ROW_ID", "SEED", "SHARE", "WEIGHT", "bounded", "check_number", "finite", "whole"]
