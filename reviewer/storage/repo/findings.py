"""The findings of a project's runs: reading them (per run, per set of runs, one by id), inserting,
changing the review fields of and deleting one, each audited.
"""

from __future__ import annotations

import json
from typing import Any

from reviewer.core.models import Code, Finding, Source, Status
from reviewer.storage.project.db import Project, default_actor, inserted_id, now
from reviewer.storage.repo.items import dict_rows

_FINDING_COLUMNS = (
    "id, run_id, code, final_code, status, source, gt_card_id, gt_card, model_index, "
    "model_card, detail, reason, reviewer, decided_at, verdict_id, attrs"
)


def _finding(row: dict) -> Finding:
    attrs = row.get("attrs")
    row["attrs"] = json.loads(attrs) if attrs and attrs != "{}" else {}
    return Finding(**row)


def findings(project: Project, run_id: int | None = None) -> list[Finding]:
    """Findings of one run (or all), in the order they were made."""
    if run_id is None:
        rows = dict_rows(project, f"SELECT {_FINDING_COLUMNS} FROM findings ORDER BY run_id, id")
    else:
        rows = dict_rows(project, f"SELECT {_FINDING_COLUMNS} FROM findings WHERE run_id = ? ORDER BY id", [run_id])
    return [_finding(r) for r in rows]


def findings_of_runs(project: Project, run_ids: list[int], source: Source | None = None) -> list[Finding]:
    """Findings of the runs ``run_ids`` (of one ``source`` when given), by run
    and id; read in slices of 500 ids."""
    out: list[Finding] = []
    for start in range(0, len(run_ids), 500):
        part = run_ids[start : start + 500]
        sql = f"SELECT {_FINDING_COLUMNS} FROM findings WHERE run_id IN ({','.join('?' * len(part))})"
        params: list[Any] = list(part)
        if source is not None:
            sql += " AND source = ?"
            params.append(source.value)
        out += [_finding(r) for r in dict_rows(project, sql + " ORDER BY run_id, id", params)]
    return out


def finding(project: Project, finding_id: int) -> Finding:
    """One finding by id; KeyError when there is none."""
    rows = dict_rows(project, f"SELECT {_FINDING_COLUMNS} FROM findings WHERE id = ?", [finding_id])
    if not rows:
        raise KeyError(f"no finding {finding_id}")
    return _finding(rows[0])


def update_finding(project: Project, finding_id: int, actor: str | None = None, **changes: Any) -> Finding:
    """Change review fields of a finding (status, final_code, reason,
    reviewer, decided_at) in one audited transaction; returns the new finding.
    ValueError (nothing written) for a field that cannot change (only those,
    code and detail can); KeyError when there is no finding ``finding_id``."""
    allowed = {"status", "final_code", "reason", "reviewer", "decided_at", "code", "detail"}
    bad = set(changes) - allowed
    if bad:
        raise ValueError(f"cannot change {sorted(bad)} of a finding")
    before = finding(project, finding_id)
    values = {k: (v.value if isinstance(v, (Code, Status, Source)) else v) for k, v in changes.items()}
    sets = ", ".join(f"{k} = :{k}" for k in values)
    with project.transaction():
        project.db.execute(f"UPDATE findings SET {sets} WHERE id = :id", {**values, "id": finding_id})
        after = finding(project, finding_id)
        project.audit(
            "update",
            "findings",
            finding_id,
            before.model_dump(mode="json"),
            after.model_dump(mode="json"),
            actor or default_actor(),
        )
    return after


def insert_finding(
    project: Project, run_id: int, f: Finding, config_version: str | None = None, actor: str | None = None
) -> int:
    """Insert a finding for ``run_id`` (audited); returns its id."""
    data = f.model_dump(mode="json", exclude={"id", "run_id"})
    data.update(run_id=run_id, config_version=config_version, created_at=now(), attrs=json.dumps(data["attrs"]))
    with project.transaction():
        cur = project.db.execute(
            "INSERT INTO findings (run_id, code, final_code, status, source, gt_card_id, gt_card, "
            "model_index, model_card, detail, reason, reviewer, decided_at, config_version, created_at, "
            "verdict_id, attrs) "
            "VALUES (:run_id, :code, :final_code, :status, :source, :gt_card_id, :gt_card, :model_index, "
            ":model_card, :detail, :reason, :reviewer, :decided_at, :config_version, :created_at, "
            ":verdict_id, :attrs)",
            data,
        )
        project.audit("insert", "findings", inserted_id(cur), None, data, actor)
    return inserted_id(cur)


def delete_finding(project: Project, finding_id: int, actor: str | None = None) -> Finding:
    """Delete a finding (audited); returns what it was."""
    before = finding(project, finding_id)
    with project.transaction():
        project.db.execute("DELETE FROM findings WHERE id = ?", [finding_id])
        project.audit("delete", "findings", finding_id, before.model_dump(mode="json"), None, actor)
    return before
