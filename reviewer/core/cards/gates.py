"""CI gates on T-P1 verdicts (docs/runner.md), as promptfoo's command line
fails a build: ``--fail-on fail`` fails when any prompt's verdict is fail,
``--fail-on ambiguous`` when any is ambiguous or fail. Unscored prompts
(free text) never fail a gate."""

from __future__ import annotations

from collections.abc import Iterable

from reviewer.core.models import PromptVerdict, TP1Verdict

#: The levels a gate can be set at, and the verdicts at or below each.
FAIL_LEVELS = {"fail": {TP1Verdict.FAIL}, "ambiguous": {TP1Verdict.FAIL, TP1Verdict.AMBIGUOUS}}


def failing(verdicts: Iterable[PromptVerdict], level: str) -> list[PromptVerdict]:
    """The over-all-items verdicts (item '*') at or below ``level`` ('fail'
    or 'ambiguous'), by prompt and model. Raises ValueError for another
    level."""
    if level not in FAIL_LEVELS:
        raise ValueError(f"--fail-on takes {' or '.join(FAIL_LEVELS)}, not '{level}'")
    bad = FAIL_LEVELS[level]
    return sorted((v for v in verdicts if v.item == "*" and v.verdict in bad), key=lambda v: (v.prompt, v.model))


def gate_message(failed: list[PromptVerdict], level: str) -> str:
    """The one-line reason a gate failed, naming the prompts (and models)
    and their verdicts."""
    names = ", ".join(f"{v.prompt} ({v.model}: {v.verdict.value})" for v in failed)
    return f"{len(failed)} prompt verdict(s) at or below '{level}': {names}"
