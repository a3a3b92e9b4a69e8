"""Export scored runs to an SQLite database for analysts (Datasette, pandas).

Tables (column docs in README.md, "Export"): items, runs, findings,
prompt_verdicts, scoring_config; views code_counts and auto_code_counts.
The export is written to a temporary file and moved into place, so a failed
export never leaves a half-written database behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional

import sqlite_utils

from reviewer.storage import repo
from reviewer.storage.db import Project, ProjectError
from reviewer.storage.scores import score_project, scored_runs, verdicts

RUN_COLUMNS = {
    "run_id": int, "item": str, "prompt": str, "schema": str, "model": str, "repetition": int,
    "timestamp": str, "config_version": str, "json_valid": int, "repaired": int,
    "box_convention": str, "cards_visible": int, "cards_reported": int, "cards_correct": int,
    "text_accuracy": float, "spatial_accuracy": float, "hallucinations": int,
    "auto_cards_correct": int, "auto_text_accuracy": float, "auto_spatial_accuracy": float,
    "auto_hallucinations": int, "findings": int, "reviewed": int, "parse_error": str,
}
FINDING_COLUMNS = {
    "finding_id": int, "run_id": int, "code": str, "final_code": str, "status": str, "source": str,
    "gt_card": str, "model_card": str, "detail": str, "reason": str, "reviewer": str, "decided_at": str,
}
VERDICT_COLUMNS = {
    "prompt": str, "item": str, "basis": str, "runs": int, "cards_visible": int, "cards_correct": int,
    "text_accuracy": float, "spatial_accuracy": float, "hallucination_runs": int,
    "json_valid_runs": int, "verdict": str, "spatial_ok": int, "json_ok": int, "reasons": str,
}

_VIEWS = {
    "code_counts": """
        SELECT r.prompt, coalesce(f.final_code, f.code) AS code, count(*) AS findings,
               count(DISTINCT f.run_id) AS runs
        FROM findings f JOIN runs r ON r.run_id = f.run_id
        WHERE f.status != 'rejected'
        GROUP BY r.prompt, coalesce(f.final_code, f.code) ORDER BY r.prompt, code""",
    "auto_code_counts": """
        SELECT r.prompt, f.code, count(*) AS findings, count(DISTINCT f.run_id) AS runs
        FROM findings f JOIN runs r ON r.run_id = f.run_id
        WHERE f.source = 'auto'
        GROUP BY r.prompt, f.code ORDER BY r.prompt, f.code""",
}

BATCH = 2000


def _bool(v: Optional[bool]) -> Optional[int]:
    return None if v is None else int(v)


def export_project(
    project: Project, out: Path, progress: Optional[Callable[[str], None]] = None
) -> dict[str, int]:
    """Score stale runs, then write the analysts' database to ``out``
    (replacing it). Returns the number of rows per table. Raises ProjectError
    when ``out`` cannot be written."""
    out = Path(out)
    score_project(project, only_stale=True)
    config = repo.current_config(project)
    runs = scored_runs(project)
    tmp = out.with_name(out.name + ".part")
    if tmp.exists():
        tmp.unlink()
    try:
        db = sqlite_utils.Database(tmp)
    except OSError as exc:  # pragma: no cover - depends on the file system
        raise ProjectError(f"cannot write {out}: {exc}") from exc
    counts = {}
    with db.atomic():
        counts["items"] = _insert(db, "items", {"item": str, "kind": str, "path": str, "width": int,
                                                "height": int, "orientation": int, "sha256": str},
                                  ({"item": i.name, "kind": i.kind, "path": i.path, "width": i.width,
                                    "height": i.height, "orientation": i.orientation, "sha256": i.sha256}
                                   for i in repo.items(project)), pk="item")
        counts["runs"] = _insert(db, "runs", RUN_COLUMNS, (_run_row(r) for r in runs), pk="run_id")
        counts["findings"] = _insert(db, "findings", FINDING_COLUMNS,
                                     (_finding_row(f) for r in runs for f in r.findings), pk="finding_id")
        rows = []
        for basis, reviewed in (("auto", False), ("reviewed", True)):
            for v in verdicts(project, reviewed=reviewed, runs=runs, config=config):
                rows.append({**v.model_dump(mode="json", exclude={"reasons", "spatial_ok", "json_ok"}),
                             "basis": basis, "spatial_ok": _bool(v.spatial_ok), "json_ok": _bool(v.json_ok),
                             "reasons": "; ".join(v.reasons)})
        counts["prompt_verdicts"] = _insert(db, "prompt_verdicts", VERDICT_COLUMNS, rows)
        counts["scoring_config"] = _insert(
            db, "scoring_config", {"version": str, "name": str, "value": str},
            ({"version": config.version, "name": k, "value": str(v)}
             for k, v in config.model_dump(mode="json").items()))
        for name, sql in _VIEWS.items():
            db.create_view(name, sql, replace=True)
        if progress:
            progress(f"wrote {sum(counts.values())} rows")
    db.close()
    os.replace(tmp, out)
    return counts


def _insert(db: sqlite_utils.Database, name: str, columns: dict, rows, pk: Optional[str] = None) -> int:
    """Create ``name`` with ``columns`` and insert ``rows`` in batches."""
    table = db[name]
    table.create(columns, pk=pk)
    n = 0
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            table.insert_all(batch, batch_size=BATCH)
            n += len(batch)
            batch = []
    if batch:
        table.insert_all(batch, batch_size=BATCH)
        n += len(batch)
    return n


def _run_row(r) -> dict:
    run, rev, auto = r.run, r.reviewed, r.auto
    return {
        "run_id": run["id"], "item": run["item"], "prompt": run["prompt"], "schema": run["schema"],
        "model": run["model"], "repetition": run["repetition"], "timestamp": run["timestamp"],
        "config_version": r.facts.config_version, "json_valid": int(rev.json_valid),
        "repaired": int(rev.repaired),
        "box_convention": rev.box_convention.value if rev.box_convention else None,
        "cards_visible": rev.cards_visible if rev.scored else None,
        "cards_reported": rev.cards_reported, "cards_correct": rev.cards_correct if rev.scored else None,
        "text_accuracy": rev.text_accuracy, "spatial_accuracy": rev.spatial_accuracy,
        "hallucinations": rev.hallucinations if rev.scored else None,
        "auto_cards_correct": auto.cards_correct if auto.scored else None,
        "auto_text_accuracy": auto.text_accuracy, "auto_spatial_accuracy": auto.spatial_accuracy,
        "auto_hallucinations": auto.hallucinations if auto.scored else None,
        "findings": len(r.findings), "reviewed": int(r.is_reviewed), "parse_error": r.facts.parse_error,
    }


def _finding_row(f) -> dict:
    return {
        "finding_id": f.id, "run_id": f.run_id, "code": f.code.value,
        "final_code": (f.final_code or f.code).value if f.status.value != "rejected" else None,
        "status": f.status.value, "source": f.source.value, "gt_card": f.gt_card,
        "model_card": f.model_card, "detail": f.detail, "reason": f.reason, "reviewer": f.reviewer,
        "decided_at": f.decided_at.isoformat() if f.decided_at else None,
    }
