"""The pieces every agreement statistic shares: the result type, what counts
as a missing rating, and the verdicts of a pairwise judge.

Kept apart so that reviewer.core.judging.agreement (chance-corrected
statistics) and reviewer.core.judging.pairwise_agreement (pairwise judges) both
build on it without importing each other. The conventions are those of
reviewer.core.judging.agreement's docstring.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: The verdicts of a pairwise judge: answer 1 wins, answer 2 wins, or a tie.
PAIRWISE_VERDICTS: frozenset[str] = frozenset({"1", "2", "tie"})


@dataclass(frozen=True)
class AgreementResult:
    """One agreement statistic.

    Attributes:
        statistic: which statistic, e.g. ``"cohen_kappa_quadratic"``,
            ``"krippendorff_alpha_ordinal"``.
        value: the statistic (a share in [0, 1] for agreement rates, a
            chance-corrected coefficient <= 1 for kappa/alpha); ``nan`` when
            undefined (see ``note``).
        n: what the value rests on: pairs used (two-rater statistics),
            pairable values (Krippendorff's n), or decided verdicts.
        note: a human-readable remark: why a value is undefined, what was
            skipped. Empty when there is nothing to say.
        counts: named integer counts behind the value (e.g. ``undecided``,
            ``skipped``); which keys appear is documented per function.
    """

    statistic: str
    value: float
    n: int
    note: str = ""
    counts: Mapping[str, int] = field(default_factory=dict)

    @property
    def defined(self) -> bool:
        """False when ``value`` is NaN (the statistic is undefined)."""
        return not math.isnan(self.value)

    def formatted(self, digits: int = 3) -> str:
        """``value`` rounded to ``digits`` decimals, or ``"undefined"`` for NaN."""
        return f"{self.value:.{digits}f}" if self.defined else "undefined"


def is_missing(value: Any) -> bool:
    """True for ``None`` and for a float NaN (Python or numpy); False otherwise.

    Strings such as ``"nan"`` or ``""`` are labels, not missing values.
    """
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(np.isnan(value))
    return False


def check_same_length(a: Sequence[Any], b: Sequence[Any], names: str) -> None:
    """ValueError naming ``names`` when ``a`` and ``b`` differ in length (paired ratings)."""
    if len(a) != len(b):
        raise ValueError(f"{names} must have the same length, got {len(a)} and {len(b)}")


def join_notes(*parts: str) -> str:
    """The non-empty ``parts`` joined with '; ' (a figure's notes)."""
    return "; ".join(p for p in parts if p)
