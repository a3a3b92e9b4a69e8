"""Bias checks and both-order accuracy of a project's judges against people
(reviewer.core.judging.judge_bias): per judge and dimension on the winner
scale, the length check, the self-preference check (where the judge's model
also answered) and correct_both / swap accuracy (where it judged both
orders); per judge and dimension on a numeric scale, score against length.
People's values follow `reviewer alignment`. Reads only."""

from __future__ import annotations

from dataclasses import dataclass, field

from reviewer.core.judging.dispute_common import (
    NUMERIC_SCALES,
    is_human,
    latest_by_order,
    primary_verdicts,
    rater_labels,
    value_of,
)
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from reviewer.core.judging.judge_bias import (
    BothOrders,
    PairedShares,
    ScoreLength,
    both_orders,
    length_bias,
    score_length,
    self_preference,
)
from reviewer.core.judging.people import TIE
from reviewer.core.judging.verdicts import Scale, Value, normalise
from reviewer.core.text import natural_key
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.validation import people_and_splits, split_seed_of
from reviewer.storage.project.db import Project

__all__ = ["JudgeBias", "bias_json", "bias_text", "project_bias"]


@dataclass
class JudgeBias:
    """The checks of one judge on one dimension (None: not applicable)."""

    judge: str
    dimension: str
    scale: Scale
    length: PairedShares | None = None
    self_preference: list[PairedShares] = field(default_factory=list)
    both_orders: BothOrders | None = None
    score_length: ScoreLength | None = None


def project_bias(
    project: Project,
    *,
    subjects: set[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[JudgeBias]:
    """The checks of every judge and dimension people labelled (module
    doc); ``subjects``: only these (a slice)."""
    vs = [v for v in judging.verdicts(project) if subjects is None or v.subject in subjects]
    adjudications = [a for a in judging.adjudications(project) if subjects is None or a.subject in subjects]
    people, _ = people_and_splits(project, vs, adjudications, split_seed_of(project))
    runs = {
        rid: (model, len(output or ""))
        for rid, model, output in project.db.execute("SELECT id, model, output FROM runs")
    }
    judges = [v for v in vs if not is_human(v)]
    labels = rater_labels(judges)
    primary = primary_verdicts(judges)
    out = []
    keys = sorted(
        {(labels[r], d, v.scale) for (_, r), v in primary.items() for d in v.scores},
        key=lambda k: (natural_key(k[0]), k[1], k[2].value),
    )
    for judge, dim, scale in keys:
        mine = {s: v for (s, r), v in primary.items() if labels[r] == judge and dim in v.scores and v.scale == scale}
        ref = {}
        for s in mine:
            p = people.get((s, dim))
            if p is not None and p[1] != TIE and p[2] in (None, scale):
                ref[s] = normalise(p[0], scale)
        if not any(x is not None for x in ref.values()):
            continue
        item = JudgeBias(judge, dim, scale)
        values = {s: value_of(v, dim) for s, v in mine.items()}
        if scale == Scale.WINNER:
            pairs = {s: v for s, v in mine.items() if v.run_id in runs and v.other_run_id in runs}
            lengths = {s: (runs[v.run_id][1], runs[v.other_run_id][1]) for s, v in pairs.items()}
            models = {s: (runs[v.run_id][0], runs[v.other_run_id][0]) for s, v in pairs.items()}
            item.length = length_bias(values, ref, lengths, n_resamples=n_resamples, seed=seed)
            judge_models = sorted({v.judge_model for v in mine.values() if v.judge_model})
            for jm in judge_models:
                own = {s: x for s, x in values.items() if mine[s].judge_model == jm}
                check = self_preference(jm, own, ref, models, n_resamples=n_resamples, seed=seed)
                if check.n:
                    item.self_preference.append(check)
            orders: dict[str, dict[str, Value]] = {"ab": {}, "ba": {}}
            for (s, r, order), v in latest_by_order(judges).items():
                if order in orders and labels[r] == judge and s in mine:
                    orders[order][s] = value_of(v, dim)
            if orders["ab"] and orders["ba"]:
                item.both_orders = both_orders(
                    orders["ab"],
                    orders["ba"],
                    ref,
                    n_resamples=n_resamples,
                    seed=seed,
                )
        elif scale in NUMERIC_SCALES:
            lengths1 = {s: runs[v.run_id][1] for s, v in mine.items() if v.run_id in runs}
            item.score_length = score_length(values, ref, lengths1)
        out.append(item)
    return out


def bias_text(found: list[JudgeBias]) -> str:
    """Plain text per judge and dimension."""
    if not found:
        return "no bias check: no judge verdict on a subject people labelled\n"
    lines = []
    for b in found:
        lines.append(f"{b.judge} / {b.dimension} ({b.scale.value})")
        if b.length is not None:
            lines.append("  length: " + b.length.text())
        for sp in b.self_preference:
            lines.append("  self-preference: " + sp.text())
        if b.both_orders is not None:
            lines += ["  " + x for x in b.both_orders.text().splitlines()]
        if b.score_length is not None:
            lines.append("  length: " + b.score_length.text())
        lines.append("")
    return "\n".join(lines)


def bias_json(found: list[JudgeBias]) -> list[dict]:
    """JSON-ready, one entry per judge and dimension."""
    return [
        {
            "judge": b.judge,
            "dimension": b.dimension,
            "scale": b.scale.value,
            "length": None if b.length is None else b.length.as_dict(),
            "self_preference": [x.as_dict() for x in b.self_preference],
            "both_orders": None if b.both_orders is None else b.both_orders.as_dict(),
            "score_length": None if b.score_length is None else vars(b.score_length),
        }
        for b in found
    ]
