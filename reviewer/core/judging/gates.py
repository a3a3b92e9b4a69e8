"""CI gates on judge verdicts (`reviewer judge --fail-on fail|ambiguous`,
decision: judge-gate-on-headline-score): the judge-specific meaning of the card-reading gate
(reviewer.core.cards.gates).

A **judged prompt** is one judge's verdicts on the runs of one prompt by
one model. Its **average** is the mean of the headline scores of its
decided verdicts; it fails the gate when the average is at or below the
level's threshold on the verdicts' scale:

| scale | ``fail`` | ``ambiguous`` |
|---|---|---|
| A-F (stored as points A=100 ... F=20) | D (40) | C (60) |
| 0-100 | 40 | 60 |
| 1-5 | 2 | 3 |
| C/I/P (stored as points C=100, P=50, I=0) | 40 | 60 |

The **headline score** of a verdict is its ``overall`` score (tarot
rubric), else its ``score`` (Failter's judges), else the mean of its scores
on the scale (the span judge's five 1-5 scores; ``totalScore``, a sum, is
left out). Pairwise (winner) and pass/fail verdicts have no average and are
never gated; undecided verdicts (no score) are left out of the average.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from statistics import fmean

from reviewer.core.bounds import is_number
from reviewer.core.judging.verdicts import Scale, Verdict

#: Threshold per gate level and scale: a judged prompt whose average is at
#: or below it fails the gate.
JUDGE_LEVELS: dict[str, dict[Scale, float]] = {
    "fail": {Scale.GRADE: 40.0, Scale.PERCENT: 40.0, Scale.ORDINAL5: 2.0, Scale.CIP: 40.0},
    "ambiguous": {Scale.GRADE: 60.0, Scale.PERCENT: 60.0, Scale.ORDINAL5: 3.0, Scale.CIP: 60.0},
}
#: Scores that are not on the verdict's scale (left out of the headline).
_NOT_ON_SCALE = {"totalScore"}


@dataclass(frozen=True)
class JudgedPrompt:
    """One judge's verdicts on the runs of one prompt by one model:
    ``average`` of the headline scores of ``decided`` verdicts (None when
    none is decided), ``verdicts`` counted in all."""

    judge: str
    prompt: str
    model: str
    scale: Scale
    average: float | None
    decided: int
    verdicts: int


def headline(verdict: Verdict) -> float | None:
    """The verdict's headline score (module doc), or None (undecided, or a
    scale without numbers)."""
    if verdict.scale not in JUDGE_LEVELS["fail"]:
        return None
    for key in ("overall", "score"):
        value = verdict.scores.get(key)
        if is_number(value):
            return float(value)
    values = [float(v) for k, v in verdict.scores.items() if k not in _NOT_ON_SCALE and is_number(v)]
    return fmean(values) if values else None


def judged_prompts(rows: Iterable[tuple[Verdict, str, str]]) -> list[JudgedPrompt]:
    """The judged prompts of (verdict, prompt of its run, model of its run)
    rows, by judge, prompt and model; pairwise and pass/fail verdicts are
    left out."""
    groups: dict[tuple[str, str, str, Scale], list[float | None]] = {}
    for verdict, prompt, model in rows:
        if verdict.scale not in JUDGE_LEVELS["fail"]:
            continue
        groups.setdefault((verdict.judge, prompt, model, verdict.scale), []).append(headline(verdict))
    out = []
    for (judge, prompt, model, scale), values in sorted(groups.items(), key=lambda kv: kv[0][:3]):
        decided = [v for v in values if v is not None]
        out.append(
            JudgedPrompt(judge, prompt, model, scale, fmean(decided) if decided else None, len(decided), len(values))
        )
    return out


def failing_judged(prompts: Iterable[JudgedPrompt], level: str) -> list[JudgedPrompt]:
    """The judged prompts whose average is at or below ``level`` ('fail' or
    'ambiguous'; see module doc). Raises ValueError for another level."""
    if level not in JUDGE_LEVELS:
        raise ValueError(f"--fail-on takes {' or '.join(JUDGE_LEVELS)}, not '{level}'")
    limits = JUDGE_LEVELS[level]
    return [p for p in prompts if p.average is not None and p.average <= limits[p.scale]]


def judge_gate_message(failed: list[JudgedPrompt], level: str) -> str:
    """The one-line reason the gate failed, naming each judged prompt with
    its average, scale and the number of decided verdicts."""
    names = ", ".join(
        f"{p.prompt} ({p.model}, {p.judge}: {p.average:.2f} on {p.scale.value} over {p.decided})" for p in failed
    )
    return f"{len(failed)} judged prompt(s) at or below '{level}': {names}"
