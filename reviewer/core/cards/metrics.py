"""Run metrics and T-P1 prompt verdicts, automatic and reviewed.

T-P1 (card-reading-spike-evaluation.md): pass when card text reading >= 80 %
and zero hallucinated cards; fail when < 60 % or hallucinated cards across
multiple runs; ambiguous in between. Spatial grouping >= 70 % and valid JSON
in >= 2 of 3 runs are secondary signals. Every threshold is in ScoringConfig.

Reviewed metrics use each finding's final code: a rejected finding is no
error, a reclassified one counts as its new code. A card counts as read
correctly (card-scoring-rules.md §5) only when no finding on it other than
SPATIAL still counts: a card whose MISS was made a HALLUC, or whose model
card a person calls a hallucination, is not read (decision
reclassification-keeps-the-finding-shape).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from reviewer.core.cards.scoring import RunFacts
from reviewer.core.models import (
    AnyCode,
    Code,
    Finding,
    PromptVerdict,
    RunMetrics,
    ScoringConfig,
    Status,
    TP1Verdict,
)

_PILE_ERROR_CODES = frozenset({Code.MISS, Code.SPATIAL})
#: §5: a card with only these codes on it is still read correctly (SPATIAL: read, in the wrong pile).
_READ_CODES = frozenset({Code.SPATIAL})


def _codes(finding: Finding, reviewed: bool) -> AnyCode | None:
    if finding.stale:
        return None
    return finding.effective_code if reviewed else finding.code


def run_metrics(facts: RunFacts, findings: Sequence[Finding], reviewed: bool = False) -> RunMetrics:
    """Per-run metrics (T-P5 step 6) from the stored facts and findings.

    ``reviewed=False``: every finding counts with its proposed code (the
    automatic figures). ``reviewed=True``: final codes, rejected findings
    ignored. Text accuracy = cards read correctly (no counting finding on
    the card but SPATIAL) / cards visible; spatial
    accuracy = cards in the right pile / cards visible (None when the answer
    does not group cards); hallucinations = findings counting as HALLUC.
    """
    active = 0
    hallucinations = 0
    per_card: dict[int, set[AnyCode]] = {}
    rejected: dict[int, set[AnyCode]] = {}
    for f in findings:
        code = _codes(f, reviewed)
        if code is None:
            if reviewed and f.gt_card_id is not None and f.status == Status.REJECTED:
                rejected.setdefault(f.gt_card_id, set()).add(f.code)
            continue
        active += 1
        if code == Code.HALLUC:
            hallucinations += 1
        if f.gt_card_id is not None:
            per_card.setdefault(f.gt_card_id, set()).add(code)
    values: dict[str, Any] = dict(
        scored=facts.scored,
        json_valid=facts.json_valid,
        repaired=facts.repaired,
        box_convention=facts.box_convention,
        cards_reported=facts.cards_reported,
        hallucinations=hallucinations,
        findings=active,
    )
    if facts.scored:
        correct = 0
        in_pile = 0
        spatial = facts.spatial_scored and facts.parsed
        empty: frozenset = frozenset()
        for out in facts.outcomes:
            codes = per_card.get(out.gt_card_id, empty)
            if facts.parsed and codes <= _READ_CODES:
                correct += 1
            if spatial:
                if codes & _PILE_ERROR_CODES:
                    ok = False
                elif rejected.get(out.gt_card_id, empty) & _PILE_ERROR_CODES:
                    ok = True
                else:
                    ok = bool(out.pile_ok)
                in_pile += ok
        visible = len(facts.outcomes)
        values.update(
            cards_visible=visible, cards_correct=correct, text_accuracy=correct / visible if visible else None
        )
        if facts.spatial_scored:
            values.update(cards_in_right_pile=in_pile, spatial_accuracy=in_pile / visible if visible else None)
    return RunMetrics(**values)


def verdict_of(
    text_accuracy: float | None, hallucination_runs: int, config: ScoringConfig
) -> tuple[TP1Verdict, list[str]]:
    """T-P1 overall verdict and its reasons, from pooled text accuracy and the
    number of runs with at least one hallucinated card."""
    if text_accuracy is None:
        return TP1Verdict.UNSCORED, ["no scored run"]
    pct = f"{text_accuracy:.0%}"
    if text_accuracy < config.fail_text_accuracy:
        return TP1Verdict.FAIL, [f"text accuracy {pct} < {config.fail_text_accuracy:.0%}"]
    if hallucination_runs >= config.fail_hallucination_runs:
        return TP1Verdict.FAIL, [f"hallucinations in {hallucination_runs} runs"]
    if text_accuracy >= config.pass_text_accuracy and hallucination_runs == 0:
        return TP1Verdict.PASS, [f"text accuracy {pct} >= {config.pass_text_accuracy:.0%}, no hallucination"]
    reasons = []
    if text_accuracy < config.pass_text_accuracy:
        reasons.append(f"text accuracy {pct} in the ambiguous zone")
    if hallucination_runs:
        reasons.append(f"hallucinations in {hallucination_runs} run")
    return TP1Verdict.AMBIGUOUS, reasons


class Pool:
    """The sums T-P1 pools over runs (all integers, so a run can be taken out
    exactly as it was put in): ``runs``, and over scored runs the cards
    visible and correct, the cards visible and in the right pile of runs with
    a spatial accuracy, the runs with a hallucination; the runs with valid
    JSON over all runs."""

    __slots__ = ("runs", "visible", "correct", "spatial_visible", "right_pile", "halluc_runs", "json_runs")

    def __init__(self, runs: Iterable[Any] = ()):
        self.runs = self.visible = self.correct = self.spatial_visible = 0
        self.right_pile = self.halluc_runs = self.json_runs = 0
        for r in runs:
            self.add(r)

    def add(self, r: Any, sign: int = 1) -> None:
        """Pool one run's metrics (RunMetrics or any object with its fields);
        ``sign`` -1 takes them out again."""
        self.runs += sign
        if r.json_valid:
            self.json_runs += sign
        if not r.scored:
            return
        self.visible += sign * r.cards_visible
        self.correct += sign * r.cards_correct
        if r.hallucinations:
            self.halluc_runs += sign
        if r.spatial_accuracy is not None:
            self.spatial_visible += sign * r.cards_visible
            self.right_pile += sign * (r.cards_in_right_pile or 0)


def prompt_verdict(
    prompt: str, item: str, runs: Iterable[RunMetrics], config: ScoringConfig, model: str = "*"
) -> PromptVerdict:
    """T-P1 verdict of one prompt over ``runs`` (pooled: summed correct over
    summed visible). Unscored runs (free-text prompt, no ground truth) are left
    out of the accuracies but counted for valid JSON when parsed."""
    return pooled_verdict(prompt, item, Pool(runs), config, model)


def pooled_verdict(prompt: str, item: str, pool: Pool, config: ScoringConfig, model: str = "*") -> PromptVerdict:
    """``prompt_verdict`` from the runs' Pool (a window keeps the pool of
    every prompt and model and updates it run by run)."""
    visible, correct, halluc_runs, json_runs = pool.visible, pool.correct, pool.halluc_runs, pool.json_runs
    text = correct / visible if visible else None
    spatial = pool.right_pile / pool.spatial_visible if pool.spatial_visible else None
    runs = range(pool.runs)  # only its length counts below
    verdict, reasons = verdict_of(text, halluc_runs, config)
    spatial_ok = None if spatial is None else spatial >= config.pass_spatial_accuracy - 1e-9
    needed = config.json_runs_needed
    json_ok: bool | None = None
    if runs and len(runs) >= needed:
        json_ok = json_runs / len(runs) >= config.pass_json_valid_share - 1e-9
    elif runs:
        json_ok = False  # T-P1: fewer runs than the rule needs cannot meet it
    if spatial_ok is False:
        reasons.append(f"secondary: spatial {spatial:.0%} < {config.pass_spatial_accuracy:.0%}")
    if json_ok is False and len(runs) >= needed:
        reasons.append(f"secondary: valid JSON in {json_runs} of {len(runs)} runs")
    if runs and len(runs) < needed:
        # T-P1 as written: "valid JSON in >= 2 of 3 runs" cannot be met by fewer runs
        reasons.append(
            f"only {len(runs)} run{'s' if len(runs) != 1 else ''}: the valid-JSON signal "
            f"needs {needed} ({json_runs}/{len(runs)} valid), so it is not met"
        )
        if len(runs) < config.fail_hallucination_runs and verdict != TP1Verdict.UNSCORED:
            reasons.append(f"hallucinations are judged across {config.fail_hallucination_runs}+ runs")
    return PromptVerdict(
        prompt=prompt,
        model=model,
        item=item,
        runs=len(runs),
        cards_visible=visible,
        cards_correct=correct,
        text_accuracy=text,
        spatial_accuracy=spatial,
        hallucination_runs=halluc_runs,
        json_valid_runs=json_runs,
        verdict=verdict,
        spatial_ok=spatial_ok,
        json_ok=json_ok,
        json_runs_needed=needed,
        reasons=reasons,
    )


def prompt_verdicts(rows: Iterable[tuple], config: ScoringConfig) -> list[PromptVerdict]:
    """T-P1 verdicts per prompt and model, per item and over all items
    (item '*').

    ``rows``: (prompt, item, metrics) or (prompt, item, metrics, model) for
    every run of a scored prompt; runs of different models are never pooled.
    Returns verdicts sorted by prompt and model, the '*' row after its items.
    """
    groups: dict[tuple[str, str], dict[str, list[RunMetrics]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        prompt, item, metrics = row[:3]
        model = row[3] if len(row) > 3 else "*"
        groups[(prompt, model)][item].append(metrics)
    out = []
    for prompt, model in sorted(groups):
        items = groups[(prompt, model)]
        for item in sorted(items):
            out.append(prompt_verdict(prompt, item, items[item], config, model))
        out.append(prompt_verdict(prompt, "*", [m for ms in items.values() for m in ms], config, model))
    return out
