"""Scoring a project: the two workflows that score runs, composed. A run's
answer is scored by the checks of its test case (reviewer.storage.cases.cases.score_cases:
the project's metric set) and by the card scorer (reviewer.storage.cards.scores.score_runs:
T-P5 against the ground-truth cards). Neither workflow imports the other;
this module is the one place that scores both (decision record
"scoring-composed"), and then the runs of every registered workflow by its
scorer (reviewer.storage.registry, decision record "workflow-registries").
"""

from __future__ import annotations

from typing import Iterable, Optional

from reviewer.core.models import ScoringConfig
from reviewer.storage.cards.scores import Progress, score_runs
from reviewer.storage.cases.cases import score_cases
from reviewer.storage.db import Project
from reviewer.storage import registry

__all__ = ["score_project"]


def score_project(
    project: Project,
    config: Optional[ScoringConfig] = None,
    *,
    strict: bool = False,
    run_ids: Optional[Iterable[int]] = None,
    only_stale: bool = False,
    progress: Optional[Progress] = None,
    jobs: Optional[int] = None,
) -> int:
    """Score runs of the project (all, or ``run_ids``): first the checks of
    the test cases among them (score_cases, with ``run_ids`` and
    ``only_stale``), then every run against its cards (score_runs, whose
    docstring explains ``config``, ``strict``, ``only_stale``, ``progress``
    and ``jobs``), then each registered workflow's scorer (with ``run_ids``
    and ``only_stale``). Returns the number of runs the card scorer and the
    registered scorers scored."""
    ids = list(run_ids) if run_ids is not None else None
    score_cases(project, run_ids=ids, only_stale=only_stale)
    n = score_runs(project, config, strict=strict, run_ids=ids, only_stale=only_stale, progress=progress, jobs=jobs)
    for parts in registry.registered():
        if parts.scorer is not None:
            n += parts.scorer(project, run_ids=ids, only_stale=only_stale)
    return n
