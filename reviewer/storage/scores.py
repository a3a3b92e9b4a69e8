"""Score the runs of a project and read back their metrics and verdicts.

Scoring a run again (a new config, edited ground truth) keeps the review
decisions: a new automatic finding with the same key (code, ground-truth
card, model card) as a stored one keeps its id, status, final code, reason
and reviewer; stored automatic findings that no longer arise are deleted if
still proposed, and kept with their detail marked (STALE) if decided; human
findings are never touched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from reviewer.core.cards.metrics import prompt_verdicts, run_metrics
from reviewer.core.models import (
    STALE_PREFIX,
    AnswerSchema,
    CaseCode,
    Finding,
    GroundTruth,
    ModelCard,
    Prompt,
    PromptVerdict,
    RunMetrics,
    ScoringConfig,
    Source,
)
from reviewer.core.cards.prompts import prompt_example
from reviewer.core.cards.scoring import RunFacts, RunScore, score_run
from reviewer.storage import repo
from reviewer.storage.cases import score_cases
from reviewer.storage.db import Project, now

Progress = Callable[[int, int], None]
STALE = STALE_PREFIX


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


def _merge(project: Project, run_id: int, score: RunScore, config: ScoringConfig) -> None:
    """Write the new automatic findings of a run, keeping decisions."""
    old = [f for f in repo.findings(project, run_id)
           if f.source == Source.AUTO and not isinstance(f.code, CaseCode)]  # test-case checks: storage.cases
    by_key = {}
    for f in old:
        by_key.setdefault(f.key(), []).append(f)
    for f in score.findings:
        same = by_key.get(f.key())
        if same:
            kept = same.pop(0)
            if kept.detail != f.detail:
                project.db.execute("UPDATE findings SET detail = ?, config_version = ? WHERE id = ?",
                                   [f.detail, config.version, kept.id])
            continue
        repo.insert_finding(project, run_id, f, config.version, actor="scorer")
    for rest in by_key.values():
        for f in rest:
            if f.status.value == "proposed":
                repo.delete_finding(project, f.id, actor="scorer")
            elif not f.detail.startswith(STALE):
                # a decision is never thrown away: keep it, marked, until the
                # scorer finds the same error again (e.g. a deleted card comes back)
                project.db.execute("UPDATE findings SET detail = ? WHERE id = ?", [STALE + f.detail, f.id])


def score_project(
    project: Project,
    config: Optional[ScoringConfig] = None,
    *,
    strict: bool = False,
    run_ids: Optional[Iterable[int]] = None,
    only_stale: bool = False,
    progress: Optional[Progress] = None,
) -> int:
    """Score runs of the project (all, or ``run_ids``) with ``config`` (the
    project's current one by default), in short transactions
    (``Project.batched``: each run's findings and score are written
    together, and other writers, such as a decision in the window, get in
    between batches). Scores are derived data: in a read-only project they
    go to its in-memory copy.

    ``only_stale``: skip runs already scored with this config and strictness.
    ``progress(done, total)`` is called after each run. Returns the number of
    runs scored.
    """
    config = config or repo.current_config(project)
    if repo.stored_config_version(project) != config.version or not project.db.execute(
            "SELECT 1 FROM scoring_config WHERE version = ?", [config.version]).fetchone():
        repo.save_config(project, config)
    score_cases(project, run_ids=run_ids, only_stale=only_stale)
    runs = repo.run_rows(project, run_ids)
    if only_stale:
        fresh = {r[0] for r in project.db.execute(
            "SELECT run_id FROM run_scores WHERE config_version = ? AND strict = ?",
            [config.version, int(strict)]).fetchall()}
        runs = [r for r in runs if r["id"] not in fresh]
    prompts = {p.id: p for p in repo.prompts(project)}
    examples = {pid: prompt_example(p.text) for pid, p in prompts.items()}
    items = {i.id: i for i in repo.items(project)}
    gts: dict[int, GroundTruth] = {}
    if not runs:
        return 0
    with project.batched(derived=True) as batch:
        for n, run in enumerate(runs, 1):
            item = items[run["item_id"]]
            if item.id not in gts:
                gts[item.id] = repo.ground_truth(project, item.id)
            score = score_run(run["output"], prompts[run["prompt_id"]], gts[item.id], config,
                              width=item.width, height=item.height,
                              example=examples[run["prompt_id"]], strict=strict)
            _merge(project, run["id"], score, config)
            project.db.execute(
                "INSERT INTO run_scores (run_id, config_version, strict, facts, cards, scored_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET "
                "config_version = excluded.config_version, strict = excluded.strict, "
                "facts = excluded.facts, cards = excluded.cards, scored_at = excluded.scored_at",
                [run["id"], config.version, int(strict), score.facts.model_dump_json(by_alias=True),
                 json.dumps([c.model_dump(mode="json") for c in score.cards]), now()])
            if progress:
                progress(n, len(runs))
            batch.tick()
    return len(runs)


def scored_runs(project: Project, run_ids: Optional[Iterable[int]] = None,
                with_cards: bool = True) -> list[ScoredRun]:
    """Every scored run with facts, findings and automatic and reviewed
    metrics (runs never scored are left out); ``with_cards=False`` leaves the
    model cards out (faster, for the export)."""
    ids = None if run_ids is None else list(run_ids)
    runs = repo.run_rows(project, ids)
    sql, params = "SELECT run_id, facts, cards FROM run_scores", []
    if ids is not None:
        sql += f" WHERE run_id IN ({','.join('?' * len(ids))})"
        params = ids
    stored = {r[0]: (r[1], r[2]) for r in project.db.execute(sql, params)}
    by_run: dict[int, list[Finding]] = {}
    for f in (repo.findings(project) if ids is None else
              [f for run_id in ids for f in repo.findings(project, run_id)]):
        by_run.setdefault(f.run_id, []).append(f)
    out = []
    for run in runs:
        if run["id"] not in stored:
            continue
        facts_json, cards_json = stored[run["id"]]
        facts = RunFacts.model_validate_json(facts_json)
        fs = by_run.get(run["id"], [])
        out.append(ScoredRun(
            run=run, facts=facts, cards=[ModelCard(**c) for c in json.loads(cards_json)] if with_cards else [],
            findings=fs, auto=run_metrics(facts, fs), reviewed=run_metrics(facts, fs, reviewed=True)))
    return out


def verdicts(
    project: Project, reviewed: bool = False, runs: Optional[list[ScoredRun]] = None,
    config: Optional[ScoringConfig] = None,
) -> list[PromptVerdict]:
    """T-P1 verdicts per prompt and model, per item and over all items ('*'),
    from the automatic or the reviewed metrics. Free-text prompts are left
    out."""
    runs = runs if runs is not None else scored_runs(project)
    config = config or repo.current_config(project)
    rows = [
        (r.run["prompt"], r.run["item"], r.reviewed if reviewed else r.auto, r.run["model"])
        for r in runs
        if r.run["schema"] != AnswerSchema.FREE.value
    ]
    return prompt_verdicts(rows, config)


def prompt_of(project: Project, name: str) -> Optional[Prompt]:
    """The prompt called ``name``, or None."""
    return next((p for p in repo.prompts(project) if p.name == name), None)
