"""The runs of a project:
adding a run idempotently (add_run) or many numbered runs at once
(add_numbered_runs), giving an unnamed run its model, and reading runs
joined with their item and prompt. Every writer runs inside
``Project.transaction`` and records an audit row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from reviewer.storage.project.db import Project, inserted_id, now
from reviewer.storage.repo.items import dict_rows, sha256_text


def add_run(
    project: Project,
    item_id: int,
    prompt_id: int,
    model: str,
    output: str,
    *,
    repetition: int | None = None,
    timestamp: str | None = None,
    source: str | None = None,
    actor: str | None = None,
    any_model: bool = False,
) -> tuple[int | None, str]:
    """Add a run unless it is already there (idempotent import).

    A run is item, prompt, model and repetition. With ``repetition`` given,
    a stored run of that repetition with the same output is this run
    ('exists'), one with another output a conflict; equal outputs of
    different repetitions are different runs. Without ``repetition`` (a
    source that does not number its runs) the same item, prompt, model and
    output (and timestamp, when given) is the same run, and a new one gets
    the next free repetition; with ``any_model`` (the caller's model name is
    only a default), so is the same source file with the same output under
    another model name. Checks and insert are one transaction (indexed
    look-ups: idx_runs_output, idx_runs_source, the runs UNIQUE key).
    Returns (run id or None, status): 'added', 'exists', "exists as model
    '...'" or 'conflict: ...'.
    """
    digest = sha256_text(output)
    with project.transaction():
        if repetition is not None:
            taken = project.db.execute(
                "SELECT id, output_sha256 FROM runs WHERE item_id = ? AND prompt_id = ? AND model = ? "
                "AND repetition = ?",
                [item_id, prompt_id, model, repetition],
            ).fetchone()
            if taken:
                if taken[1] == digest:
                    return taken[0], "exists"
                return None, f"conflict: repetition {repetition} exists with a different output"
        else:
            same = project.db.execute(
                "SELECT id FROM runs WHERE item_id = ? AND prompt_id = ? AND model = ? AND output_sha256 = ? "
                "AND coalesce(timestamp, '') = coalesce(?, '')",
                [item_id, prompt_id, model, digest, timestamp],
            ).fetchone()
            if same:
                return same[0], "exists"
            if source and any_model:
                # the model name is only a default: the same file imported before
                # under another model name is the same run
                other = project.db.execute(
                    "SELECT id, model FROM runs WHERE item_id = ? AND prompt_id = ? AND source = ? "
                    "AND output_sha256 = ?",
                    [item_id, prompt_id, source, digest],
                ).fetchone()
                if other:
                    return other[0], f"exists as model '{other[1]}'"
            top = project.db.execute(
                "SELECT max(repetition) FROM runs WHERE item_id = ? AND prompt_id = ? AND model = ?",
                [item_id, prompt_id, model],
            ).fetchone()[0]
            repetition = (top or 0) + 1
        data = dict(
            item_id=item_id,
            prompt_id=prompt_id,
            model=model,
            repetition=repetition,
            output=output,
            output_sha256=digest,
            timestamp=timestamp,
            source=source,
            imported_at=now(),
        )
        cur = project.db.execute(
            "INSERT INTO runs (item_id, prompt_id, model, repetition, output, output_sha256, timestamp, "
            "source, imported_at) VALUES (:item_id, :prompt_id, :model, :repetition, :output, "
            ":output_sha256, :timestamp, :source, :imported_at)",
            data,
        )
        project.audit("insert", "runs", inserted_id(cur), None, {k: v for k, v in data.items() if k != "output"}, actor)
    return inserted_id(cur), "added"


class NumberedRun(NamedTuple):
    """A run that carries its repetition number, as add_numbered_runs takes it."""

    item_id: int
    prompt_id: int
    model: str
    repetition: int
    output: str
    timestamp: str | None = None
    source: str | None = None


def add_numbered_runs(
    project: Project, runs: Sequence[NumberedRun], actor: str | None = None
) -> list[tuple[int | None, str]]:
    """add_run for each of ``runs`` in order (each with its repetition: the
    same key and output is 'exists', another output a conflict), in one
    transaction: one indexed look-up per run, one executemany for
    the new rows and one audit row listing them (id, item, prompt, model,
    repetition, source). Returns add_run's (run id or None, status) per run."""
    out: list[tuple[int | None, str]] = []
    with project.transaction():
        known: dict[tuple, tuple[int, str]] = {}
        execute = project.db.conn.execute
        for key in dict.fromkeys((r.item_id, r.prompt_id, r.model, r.repetition) for r in runs):
            row = execute(
                "SELECT id, output_sha256 FROM runs WHERE item_id = ? AND prompt_id = ? AND model = ? "
                "AND repetition = ?",
                key,
            ).fetchone()  # the UNIQUE key's index
            if row:
                known[key] = row
        next_id = project.db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM runs").fetchone()[0]
        stamp = now()
        inserts = []
        for r in runs:
            digest = sha256_text(r.output)
            key = (r.item_id, r.prompt_id, r.model, r.repetition)
            taken = known.get(key)
            if taken:
                out.append(
                    (taken[0], "exists")
                    if taken[1] == digest
                    else (None, f"conflict: repetition {r.repetition} exists with a different output")
                )
                continue
            known[key] = (next_id, digest)
            inserts.append(
                (next_id, r.item_id, r.prompt_id, r.model, r.repetition, r.output, digest, r.timestamp, r.source, stamp)
            )
            out.append((next_id, "added"))
            next_id += 1
        if inserts:
            project.db.conn.executemany(
                "INSERT INTO runs (id, item_id, prompt_id, model, repetition, output, output_sha256, timestamp, "
                "source, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                inserts,
            )
            first, last = inserts[0][0], inserts[-1][0]
            project.audit(
                "insert",
                "runs",
                f"{first}-{last}" if last != first else str(first),
                None,
                {"imported_at": stamp, "runs": [[i[0], i[1], i[2], i[3], i[4], i[8]] for i in inserts]},
                actor,
            )
    return out


def adopt_default_model(
    project: Project, item_id: int, prompt_id: int, source: str, output: str, model: str, actor: str | None = None
) -> bool:
    """When the same file was imported before without a model name (model
    'unknown'), give that run ``model`` instead of adding it again (audited).
    Returns True when a run was renamed."""
    if model == "unknown":
        return False
    with project.transaction():
        row = project.db.execute(
            "SELECT id FROM runs WHERE item_id = ? AND prompt_id = ? AND source = ? AND output_sha256 = ? "
            "AND model = 'unknown'",
            [item_id, prompt_id, source, sha256_text(output)],
        ).fetchone()
        if not row:
            return False
        project.db.execute("UPDATE runs SET model = ? WHERE id = ?", [model, row[0]])
        project.audit("update", "runs", row[0], {"model": "unknown"}, {"model": model}, actor)
    return True


def run_rows(project: Project, run_ids: Iterable[int] | None = None, with_output: bool = True) -> list[dict]:
    """Runs joined with item and prompt: id, item_id, item, prompt_id, prompt,
    schema, model, repetition, output (unless ``with_output`` is False),
    timestamp; by item, prompt, model, repetition."""
    sql = (
        "SELECT r.id, r.item_id, i.name AS item, r.prompt_id, p.name AS prompt, p.schema, "
        f"r.model, r.repetition, {'r.output, ' if with_output else ''}r.timestamp FROM runs r "
        "JOIN items i ON i.id = r.item_id JOIN prompts p ON p.id = r.prompt_id"
    )
    params: list[Any] = []
    if run_ids is not None:
        ids = list(run_ids)
        sql += f" WHERE r.id IN ({','.join('?' * len(ids))})"
        params = ids
    return dict_rows(project, sql + " ORDER BY i.name, p.name, r.model, r.repetition", params)


def run_ids(project: Project, run_ids: Iterable[int] | None = None) -> list[int]:
    """Ids of the runs (all, or those of ``run_ids`` that exist) in the order
    of run_rows: by item, prompt, model, repetition."""
    sql = "SELECT r.id FROM runs r JOIN items i ON i.id = r.item_id JOIN prompts p ON p.id = r.prompt_id"
    order = " ORDER BY i.name, p.name, r.model, r.repetition"
    if run_ids is None:
        return [row[0] for row in project.db.execute(sql + order)]
    wanted = list(dict.fromkeys(run_ids))
    found: list[tuple] = []
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        found += project.db.execute(
            "SELECT r.id, i.name, p.name, r.model, r.repetition FROM runs r JOIN items i ON i.id = r.item_id "
            f"JOIN prompts p ON p.id = r.prompt_id WHERE r.id IN ({','.join('?' * len(part))})",
            part,
        ).fetchall()
    return [row[0] for row in sorted(found, key=lambda r: (r[1], r[2], r[3], r[4]))]
