"""The bounds of the settings of a job that asks an endpoint: one table for
the command line's options (reviewer.cli.endpoints) and a Failter spec's
values (reviewer.pipeline.failter_spec), so a spec cannot ask for what the
command line refuses (``retries: 1000000``).

Imported by the command line at start: no HTTP, no storage here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Union

Number = Union[int, float]


@dataclass(frozen=True)
class Bound:
    """A setting's ``name``, its least and greatest value and whether it is
    a whole number (``whole``)."""

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
            raise ValueError(f"{self.name} must be {kind} from {self.least:g} to {self.most:g}, got {shown}")
        return int(value) if self.whole else float(value)


CONCURRENCY = Bound("concurrency", 1, 256)
RETRIES = Bound("retries", 0, 20)
#: Seconds one attempt may take in all (connect, send, wait, read the whole answer).
TIMEOUT_S = Bound("timeout", 0.1, 86_400, whole=False)
#: The largest answer read, in MB (10^6 bytes) of decompressed body.
MAX_RESPONSE_MB = Bound("max response size", 0.001, 1_000, whole=False)
REPETITIONS = Bound("repetitions", 1, 1000)
