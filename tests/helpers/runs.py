"""The command line with a fake API key, and a project of text items to run
models on: shared by the model-run, judge, runner-window and reliability tests."""

from __future__ import annotations

import sqlite3

from click.testing import CliRunner

from reviewer.cli import main

KEY = "sk-test-ZQXJ-distinctive-key-8f3a9c"


def cli(*args, env=None):
    result = CliRunner().invoke(main, [str(a) for a in args], env={"OPENAI_API_KEY": KEY, **(env or {})})
    return result


def text_project(tmp_path, n=3):
    """A project of n text items and one free-text prompt (jsonl-runs import)."""
    src = tmp_path / "runs.jsonl"
    src.write_text(
        "".join(
            f'{{"item": "doc{i}", "prompt": "summarise", "model": "seed", "repetition": 1, "output": "x", '
            f'"prompt_text": "Summarise: {{{{INPUT_TEXT}}}}", "schema": "free"}}\n'
            for i in range(n)
        )
    )
    db = tmp_path / "p.db"
    assert cli("import", db, src).exit_code == 0
    con = sqlite3.connect(db)
    for i in range(n):
        con.execute("UPDATE items SET text = ? WHERE name = ?", [f"text of doc{i}", f"doc{i}"])
    con.commit()
    con.close()
    return db


def rows(db, sql, params=()):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()
