"""What the analysts' export says about itself: the keys that link its
tables and a description of every table and column.

``FOREIGN_KEYS`` links findings to runs and runs to items, so ``datasette
serve`` shows a finding's run as a link; each workflow's registration links
its own tables (judge verdicts, case results and scores, span tables
through ``span_runs``, ground truth) the same way (``foreign_keys``).
``TABLES`` describes the tables every export has, each workflow's
registration its own (``table_docs``); the export writes them as the ``_tables`` and
``_columns`` tables and as a Datasette metadata file beside the database
(``<out>.metadata.json``: ``datasette serve OUT.db -m OUT.db.metadata.json``).
docs/export-schema.md says the same in prose.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from reviewer.storage import registry
from reviewer.storage.files import safe_write

#: {table: [(column, other table, other column)]}
FOREIGN_KEYS: dict[str, list[tuple[str, str, str]]] = {
    "runs": [("item", "items", "item")],
    "findings": [("run_id", "runs", "run_id")],
}

#: The agreement table's columns: the judges' rows and the annotators' share them.
AGREEMENT_COLUMNS = {
    "raters": str,
    "dimension": str,
    "statistic": str,
    "value": float,
    "n": int,
    "note": str,
    "ci_low": float,
    "ci_high": float,
    "ci_method": str,
    "prevalence": str,
}

#: {table: (description, {column: description})}
TABLES: dict[str, tuple[str, dict[str, str]]] = {
    "items": (
        "One row per photo or text the runs are about.",
        {
            "item": "Item name (unique).",
            "kind": "image or text.",
            "path": "The file as imported.",
            "width": "Width in upright pixels (images).",
            "height": "Height in upright pixels (images).",
            "orientation": "EXIF orientation of the stored photo (1-8).",
            "sha256": "SHA-256 of the file.",
            "workflow": "cards, spans, case, judged output or pairwise: the item's workflow, which picks its perspective in the window.",
        },
    ),
    "runs": (
        "One row per model answer (run), with its metrics and what the runner recorded.",
        {
            "run_id": "Run id (the project's).",
            "item": "The item the model was asked about (items.item).",
            "prompt": "Prompt name.",
            "schema": "Answer schema the prompt asks for: piles, cards or free.",
            "model": "Model name.",
            "repetition": "Repetition number of the same item, prompt and model.",
            "timestamp": "When the answer was made or imported (ISO 8601).",
            "config_version": "Scoring config version the run was scored with.",
            "json_valid": "1 when an answer matching the schema was found as written, else 0.",
            "repaired": "1 when the cards were salvaged from broken JSON.",
            "box_convention": "Box convention of the answer: 0-1, 0-1000, pixels, or null.",
            "cards_visible": "Ground-truth cards with text (cards to transcribe are left out).",
            "cards_reported": "Cards in the model's answer.",
            "cards_correct": "Cards read correctly (final codes).",
            "text_accuracy": "cards_correct / cards_visible (0-1).",
            "spatial_accuracy": "Cards in the right pile / cards_visible (null without piles).",
            "hallucinations": "HALLUC findings (final codes).",
            "auto_cards_correct": "cards_correct before review (proposed codes).",
            "auto_text_accuracy": "text_accuracy before review.",
            "auto_spatial_accuracy": "spatial_accuracy before review.",
            "auto_hallucinations": "hallucinations before review.",
            "findings": "Findings of the run.",
            "reviewed": "1 when every finding is decided.",
            "parse_error": "Why no answer could be parsed (null when one was).",
            "latency_ms": "Milliseconds the endpoint took to answer (null for imported runs).",
            "prompt_tokens": "Tokens in (as the endpoint reported them).",
            "completion_tokens": "Tokens out (as the endpoint reported them).",
            "total_tokens": "Tokens in and out.",
            "finish_reason": "Why the endpoint stopped (stop, length, ...).",
            "truncated": "1 when the answer was cut off by the token limit.",
            "cost": "prompt_tokens x input price + completion_tokens x output price, with export --prices; "
            "null when the model is not priced.",
        },
    ),
    "findings": (
        "One row per error the scorer found (or a person added) in a run.",
        {
            "finding_id": "Finding id.",
            "run_id": "The run (runs.run_id).",
            "code": "Error code as proposed: OCR, PARTIAL, MISS, HALLUC, SPATIAL, FORMAT.",
            "final_code": "Code after review (null when rejected).",
            "status": "proposed, confirmed or rejected.",
            "source": "auto, judge or human.",
            "gt_card": "Text of the ground-truth card.",
            "model_card": "Text of the model card.",
            "detail": "Which rule decided it and on what evidence.",
            "reason": "The reviewer's reason.",
            "reviewer": "Who decided.",
            "decided_at": "When it was decided (ISO 8601).",
        },
    ),
    "prompt_verdicts": (
        "T-P1 verdicts per prompt and model, per item and over all items.",
        {
            "prompt": "Prompt name.",
            "model": "Model (runs of different models are never pooled).",
            "item": "Item name, or * for all items.",
            "basis": "auto (proposed codes) or reviewed (final codes).",
            "runs": "Runs pooled.",
            "cards_visible": "Ground-truth cards summed over the runs.",
            "cards_correct": "Correct cards summed over the runs.",
            "text_accuracy": "cards_correct / cards_visible.",
            "spatial_accuracy": "Cards in the right pile / cards_visible.",
            "hallucination_runs": "Runs with a hallucination.",
            "json_valid_runs": "Runs with valid JSON.",
            "verdict": "pass, ambiguous, fail or unscored.",
            "spatial_ok": "1 when spatial accuracy meets the threshold, 0 when not, null without piles.",
            "json_ok": "1 when valid JSON in enough runs; 0 when not, also with fewer runs than the rule needs.",
            "reasons": "Why, in words ('; ' between reasons).",
        },
    ),
    "scoring_config": (
        "Every threshold the scorer used.",
        {
            "version": "Scoring config version.",
            "name": "Setting name.",
            "value": "Setting value as text.",
        },
    ),
    "_tables": (
        "What every table of this export holds.",
        {
            "table": "Table or view name.",
            "description": "What it holds.",
        },
    ),
    "_columns": (
        "What every column of this export holds.",
        {
            "table": "Table or view name (_tables.table).",
            "column": "Column name.",
            "type": "SQLite type.",
            "description": "What it holds.",
        },
    ),
}

VIEW_DOCS: dict[str, tuple[str, dict[str, str]]] = {
    "code_counts": (
        "Findings per prompt and final code (rejected left out).",
        {
            "prompt": "Prompt name.",
            "code": "Final code.",
            "findings": "Findings.",
            "runs": "Runs with them.",
        },
    ),
    "auto_code_counts": (
        "Automatic findings per prompt and proposed code.",
        {
            "prompt": "Prompt name.",
            "code": "Proposed code.",
            "findings": "Findings.",
            "runs": "Runs with them.",
        },
    ),
}


_TYPES = {int: "INTEGER", float: "FLOAT", str: "TEXT"}


def table_docs() -> dict[str, tuple[str, dict[str, str]]]:
    """{table: (description, {column: description})} of every table an
    export may have: those every export has (``TABLES``), then each
    registered workflow's (reviewer.storage.registry, ``export_docs``)."""
    docs = dict(TABLES)
    for parts in registry.registered():
        docs.update(parts.export_docs)
    return docs


def foreign_keys() -> dict[str, list[tuple[str, str, str]]]:
    """{table: [(column, other table, other column)]} of every table an
    export may have: ``FOREIGN_KEYS``, then each registered workflow's
    (``export_keys``)."""
    keys = dict(FOREIGN_KEYS)
    for parts in registry.registered():
        keys.update(parts.export_keys)
    return keys


def doc_tables(
    tables: Iterable[tuple[str, dict, str | None, object]], views: Iterable[str]
) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The ``_tables`` and ``_columns`` tables describing ``tables`` (as
    export.collect_tables gives them: name, {column: type}, pk, rows) and
    ``views``, themselves included. A table or column missing from
    ``TABLES`` gets an empty description (tests/shared/cli/test_analyst_export.py
    fails on it, the export does not)."""
    table_rows, column_rows = [], []
    described = [(name, columns) for name, columns, _pk, _rows in tables]
    described += [(name, {c: str for c in VIEW_DOCS[name][1]}) for name in views]
    described += [
        ("_tables", {"table": str, "description": str}),
        ("_columns", {"table": str, "column": str, "type": str, "description": str}),
    ]
    docs = table_docs()
    for name, columns in described:
        about, cols = docs.get(name) or VIEW_DOCS.get(name) or ("", {})
        table_rows.append((name, about))
        for column, kind in columns.items():
            column_rows.append((name, column, _TYPES.get(kind, "TEXT"), cols.get(column, "")))
    return [
        ("_tables", {"table": str, "description": str}, "table", table_rows),
        ("_columns", {"table": str, "column": str, "type": str, "description": str}, None, column_rows),
    ]


def datasette_metadata(doc: list[tuple[str, dict, str | None, list[tuple]]], title: str) -> dict:
    """Datasette metadata (``-m``) of an export from its ``doc_tables``:
    every table's description and column descriptions."""
    tables: dict[str, dict] = {}
    for name, about in doc[0][3]:
        tables[name] = {"description": about, "columns": {}}
    for name, column, _kind, about in doc[1][3]:
        tables[name]["columns"][column] = about
    return {"title": title, "databases": {Path(title).stem: {"tables": tables}}}


#: What write_metadata writes, to check a file it would replace (reviewer.storage.files.safe_write).
METADATA_FORMAT = safe_write.json_format(
    "Datasette metadata file", lambda v: isinstance(v, dict) and isinstance(v.get("databases"), dict)
)


def metadata_path(out: Path) -> Path:
    """Where the Datasette metadata of the export ``out`` goes: ``<out>.metadata.json`` beside it."""
    return Path(out).with_name(Path(out).name + ".metadata.json")


def write_metadata(
    out: Path,
    doc: list[tuple[str, dict, str | None, list[tuple]]],
    sources: Iterable[Path] = (),
    force: bool = False,
) -> Path:
    """Write ``datasette_metadata`` beside the export ``out`` as
    ``<out>.metadata.json`` through reviewer.storage.files.safe_write (checked:
    not a project, a file that is not Datasette metadata or a file inside a
    ``source``, unless ``force``; replaced whole); returns its path. Raises
    TargetRefused, or ProjectError when it cannot be written."""
    path = metadata_path(out)
    safe_write.write_json(
        path,
        datasette_metadata(doc, Path(out).name),
        METADATA_FORMAT,
        sources=sources,
        force=force,
        indent=2,
        ensure_ascii=True,
        newline=False,
    )
    return path
