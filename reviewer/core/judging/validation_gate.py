"""The CI gate on a judge's alignment with people (`reviewer gate`).

Each bound given is checked against the figures of one judge, dimension
and split (reviewer.core.judging.alignment.Figures):

| bound | holds when |
|---|---|
| ``--min-kappa-lower X`` | the lower end of kappa's 95 % bootstrap interval >= X |
| ``--min-tpr X`` | TPR >= X |
| ``--min-tnr X`` | TNR >= X |
| ``--max-dangerous N`` | dangerous cells <= N |

An undefined figure (no interval, no subject people pass or fail, a
pairwise dimension without pass) fails its bound, saying why. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from reviewer.core.judging.alignment import Figures

__all__ = ["BoundCheck", "gate_checks"]


@dataclass(frozen=True)
class BoundCheck:
    """One bound: its option, the figure (None: undefined), the limit,
    whether it held, and a one-line description naming the figure."""

    option: str
    figure: Optional[float]
    limit: float
    held: bool
    text: str


def _check(
    option: str, what: str, figure: Optional[float], limit: float, at_least: bool, why: str, digits: int = 3
) -> BoundCheck:
    if figure is None:
        return BoundCheck(option, None, limit, False, f"{option} {limit:g}: {what} undefined ({why})")
    held = figure >= limit if at_least else figure <= limit
    sign = (">=" if held else "<") if at_least else ("<=" if held else ">")
    shown = f"{figure:.{digits}f}" if digits else f"{figure:g}"
    return BoundCheck(option, figure, limit, held, f"{option} {limit:g}: {what} {shown} {sign} {limit:g}")


def gate_checks(
    figures: Figures,
    *,
    min_kappa_lower: Optional[float] = None,
    min_tpr: Optional[float] = None,
    min_tnr: Optional[float] = None,
    max_dangerous: Optional[int] = None,
) -> list[BoundCheck]:
    """The checks of the bounds given (module doc), in the order above.

    Raises:
        ValueError: no bound given.
    """
    if all(b is None for b in (min_kappa_lower, min_tpr, min_tnr, max_dangerous)):
        raise ValueError(
            "give at least one bound: --min-kappa-lower, --min-tpr, --min-tnr, --max-dangerous or --min-coverage"
        )
    out = []
    if min_kappa_lower is not None:
        ci = figures.kappa_ci
        what = f"{figures.kappa_statistic} 95 % lower bound ({ci.method or 'no interval'}, n = {figures.n})"
        out.append(_check("--min-kappa-lower", what, ci.low, min_kappa_lower, True, ci.note or "no interval"))
    no_pass = figures.n > 0 and figures.positives + figures.negatives == 0
    if min_tpr is not None:
        why = "pairwise winners have no pass" if no_pass else "no subject people pass"
        out.append(_check("--min-tpr", f"TPR ({figures.positives} passed by people)", figures.tpr, min_tpr, True, why))
    if min_tnr is not None:
        why = "pairwise winners have no pass" if no_pass else "no subject people fail"
        out.append(_check("--min-tnr", f"TNR ({figures.negatives} failed by people)", figures.tnr, min_tnr, True, why))
    if max_dangerous is not None:
        out.append(
            _check(
                "--max-dangerous", "dangerous cells", float(len(figures.dangerous)), max_dangerous, False, "", digits=0
            )
        )
    return out
