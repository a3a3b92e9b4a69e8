"""Items and prompts of a project: adding and reading items, the per-item counts and texts the item
list shows, adding and reading prompts; and the helpers the other repo
modules share (sha256_text, dict_rows). SQL parameters only; every writer runs
inside ``Project.transaction`` and records an audit row.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any, NamedTuple

from reviewer.core.models import Item, Prompt
from reviewer.core.text import natural_key
from reviewer.storage.project.db import Project, inserted_id, now


def sha256_text(text: str) -> str:
    """Hex SHA-256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def dict_rows(project: Project, sql: str, params: Iterable[Any] = ()) -> list[dict]:
    """The rows of ``sql`` (SQL parameters ``params``) as dicts keyed by column name; the other repo modules read with it."""
    cur = project.db.execute(sql, list(params))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


# -- items -------------------------------------------------------------------
def upsert_item(project: Project, item: Item, actor: str | None = None) -> tuple[int, bool]:
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


#: The columns of an Item, as every whole-item read selects them.
_ITEM_COLUMNS = "id, name, kind, path, sha256, width, height, orientation, text, image_note, workflow"


def items(project: Project) -> list[Item]:
    """All items, in natural order of their names."""
    return sorted(items_by_id(project).values(), key=lambda i: natural_key(i.name, casefold=True))


class ItemRow(NamedTuple):
    """What the items list needs of an item at open: its id, name, kind
    ('photo' or 'text') and workflow as stored (None before it is recorded);
    the whole Item is read when it is first needed (``items_by_id``)."""

    id: int
    name: str
    kind: str
    workflow: str | None


def item_rows(project: Project) -> list[ItemRow]:
    """Every item's ItemRow in the natural order of their names (the order
    of ``items``), from one query of four columns: no Item is validated."""
    rows = project.db.execute("SELECT id, name, kind, workflow FROM items").fetchall()
    return sorted((ItemRow(*r) for r in rows), key=lambda r: natural_key(r.name, casefold=True))


def items_by_id(project: Project, ids: Iterable[int] | None = None) -> dict[int, Item]:
    """{id: Item} of the items ``ids`` (every item when None) that exist;
    read in chunks of 500 ids."""
    if ids is None:
        return {r["id"]: Item(**r) for r in dict_rows(project, f"SELECT {_ITEM_COLUMNS} FROM items")}
    wanted, out = sorted(set(ids)), {}
    for k in range(0, len(wanted), 500):
        chunk = wanted[k : k + 500]
        for r in dict_rows(
            project, f"SELECT {_ITEM_COLUMNS} FROM items WHERE id IN ({', '.join('?' * len(chunk))})", chunk
        ):
            out[r["id"]] = Item(**r)
    return out


def item_by_name(project: Project, name: str) -> Item | None:
    """The item called ``name``, or None."""
    rows = dict_rows(project, f"SELECT {_ITEM_COLUMNS} FROM items WHERE name = ?", [name])
    return Item(**rows[0]) if rows else None


def ground_truth_counts(project: Project) -> dict[int, tuple[int, int]]:
    """{item id: (ground-truth cards, of them cards with no text yet: cards
    to transcribe)} of items that have any: the cards counted from the
    (item, annotator) index, the blank ones from their own partial index
    (migration 0031), so no card row is read."""
    blank = dict(
        project.db.execute(
            "SELECT item_id, count(*) FROM cards WHERE annotator = '' AND trim(text) = '' GROUP BY item_id"
        ).fetchall()
    )
    return {
        item_id: (n, blank.get(item_id, 0))
        for item_id, n in project.db.execute(
            "SELECT item_id, count(*) FROM cards WHERE annotator = '' GROUP BY item_id"
        ).fetchall()
    }


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


# -- prompts -----------------------------------------------------------------------
def upsert_prompt(
    project: Project, prompt: Prompt, override: bool = False, actor: str | None = None
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
        for r in dict_rows(project, "SELECT id, name, text, schema, box_convention FROM prompts ORDER BY name")
    ]
