"""The CI gate on a judge's alignment with people (`reviewer gate`).

Each bound given is checked against the figures of one judge, dimension
and split (reviewer.core.judging.alignment.Figures):

| bound | holds when |
|---|---|
| ``--min-kappa-lower X`` | the lower end of kappa's bootstrap interval >= X |
| ``--min-tpr X`` | the lower end of TPR's Clopper-Pearson interval >= X (weighted labels: its bootstrap) |
| ``--min-tnr X`` | the lower end of TNR's Clopper-Pearson interval >= X (weighted labels: its bootstrap) |
| ``--max-dangerous N`` | dangerous cells <= N |

The k interval bounds checked (kappa, TPR, TNR) share one family error
``--family-alpha`` (0.05): each interval is at level 1 - alpha / k
(Bonferroni), so all k hold together with probability >= 1 - alpha; with
one bound that is the 95 % interval.

No bound is checked on too little: :func:`too_few` refuses a gate whose
figures rest on fewer than ``--min-labelled`` (30) labelled subjects. An
undefined figure (no interval, no subject people pass or fail, a pairwise
dimension without pass) fails its bound, saying why. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewer.core.judging.alignment import Figures
from reviewer.core.judging.intervals import proportion_interval

__all__ = ["FAMILY_ALPHA", "MIN_LABELLED", "BoundCheck", "family_line", "gate_checks", "too_few"]

#: Fewest labelled subjects a gate checks its bounds on.
MIN_LABELLED = 30
#: The family error of the interval bounds a gate checks together.
FAMILY_ALPHA = 0.05


@dataclass(frozen=True)
class BoundCheck:
    """One bound: its option, the figure (None: undefined), the limit,
    whether it held, and a one-line description naming the figure."""

    option: str
    figure: float | None
    limit: float
    held: bool
    text: str


def _check(
    option: str, what: str, figure: float | None, limit: float, at_least: bool, why: str, digits: int = 3
) -> BoundCheck:
    if figure is None:
        return BoundCheck(option, None, limit, False, f"{option} {limit:g}: {what} undefined ({why})")
    held = figure >= limit if at_least else figure <= limit
    sign = (">=" if held else "<") if at_least else ("<=" if held else ">")
    shown = f"{figure:.{digits}f}" if digits else f"{figure:g}"
    return BoundCheck(option, figure, limit, held, f"{option} {limit:g}: {what} {shown} {sign} {limit:g}")


def _levels(family_alpha: float, k: int) -> float:
    return 1.0 - family_alpha / max(k, 1)


def family_line(k: int, family_alpha: float = FAMILY_ALPHA) -> str:
    """How the gate's k interval bounds share ``family_alpha`` (Bonferroni)."""
    level = _levels(family_alpha, k)
    return (
        f"family alpha {family_alpha:g} over {k} interval bound(s) (Bonferroni): each interval at {level * 100:.4g} %"
    )


def too_few(n: int, min_labelled: int, further: int | None, half_width: float, scope: str = "") -> str | None:
    """The one line refusing a gate on ``n`` labelled subjects when that is
    fewer than ``min_labelled``, naming the label budget (``further`` more
    for a half-width <= ``half_width``; None: it cannot be sized yet;
    ``scope``: what the budget is over, when not the gate's subjects); None
    when there are enough."""
    if n >= min_labelled:
        return None
    budget = (
        f"the budget asks for {further} more for a half-width <= {half_width:g}"
        if further is not None
        else "the budget cannot be sized yet"
    )
    return f"{n} labelled subjects, fewer than --min-labelled {min_labelled}; {budget}" + (
        f" ({scope})" if scope else ""
    )


def gate_checks(
    figures: Figures,
    *,
    min_kappa_lower: float | None = None,
    min_tpr: float | None = None,
    min_tnr: float | None = None,
    max_dangerous: int | None = None,
    family_alpha: float = FAMILY_ALPHA,
) -> list[BoundCheck]:
    """The checks of the bounds given (module doc), in the order above;
    the interval bounds at level 1 - family_alpha / k.

    Raises:
        ValueError: no bound given.
    """
    if all(b is None for b in (min_kappa_lower, min_tpr, min_tnr, max_dangerous)):
        raise ValueError(
            "give at least one bound: --min-kappa-lower, --min-tpr, --min-tnr, --max-dangerous or --min-coverage"
        )
    k = sum(b is not None for b in (min_kappa_lower, min_tpr, min_tnr))
    level = _levels(family_alpha, k)
    pct = f"{level * 100:.4g} %"
    out = []
    if min_kappa_lower is not None:
        ci = figures.kappa_ci if figures.kappa_at is None or k == 1 and level == 0.95 else figures.kappa_at(level)
        what = f"{figures.kappa_statistic} {pct} lower bound ({ci.method or 'no interval'}, n = {figures.n})"
        out.append(_check("--min-kappa-lower", what, ci.low, min_kappa_lower, True, ci.note or "no interval"))
    no_pass = figures.n > 0 and figures.positives + figures.negatives == 0
    for option, limit, name, hits, n, whose in (
        ("--min-tpr", min_tpr, "TPR", figures.true_positives, figures.positives, "passed"),
        ("--min-tnr", min_tnr, "TNR", figures.true_negatives, figures.negatives, "failed"),
    ):
        if limit is None:
            continue
        why = "pairwise winners have no pass" if no_pass else f"no subject people {whose[:-2]}"
        if figures.weighted and figures.rates_at is not None:  # an active draw: 1 / pi weights, bootstrapped
            ci = figures.rates_at(level)[name.lower()]
            low = ci.low
            what = f"{name} {pct} lower bound ({ci.method or 'no interval'}, weighted 1/pi; {n} {whose} by people)"
        else:
            low = proportion_interval(hits, n, level, exact=True).low if n else None
            what = f"{name} Clopper-Pearson {pct} lower bound ({hits} of {n} {whose} by people)"
        out.append(_check(option, what, low, limit, True, why))
    if max_dangerous is not None:
        out.append(
            _check(
                "--max-dangerous", "dangerous cells", float(len(figures.dangerous)), max_dangerous, False, "", digits=0
            )
        )
    return out
