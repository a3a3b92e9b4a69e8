"""The bounds of numbers at the door: one rule (``Bound.check``: finite,
within its range, whole where it must be, one line naming the setting) for
every numeric option of the command line (its click type,
reviewer.cli.numbers) and every number of a Failter spec
(reviewer.pipeline.failter_spec), and one table of the settings of a job
that asks an endpoint, shared by both, so a spec cannot ask for what the
command line refuses (``retries: 1000000``).

Imported by the command line at start: no HTTP, no storage here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

Number = int | float


@dataclass(frozen=True)
class Bound:
    """A setting's ``name`` ('' for a command-line option: click names it),
    its least and greatest value and whether it is a whole number
    (``whole``)."""

    name: str
    least: Number
    most: Number
    whole: bool = True

    def check(self, value: Any) -> Number:
        """``value`` as an int (``whole``) or float within the bound. Raises
        ValueError with one line naming the setting for anything else:
        a bool, a string, NaN or infinity, a fraction where a whole number
        is needed, or a number outside [least, most]."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            ok = False
        elif isinstance(value, int):  # any size: compared, never made a float
            ok = self.least <= value <= self.most
        else:
            ok = math.isfinite(value) and (value.is_integer() or not self.whole) and self.least <= value <= self.most
        if not ok:
            kind = "a whole number" if self.whole else "a number"
            shown = (
                "a number of more than 30 digits"
                if isinstance(value, int) and abs(value) >= 10**30
                else repr(value)[:60]
            )
            who = f"{self.name} must" if self.name else "must"
            raise ValueError(f"{who} be {kind} from {self.range_text(' to ')}, got {shown}")
        return int(value) if self.whole else float(value)

    def range_text(self, between: str = "..") -> str:
        """The range as help and messages show it: '0..20', '0.1..86400', '0..4294967295'."""
        return f"{_shown(self.least)}{between}{_shown(self.most)}"


def _shown(x: Number) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 10**19 else f"{x:g}"


CONCURRENCY = Bound("concurrency", 1, 256)
RETRIES = Bound("retries", 0, 20)
#: Seconds one attempt may take in all (connect, send, wait, read the whole answer).
TIMEOUT_S = Bound("timeout", 0.1, 86_400, whole=False)
#: The largest answer read, in MB (10^6 bytes) of decompressed body.
MAX_RESPONSE_MB = Bound("max response size", 0.001, 1_000, whole=False)
REPETITIONS = Bound("repetitions", 1, 1000)
#: Sampling temperature (the OpenAI API's range).
TEMPERATURE = Bound("temperature", 0, 2, whole=False)
#: The longest answer asked for, in tokens.
MAX_TOKENS = Bound("max tokens", 1, 10_000_000)
#: A seed: what numpy and most servers take (an unsigned 32-bit number).
SEED = Bound("seed", 0, 2**32 - 1)
