"""Reliability: hostile names (formulas, terminal escapes, bidi overrides)
are shown safely in the terminal, CSV and Markdown; raw model output keeps
its bytes (issue "A project that nothing can break", items 3 and 4)."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3

from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.tables import csv_cell
from reviewer.core.text import bounded, display_name, visible
from tests.helpers.paths import SAMPLES

ESC = "\x1b[31mred\x1b[0m"
RLO = "photo\u202egnp.exe"
HOSTILE_MODELS = [
    '=HYPERLINK("http://evil.example","x")',
    "+cmd|' /C calc'!A0",
    "@SUM(1)",
    "-2+3+cmd",
    ESC,
    RLO,
    "\tTAB",
    "bell\x07\x9b",
]
HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_visible_and_bounded():
    assert visible(RLO) == "photo<U+202E>gnp.exe"
    assert visible(ESC) == "<U+001B>[31mred<U+001B>[0m"
    assert visible("a\tb\nc\x00\x85") == "a\tb\nc<U+0000><U+0085>"
    assert display_name("two\nlines") == "two<U+000A>lines"
    assert visible("plain naïve 日本") == "plain naïve 日本"
    assert bounded("x" * 10, 5) == "xxxx…" and bounded("short", 5) == "short"
    assert len(display_name("y" * 500, 40)) == 40


def test_csv_cells_are_neutralised_except_numbers():
    for bad in ("=1+1", "+cmd", "-cmd", "@SUM(1)", "\tx", "\rx", "-", "=", "+-1x"):
        assert csv_cell(bad) == "'" + bad
    for number in ("-1", "-0.5", "+3", "-1e5", "+12%", "0.25", 7, -3.5, None):
        assert csv_cell(number) == number


def _hostile_project(tmp_path):
    db = tmp_path / "p.db"
    for model in HOSTILE_MODELS:
        result = invoke("import", db, SAMPLES, "--model", model)
        assert result.exit_code == 0, result.output
    verdicts = tmp_path / "v.jsonl"
    verdicts.write_text(
        "".join(
            json.dumps(
                {
                    "run": {"item": "table-01", "prompt": "spatial-grouping", "model": m, "repetition": 1},
                    "judge": f"judge {m}",
                    "dimension": "overall",
                    "value": 4,
                    "scale": "1-5",
                    "rationale": "=cmd",
                }
            )
            + "\n"
            for m in HOSTILE_MODELS
        )
    )
    result = invoke("import", db, verdicts, "--format", "jsonl-verdicts")
    assert result.exit_code == 0, result.output
    return db


def _no_hidden(text: str) -> None:
    assert not HIDDEN.search(text), repr(HIDDEN.search(text).group())


def test_hostile_names_in_cli_csv_and_markdown(tmp_path):
    db = _hostile_project(tmp_path)
    out = invoke("score", db).output
    _no_hidden(out)
    assert "<U+202E>" in out and "<U+001B>[31mred" in out
    md = invoke("report", db).output
    _no_hidden(md)
    assert "photo<U+202E>gnp.exe" in md and "<U+001B>" in md
    csv_text = invoke("report", db, "--format", "csv").output
    _no_hidden(csv_text.replace("\t", ""))  # a tab inside a quoted, neutralised cell is data
    cells = [c for row in csv.reader(io.StringIO(csv_text)) for c in row]
    assert '\'=HYPERLINK("http://evil.example","x")' in cells and "'@SUM(1)" in cells
    for cell in cells:
        assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
        assert not re.match(r"-[^0-9.]", cell), cell
    agreement = invoke("agreement", db).output
    _no_hidden(agreement)


def test_raw_output_keeps_its_bytes(tmp_path):
    db = tmp_path / "p.db"
    src = tmp_path / "r.jsonl"
    raw = "answer \x1b]8;;http://x\x07link\x1b]8;;\x07 \u202eevil"
    src.write_text(json.dumps({"item": "i", "prompt": "p", "model": "m", "repetition": 1, "output": raw}) + "\n")
    assert invoke("import", db, src).exit_code == 0
    con = sqlite3.connect(db)
    assert con.execute("SELECT output FROM runs").fetchone()[0] == raw
    con.close()


def test_error_messages_are_one_visible_line(tmp_path):
    odd = tmp_path / "bad\x1b[2Jname\u202e.jsonl"
    result = invoke("score", odd)
    assert result.exit_code == 1
    _no_hidden(result.output)
    assert len(result.output.strip().splitlines()) == 1 and "<U+001B>" in result.output
