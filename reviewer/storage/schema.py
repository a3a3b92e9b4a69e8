"""Schema migrations of the project database (sqlite-utils Migrations).

Add a new function to change the schema; never edit an applied one. A project
with a migration this list lacks was written by a newer reviewer.
"""

from __future__ import annotations

import sqlite_utils
from sqlite_utils.migrations import Migrations

MIGRATIONS = Migrations("reviewer")

_INITIAL = [
    """CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)""",
    """CREATE TABLE items (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL DEFAULT 'photo',
        path TEXT,
        sha256 TEXT,
        width INTEGER,
        height INTEGER,
        orientation INTEGER NOT NULL DEFAULT 1,
        text TEXT,
        added_at TEXT NOT NULL)""",
    """CREATE TABLE prompts (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        text TEXT NOT NULL DEFAULT '',
        schema TEXT NOT NULL DEFAULT 'free',
        box_convention TEXT,
        schema_source TEXT NOT NULL DEFAULT 'auto')""",
    """CREATE TABLE piles (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        label TEXT NOT NULL,
        region TEXT,
        position INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE cards (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        pile_id INTEGER REFERENCES piles(id) ON DELETE SET NULL,
        text TEXT NOT NULL,
        x_min REAL, y_min REAL, x_max REAL, y_max REAL,
        position INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        prompt_id INTEGER NOT NULL REFERENCES prompts(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        repetition INTEGER NOT NULL DEFAULT 1,
        output TEXT NOT NULL,
        output_sha256 TEXT NOT NULL,
        timestamp TEXT,
        source TEXT,
        imported_at TEXT NOT NULL,
        UNIQUE (item_id, prompt_id, model, repetition))""",
    """CREATE TABLE run_scores (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        config_version TEXT NOT NULL,
        strict INTEGER NOT NULL DEFAULT 0,
        facts TEXT NOT NULL,
        cards TEXT NOT NULL,
        scored_at TEXT NOT NULL)""",
    """CREATE TABLE findings (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        code TEXT NOT NULL,
        final_code TEXT,
        status TEXT NOT NULL DEFAULT 'proposed',
        source TEXT NOT NULL DEFAULT 'auto',
        gt_card_id INTEGER REFERENCES cards(id) ON DELETE SET NULL,
        gt_card TEXT,
        model_index INTEGER,
        model_card TEXT,
        detail TEXT NOT NULL DEFAULT '',
        reason TEXT,
        reviewer TEXT,
        decided_at TEXT,
        config_version TEXT,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE scoring_config (
        version TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        created_at TEXT NOT NULL)""",
    """CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        table_name TEXT NOT NULL,
        row_id TEXT,
        before TEXT,
        after TEXT)""",
    "CREATE INDEX idx_cards_item ON cards(item_id)",
    "CREATE INDEX idx_piles_item ON piles(item_id)",
    "CREATE INDEX idx_runs_item ON runs(item_id)",
    "CREATE INDEX idx_findings_run ON findings(run_id)",
    "CREATE INDEX idx_audit_table_row ON audit(table_name, row_id)",
]


@MIGRATIONS(name="0001_initial")
def m0001_initial(db: sqlite_utils.Database) -> None:
    """Items, prompts, ground truth (piles, cards), runs, scores, findings,
    scoring configs, audit."""
    for statement in _INITIAL:
        db.execute(statement)
