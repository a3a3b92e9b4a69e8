"""Reliability: values validated at the door (issue "Every input bounded
and confined", Values validated at the door; reviewer.core.bounds).
Non-finite numbers, numbers past what a pixel, an offset or a count can
be, and ids of the wrong type get one line each and are skipped, never
stored; the good entries beside them import; projects that already hold
such values read, export and report without a traceback."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.bounds import MAX_PIXEL, BadValue, count, first_non_finite, ident, pixel
from reviewer.storage.cases.cases import read_metrics_file
from reviewer.storage.gt_formats import export_ground_truth
from reviewer.storage.project.db import ProjectError, open_project
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from tests.helpers import hostile_imports as h
from tests.helpers.paths import SAMPLES


def _cli_import(tmp_path, source, db="p.db"):
    result = CliRunner().invoke(main, ["import", str(tmp_path / db), str(source), "--create"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def _stored(tmp_path, db="p.db"):
    """{item: (card texts, {pile: region})} of the consensus, and every stored coordinate."""
    p = open_project(tmp_path / db)
    try:
        out, numbers = {}, []
        for item in repo_items.items(p):
            gt = repo_ground_truth.ground_truth(p, item.id)
            out[item.name] = (sorted(c.text for c in gt.cards), {pl.label: pl.region for pl in gt.piles})
        for row in p.db.execute("SELECT x_min, y_min, x_max, y_max FROM cards"):
            numbers += list(row)
        for (region,) in p.db.execute("SELECT region FROM piles WHERE region IS NOT NULL"):
            numbers += [v for pt in json.loads(region) for v in pt]
        return out, numbers
    finally:
        p.close()


def _all_pixels(numbers):
    return all(v is not None and math.isfinite(v) and abs(v) <= MAX_PIXEL for v in numbers)


def test_labelme_nan_infinity_1e309_and_a_listed_group_id(tmp_path):
    result = _cli_import(tmp_path, h.labelme_bad_numbers(tmp_path))
    assert result.exit_code == 0, result.output
    for card, what in (
        ("NaN card", "not a finite number"),
        ("Huge card", "not a finite number"),
        ("shape 4", "not a finite number"),
        ("shape 5", "group_id [1] is not an id"),
    ):
        assert any(card in line and what in line for line in result.output.splitlines()), (card, result.output)
    gt, numbers = _stored(tmp_path)
    assert gt["table-01"][0] == ["Good card"] and _all_pixels(numbers)


def test_label_studio_nan_1e308_and_a_listed_size(tmp_path):
    result = _cli_import(tmp_path, h.label_studio_bad_numbers(tmp_path))
    assert result.exit_code == 0, result.output
    assert "region nan" in result.output and "region huge" in result.output
    assert "width [1600] is not a number" in result.output  # the listed size: read as the photo's own
    gt, numbers = _stored(tmp_path)
    assert gt["table-01"][0] == ["card good", "card listed"] and _all_pixels(numbers)


def test_coco_ids_given_as_lists(tmp_path):
    result = _cli_import(tmp_path, h.coco_bad_ids(tmp_path))
    assert result.exit_code == 0, result.output
    for what in (
        "category 2: id [9] is not an id",
        "annotation 2: image_id [1] is not an id",
        "category_id [1] is not an id",
        "image 2: id [2] is not an id",
    ):
        assert what in result.output, (what, result.output)
    assert "annotation 4" in result.output and "annotation 5" in result.output  # NaN box and polygon
    gt, numbers = _stored(tmp_path)
    assert gt["table-01"][0] == ["Good card"] and gt["table-01"][1] == {"left": None}
    assert _all_pixels(numbers)


def test_a_card_folder_region_with_nan_is_skipped(tmp_path):
    result = _cli_import(tmp_path, h.card_folder_nan_region(tmp_path))
    assert result.exit_code == 0, result.output
    assert "ground truth 'table-01'" in result.output and "not a finite number" in result.output
    assert "ground truth 'table-02'" in result.output and "beyond any photo" in result.output
    gt, numbers = _stored(tmp_path)
    assert gt["table-01"] == ([], {}) and gt["table-02"] == ([], {}) and numbers == []


def test_a_cicada_case_with_nan_is_skipped_and_answers_still_import(tmp_path):
    result = _cli_import(tmp_path, h.cicada_nan(tmp_path))
    assert "cite-nan" in result.output and "expectedBehavior.citationCount is not a finite number" in result.output
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        json.dumps(
            {
                "item": "cite-ok",
                "model": "m",
                "repetition": 1,
                "output": "Mion [Episode: onikakushi, Chapter: 1, Speaker: Mion]",
            }
        )
        + "\n"
    )
    result = CliRunner().invoke(main, ["import", str(tmp_path / "p.db"), str(answers)])
    assert result.exit_code == 0 and "added: 1 runs" in result.output, result.output
    result = CliRunner().invoke(main, ["report", str(tmp_path / "p.db")])
    assert result.exit_code == 0 and result.exception is None, result.output


def test_a_golden_span_offset_of_ten_to_the_twentieth(tmp_path):
    result = _cli_import(tmp_path, h.golden_huge_offset(tmp_path))
    assert result.exit_code == 0, result.output
    assert "golden-1 span 1: offsets 100000000000000000000" in result.output
    assert "added: 1 golden sets, 1 golden spans, 1 items" in result.output


def test_a_span_snapshot_with_offsets_at_infinity_and_ten_to_the_twentieth(tmp_path):
    """Judge output is untrusted: a span starting at Infinity or 10^20, a NaN
    confidence: the snapshot imports, and report and export run (such a span
    is in no section but 'main')."""
    result = _cli_import(tmp_path, h.span_snapshot_bad_numbers(tmp_path))
    assert result.exit_code == 0 and "format: span-snapshot" in result.output, result.output
    for args in (["report"], ["export", str(tmp_path / "out.db")]):
        result = CliRunner().invoke(main, [args[0], str(tmp_path / "p.db"), *args[1:]])
        assert result.exit_code == 0 and result.exception is None, (args, result.output)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_pass_nan_in_a_metrics_file_is_one_line(tmp_path, value):
    text = (SAMPLES.parents[1] / "resources" / "cicada-metrics.toml").read_text()
    assert "\npass = " in text
    bad = tmp_path / "metrics.toml"
    bad.write_text(text.replace("\npass = ", f"\npass = {value}\n#", 1))
    with pytest.raises(ProjectError) as err:
        read_metrics_file(bad)
    assert "pass" in str(err.value) and "finite" in str(err.value) and "\n" not in str(err.value)


def test_a_project_already_holding_nan_and_infinity_exports_valid_json(tmp_path):
    """Values stored before these checks (NaN in a region, infinity in a
    box): they read as no region and no box, and every export is valid JSON."""
    _cli_import(tmp_path, SAMPLES)
    con = sqlite3.connect(tmp_path / "p.db")
    con.execute("UPDATE piles SET region = '[[0, 0], [NaN, 20], [300, Infinity]]' WHERE label = 'left'")
    con.execute("UPDATE cards SET x_max = ? WHERE text = 'To die at home'", [float("inf")])
    con.execute("UPDATE cards SET y_max = NULL WHERE text = 'To be free from pain'")  # a NaN is stored as NULL
    con.commit()
    con.close()
    p = open_project(tmp_path / "p.db")
    try:
        for fmt, out in (("coco", "gt.json"), ("label-studio", "ls.json"), ("labelme", "lm")):
            export_ground_truth(p, tmp_path / out, fmt)
        gt = repo_ground_truth.ground_truth(p, repo_items.item_by_name(p, "table-01").id)
    finally:
        p.close()
    strict = lambda c: (_ for _ in ()).throw(ValueError(c))  # noqa: E731  (NaN, Infinity: invalid JSON)
    for path in [tmp_path / "gt.json", tmp_path / "ls.json", *(tmp_path / "lm").glob("*.json")]:
        json.loads(path.read_text(), parse_constant=strict)
    assert {c.text: c.bbox for c in gt.cards}["To die at home"] is None
    assert {pl.label: pl.region for pl in gt.piles}["left"] is None
    for args in (["report"], ["export", str(tmp_path / "out.db")], ["score"]):
        result = CliRunner().invoke(main, [args[0], str(tmp_path / "p.db"), *args[1:]])
        assert result.exit_code == 0 and result.exception is None, (args, result.output)
    con = sqlite3.connect(tmp_path / "out.db")
    for (region,) in con.execute("SELECT region FROM gt_piles WHERE region IS NOT NULL"):
        json.loads(region, parse_constant=strict)  # the analysts' export: valid JSON too
    con.close()


def test_the_bounds():
    assert pixel(12.5, "x") == 12.5 and count(3, "n") == 3 and ident("a", "id") == "a" and ident(7, "id") == 7
    for bad in (float("nan"), float("inf"), 1e7, "12", True, None, 10**400):
        with pytest.raises(BadValue):
            pixel(bad, "x")
    for bad in (-1, 2**63, 1.0, True):
        with pytest.raises(BadValue):
            count(bad, "n")
    for bad in ([1], {"a": 1}, 1.5, True, None, 2**64):
        with pytest.raises(BadValue):
            ident(bad, "id")
    assert first_non_finite({"a": [1, {"b": float("nan")}]}) == "a[1].b"
    assert first_non_finite({"a": 10**20}) == "a" and first_non_finite({"a": [1.5, "x"]}) is None


def test_jsonl_run_ids_and_repetitions_past_sqlite_integers(tmp_path):
    runs = tmp_path / "runs.jsonl"
    runs.write_text(
        json.dumps({"item": "a", "prompt": "p", "model": "m", "repetition": 10**20, "output": "x"})
        + "\n"
        + json.dumps({"item": "b", "prompt": "p", "model": "m", "output": "x"})
        + "\n"
    )
    result = _cli_import(tmp_path, runs)
    assert result.exit_code == 0 and "skipped line 1: repetition" in result.output, result.output
    verdicts = tmp_path / "verdicts.jsonl"
    verdicts.write_text(json.dumps({"run": 10**20, "judge": "j", "dimension": "d", "value": 3, "scale": "1-5"}) + "\n")
    result = _cli_import(tmp_path, verdicts)
    assert result.exit_code == 0 and "skipped line 1: run" in result.output, result.output
