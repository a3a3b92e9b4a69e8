"""Each item's workflow, recorded at import (reviewer.core.workflows).

``record_workflows`` gives every item that has none yet its workflow, from
what it holds now, by core.workflows.infer; ``import_source`` calls it after
every import and migration 0023 calls it once for projects from before the
record. An item keeps the workflow it was recorded with: a span snapshot's
verdicts imported later do not move a span item to judged output. An item
with no workflow yet (imported by a bare importer call) is inferred when
read (``item_workflows``).
"""

from __future__ import annotations

from typing import Any, Optional

from reviewer.core.models import Item, SpanCode
from reviewer.core.workflows import SPAN_PROMPT, Workflow, infer, parse

#: For each fact of core.workflows.infer, the items that have it (SQL over the project's tables).
_FACTS = {
    "case": "SELECT item_id FROM cases",
    "spans": (
        "SELECT item_id FROM golden_spans UNION "
        "SELECT r.item_id FROM span_snapshot_runs s JOIN runs r ON r.id = s.run_id UNION "
        f"SELECT r.item_id FROM runs r JOIN prompts p ON p.id = r.prompt_id WHERE p.name = '{SPAN_PROMPT}' UNION "
        "SELECT r.item_id FROM findings f JOIN runs r ON r.id = f.run_id "
        f"WHERE f.code IN ({', '.join(repr(c.value) for c in SpanCode)})"
    ),
    "judged": "SELECT r.item_id FROM verdicts v JOIN runs r ON r.id = v.run_id WHERE v.other_run_id IS NULL",
    "pairwise": "SELECT r.item_id FROM verdicts v JOIN runs r ON r.id = v.run_id WHERE v.other_run_id IS NOT NULL",
}


def _facts(db: Any, where: str = "", params: Optional[list] = None) -> dict[int, Workflow]:
    """{item id: inferred workflow} of the items selected by ``where`` (an
    SQL condition on ``items``); ``db`` has ``execute`` (sqlite3 or sqlite-utils)."""
    rows = db.execute(f"SELECT id, kind FROM items {where}", params or []).fetchall()
    if not rows:
        return {}
    facts = {name: {r[0] for r in db.execute(sql).fetchall()} for name, sql in _FACTS.items()}
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


def record_workflows(project: Any) -> int:
    """``record_missing`` in one write transaction of ``project`` (a
    reviewer.storage.db.Project); returns how many items were recorded."""
    with project.transaction():
        return record_missing(project.db)


def item_workflows(project: Any, items: list[Item]) -> dict[int, Workflow]:
    """{item id: workflow} of ``items`` (read from the project): the recorded
    workflow, inferred for those without one (one pass over the project)."""
    missing = [i for i in items if parse(i.workflow) is None]
    inferred = _facts(project.db, "WHERE workflow IS NULL OR workflow NOT IN (%s)" % _KNOWN) if missing else {}
    out: dict[int, Workflow] = {}
    for item in items:
        if item.id is None:
            continue
        w = parse(item.workflow) or inferred.get(item.id)
        out[item.id] = w or (Workflow.CARDS if item.kind == "photo" else Workflow.JUDGED)
    return out


_KNOWN = ", ".join(f"'{w.value}'" for w in Workflow)


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
