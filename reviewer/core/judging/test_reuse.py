"""Test-split reuse counted: a rubric tuned on the test split until it
passes has seen its test. Each gate run and each calibration fit reads the
test split of a judge, dimension and rubric version; past
:data:`WARN_AFTER` reads, the figures are no longer a fair test, and the
way out is to tune on dev and draw a fresh split (`reviewer alignment P
--resplit SEED`), which restarts the count. Pure: the wording."""

from __future__ import annotations

__all__ = ["WARN_AFTER", "reuse_line", "version_name"]

#: Reads of one test split past which the figures are flagged.
WARN_AFTER = 3


def version_name(rubric_version: str) -> str:
    """The rubric version as shown: 'unversioned' for ''."""
    return rubric_version or "unversioned"


def reuse_line(reads: int, rubric_version: str, split_seed: int) -> str:
    """'test split read k times for rubric v… (split seed s)', with the
    warning past :data:`WARN_AFTER` reads."""
    times = "once" if reads == 1 else f"{reads} times"
    line = f"test split read {times} for rubric {version_name(rubric_version)} (split seed {split_seed})"
    if reads > WARN_AFTER:
        line += (
            f"; warning: more than {WARN_AFTER} reads: tune on dev; draw a fresh test split with "
            f"`reviewer alignment P --resplit SEED`"
        )
    return line
