"""Reading and writing verdicts, references, subject metrics, disputes and
adjudications (docs/judging.md). SQL parameters only; every write is audited."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from reviewer.core.judging.verdicts import Adjudication, Dispute, Verdict
from reviewer.storage.judging.confidences import put_confidences
from reviewer.storage.project.db import Project, now

_VERDICT_COLS = (
    "id, subject, run_id, other_run_id, judge, judge_model, prompt_version, method, scale, "
    "scores, flags, issues_found, rationale, raw, answer_order, repetition, source"
)


def _rows(project: Project, sql: str, params: Iterable[Any] = ()) -> list[dict]:
    cur = project.db.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def add_verdict(project: Project, v: Verdict, actor: str | None = None) -> tuple[int, bool]:
    """Insert a verdict unless the same (subject, judge, method, answer
    order, repetition) is there. Returns (id, created)."""
    row = project.db.execute(
        "SELECT id FROM verdicts WHERE subject = ? AND judge = ? AND method = ? "
        "AND coalesce(answer_order, '') = coalesce(?, '') AND repetition = ?",
        [v.subject, v.judge, v.method.value, v.answer_order, v.repetition],
    ).fetchone()
    if row:
        return row[0], False
    data = v.model_dump(mode="json", exclude={"id"})
    for key in ("scores", "flags", "issues_found"):
        data[key] = json.dumps(data[key])
    data["imported_at"] = now()
    with project.transaction():
        cur = project.db.execute(
            "INSERT INTO verdicts (subject, run_id, other_run_id, judge, judge_model, prompt_version, method, "
            "scale, scores, flags, issues_found, rationale, raw, answer_order, repetition, source, imported_at) "
            "VALUES (:subject, :run_id, :other_run_id, :judge, :judge_model, :prompt_version, :method, :scale, "
            ":scores, :flags, :issues_found, :rationale, :raw, :answer_order, :repetition, :source, :imported_at)",
            data,
        )
        project.audit(
            "insert",
            "verdicts",
            cur.lastrowid,
            None,
            {k: data[k] for k in ("subject", "judge", "method", "scores")},
            actor,
        )
        new_id = cur.lastrowid
        assert new_id is not None  # an INSERT always sets it
        if v.confidences:
            put_confidences(project, new_id, v.confidences)
    return new_id, True


def has_judging(project: Project) -> bool:
    """True when the project has any verdict or dispute."""
    db = project.db
    return bool(
        db.execute("SELECT 1 FROM verdicts LIMIT 1").fetchone()
        or db.execute("SELECT 1 FROM disputes LIMIT 1").fetchone()
    )


def verdicts(project: Project, subject: str | None = None) -> list[Verdict]:
    """Verdicts (of one subject, or all) in id order."""
    sql = f"SELECT {_VERDICT_COLS} FROM verdicts"
    params: list[Any] = []
    if subject is not None:
        sql += " WHERE subject = ?"
        params = [subject]
    out = []
    for r in _rows(project, sql + " ORDER BY id", params):
        for key in ("scores", "flags", "issues_found"):
            r[key] = json.loads(r[key])
        out.append(Verdict(**r))
    return out


def set_reference(project: Project, item_id: int, text: str, source: str) -> bool:
    """Store a reference answer of an item (once per source). True if new."""
    with project.transaction():
        cur = project.db.execute(
            "INSERT OR IGNORE INTO item_references (item_id, text, source) VALUES (?, ?, ?)", [item_id, text, source]
        )
    return cur.rowcount > 0


def references(project: Project, item_id: int) -> list[tuple[str, str]]:
    """(source, text) of an item's reference answers."""
    return [
        (r[0], r[1])
        for r in project.db.execute("SELECT source, text FROM item_references WHERE item_id = ? ORDER BY id", [item_id])
    ]


def set_subject_metrics(project: Project, subject: str, metrics: dict, source: str) -> None:
    """Store structural metrics shown beside a subject's verdicts (e.g. the
    tarot readings' cardCoverage and hallucinatedCards)."""
    with project.transaction():
        project.db.execute(
            "INSERT INTO subject_metrics (subject, metrics, source) VALUES (?, ?, ?) "
            "ON CONFLICT(subject) DO UPDATE SET metrics = excluded.metrics, source = excluded.source",
            [subject, json.dumps(metrics), source],
        )


def subject_metrics(project: Project) -> dict[str, dict]:
    """Structural metrics of every subject that has them."""
    return {r[0]: json.loads(r[1]) for r in project.db.execute("SELECT subject, metrics FROM subject_metrics")}


def replace_disputes(project: Project, found: list[Dispute]) -> list[Dispute]:
    """Store the disputes just found: keep ids of those found before (same
    kind, subject, dimension), add new ones, delete those gone. Returns them
    with ids."""
    with project.transaction(derived=True):
        old = {
            (r["kind"], r["subject"], r["dimension"]): r["id"]
            for r in _rows(project, "SELECT id, kind, subject, dimension FROM disputes")
        }
        keep = set()
        out = []
        for d in found:
            key = (d.kind.value, d.subject, d.dimension)
            if key in old:
                project.db.execute(
                    "UPDATE disputes SET verdict_ids = ?, severity = ?, detail = ? WHERE id = ?",
                    [json.dumps(d.verdict_ids), d.severity, d.detail, old[key]],
                )
                d = d.model_copy(update={"id": old[key]})
            else:
                cur = project.db.execute(
                    "INSERT INTO disputes (kind, subject, dimension, verdict_ids, severity, detail, found_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [d.kind.value, d.subject, d.dimension, json.dumps(d.verdict_ids), d.severity, d.detail, now()],
                )
                d = d.model_copy(update={"id": cur.lastrowid})
            keep.add(key)
            out.append(d)
        for key, dispute_id in old.items():
            if key not in keep:
                project.db.execute("DELETE FROM disputes WHERE id = ?", [dispute_id])
    return out


def disputes(project: Project) -> list[Dispute]:
    """Stored disputes, most severe first."""
    return [
        Dispute(
            id=r["id"],
            kind=r["kind"],
            subject=r["subject"],
            dimension=r["dimension"],
            verdict_ids=json.loads(r["verdict_ids"]),
            severity=r["severity"],
            detail=r["detail"],
        )
        for r in _rows(project, "SELECT * FROM disputes ORDER BY severity DESC, id")
    ]


def disputes_stamp(project: Project) -> tuple:
    """What the stored disputes are now, in one aggregate over the table:
    (count, sum of ids, sum of severities, sum of the lengths of their
    verdict ids and details). Equal stamps mean the same rows as far as
    reviewer's writes go (replace_disputes inserts, deletes, or updates
    verdict ids, severity and detail); a reader that cached
    :func:`disputes` compares stamps instead of reading them again."""
    return tuple(
        project.db.execute(
            "SELECT count(*), total(id), total(severity), total(length(verdict_ids)), total(length(detail)) "
            "FROM disputes"
        ).fetchone()
    )


def adjudications(project: Project) -> list[Adjudication]:
    """Every adjudication."""
    out = []
    for r in _rows(project, "SELECT * FROM adjudications ORDER BY id"):
        r["value"] = json.loads(r["value"]) if r["value"] is not None else None
        r["decided_at"] = datetime.fromisoformat(r["decided_at"])
        out.append(Adjudication(**r))
    return out


def adjudication(project: Project, subject: str, dimension: str) -> Adjudication | None:
    """The adjudication of one dimension of a subject, or None."""
    return next((a for a in adjudications(project) if (a.subject, a.dimension) == (subject, dimension)), None)


def put_adjudication(project: Project, a: Adjudication, actor: str | None = None) -> int:
    """Insert or replace the adjudication of (subject, dimension), audited."""
    before = adjudication(project, a.subject, a.dimension)
    with project.transaction():
        project.db.execute(
            "INSERT INTO adjudications (id, subject, dimension, value, rationale, reviewer, decided_at, sided_with, "
            "dispute_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(subject, dimension) DO UPDATE SET "
            "value = excluded.value, rationale = excluded.rationale, reviewer = excluded.reviewer, "
            "decided_at = excluded.decided_at, sided_with = excluded.sided_with, dispute_id = excluded.dispute_id",
            [
                a.id,
                a.subject,
                a.dimension,
                json.dumps(a.value),
                a.rationale,
                a.reviewer,
                (a.decided_at or datetime.now()).isoformat(),
                a.sided_with,
                a.dispute_id,
            ],
        )
        row = project.db.execute(
            "SELECT id FROM adjudications WHERE subject = ? AND dimension = ?", [a.subject, a.dimension]
        ).fetchone()
        project.audit(
            "put",
            "adjudications",
            row[0],
            before.model_dump(mode="json") if before else None,
            a.model_dump(mode="json"),
            actor or a.reviewer,
        )
    return row[0]


def delete_adjudication(project: Project, subject: str, dimension: str, actor: str | None = None) -> None:
    """Remove the adjudication of (subject, dimension), audited."""
    before = adjudication(project, subject, dimension)
    if before is None:
        return
    with project.transaction():
        project.db.execute("DELETE FROM adjudications WHERE subject = ? AND dimension = ?", [subject, dimension])
        project.audit("delete", "adjudications", before.id, before.model_dump(mode="json"), None, actor)


def run_verdicts(project: Project, run_id: int) -> list[Verdict]:
    """The verdicts on run ``run_id``: single-output verdicts of it and
    pairwise verdicts where it is either answer, in id order."""
    out = []
    for r in _rows(
        project,
        f"SELECT {_VERDICT_COLS} FROM verdicts WHERE run_id = ? OR other_run_id = ? ORDER BY id",
        [run_id, run_id],
    ):
        for key in ("scores", "flags", "issues_found"):
            r[key] = json.loads(r[key])
        out.append(Verdict(**r))
    return out
