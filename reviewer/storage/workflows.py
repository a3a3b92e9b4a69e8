"""Each item's workflow, recorded at import (reviewer.core.workflows).

``record_workflows`` gives every item that has none yet its workflow, from
what was imported with it, by core.workflows.infer (content, never a
judge's verdicts); ``import_source`` calls it after every import and
migration 0023 calls it once for projects from before the record. Migration
0024 (``correct_verdict_moves``) puts back the items that 0023, when it still
read verdicts, moved out of their workflow. An item keeps the workflow it
was recorded with: a span snapshot's verdicts imported later do not move a
span item to judged output. An item with no workflow yet (imported by a
bare importer call) is inferred when read (``item_workflows``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from reviewer.core import workflows as core_workflows
from reviewer.core.workflows import AnyWorkflow, Workflow, infer, parse
from reviewer.storage import registry


def _fact_queries() -> dict[str, str]:
    """{fact of core.workflows.infer: SQL of the items that have it}, for
    every fact but the photo: each registered workflow's (reviewer.storage.registry),
    named by its core registration or, for the five, by its own ``fact``."""
    out = {}
    for parts in registry.registered():
        flow = core_workflows.REGISTERED.get(parts.workflow)
        fact = flow.fact if flow is not None else parts.fact
        if fact and parts.fact_sql:
            out[fact] = parts.fact_sql
    return out


def _facts(db: Any, where: str = "", params: list | None = None) -> dict[int, AnyWorkflow]:
    """{item id: inferred workflow} of the items selected by ``where`` (an
    SQL condition on ``items``); ``db`` has ``execute`` (sqlite3 or sqlite-utils)."""
    return _inferred(db, db.execute(f"SELECT id, kind FROM items {where}", params or []).fetchall())


def _inferred(db: Any, rows: Sequence[tuple[int, str]]) -> dict[int, AnyWorkflow]:
    """{item id: inferred workflow} of ``rows`` ((item id, kind) pairs)."""
    if not rows:
        return {}
    facts = {name: {r[0] for r in db.execute(sql).fetchall()} for name, sql in _fact_queries().items()}
    known: dict[tuple[bool, ...], AnyWorkflow] = {}  # infer once per combination of facts, not per item
    some = set().union(*facts.values())  # items holding no fact are told by their kind alone
    none = (False,) * len(facts)
    out = {}
    for item_id, kind in rows:
        held = (
            (kind == "photo", *(item_id in ids for ids in facts.values()))
            if item_id in some
            else (kind == "photo", *none)
        )
        w = known.get(held)
        if w is None:
            w = known[held] = infer(photo=held[0], **dict(zip(facts, held[1:])))
        out[item_id] = w
    return out


def record_missing(db: Any) -> int:
    """Record the workflow of every item without one, inferred from what it
    holds; returns how many were recorded. ``db``: a sqlite-utils Database or
    sqlite3 connection inside the caller's transaction (the migration's)."""
    inferred = _facts(db, "WHERE workflow IS NULL")
    for item_id, workflow in inferred.items():
        db.execute("UPDATE items SET workflow = ? WHERE id = ? AND workflow IS NULL", [workflow.value, item_id])
    return len(inferred)


def correct_verdict_moves(db: Any) -> int:
    """Put back the items an earlier rule moved by their verdicts (migration
    0024): a photo recorded as judged output or pairwise becomes cards, and
    a text recorded as judged output that holds an imported pair becomes
    pairwise. Nothing else is touched. Returns how many items changed.
    ``db``: as for record_missing."""
    photos = db.execute(
        "UPDATE items SET workflow = ? WHERE kind = 'photo' AND workflow IN (?, ?)",
        [Workflow.CARDS.value, Workflow.JUDGED.value, Workflow.PAIRWISE.value],
    ).rowcount
    imported_pair = registry.REGISTERED[Workflow.PAIRWISE.value].fact_sql
    pairs = db.execute(
        f"UPDATE items SET workflow = ? WHERE kind != 'photo' AND workflow = ? AND id IN ({imported_pair})",
        [Workflow.PAIRWISE.value, Workflow.JUDGED.value],
    ).rowcount
    return photos + pairs


def record_workflows(project: Any) -> int:
    """``record_missing`` in one write transaction of ``project`` (a
    reviewer.storage.project.db.Project); returns how many items were recorded."""
    with project.transaction():
        return record_missing(project.db)


class _Listed(Protocol):
    """An item as listed: an Item or a reviewer.storage.repo.items.ItemRow."""

    @property
    def id(self) -> int | None: ...

    @property
    def kind(self) -> str: ...

    @property
    def workflow(self) -> str | None: ...


def item_workflows(project: Any, items: Sequence[_Listed]) -> dict[int, AnyWorkflow]:
    """{item id: workflow} of ``items`` (Items or ItemRows read from the
    project): the recorded workflow, inferred for those without one (one
    pass over the project; ``infer`` once per combination of facts)."""
    missing = [(i.id, i.kind) for i in items if i.id is not None and parse(i.workflow) is None]
    inferred = _inferred(project.db, missing)
    out: dict[int, AnyWorkflow] = {}
    for item in items:
        if item.id is None:
            continue
        w = parse(item.workflow) or inferred.get(item.id)
        out[item.id] = w or infer(photo=item.kind == "photo")
    return out


def truth_counts(project: Any) -> dict[int, tuple[int, int, int, int]]:
    """{item id: (golden spans, reference texts, human verdicts, gold
    labels)}: the ground truth of text items (a span item's golden spans; a
    judged output's ground-truth file, kept as a reference; people's
    verdicts, of which the gold labels are the judge 'gold''s, such as a
    pairwise benchmark's label), for items that have any."""
    out: dict[int, list[int]] = {}
    queries = (
        "SELECT item_id, count(*) FROM golden_spans GROUP BY item_id",
        "SELECT item_id, count(*) FROM item_references GROUP BY item_id",
        "SELECT r.item_id, count(*) FROM verdicts v JOIN runs r ON r.id = v.run_id WHERE v.method = 'human' "
        "GROUP BY r.item_id",
        "SELECT r.item_id, count(*) FROM verdicts v JOIN runs r ON r.id = v.run_id WHERE v.method = 'human' "
        "AND v.judge = 'gold' GROUP BY r.item_id",
    )
    for k, sql in enumerate(queries):
        for item_id, n in project.db.execute(sql).fetchall():
            out.setdefault(item_id, [0, 0, 0, 0])[k] = n
    return {item_id: (a, b, c, d) for item_id, (a, b, c, d) in out.items()}


def failter_verdict_items(project: Any) -> set[int]:
    """The ids of the items whose runs have a Failter verdict (rules-based
    or ground-truth evaluation), in one query: such an item's judged-output
    figures are the Failter table, else the rubric distribution."""
    return {
        row[0]
        for row in project.db.execute(
            "SELECT DISTINCT r.item_id FROM verdicts v JOIN runs r ON r.id = v.run_id "
            "WHERE v.method IN ('rules-based', 'ground-truth')"
        ).fetchall()
    }
