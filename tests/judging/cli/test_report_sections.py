"""The Failter table and the rubric rules are in every format of `reviewer
report` with the same figures: parsed out of the Markdown, the CSV and the
JSON of the failter and rubric samples, they agree."""

from __future__ import annotations

import csv
import io
import json

from click.testing import CliRunner

from reviewer.cli import main
from tests.helpers.paths import ROOT


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


def _markdown_rubric(text: str) -> dict:
    section = text.split("## Rubric rules\n", 1)[1].split("\n## ", 1)[0]
    rules = int(section.split(" rules over the verdicts", 1)[0].rsplit(": ", 1)[1])
    disputes = section.split("### Judge-vs-metrics disputes\n", 1)[1].split("\n### ", 1)[0]
    rows = []
    for line in disputes.splitlines():
        if line.startswith("- "):
            head = line[2:].split(": ", 1)[0]
            where, number = head.rsplit(" (dispute ", 1)
            reading, dimension = where.split(" / ", 1)
            rows.append((reading, dimension, int(number.rstrip(")"))))
    return {"rules": rules, "disputes": rows}


def _csv_rubric(text: str) -> list:
    rows = []
    for block in text.split("\n\n"):
        for r in csv.DictReader(io.StringIO(block)):
            if r.get("table") == "rubric_disputes":
                rows.append((r["reading"], r["dimension"], int(r["dispute"])))
    return rows


def test_the_rubric_rules_are_in_every_format_with_the_same_figures(tmp_path):
    # the rubric sample's judges break the hallucinated-cards rule on one
    # reading: the Markdown lists the disputes, the CSV has them as the table
    # rubric_disputes and the JSON under judges.rubric, the same in all three
    db = tmp_path / "r.db"
    assert cli("import", db, ROOT / "samples" / "rubric").exit_code == 0
    md, as_csv, as_json = (cli("report", db, "--format", fmt).output for fmt in ("md", "csv", "json"))
    rubric = json.loads(as_json)["judges"]["rubric"]
    disputes = [(d["reading"], d["dimension"], d["dispute"]) for d in rubric["disputes"]]
    assert disputes == [("sample-reading-2", "safety_flag", 1), ("sample-reading-2", "tarot_coherence", 2)]
    assert _markdown_rubric(md) == {"rules": rubric["rule_count"], "disputes": disputes}
    assert _csv_rubric(as_csv) == disputes
    assert rubric["gate"] == []  # the sample's readings declare no gate expectations


def test_a_project_without_rubric_rules_shown_has_no_rubric_section(tmp_path):
    db = tmp_path / "f.db"
    assert cli("import", db, ROOT / "samples" / "failter").exit_code == 0
    assert "rubric_" not in cli("report", db, "--format", "csv").output
    judges = json.loads(cli("report", db, "--format", "json").output)["judges"]
    assert judges is None or judges["rubric"] is None
