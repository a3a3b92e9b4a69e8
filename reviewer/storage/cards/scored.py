"""Scored runs read back from a project: each run with its stored facts,
model cards, findings and both metric sets (ScoredRun), a chunk at a time;
the metrics stored with a run are used when there (see
reviewer.storage.cards.metric_rows), else computed (T-P5 step 6). Reading only:
scoring and writing are in reviewer.storage.cards.scores.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from reviewer.core.cards.metrics import run_metrics
from reviewer.core.cards.scoring import RunFacts
from reviewer.core.models import Finding, ModelCard, RunMetrics
from reviewer.storage.project.db import Project
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import runs as repo_runs

#: Runs read per chunk (three queries each).
CHUNK = 400


@dataclass
class ScoredRun:
    """A run with its stored facts, findings and both metric sets."""

    run: dict
    facts: RunFacts
    cards: list[ModelCard]
    findings: list[Finding]
    auto: RunMetrics
    reviewed: RunMetrics

    @property
    def is_reviewed(self) -> bool:
        """Every finding of the run has been decided by a person."""
        return bool(self.findings) and all(f.status.value != "proposed" for f in self.findings)


def iter_scored_runs(
    project: Project, run_ids: Iterable[int] | None = None, with_cards: bool = True, with_output: bool = True
) -> Iterator[ScoredRun]:
    """Every scored run (of ``run_ids``, or all) as scored_runs gives them,
    in the same order, read CHUNK runs at a time (runs, stored scores,
    findings: three queries per chunk), so memory stays O(chunk) however
    many runs the project has. ``with_output=False`` leaves the answer text
    out of ``run`` (for figures that do not show it)."""
    ids = repo_runs.run_ids(project, run_ids)
    for start in range(0, len(ids), CHUNK):
        yield from scored_chunk(project, ids[start : start + CHUNK], with_cards, with_output)


def scored_chunk(
    project: Project, ids: list[int], with_cards: bool = True, with_output: bool = True
) -> list[ScoredRun]:
    """The scored runs among ``ids`` (a few hundred at most: one SQL
    parameter each) in repo_runs.run_rows order: three queries (stored scores,
    findings, runs) whatever their number."""
    marks = ",".join("?" * len(ids))
    stored = {
        r[0]: r[1:]
        for r in project.db.execute(
            f"SELECT run_id, facts, {'cards' if with_cards else 'NULL'}, auto_metrics, reviewed_metrics "
            f"FROM run_scores WHERE run_id IN ({marks})",
            ids,
        )
    }
    if not stored:
        return []
    by_run: dict[int, list[Finding]] = {}
    for f in repo_findings.findings_of_runs(project, [i for i in ids if i in stored]):
        assert f.run_id is not None  # stored findings belong to a run
        by_run.setdefault(f.run_id, []).append(f)
    out = []
    for run in repo_runs.run_rows(project, [i for i in ids if i in stored], with_output=with_output):
        facts_json, cards_json, auto_json, reviewed_json = stored[run["id"]]
        facts = RunFacts.model_validate_json(facts_json)
        fs = by_run.get(run["id"], [])
        auto, reviewed = metrics_of(facts, fs, auto_json, reviewed_json)
        out.append(
            ScoredRun(
                run=run,
                facts=facts,
                cards=[ModelCard(**c) for c in json.loads(cards_json)] if with_cards else [],
                findings=fs,
                auto=auto,
                reviewed=reviewed,
            )
        )
    return out


def metrics_of(
    facts: RunFacts, findings: list[Finding], auto_json: str | None, reviewed_json: str | None
) -> tuple[RunMetrics, RunMetrics]:
    """The automatic and reviewed RunMetrics of a run: the ones stored with
    its score when there (never stale: see reviewer.storage.cards.metric_rows;
    a tenth of the time), else run_metrics over its facts and findings."""
    if auto_json is not None and reviewed_json is not None:
        return RunMetrics.model_validate_json(auto_json), RunMetrics.model_validate_json(reviewed_json)
    return run_metrics(facts, findings), run_metrics(facts, findings, reviewed=True)


def scored_runs(project: Project, run_ids: Iterable[int] | None = None, with_cards: bool = True) -> list[ScoredRun]:
    """Every scored run with facts, findings and automatic and reviewed
    metrics (runs never scored are left out), by item, prompt, model and
    repetition; ``with_cards=False`` leaves the model cards out (faster).
    Holds every run in memory: for figures over all runs use
    iter_scored_runs or summarize."""
    return list(iter_scored_runs(project, run_ids, with_cards=with_cards))


class LeanMetrics(NamedTuple):
    """The fields of RunMetrics that prompt_verdict pools, in a tuple (a
    tenth of the memory of a RunMetrics, kept per run for the verdicts)."""

    scored: bool
    json_valid: bool
    cards_visible: int
    cards_correct: int
    spatial_accuracy: float | None
    cards_in_right_pile: int | None
    hallucinations: int


def lean_metrics(m: RunMetrics) -> LeanMetrics:
    """What prompt_verdicts needs of a run's metrics."""
    return LeanMetrics(
        m.scored,
        m.json_valid,
        m.cards_visible,
        m.cards_correct,
        m.spatial_accuracy,
        m.cards_in_right_pile,
        m.hallucinations,
    )


def lean_metrics_of(m: dict) -> LeanMetrics:
    """What prompt_verdicts needs of a run's metrics stored as JSON
    (metric_rows.MetricRow.auto / reviewed)."""
    return LeanMetrics(
        m["scored"],
        m["json_valid"],
        m["cards_visible"],
        m["cards_correct"],
        m["spatial_accuracy"],
        m["cards_in_right_pile"],
        m["hallucinations"],
    )
