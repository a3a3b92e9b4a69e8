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

from typing import Any, Optional

from reviewer.core.models import Item
from reviewer.core import workflows as core_workflows
from reviewer.core.workflows import ASKED_SOURCE_PREFIX, SPAN_PROMPT, AnyWorkflow, Workflow, infer, parse
from reviewer.storage import registry

#: Items holding an imported pair of outputs to compare: a verdict on a pair
#: that an import stored (a pairwise benchmark's), not one ``reviewer judge`` asked.
_IMPORTED_PAIR = (
    "SELECT r.item_id FROM verdicts v JOIN runs r ON r.id = v.run_id WHERE v.other_run_id IS NOT NULL "
    f"AND (v.source IS NULL OR substr(v.source, 1, {len(ASKED_SOURCE_PREFIX)}) != '{ASKED_SOURCE_PREFIX}')"
)

#: For each fact of core.workflows.infer but the photo, the items that have it (SQL over the project's tables).
_FACTS = {
    "case": "SELECT item_id FROM cases",
    "spans": (
        "SELECT item_id FROM golden_spans UNION "
        "SELECT r.item_id FROM span_snapshot_runs s JOIN runs r ON r.id = s.run_id UNION "
        f"SELECT r.item_id FROM runs r JOIN prompts p ON p.id = r.prompt_id WHERE p.name = '{SPAN_PROMPT}'"
    ),
    "pair": _IMPORTED_PAIR,
}


def _fact_queries() -> dict[str, str]:
    """_FACTS and each registered workflow's fact (reviewer.storage.registry)."""
    out = dict(_FACTS)
    for parts in registry.registered():
        flow = core_workflows.REGISTERED.get(parts.workflow)
        if flow is not None and parts.fact_sql:
            out[flow.fact] = parts.fact_sql
    return out


def _facts(db: Any, where: str = "", params: Optional[list] = None) -> dict[int, AnyWorkflow]:
    """{item id: inferred workflow} of the items selected by ``where`` (an
    SQL condition on ``items``); ``db`` has ``execute`` (sqlite3 or sqlite-utils)."""
    rows = db.execute(f"SELECT id, kind FROM items {where}", params or []).fetchall()
    if not rows:
        return {}
    facts = {name: {r[0] for r in db.execute(sql).fetchall()} for name, sql in _fact_queries().items()}
    return {
        item_id: infer(photo=kind == "photo", **{name: item_id in ids for name, ids in facts.items()})
        for item_id, kind in rows
    }


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
    pairs = db.execute(
        f"UPDATE items SET workflow = ? WHERE kind != 'photo' AND workflow = ? AND id IN ({_IMPORTED_PAIR})",
        [Workflow.PAIRWISE.value, Workflow.JUDGED.value],
    ).rowcount
    return photos + pairs


def record_workflows(project: Any) -> int:
    """``record_missing`` in one write transaction of ``project`` (a
    reviewer.storage.db.Project); returns how many items were recorded."""
    with project.transaction():
        return record_missing(project.db)


def item_workflows(project: Any, items: list[Item]) -> dict[int, AnyWorkflow]:
    """{item id: workflow} of ``items`` (read from the project): the recorded
    workflow, inferred for those without one (one pass over the project)."""
    missing = [i for i in items if parse(i.workflow) is None]
    known = ", ".join(f"'{w.value}'" for w in core_workflows.all_workflows())
    inferred = _facts(project.db, "WHERE workflow IS NULL OR workflow NOT IN (%s)" % known) if missing else {}
    out: dict[int, AnyWorkflow] = {}
    for item in items:
        if item.id is None:
            continue
        w = parse(item.workflow) or inferred.get(item.id)
        out[item.id] = w or (Workflow.CARDS if item.kind == "photo" else Workflow.JUDGED)
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
    """The ids of the items whose runs have a Failter verdict (as
    has_failter_verdicts, for every item in one query)."""
    return {
        row[0]
        for row in project.db.execute(
            "SELECT DISTINCT r.item_id FROM verdicts v JOIN runs r ON r.id = v.run_id "
            "WHERE v.method IN ('rules-based', 'ground-truth')"
        ).fetchall()
    }


def has_failter_verdicts(project: Any, item_id: int) -> bool:
    """The item's runs have a Failter verdict (rules-based or ground-truth
    evaluation): its judged-output figures are the Failter table, else the
    rubric distribution."""
    return (
        project.db.execute(
            "SELECT 1 FROM verdicts v JOIN runs r ON r.id = v.run_id WHERE r.item_id = ? "
            "AND v.method IN ('rules-based', 'ground-truth') LIMIT 1",
            [item_id],
        ).fetchone()
        is not None
    )
