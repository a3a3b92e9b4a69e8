"""Every score in the Failter table and the judge verdict table is in points
0-100 by one map per scale (reviewer.core.judging.verdicts.POINTS_MAP):
A-F as graded points, 1-5 x 20, 0-100 as is, pass 100 and fail 0."""

from __future__ import annotations

import pytest

from reviewer.core.judging.gates import JUDGE_LEVELS
from reviewer.core.judging.verdicts import GRADE_POINTS, Scale, Verdict, normalise, points
from reviewer.storage.importers import import_source
from reviewer.storage.judging.failter_report import failter_markdown, failter_rows
from reviewer.storage.judging.verdict_table import verdict_points
from reviewer.storage.project.db import open_project
from tests.helpers.paths import ROOT


@pytest.mark.parametrize(
    "scale, raw, expected",
    [
        (Scale.GRADE, "A", 100.0),
        (Scale.GRADE, "B", 80.0),
        (Scale.GRADE, "F", 20.0),
        (Scale.ORDINAL5, 1, 20.0),
        (Scale.ORDINAL5, 3, 60.0),
        (Scale.ORDINAL5, 5, 100.0),
        (Scale.PERCENT, 0, 0.0),
        (Scale.PERCENT, 73, 73.0),
        (Scale.PERCENT, 100, 100.0),
        (Scale.PASS_FAIL, "pass", 100.0),
        (Scale.PASS_FAIL, "fail", 0.0),
        (Scale.WINNER, "1", None),
        (Scale.ORDINAL5, None, None),
    ],
)
def test_the_map_of_every_scale(scale, raw, expected):
    assert points(normalise(raw, scale), scale) == expected


def test_the_map_agrees_with_the_grades_and_the_gate_levels():
    for level, limits in JUDGE_LEVELS.items():
        assert points(limits[Scale.ORDINAL5], Scale.ORDINAL5) == limits[Scale.GRADE] == limits[Scale.PERCENT], level
    assert [points(s, Scale.ORDINAL5) for s in (5, 4, 3, 2, 1)] == list(GRADE_POINTS.values())


def test_a_verdict_reads_in_points_on_its_own_scale():
    assert verdict_points(Verdict(subject="s", judge="j", scale=Scale.ORDINAL5, scores={"score": 4})) == 80.0
    assert verdict_points(Verdict(subject="s", judge="j", scale=Scale.PASS_FAIL, scores={"verdict": "fail"})) == 0.0
    assert verdict_points(Verdict(subject="s", judge="j", scale=Scale.GRADE, scores={"grade": "C"})) == 60.0


def test_the_failter_sample_is_on_one_scale(tmp_path):
    p = open_project(tmp_path / "f.db", create=True)
    try:
        import_source(p, ROOT / "samples" / "failter")
        rows = {r.model: r for r in failter_rows(p)}
        text = failter_markdown(list(rows.values()), (0.5, 0.5), False)
    finally:
        p.close()
    assert rows["tidy-model"].avg_score == pytest.approx(100.0)  # rules 100, ground truth 5 of 5
    assert rows["sloppy-model"].avg_score == pytest.approx(50.0)  # rules 40, ground truth 3 of 5
    assert rows["sloppy-model"].gt_score == pytest.approx(60.0)
    assert "(scales 1-5, A-F, in points)" in rows["tidy-model"].eval_method  # a grade and a 1-5 score: said so
    assert "1-5: s x 20" in text and "pass/fail: pass 100, fail 0" in text
