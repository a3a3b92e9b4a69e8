"""Reads that keep the review window interactive on big projects (decision: big-projects-stay-interactive):
one item's scored runs by index, review counts per item in one aggregate
query, a second connection for reading on another thread, and T-P1
verdicts of a few (prompt, model) groups.

The window loads the current item's runs only (``item_runs``), shows the
counts of every item (``review_counts``), and computes what needs every run
(a RunLine of each, ``run_lines``, and their verdicts) on a worker thread
through ``reader``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from reviewer.storage.cards.scored import LeanMetrics, ScoredRun, lean_metrics, lean_metrics_of, scored_chunk
from reviewer.storage.project.db import Project, connect


@dataclass
class ReviewCounts:
    """Review progress of one item's scored runs."""

    runs: int = 0
    reviewed: int = 0  # runs with a decision: findings, none of them still proposed
    findings: int = 0
    decided: int = 0
    no_findings: int = 0  # runs without any finding (nothing to decide: not counted as reviewed)

    @classmethod
    def of(cls, runs: Iterable[ScoredRun]) -> ReviewCounts:
        """The counts of ``runs`` (ScoredRun), as the aggregate query gives them."""
        out = cls()
        for r in runs:
            out.runs += 1
            open_ = sum(f.status.value == "proposed" for f in r.findings)
            out.reviewed += bool(r.findings) and open_ == 0
            out.no_findings += not r.findings
            out.findings += len(r.findings)
            out.decided += len(r.findings) - open_
        return out


def item_runs(project: Project, item_id: int, with_cards: bool = True) -> list[ScoredRun]:
    """The scored runs of one item (by the runs' item index), in the order
    of repo.runs.run_rows (prompt, model, repetition)."""
    ids = [
        row[0]
        for row in project.db.execute(
            "SELECT r.id FROM runs r JOIN run_scores s ON s.run_id = r.id WHERE r.item_id = ?", [item_id]
        )
    ]
    if not ids:
        return []
    runs = scored_runs_of(project, ids, with_cards=with_cards)
    return sorted(runs, key=lambda r: (r.run["prompt"], r.run["model"], r.run["repetition"]))


def scored_runs_of(project: Project, ids: list[int], with_cards: bool = True) -> list[ScoredRun]:
    """The scored runs among ``ids`` (a few: one SQL parameter each), their
    scores and findings read in one query each (scored.scored_chunk)."""
    return scored_chunk(project, ids, with_cards=with_cards)


def review_counts(project: Project, item_ids: list[int] | None = None) -> dict[int, ReviewCounts]:
    """{item id: ReviewCounts} of items with scored runs (all, or ``item_ids``),
    in one aggregate query over the runs' scores and findings."""
    where, params = "", []
    if item_ids is not None:
        where, params = f" WHERE r.item_id IN ({','.join('?' * len(item_ids))})", list(item_ids)
    sql = (
        "SELECT r.item_id, count(*), sum(coalesce(f.total, 0) > 0 AND coalesce(f.open, 0) = 0), "
        "sum(coalesce(f.total, 0)), sum(coalesce(f.total, 0) - coalesce(f.open, 0)), sum(coalesce(f.total, 0) = 0) "
        "FROM runs r JOIN run_scores s ON s.run_id = r.id "
        "LEFT JOIN (SELECT run_id, count(*) AS total, sum(status = 'proposed') AS open FROM findings "
        "GROUP BY run_id) f ON f.run_id = r.id" + where + " GROUP BY r.item_id"
    )
    return {row[0]: ReviewCounts(*row[1:]) for row in project.db.execute(sql, params)}


class RunLine(NamedTuple):
    """What the window keeps of every scored run once the summary is in (a
    few hundred bytes, where a ScoredRun with its facts, cards and findings
    takes about 35 KB): who made it, its automatic and reviewed metrics as
    prompt_verdicts pools them, its findings and how many are still
    proposed, and ``text``: what search finds it by (search.run_texts),
    case-folded."""

    id: int
    item_id: int
    item: str
    prompt: str
    model: str
    repetition: int
    schema: str
    auto: LeanMetrics
    reviewed: LeanMetrics
    findings: int
    open: int
    text: str


def _line_text(item: str, prompt: str, model: str, cards: Iterable[str], finding_cards: Iterable[str | None]) -> str:
    return "\n".join(t for t in (item, prompt, model, *cards, *finding_cards) if t).casefold()


def run_line(r: ScoredRun) -> RunLine:
    """The RunLine of a scored run the window holds whole (after an edit)."""
    run = r.run
    open_ = sum(f.status.value == "proposed" for f in r.findings)
    text = _line_text(
        run["item"],
        run["prompt"],
        run["model"],
        (c.text for c in r.cards),
        (t for f in r.findings for t in (f.gt_card, f.model_card)),
    )
    return RunLine(
        run["id"],
        run["item_id"],
        run["item"],
        run["prompt"],
        run["model"],
        run["repetition"],
        run["schema"],
        lean_metrics(r.auto),
        lean_metrics(r.reviewed),
        len(r.findings),
        open_,
        text,
    )


def run_lines(project: Project, ids: list[int]) -> list[RunLine]:
    """The RunLines of the scored runs ``ids`` (unscored ones left out), in
    the order of ``ids``: three queries, the metrics stored with the runs
    (those whose findings changed since scoring are computed again, as
    scores.metrics_of does), no pydantic object per run."""
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = {
        r[0]: r
        for r in project.db.execute(
            "SELECT r.id, r.item_id, i.name, p.name, p.schema, r.model, r.repetition, s.auto_metrics, "
            "s.reviewed_metrics, s.cards FROM runs r JOIN run_scores s ON s.run_id = r.id "
            "JOIN items i ON i.id = r.item_id JOIN prompts p ON p.id = r.prompt_id "
            f"WHERE r.id IN ({marks})",
            ids,
        )
    }
    findings: dict[int, list] = {}
    for run_id, status, gt_card, model_card in project.db.execute(
        f"SELECT run_id, status, gt_card, model_card FROM findings WHERE run_id IN ({marks}) ORDER BY run_id, id", ids
    ):
        findings.setdefault(run_id, []).append((status, gt_card, model_card))
    missing = [i for i, r in rows.items() if r[7] is None or r[8] is None]
    recomputed = (
        {r.run["id"]: (r.auto, r.reviewed) for r in scored_runs_of(project, missing, with_cards=False)}
        if missing
        else {}
    )
    out = []
    for run_id in ids:
        row = rows.get(run_id)
        if row is None:
            continue
        if run_id in recomputed:
            auto, reviewed = (lean_metrics(m) for m in recomputed[run_id])
        else:
            auto, reviewed = lean_metrics_of(json.loads(row[7])), lean_metrics_of(json.loads(row[8]))
        fs = findings.get(run_id, ())
        cards = (c.get("text", "") for c in json.loads(row[9])) if row[9] else ()
        text = _line_text(row[2], row[3], row[5], cards, (t for f in fs for t in f[1:]))
        out.append(
            RunLine(
                run_id,
                row[1],
                row[2],
                row[3],
                row[5],
                row[6],
                row[4],
                auto,
                reviewed,
                len(fs),
                sum(f[0] == "proposed" for f in fs),
                text,
            )
        )
    return out


def counts_of_lines(lines: Iterable[RunLine]) -> ReviewCounts:
    """ReviewCounts of an item's RunLines (as ReviewCounts.of of its runs)."""
    out = ReviewCounts()
    for line in lines:
        out.runs += 1
        out.reviewed += line.findings > 0 and line.open == 0
        out.no_findings += line.findings == 0
        out.findings += line.findings
        out.decided += line.findings - line.open
    return out


def reader(project: Project) -> tuple[Project, bool]:
    """(a project to read on another thread, whether the caller must close
    it): a second connection to the same file (WAL: it reads the last
    commit, never a half-done write), or the project itself when it lives
    in memory (read-only projects: nothing writes to them meanwhile)."""
    if project.read_only or not project.path.exists():
        return project, False
    return Project(project.path, connect(str(project.path)), read_only="reader"), True


__all__ = [
    "ReviewCounts",
    "RunLine",
    "counts_of_lines",
    "item_runs",
    "reader",
    "review_counts",
    "run_line",
    "run_lines",
    "scored_runs_of",
]
