"""Items keep their source's metadata (the ``items.metadata`` JSON column,
migration 0027): LLMBar's subset folder, a test case's category and
difficulty, a span prompt's section, and whatever a log or results file
carries per sample. Importers merge keys in (:func:`add_item_metadata`);
figures are sliced by one key (:func:`subject_slices`: `--by FIELD` on
alignment, agreement and calibration).

Values are kept as JSON; a slice is named by the value's text (a list or
object value by its compact JSON). A subject is in the slice of its item's
value (a pair: the item both runs answer); a subject whose item lacks the
key is in no slice and is counted apart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from reviewer.storage.project.db import Project

__all__ = ["add_item_metadata", "item_metadata", "metadata_fields", "slice_name", "subject_slices"]


def add_item_metadata(project: Project, item_id: int, metadata: Mapping[str, Any]) -> None:
    """Merge ``metadata`` (JSON-ready values; keys as text) into the item's
    metadata: a key present keeps its new value. Nothing is written when
    nothing changes. Raises ValueError on a value JSON cannot hold."""
    if not metadata:
        return
    with project.transaction():
        row = project.db.execute("SELECT metadata FROM items WHERE id = ?", [item_id]).fetchone()
        if row is None:
            return
        old = _loads(row[0])
        new = {**old, **{str(k): v for k, v in metadata.items()}}
        if new != old:
            project.db.execute(
                "UPDATE items SET metadata = ? WHERE id = ?",
                [json.dumps(new, ensure_ascii=False, sort_keys=True, allow_nan=False), item_id],
            )


def _loads(text: str | None) -> dict:
    try:
        data = json.loads(text or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def item_metadata(project: Project) -> dict[int, dict]:
    """{item id: its metadata} of items that have any."""
    out = {}
    for item_id, text in project.db.execute("SELECT id, metadata FROM items WHERE metadata != '{}'"):
        data = _loads(text)
        if data:
            out[item_id] = data
    return out


def metadata_fields(project: Project) -> list[str]:
    """The metadata keys some item has, sorted (the slice selector's choices)."""
    return sorted({k for data in item_metadata(project).values() for k in data})


def slice_name(value: Any) -> str:
    """The slice a metadata value names: text as is, others as compact JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def subject_slices(project: Project, field: str) -> dict[str, str]:
    """{subject: slice name} of every judged subject (verdicts' subjects)
    whose item has ``field`` in its metadata; a pair's item is its first
    run's. Raises ValueError naming the fields there are when no item has
    ``field``."""
    meta = item_metadata(project)
    if not any(field in m for m in meta.values()):
        there = ", ".join(metadata_fields(project)) or "none"
        raise ValueError(f"no item has metadata field '{field}' (fields: {there})")
    out = {}
    for subject, item_id in project.db.execute(
        "SELECT DISTINCT v.subject, r.item_id FROM verdicts v JOIN runs r ON r.id = v.run_id"
    ):
        data = meta.get(item_id)
        if data is not None and field in data:
            out[subject] = slice_name(data[field])
    return out
