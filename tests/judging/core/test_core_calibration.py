"""reviewer.core.judging.calibration and reviewer.core.judging.charts: score distributions,
the inflation rule, confusion matrices, SVG and PNG charts."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from reviewer.core.judging import charts
from reviewer.core.judging.calibration import (
    EXPECTED_DISTRIBUTION,
    EXPECTED_MEAN,
    confusion_matrix,
    inflation_warning,
    judge_vs_reference,
    scale_labels,
    score_distribution,
)
from reviewer.core.judging.verdicts import Adjudication, Method, Scale, Verdict

_ids = itertools.count(1)
SVG = "{http://www.w3.org/2000/svg}"


def rubric(judge, i, **scores):
    return Verdict(id=next(_ids), subject=f"run:{i}", judge=judge, scores=scores)


def test_expected_distribution_is_the_plan():
    assert EXPECTED_DISTRIBUTION == {1: 0.05, 2: 0.10, 3: 0.35, 4: 0.40, 5: 0.10}
    assert sum(EXPECTED_DISTRIBUTION.values()) == pytest.approx(1.0)
    assert pytest.approx(3.4) == EXPECTED_MEAN


def test_all_fives_judge_is_inflated():
    # the plan's starting point: llama-3-8b gave every reading 5/5
    vs = [rubric("llama-3-8b", i, overall=5, tone=5) for i in range(20)]
    dists = score_distribution(vs)
    assert [(d.judge, d.dimension) for d in dists] == [("llama-3-8b", "overall"), ("llama-3-8b", "tone")]
    d = dists[0]
    assert d.counts == {1: 0, 2: 0, 3: 0, 4: 0, 5: 20} and d.n == 20 and d.mean == 5.0
    assert d.shares == {1: 0.0, 2: 0.0, 3: 0.0, 4: 0.0, 5: 1.0}
    warning = inflation_warning(d)
    assert warning and "llama-3-8b / overall" in warning and "100% of scores are 5" in warning
    assert "mean 5.00" in warning


def test_calibrated_judge_is_not_inflated():
    scores = [1] + [2] * 2 + [3] * 7 + [4] * 8 + [5] * 2  # 5 %, 10 %, 35 %, 40 %, 10 %
    [d] = score_distribution([rubric("llama-3.3-70b", i, overall=s) for i, s in enumerate(scores)])
    assert d.shares == pytest.approx(EXPECTED_DISTRIBUTION)
    assert d.mean == pytest.approx(3.4)
    assert inflation_warning(d) is None


def test_inflation_rule_edges():
    # 15 % fives and mean 3.4 + 0.5 exactly: not inflated (strictly greater)
    fifteen = [5] * 3 + [4] * 12 + [3] * 5
    [d] = score_distribution([rubric("j", i, overall=s) for i, s in enumerate(fifteen)])
    assert d.shares[5] == pytest.approx(0.15) and inflation_warning(d) is None
    # 20 % fives with a low mean: inflated on the share alone
    twenty = [5] * 4 + [3] * 16
    [d] = score_distribution([rubric("j", i, overall=s) for i, s in enumerate(twenty)])
    assert d.mean == pytest.approx(3.4)
    w = inflation_warning(d)
    assert w and "20% of scores are 5" in w and "mean" not in w.split(":", 2)[2]
    # no 5s but every score 4: inflated on the mean alone (4.0 > 3.9)
    [d] = score_distribution([rubric("j", i, overall=4) for i in range(10)])
    assert "mean 4.00 > expected 3.40 + 0.5" in inflation_warning(d)
    # too few scores
    [d] = score_distribution([rubric("j", i, overall=5) for i in range(4)])
    assert inflation_warning(d) is None and inflation_warning(d, min_n=1)


def test_distribution_counts_missing_rounds_halves_and_leaves_out_humans_and_other_scales():
    vs = [
        rubric("j", 1, overall=4.5),
        rubric("j", 2, overall="garbage"),
        rubric("j", 3, overall=2),
        Verdict(subject="run:4", judge="annotator1", method=Method.HUMAN, scores={"overall": 1}),
        Verdict(subject="pair:1:2", judge="j", method=Method.PAIRWISE, scale=Scale.WINNER, scores={"winner": "1"}),
    ]
    [d] = score_distribution(vs)
    assert d.counts == {1: 0, 2: 1, 3: 0, 4: 0, 5: 1} and d.n == 2 and d.missing == 1 and d.mean == 3.25
    assert [x.judge for x in score_distribution(vs, include_humans=True)] == ["annotator1", "j"]


def test_scale_labels_in_scale_order():
    assert scale_labels(Scale.ORDINAL5) == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert scale_labels(Scale.ORDINAL5, [4.5]) == [1.0, 2.0, 3.0, 4.0, 4.5, 5.0]
    assert scale_labels(Scale.GRADE) == [20.0, 40.0, 60.0, 80.0, 100.0]
    assert scale_labels(Scale.WINNER, ["2", None]) == ["1", "2", "tie"]
    assert scale_labels(Scale.PASS_FAIL) == ["fail", "pass"]


def test_confusion_matrix_rows_judge_columns_reference():
    m = confusion_matrix([(5.0, 4.0), (5.0, 4.0), (4.0, 4.0), (3.0, None)], scale=Scale.ORDINAL5)
    assert m.labels == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert m.counts[4][3] == 2 and m.counts[3][3] == 1 and m.n == 3 and m.skipped == 1
    assert m.agreement == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        confusion_matrix([("1", "x")], labels=["1", "2"])


def test_judge_vs_adjudicated_and_human():
    vs = [rubric("j", i, overall=5) for i in range(3)]
    adj = [
        Adjudication(subject="run:0", dimension="overall", value=3, reviewer="r"),
        Adjudication(subject="run:1", dimension="overall", value="5", reviewer="r"),
    ]
    [m] = judge_vs_reference(vs, adj)
    assert (m.judge, m.dimension, m.reference, m.n) == ("j", "overall", "adjudicated", 2)
    assert m.counts[4][2] == 1 and m.counts[4][4] == 1
    pair = [
        Verdict(
            subject="p",
            judge="g",
            method=Method.PAIRWISE,
            scale=Scale.WINNER,
            scores={"winner": "1"},
            answer_order="ab",
        ),
        *(
            Verdict(subject="p", judge=f"annotator{i}", method=Method.HUMAN, scale=Scale.WINNER, scores={"winner": w})
            for i, w in ((1, "2"), (2, "2"), (3, "1"))
        ),
    ]
    [m] = judge_vs_reference(pair, reference="human")
    assert m.labels == ["1", "2", "tie"] and m.counts[0][1] == 1


# -- charts ------------------------------------------------------------------------

EVIL = '<script>alert("x")</script> & co\x07'


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return [t.text or "" for t in root.iter(f"{SVG}text")] + [t.text or "" for t in root.iter(f"{SVG}title")]


def test_distribution_svg_is_valid_and_escapes_the_judge_name():
    svg = charts.distribution_svg(EVIL, {5: 1.0}, dimension="overall", n=20)
    texts = _texts(svg)
    assert any('<script>alert("x")</script> & co' in t for t in texts)  # parsed back = the name
    assert "&lt;script&gt;" in svg and "<script>" not in svg and "\x07" not in svg
    assert charts.JUDGE_COLOUR in svg and charts.EXPECTED_COLOUR in svg
    assert {"1", "2", "3", "4", "5", "100%", "40%"} <= set(texts)


def test_confusion_svg_is_valid_and_shows_counts():
    svg = charts.confusion_svg(["1", "2", "tie"], [[5, 1, 0], [2, 7, 1], [0, 0, 3]], judge=EVIL, dimension="winner")
    texts = _texts(svg)
    assert {"5", "7", "tie"} <= set(texts) and any("<script>" in t for t in texts)
    with pytest.raises(ValueError):
        charts.confusion_svg(["1", "2"], [[1, 2]])


def test_pngs_open_with_pillow(tmp_path):
    d = tmp_path / "d.png"
    d.write_bytes(charts.distribution_png(EVIL, {4: 0.4, 5: 0.6}, dimension="overall", n=5))
    c = tmp_path / "c.png"
    c.write_bytes(charts.confusion_png([1.0, 2.0], [[1, 0], [2, 3]], judge=EVIL))
    for path in (d, c):
        with Image.open(path) as img:
            img.verify()
        with Image.open(path) as img:
            assert img.format == "PNG" and img.width > 200 and img.height > 200
            assert len(img.getcolors(1 << 20)) > 3  # something was drawn
