"""Reading and writing the domain objects of a project (SQL parameters only).

Every writer here runs inside ``Project.transaction`` and records an audit
row; callers that make several changes wrap them in one transaction.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable, NamedTuple, Optional, Sequence

from reviewer.core.models import (
    BBox,
    Card,
    Code,
    Finding,
    GroundTruth,
    Item,
    Pile,
    Prompt,
    ScoringConfig,
    Source,
    Status,
)
from reviewer.core.bounds import drawable_box, drawable_points
from reviewer.core.text import natural_key
from reviewer.storage.db import Project, default_actor, inserted_id, now

_FINDING_COLUMNS = (
    "id, run_id, code, final_code, status, source, gt_card_id, gt_card, model_index, "
    "model_card, detail, reason, reviewer, decided_at, verdict_id, attrs"
)


def sha256_text(text: str) -> str:
    """Hex SHA-256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _rows(project: Project, sql: str, params: Iterable[Any] = ()) -> list[dict]:
    cur = project.db.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


# -- items -------------------------------------------------------------------
def upsert_item(project: Project, item: Item, actor: Optional[str] = None) -> tuple[int, bool]:
    """Insert ``item`` by name, or return the existing one's id.
    Returns (item id, created)."""
    data = item.model_dump(exclude={"id"})
    data["added_at"] = now()
    with project.transaction():  # checked under the write lock: two imports cannot both add it
        row = project.db.execute("SELECT id FROM items WHERE name = ?", [item.name]).fetchone()
        if row:
            return row[0], False
        cur = project.db.execute(
            "INSERT INTO items (name, kind, path, sha256, width, height, orientation, text, added_at, "
            "image_note, workflow) VALUES (:name, :kind, :path, :sha256, :width, :height, :orientation, :text, "
            ":added_at, :image_note, :workflow)",
            data,
        )
        item_id = inserted_id(cur)
        project.audit("insert", "items", item_id, None, data, actor)
    return item_id, True


def items(project: Project) -> list[Item]:
    """All items, in natural order of their names."""
    rows = _rows(
        project,
        "SELECT id, name, kind, path, sha256, width, height, orientation, text, image_note, workflow FROM items",
    )
    return sorted((Item(**r) for r in rows), key=lambda i: natural_key(i.name, casefold=True))


def item_by_name(project: Project, name: str) -> Optional[Item]:
    """The item called ``name``, or None."""
    rows = _rows(
        project,
        "SELECT id, name, kind, path, sha256, width, height, orientation, text, image_note, workflow FROM items WHERE name = ?",
        [name],
    )
    return Item(**rows[0]) if rows else None


def card_counts(project: Project) -> dict[int, int]:
    """{item id: number of ground-truth cards} of items that have any."""
    return dict(
        project.db.execute("SELECT item_id, count(*) FROM cards WHERE annotator = '' GROUP BY item_id").fetchall()
    )


def transcribe_counts(project: Project) -> dict[int, int]:
    """{item id: number of ground-truth cards with no text yet (cards to
    transcribe)} of items that have any."""
    return dict(
        project.db.execute(
            "SELECT item_id, count(*) FROM cards WHERE annotator = '' AND trim(text) = '' GROUP BY item_id"
        ).fetchall()
    )


def run_item_names(project: Project) -> dict[int, str]:
    """{run id: its item's name} of every run (one query)."""
    return dict(project.db.execute("SELECT r.id, i.name FROM runs r JOIN items i ON i.id = r.item_id").fetchall())


def card_texts(project: Project) -> dict[int, list[str]]:
    """{item id: its ground-truth card texts} of items that have cards (one query; for search)."""
    out: dict[int, list[str]] = {}
    for item_id, text in project.db.execute(
        "SELECT item_id, text FROM cards WHERE annotator = '' ORDER BY item_id, position, id"
    ):
        out.setdefault(item_id, []).append(text)
    return out


# -- ground truth ----------------------------------------------------------------
def has_ground_truth(project: Project, item_id: int) -> bool:
    """True when the item has at least one ground-truth card."""
    return (
        project.db.execute("SELECT 1 FROM cards WHERE item_id = ? AND annotator = '' LIMIT 1", [item_id]).fetchone()
        is not None
    )


def set_ground_truth(
    project: Project, item_id: int, gt: GroundTruth, actor: Optional[str] = None, annotator: str = ""
) -> None:
    """Replace the item's piles and cards of ``annotator`` ('' the
    consensus, which scoring uses) with ``gt`` (one transaction, audited)."""
    before = ground_truth(project, item_id, annotator).model_dump(mode="json")
    with project.transaction():
        project.db.execute("DELETE FROM cards WHERE item_id = ? AND annotator = ?", [item_id, annotator])
        project.db.execute("DELETE FROM piles WHERE item_id = ? AND annotator = ?", [item_id, annotator])
        pile_ids: dict[str, int] = {}
        for pos, pile in enumerate(gt.piles):
            cur = project.db.execute(
                "INSERT INTO piles (item_id, label, region, position, annotator) VALUES (?, ?, ?, ?, ?)",
                [item_id, pile.label, json.dumps(pile.region) if pile.region else None, pos, annotator],
            )
            pile_ids[pile.label] = inserted_id(cur)
        for pos, card in enumerate(gt.cards):
            box = card.bbox
            project.db.execute(
                "INSERT INTO cards (item_id, pile_id, text, x_min, y_min, x_max, y_max, position, annotator) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    item_id,
                    pile_ids.get(card.pile) if card.pile else None,
                    card.text,
                    box.x_min if box else None,
                    box.y_min if box else None,
                    box.x_max if box else None,
                    box.y_max if box else None,
                    pos,
                    annotator,
                ],
            )
        project.audit(
            "replace",
            "ground_truth" if not annotator else f"ground_truth:{annotator}",
            item_id,
            before,
            gt.model_dump(mode="json"),
            actor,
        )


def ground_truth(project: Project, item_id: int, annotator: str = "") -> GroundTruth:
    """The item's ground truth of ``annotator`` ('' the consensus, which
    scoring uses): piles by position, cards by position with ids."""
    name_row = project.db.execute("SELECT name FROM items WHERE id = ?", [item_id]).fetchone()
    piles = _rows(
        project,
        "SELECT id, label, region FROM piles WHERE item_id = ? AND annotator = ? ORDER BY position, id",
        [item_id, annotator],
    )
    labels = {p["id"]: p["label"] for p in piles}
    cards = _rows(
        project,
        "SELECT id, pile_id, text, x_min, y_min, x_max, y_max FROM cards "
        "WHERE item_id = ? AND annotator = ? ORDER BY position, id",
        [item_id, annotator],
    )
    return GroundTruth(
        item=name_row[0] if name_row else "",
        piles=[Pile(id=p["id"], label=p["label"], region=_stored_region(p["region"])) for p in piles],
        cards=[
            Card(
                id=c["id"],
                text=c["text"],
                pile=labels.get(c["pile_id"]),
                bbox=_stored_box(c),
            )
            for c in cards
        ],
    )


def _stored_region(text: Optional[str]) -> Optional[list]:
    """A stored region (JSON), or None when it is not a list of pixel
    points (NaN, infinity: a project imported before values were checked
    at the door; reviewer.core.bounds.drawable_points)."""
    if not text:
        return None
    try:
        return drawable_points(json.loads(text))
    except (ValueError, RecursionError):
        return None


def _stored_box(row) -> Optional[BBox]:
    """A stored card box, or None (no box) when a value is missing or not a
    pixel (reviewer.core.bounds.drawable_box)."""
    box = drawable_box(row["x_min"], row["y_min"], row["x_max"], row["y_max"])
    return None if box is None else BBox(x_min=box[0], y_min=box[1], x_max=box[2], y_max=box[3])


# -- prompts -----------------------------------------------------------------------
def upsert_prompt(
    project: Project, prompt: Prompt, override: bool = False, actor: Optional[str] = None
) -> tuple[int, bool]:
    """Insert ``prompt`` by name; an existing prompt keeps its schema unless
    ``override`` (then its schema and box convention are replaced).
    Returns (prompt id, created)."""
    conv = prompt.box_convention.value if prompt.box_convention else None
    with project.transaction():
        row = project.db.execute(
            "SELECT id, schema, box_convention FROM prompts WHERE name = ?", [prompt.name]
        ).fetchone()
        if row:
            if override and (row[1], row[2]) != (prompt.schema_.value, conv):
                project.db.execute(
                    "UPDATE prompts SET schema = ?, box_convention = ?, schema_source = 'override' WHERE id = ?",
                    [prompt.schema_.value, conv, row[0]],
                )
                project.audit(
                    "update",
                    "prompts",
                    row[0],
                    {"schema": row[1], "box_convention": row[2]},
                    {"schema": prompt.schema_.value, "box_convention": conv},
                    actor,
                )
            return row[0], False
        cur = project.db.execute(
            "INSERT INTO prompts (name, text, schema, box_convention, schema_source) VALUES (?, ?, ?, ?, ?)",
            [prompt.name, prompt.text, prompt.schema_.value, conv, "override" if override else "auto"],
        )
        project.audit("insert", "prompts", inserted_id(cur), None, prompt.model_dump(mode="json", by_alias=True), actor)
        return inserted_id(cur), True


def prompts(project: Project) -> list[Prompt]:
    """All prompts, by name."""
    return [
        Prompt(id=r["id"], name=r["name"], text=r["text"], schema=r["schema"], box_convention=r["box_convention"])
        for r in _rows(project, "SELECT id, name, text, schema, box_convention FROM prompts ORDER BY name")
    ]


# -- runs ---------------------------------------------------------------------------
def add_run(
    project: Project,
    item_id: int,
    prompt_id: int,
    model: str,
    output: str,
    *,
    repetition: Optional[int] = None,
    timestamp: Optional[str] = None,
    source: Optional[str] = None,
    actor: Optional[str] = None,
    any_model: bool = False,
) -> tuple[Optional[int], str]:
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
    timestamp: Optional[str] = None
    source: Optional[str] = None


def add_numbered_runs(
    project: Project, runs: Sequence[NumberedRun], actor: Optional[str] = None
) -> list[tuple[Optional[int], str]]:
    """add_run for each of ``runs`` in order (each with its repetition: the
    same key and output is 'exists', another output a conflict), in one
    transaction: one indexed look-up per run, one executemany for
    the new rows and one audit row listing them (id, item, prompt, model,
    repetition, source). Returns add_run's (run id or None, status) per run."""
    out: list[tuple[Optional[int], str]] = []
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
    project: Project, item_id: int, prompt_id: int, source: str, output: str, model: str, actor: Optional[str] = None
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


def run_rows(project: Project, run_ids: Optional[Iterable[int]] = None, with_output: bool = True) -> list[dict]:
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
    return _rows(project, sql + " ORDER BY i.name, p.name, r.model, r.repetition", params)


def run_ids(project: Project, run_ids: Optional[Iterable[int]] = None) -> list[int]:
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


# -- findings -------------------------------------------------------------------------
def _finding(row: dict) -> Finding:
    attrs = row.get("attrs")
    row["attrs"] = json.loads(attrs) if attrs and attrs != "{}" else {}
    return Finding(**row)


def findings(project: Project, run_id: Optional[int] = None) -> list[Finding]:
    """Findings of one run (or all), in the order they were made."""
    if run_id is None:
        rows = _rows(project, f"SELECT {_FINDING_COLUMNS} FROM findings ORDER BY run_id, id")
    else:
        rows = _rows(project, f"SELECT {_FINDING_COLUMNS} FROM findings WHERE run_id = ? ORDER BY id", [run_id])
    return [_finding(r) for r in rows]


def findings_of_runs(project: Project, run_ids: list[int], source: Optional[Source] = None) -> list[Finding]:
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
        out += [_finding(r) for r in _rows(project, sql + " ORDER BY run_id, id", params)]
    return out


def finding(project: Project, finding_id: int) -> Finding:
    """One finding by id; KeyError when there is none."""
    rows = _rows(project, f"SELECT {_FINDING_COLUMNS} FROM findings WHERE id = ?", [finding_id])
    if not rows:
        raise KeyError(f"no finding {finding_id}")
    return _finding(rows[0])


def update_finding(project: Project, finding_id: int, actor: Optional[str] = None, **changes: Any) -> Finding:
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
    project: Project, run_id: int, f: Finding, config_version: Optional[str] = None, actor: Optional[str] = None
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


def delete_finding(project: Project, finding_id: int, actor: Optional[str] = None) -> Finding:
    """Delete a finding (audited); returns what it was."""
    before = finding(project, finding_id)
    with project.transaction():
        project.db.execute("DELETE FROM findings WHERE id = ?", [finding_id])
        project.audit("delete", "findings", finding_id, before.model_dump(mode="json"), None, actor)
    return before


# -- scoring config ----------------------------------------------------------------------
def save_config(project: Project, config: ScoringConfig) -> None:
    """Store ``config`` under its version (once) and make it the current one
    (derived data: allowed in a read-only project's in-memory copy)."""
    with project.transaction(derived=True):
        project.db.execute(
            "INSERT OR IGNORE INTO scoring_config (version, config, created_at) VALUES (?, ?, ?)",
            [config.version, config.model_dump_json(), now()],
        )
        if project.meta("scoring_config") != config.version:
            project.audit("set", "meta", "scoring_config", project.meta("scoring_config"), config.version)
            project.set_meta("scoring_config", config.version)


#: Config versions whose rules this code still implements; a project set to
#: an older version (other matching rules) is scored with the default, and
#: its old scores keep their own version.
REPRODUCIBLE_VERSIONS = frozenset({ScoringConfig().version})


def stored_config_version(project: Project) -> Optional[str]:
    """The version of the project's current scoring config, or None."""
    return project.meta("scoring_config")


def current_config(project: Project) -> ScoringConfig:
    """The project's current scoring config: the stored one when this code
    still implements its rules (REPRODUCIBLE_VERSIONS), else the default."""
    version = project.meta("scoring_config")
    if version in REPRODUCIBLE_VERSIONS:
        row = project.db.execute("SELECT config FROM scoring_config WHERE version = ?", [version]).fetchone()
        if row:
            return ScoringConfig.model_validate_json(row[0])
    return ScoringConfig()
