"""Scoring a project: the workflows that score runs, composed. Each
registers its scorer (reviewer.storage.registry, decision record
"workflow-registries"): the checks of the test cases
(reviewer.storage.cases.cases.score_cases: the project's metric set) and
the card scorer (reviewer.storage.cards.scores.score_runs: T-P5 against the
ground-truth cards), then those of workflows registered beyond the five.
No workflow imports another; this module is the one place that scores them
all (decision record "scoring-composed").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from reviewer.core.models import ScoringConfig
from reviewer.storage import registry
from reviewer.storage.project.db import Project

__all__ = ["score_project"]


def score_project(
    project: Project,
    config: ScoringConfig | None = None,
    *,
    strict: bool = False,
    run_ids: Iterable[int] | None = None,
    only_stale: bool = False,
    progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
) -> int:
    """Score runs of the project (all, or ``run_ids``) by every registered
    scorer in registration order (the test cases' checks, then the cards),
    each with ``run_ids`` and ``only_stale``; a scorer that takes them
    (``scorer_options``: the card scorer, whose docstring explains them)
    also gets ``config``, ``strict``, ``progress`` and ``jobs``. Returns the
    number of runs the scorers scored (the checks count none)."""
    ids = list(run_ids) if run_ids is not None else None
    n = 0
    for parts in registry.registered():
        if parts.scorer is None:
            continue
        options = dict(config=config, strict=strict, progress=progress, jobs=jobs) if parts.scorer_options else {}
        n += parts.scorer(project, run_ids=ids, only_stale=only_stale, **options)
    return n
