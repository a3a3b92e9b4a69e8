"""The Failter table is in every format of `reviewer report` with the same
figures: parsed out of the Markdown, the CSV and the JSON of the failter
sample, they agree."""

from __future__ import annotations

import csv
import io
import json

from click.testing import CliRunner

from reviewer.cli import main
from tests.conftest import ROOT


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _number(text):
    return None if text in ("", "-", None) else round(float(text), 2)


def _markdown_failter(text: str) -> dict:
    section = text.split("## Failter report\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = dict(zip(header, (c.strip() for c in line.strip("|").split("|"))))
        rows[(cells["Model"], cells["Prompt"])] = (
            int(cells["Trials"]),
            int(cells["Errors"]),
            _number(cells["Avg_Score"]),
            _number(cells["Rules_Score"]),
            _number(cells["GT_Score"]),
        )
    return rows


def _csv_failter(text: str) -> dict:
    rows = {}
    for block in text.split("\n\n"):
        lines = list(csv.DictReader(io.StringIO(block)))
        for r in lines:
            if r.get("table") == "failter":
                rows[(r["model"], r["prompt"])] = (
                    int(r["trials"]),
                    int(r["errors"]),
                    _number(r["avg_score"]),
                    _number(r["rules_score"]),
                    _number(r["gt_score"]),
                )
    return rows


def _json_failter(text: str) -> dict:
    return {
        (r["model"], r["prompt"]): (
            r["trials"],
            r["errors"],
            _number(r["avg_score"]),
            _number(r["rules_score"]),
            _number(r["gt_score"]),
        )
        for r in json.loads(text)["failter"]
    }


def test_the_failter_table_is_in_every_format_with_the_same_figures(tmp_path):
    db = tmp_path / "f.db"
    assert cli("import", db, ROOT / "samples" / "failter").exit_code == 0
    md, as_csv, as_json = (cli("report", db, "--format", fmt).output for fmt in ("md", "csv", "json"))
    figures = _json_failter(as_json)
    assert figures == {
        ("sloppy-model", "cleanup"): (2, 0, 50.0, 40.0, 60.0),
        ("tidy-model", "cleanup"): (2, 0, 100.0, 100.0, 100.0),
    }
    assert _markdown_failter(md) == figures
    assert _csv_failter(as_csv) == figures
