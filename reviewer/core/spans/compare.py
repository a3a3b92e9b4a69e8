"""Comparing two span-labeling snapshots (span-labeling-evaluation-design.md,
"Snapshot Comparison"; design property P10).

Both summaries are recomputed from the results (reviewer.core.spans.summary)
before they are compared. Where the design is silent we follow the
snapshots' own compare-snapshots.ts: a prompt whose totalScore changed by 3
or more is a regression (down) or an improvement (up); section error deltas
are given as counts and per prompt.

Two snapshots are comparable only on the prompts they share (the same
promptId, or the same input text). When they share fewer than half of the
smaller one's prompts (SHARED_MIN), :func:`compare_loaded` warns and
compares only the shared prompts (summaries recomputed from those), saying
how many there are.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reviewer.core.spans.sections import SECTIONS
from reviewer.core.spans.snapshots import CATEGORIES
from reviewer.core.spans.summary import compute_summary

#: A per-prompt totalScore change of at least this much is a regression or improvement.
REGRESSION_DELTA = 3.0
#: Below this share of the smaller snapshot's prompts in common, compare warns
#: and compares the shared prompts only.
SHARED_MIN = 0.5


def _input_key(result: Mapping) -> str:
    return " ".join(str(result.get("input") or "").split()).casefold()


def shared_pairs(baseline: Mapping, current: Mapping) -> list[tuple[Mapping, Mapping]]:
    """The results of two loaded snapshots that are the same prompt, in the
    baseline's order: the same promptId, else the same input text (white
    space and case aside; an empty input matches nothing); each current
    result pairs once."""
    now = list(current.get("results") or [])
    by_id = {r["promptId"]: i for i, r in reversed(list(enumerate(now)))}
    by_input: dict[str, int] = {}
    for i, r in reversed(list(enumerate(now))):
        if _input_key(r):
            by_input[_input_key(r)] = i
    used: set[int] = set()
    pairs = []
    for r in baseline.get("results") or []:
        i = by_id.get(r["promptId"])
        if i is None or i in used:
            i = by_input.get(_input_key(r)) if _input_key(r) else None
        if i is None or i in used:
            continue
        used.add(i)
        pairs.append((r, now[i]))
    return pairs


def _total(result: Mapping) -> float:
    judge = result.get("judgeResult")
    if not isinstance(judge, Mapping):
        return 0.0
    try:
        return float(judge.get("totalScore") or 0)
    except (TypeError, ValueError):
        return 0.0


def prompt_deltas(baseline: Mapping, current: Mapping) -> list[dict]:
    """Per-prompt score deltas over the prompts both loaded snapshots hold
    (:func:`shared_pairs`), in the baseline's order: [{prompt, input,
    baseline, current, delta}] with delta = current - baseline totalScore."""
    out = []
    for r, other in shared_pairs(baseline, current):
        b, c = _total(r), _total(other)
        out.append(
            {"prompt": r["promptId"], "input": r.get("input") or "", "baseline": b, "current": c, "delta": c - b}
        )
    return out


def _confusion_map(summary: Mapping) -> dict[tuple[str, str], int]:
    return {(c["assignedRole"], c["expectedRole"]): c["count"] for c in summary.get("topTaxonomyErrors") or []}


def compare_snapshots(baseline: Mapping, current: Mapping, baseline_summary: Mapping, current_summary: Mapping) -> dict:
    """The comparison of two loaded snapshots with their recomputed summaries
    (design property P10):

    * score_delta: current avgScore - baseline avgScore;
    * regressions / improvements: prompts whose totalScore fell / rose by 3
      or more ([{prompt, input, baseline, current, delta}], largest change first);
    * category_deltas: {category: {coverage, precision}} = current average -
      baseline average (unrounded);
    * new_confusions: (assigned, expected) pairs in the current top 10 and
      not in the baseline's, with the current count; resolved_confusions:
      in the baseline's top 10 and not in the current, with the baseline
      count ([{assigned_role, expected_role, count}]);
    * section_deltas: {section: {false_positives, missed,
      false_positives_per_prompt, missed_per_prompt}} (current - baseline).
    """
    deltas = prompt_deltas(baseline, current)
    regressions = sorted((d for d in deltas if d["delta"] <= -REGRESSION_DELTA), key=lambda d: d["delta"])
    improvements = sorted((d for d in deltas if d["delta"] >= REGRESSION_DELTA), key=lambda d: -d["delta"])
    b_cat, c_cat = baseline_summary["avgCategoryScores"], current_summary["avgCategoryScores"]
    category_deltas = {cat: {k: c_cat[cat][k] - b_cat[cat][k] for k in ("coverage", "precision")} for cat in CATEGORIES}
    b_conf, c_conf = _confusion_map(baseline_summary), _confusion_map(current_summary)
    new = [{"assigned_role": a, "expected_role": e, "count": n} for (a, e), n in c_conf.items() if (a, e) not in b_conf]
    resolved = [
        {"assigned_role": a, "expected_role": e, "count": n} for (a, e), n in b_conf.items() if (a, e) not in c_conf
    ]
    bp, cp = max(baseline_summary.get("prompts", 0), 0), max(current_summary.get("prompts", 0), 0)
    sections: dict[str, Any] = {}
    for s in SECTIONS:
        b, c = baseline_summary["errorsBySection"][s], current_summary["errorsBySection"][s]
        sections[s] = {
            "false_positives": c["falsePositives"] - b["falsePositives"],
            "missed": c["missed"] - b["missed"],
            "false_positives_per_prompt": (c["falsePositives"] / cp if cp else 0.0)
            - (b["falsePositives"] / bp if bp else 0.0),
            "missed_per_prompt": (c["missed"] / cp if cp else 0.0) - (b["missed"] / bp if bp else 0.0),
        }
    return {
        "score_delta": current_summary["avgScore"] - baseline_summary["avgScore"],
        "span_count_delta": current_summary["avgSpanCount"] - baseline_summary["avgSpanCount"],
        "regressions": regressions,
        "improvements": improvements,
        "category_deltas": category_deltas,
        "new_confusions": new,
        "resolved_confusions": resolved,
        "section_deltas": sections,
    }


def compare_loaded(baseline: Mapping, current: Mapping) -> dict:
    """:func:`compare_snapshots` of two loaded snapshots with their summaries
    recomputed, plus the prompts in common: baseline_prompts,
    current_prompts, shared_prompts, only_shared and warning. When they
    share fewer than SHARED_MIN of the smaller one's prompts, ``warning``
    says so and the comparison is of the shared prompts only (``only_shared``
    true; summaries recomputed from them); else ``warning`` is None and the
    whole snapshots are compared."""
    pairs = shared_pairs(baseline, current)
    nb, nc = len(baseline.get("results") or []), len(current.get("results") or [])
    smaller = min(nb, nc)
    only_shared = len(pairs) < SHARED_MIN * smaller or (smaller == 0 and nb != nc)
    warning = None
    if only_shared:
        baseline = {**baseline, "results": [b for b, _ in pairs]}
        current = {**current, "results": [c for _, c in pairs]}
        warning = (
            f"the snapshots share {len(pairs)} of {smaller} prompts of the smaller one (baseline "
            f"{nb}, current {nc}), fewer than half: only the {len(pairs)} shared prompts are compared"
        )
    out = compare_snapshots(baseline, current, compute_summary(baseline), compute_summary(current))
    out.update(
        {
            "baseline_prompts": nb,
            "current_prompts": nc,
            "shared_prompts": len(pairs),
            "only_shared": only_shared,
            "warning": warning,
        }
    )
    return out


__all__ = ["REGRESSION_DELTA", "SHARED_MIN", "compare_loaded", "compare_snapshots", "prompt_deltas", "shared_pairs"]
