"""The labels each judge's validation still needs (reviewer.core.judging.
budget), per judge and dimension of the alignment with people
(reviewer.storage.validation): how many more labelled subjects give a 95 %
interval of half-width <= ``half_width`` (default 0.1) on kappa (Fleiss-
Cohen-Everitt), TPR and TNR (Wilson), from the current estimates and the
people's prevalence over every labelled subject.

Kappa is sized on the alignment's confusion matrix, with quadratic weights
by the scale's order on numeric scales (the alignment weighs by value; on
1-5 and A-F the two are the same) and unweighted on pass/fail and winners.
TPR and TNR use the pass threshold of the alignment; pairwise winners have
none, so only kappa is sized there. The JSON also gives the simulation's
answer beside each analytic one (budget.simulate_budget, from the current
labels' table). Reads only.
"""

from __future__ import annotations

import numpy as np

from reviewer.core.judging.alignment import Alignment
from reviewer.core.judging.budget import HALF_WIDTH, LEVEL, Budget, kappa_budget, rate_budget, simulate_budget
from reviewer.core.judging.dispute_common import NUMERIC_SCALES

__all__ = ["alignment_budget", "budget_json", "budget_text", "simulated_needed"]


def alignment_budget(a: Alignment, half_width: float = HALF_WIDTH, level: float = LEVEL) -> dict[str, Budget]:
    """{'kappa': Budget, 'tpr': Budget, 'tnr': Budget} of one alignment over
    all its labelled subjects (module doc); 'tpr' and 'tnr' missing on a
    scale without pass. Raises ValueError for half_width <= 0 or a level
    outside (0, 1)."""
    f = a.figures("all")
    table = np.asarray(f.counts if f is not None else [[0]], dtype=float)
    out = {"kappa": kappa_budget(table, half_width, level, "quadratic" if a.scale in NUMERIC_SCALES else None)}
    pairs = [(j, p) for _, _, j, p in a.labelled]
    if pairs and all(j is not None and p is not None for j, p in pairs):
        n = len(pairs)
        positives = sum(1 for _, p in pairs if p)
        tp = sum(1 for j, p in pairs if j and p)
        tn = sum(1 for j, p in pairs if not j and not p)
        out["tpr"] = rate_budget(tp, positives, n, "tpr", half_width, level)
        out["tnr"] = rate_budget(tn, n - positives, n, "tnr", half_width, level)
    return out


def simulated_needed(
    a: Alignment, half_width: float = HALF_WIDTH, level: float = LEVEL, seed: int = 0
) -> dict[str, int | None]:
    """The cross-check of :func:`alignment_budget`: {statistic: subjects
    needed in all by simulation from the current labels}
    (budget.simulate_budget; None when it cannot be told), for the same
    statistics."""
    out: dict[str, int | None] = {}
    f = a.figures("all")
    if f is None or f.n == 0:
        return {"kappa": None}
    judge = [f.labels[i] for i, row in enumerate(f.counts) for j, c in enumerate(row) for _ in range(c)]
    human = [f.labels[j] for i, row in enumerate(f.counts) for j, c in enumerate(row) for _ in range(c)]
    weights = "quadratic" if a.scale in NUMERIC_SCALES else None
    out["kappa"] = simulate_budget(
        judge, human, "kappa", half_width=half_width, level=level, weights=weights, categories=f.labels, seed=seed
    )
    pairs = [(j, p) for _, _, j, p in a.labelled]
    if pairs and all(j is not None and p is not None for j, p in pairs):
        for name in ("tpr", "tnr"):
            out[name] = simulate_budget(
                [j for j, _ in pairs],
                [p for _, p in pairs],
                name,
                positive=True,
                half_width=half_width,
                level=level,
                seed=seed,
            )
    return out


def _further(budgets: dict[str, Budget]) -> int | None:
    known = [b.further for b in budgets.values() if b.further is not None]
    return max(known) if known else None


def budget_json(items: list[Alignment], half_width: float = HALF_WIDTH, level: float = LEVEL) -> list[dict]:
    """Per alignment (same order): {"half_width", "level", "further": the
    most any statistic needs (None when none can be sized yet),
    "statistics": {name: Budget.as_dict() with "simulated_needed", the
    simulation's cross-check of "needed"}}."""
    out = []
    for a in items:
        b = alignment_budget(a, half_width, level)
        sim = simulated_needed(a, half_width, level)
        out.append(
            {
                "half_width": half_width,
                "level": level,
                "further": _further(b),
                "statistics": {k: {**v.as_dict(), "simulated_needed": sim.get(k)} for k, v in b.items()},
            }
        )
    return out


def _part(b: Budget) -> str:
    name = b.statistic.upper() if b.statistic != "kappa" else "kappa"
    now = "" if b.estimate != b.estimate else f" {b.estimate:.2f}"
    width = "" if b.half_width != b.half_width else f" +/- {b.half_width:.2f}"
    if b.further is None:
        return f"{name}{now}{width}: {b.note or 'cannot be sized yet'}"
    return f"{name}{now}{width}: {b.further} more"


def budget_text(items: list[Alignment], half_width: float = HALF_WIDTH, level: float = LEVEL) -> str:
    """One line per judge and dimension: each statistic's current estimate,
    its interval's half-width and the further labels it needs, then the
    most of them ('' when there is no alignment)."""
    if not items:
        return ""
    out = [f"label budget ({level * 100:g} % interval, half-width <= {half_width:g}):"]
    for a in items:
        b = alignment_budget(a, half_width, level)
        most = _further(b)
        tail = f"; {most} more labels in all" if most is not None else ""
        out.append(f"{a.judge} / {a.dimension}: " + "; ".join(_part(x) for x in b.values()) + tail)
    return "\n".join(out) + "\n"
