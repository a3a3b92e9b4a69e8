"""Card scoring (docs/cards.md) on the real go-wish-spike data (skipped when absent):
import, score and export six Qwen3-VL-2B runs end to end through the CLI."""

from __future__ import annotations

import json
import sqlite3

from click.testing import CliRunner

from reviewer.cli import main
from tests.helpers.paths import shared


def _run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def test_go_wish_spike_end_to_end(tmp_path):
    data = shared("go-wish-spike")
    db, out = tmp_path / "p.db", tmp_path / "out.db"
    _run("import", db, data, "--model", "qwen3-vl-2b-q4km")
    table = _run("score", db)
    assert "not scored (free text): sanity-check" in table
    payload = json.loads(_run("score", db, "--json"))
    runs = payload["runs"]
    assert len(runs) == 6
    assert {r["item"] for r in runs} == {"01-controlled", "02-angled"}
    assert {r["prompt"] for r in runs} == {"sanity-check", "spatial-grouping", "bounding-boxes"}
    json_runs = [r for r in runs if r["prompt"] != "sanity-check"]
    assert len(json_runs) == 4
    for r in json_runs:
        m = r["metrics"]
        # the text of every card in the four JSON runs is found correct
        assert m["json_valid"] and m["cards_correct"] == m["cards_visible"] > 0, r
        assert m["hallucinations"] == 0
        codes = {f["code"] for f in r["findings"]}
        assert not codes & {"OCR", "MISS", "PARTIAL", "HALLUC"}
    for r in (r for r in runs if r["prompt"] == "bounding-boxes"):
        fmt = [f for f in r["findings"] if f["code"] == "FORMAT"]
        assert len(fmt) == 1 and "0-1000" in fmt[0]["detail"], r["findings"]
        assert r["metrics"]["box_convention"] == "0-1000"
    sanity = [r for r in runs if r["prompt"] == "sanity-check"]
    assert all(not r["findings"] and not r["metrics"]["scored"] for r in sanity)
    grouping = next(r for r in runs if r["prompt"] == "spatial-grouping" and r["item"] == "01-controlled")
    spatial = [f for f in grouping["findings"] if f["code"] == "SPATIAL"]
    # ten one-card piles map onto two ground-truth piles: eight cards are off
    assert len(spatial) == 8
    assert len(grouping["pile_mapping"]) == 10
    assert sum(v is not None for v in grouping["pile_mapping"].values()) == 2
    assert grouping["metrics"]["spatial_accuracy"] == 0.2

    _run("export", db, out)
    con = sqlite3.connect(out)
    assert con.execute("select count(*) from runs").fetchone()[0] == 6
    assert con.execute("select count(*) from runs where text_accuracy = 1.0").fetchone()[0] == 4
    counts = dict(con.execute("select code, findings from code_counts where prompt = 'bounding-boxes'"))
    assert counts == {"FORMAT": 2}
    verdict = con.execute(
        "select verdict from prompt_verdicts where prompt='spatial-grouping' and item='*' and basis='auto'"
    ).fetchone()[0]
    assert verdict == "pass"


def test_reimport_adds_nothing(tmp_path):
    data = shared("go-wish-spike")
    db = tmp_path / "p.db"
    _run("import", db, data, "--model", "m")
    again = _run("import", db, data, "--model", "m")
    assert "added: nothing" in again
    assert "6 runs" in again
