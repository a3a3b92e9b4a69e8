"""Waiting decisions shown before they are written: the decisions of the
queued operations (reviewer.qt.session.history) played on the cached runs,
as they will be once written. Plain Python, no Qt: the run cache
(reviewer.qt.session.runs) calls it on its own runs.
"""

from __future__ import annotations

from reviewer.core.cards.metrics import run_metrics
from reviewer.core.commands import Command, DecideFindings


def decisions(command: Command) -> list[DecideFindings]:
    """The decisions (DecideFindings) in ``command``, also inside a Batch."""
    if isinstance(command, DecideFindings):
        return [command]
    return [c for sub in getattr(command, "commands", []) for c in decisions(sub)]


class _CachedFindings:
    """The part of the core Store a decision needs, over the session's
    cached runs (ScoredRun), so a waiting decision can be shown."""

    def __init__(self, runs: dict):
        self.runs = runs
        self.where = {f.id: (run_id, i) for run_id, r in runs.items() for i, f in enumerate(r.findings)}
        self.touched: set[int] = set()

    def get_finding(self, finding_id: int):
        """The cached finding; KeyError when it is not in the cache."""
        run_id, i = self.where[finding_id]
        return self.runs[run_id].findings[i]

    def update_finding(self, finding_id: int, finding) -> None:
        """Replace the cached finding; KeyError when it is not in the cache."""
        run_id, i = self.where[finding_id]
        self.runs[run_id].findings[i] = finding
        self.touched.add(run_id)


def play_pending(runs: dict, ops: list) -> set[int]:
    """Play the waiting decisions of ``ops`` (in order; undo reverts) on
    ``runs`` ({run id: ScoredRun}, changed in place, reviewed metrics
    recomputed), as they will be once written. Other edits wait unseen.
    Returns the ids of the runs changed."""
    cache = _CachedFindings(runs)
    for op in ops:
        for command in decisions(op.command):
            try:
                (command.undo if op.kind == "undo" else command.do)(cache)
            except KeyError:  # a finding no longer there: nothing to show
                continue
    for run_id in cache.touched:
        run = runs[run_id]
        run.reviewed = run_metrics(run.facts, run.findings, reviewed=True)
    return cache.touched


def runs_of(runs: dict, ops: list) -> set[int]:
    """Ids of the cached runs holding findings the decisions of ``ops`` name."""
    where = {f.id: run_id for run_id, r in runs.items() for f in r.findings}
    return {where[i] for op in ops for c in decisions(op.command) for i in c.ids if i in where}
