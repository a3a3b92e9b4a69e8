"""The command line: exit status and one-line errors, the bundled demo."""

from __future__ import annotations

import json
import sqlite3

from click.testing import CliRunner

from reviewer.cli import main
from tests.helpers.paths import SAMPLES


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_init_import_score_report_export(tmp_path):
    db = tmp_path / "p.db"
    assert invoke("init", db).exit_code == 0
    assert invoke("init", db).exit_code == 1  # exists already
    result = invoke("import", db, SAMPLES, "--model", "vlm")
    assert result.exit_code == 0 and "14 runs" in result.output
    result = invoke("score", db)
    assert result.exit_code == 0
    assert "fail" in result.output and "table-01" in result.output
    data = json.loads(invoke("score", db, "--json").output)
    assert len(data["runs"]) == 14
    assert {f["code"] for r in data["runs"] for f in r["findings"]} == {
        "OCR",
        "MISS",
        "SPATIAL",
        "HALLUC",
        "FORMAT",
        "PARTIAL",
    }
    md = invoke("report", db).output
    assert md.startswith("# reviewer report") and "| spatial-grouping | vlm | all |" in md
    csv_out = invoke("report", db, "--format", "csv").output
    assert csv_out.splitlines()[0].startswith("table,basis,prompt,model,item")
    out = tmp_path / "out.db"
    assert invoke("export", db, out).exit_code == 0
    assert sqlite3.connect(out).execute("select count(*) from findings").fetchone()[0] > 0


def test_schema_override(tmp_path):
    db = tmp_path / "p.db"
    result = invoke("import", db, SAMPLES, "--model", "vlm", "--box-convention", "bounding-boxes=0-1000")
    assert result.exit_code == 0, result.output
    data = json.loads(invoke("score", db, "--json").output)
    details = [f["detail"] for r in data["runs"] for f in r["findings"] if f["code"] == "FORMAT"]
    # now the 0-1 answers are the ones reported against the 0-1000 request
    assert any("asked for 0-1000" in d for d in details)
    bad = invoke("import", db, SAMPLES, "--schema", "x=boxes")
    assert bad.exit_code == 2 and "not one of" in bad.output


def test_errors_are_one_line_and_non_zero(tmp_path):
    missing = invoke("score", tmp_path / "nope.db")
    assert missing.exit_code == 1
    assert missing.output.strip().startswith("Error: no project at")
    assert len(missing.output.strip().splitlines()) == 1
    corrupt = tmp_path / "bad.db"
    corrupt.write_bytes(b"garbage" * 1000)
    result = invoke("export", corrupt, tmp_path / "o.db")
    assert result.exit_code == 1 and "not a reviewer project" in result.output
    assert len(result.output.strip().splitlines()) == 1
    result = invoke("import", tmp_path / "p.db", tmp_path / "nothing-here")
    assert result.exit_code == 1 and "no such file or folder" in result.output
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"\x00\x01")
    result = invoke("import", tmp_path / "p.db", odd)
    assert result.exit_code == 1 and "cannot tell the format" in result.output
    result = invoke("import", tmp_path / "p.db", odd, "--format", "nonsense")
    assert result.exit_code == 1 and "unknown format 'nonsense'" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "p.db").exists()  # a failed import leaves no project file behind


def test_demo_runs_on_bundled_sample(tmp_path):
    result = invoke("demo", tmp_path / "d")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "d" / "sample-export.db").is_file()
    assert "spatial-grouping" in result.output


def test_cli_constants_agree_with_the_modules_it_does_not_import_at_start():
    """The command line keeps the judge kinds and the key variable's name
    itself, so that `reviewer import` and `--help` start without the
    pipeline, httpx or scipy."""
    import subprocess
    import sys

    from reviewer import cli
    from reviewer.clients.chat import DEFAULT_KEY_ENV
    from reviewer.pipeline.judge import KINDS

    assert cli.JUDGE_KINDS == KINDS
    assert cli.DEFAULT_KEY_ENV == DEFAULT_KEY_ENV
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, reviewer.cli; "
            "print(sorted(m for m in ('scipy', 'httpx', 'reviewer.pipeline.ask') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert loaded == "[]"


def test_format_names_known_without_the_importers_match_the_importers():
    """The command line names the formats without importing the importers
    (start-up time, decision: big-projects-stay-interactive): the names are those of FORMATS, in order."""
    from reviewer.storage.formats import FORMAT_NAMES
    from reviewer.storage.importers import FORMATS

    assert tuple(FORMATS) == FORMAT_NAMES


def test_score_table_keeps_all_items_only_when_there_are_too_many_items():
    """A prompts x items grid of hundreds of items cannot be read in a
    terminal: past max_items only the all-items column stays."""
    from reviewer.core.cards.report import verdict_grid
    from reviewer.core.models import PromptVerdict, TP1Verdict

    vs = [
        PromptVerdict(
            prompt="p",
            item=item,
            runs=1,
            cards_visible=10,
            cards_correct=9,
            text_accuracy=0.9,
            spatial_accuracy=None,
            hallucination_runs=0,
            json_valid_runs=1,
            verdict=TP1Verdict.PASS,
            reasons=[],
            model="m",
        )
        for item in ("a", "b", "c", "*")
    ]
    assert verdict_grid(vs)[0] == ["prompt", "a", "b", "c", "all items"]
    assert verdict_grid(vs, max_items=3)[0] == ["prompt", "a", "b", "c", "all items"]
    header, rows = verdict_grid(vs, max_items=2)
    assert header == ["prompt", "all items"] and rows[0][0] == "p" and len(rows[0]) == 2
