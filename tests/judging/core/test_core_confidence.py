"""reviewer.core.judging.confidence and confidence_charts: ECE with equal-width
bins, adaptive ECE with equal-mass bins, Brier, the mean confidence of right
and wrong verdicts, reliability bins and the reliability diagram."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from PIL import Image

from reviewer.core.judging.confidence import (
    adaptive_ece,
    brier_score,
    calibration,
    correct_flags,
    ece,
    equal_mass_bins,
    equal_width_bins,
    reliability_bins,
)
from reviewer.core.judging.confidence_charts import reliability_png, reliability_svg

# three bins used: 0.95 -> bin 14, 0.65 -> bin 9, 0.25 -> bin 3 (of 15)
CONF = [0.95, 0.95, 0.95, 0.95, 0.65, 0.65, 0.25]
RIGHT = [True, True, True, False, True, False, False]


def test_ece_equals_the_hand_computation():
    # bin 14: 4 verdicts, accuracy 3/4, confidence 0.95 -> 4/7 * 0.20
    # bin 9: 2 verdicts, accuracy 1/2, confidence 0.65 -> 2/7 * 0.15
    # bin 3: 1 verdict, accuracy 0, confidence 0.25    -> 1/7 * 0.25
    assert ece(CONF, RIGHT) == pytest.approx((0.8 + 0.3 + 0.25) / 7)


def test_ece_averages_within_a_bin_before_taking_the_gap():
    # 0.94 and 0.99 share bin 14: accuracy 1/2 against mean confidence 0.965
    assert ece([0.94, 0.99], [True, False]) == pytest.approx(0.465)
    # with 100 bins they are apart: (|1 - 0.94| + |0 - 0.99|) / 2
    assert ece([0.94, 0.99], [True, False], n_bins=100) == pytest.approx(0.525)


def test_equal_width_bins_put_edges_in_the_upper_bin_and_one_in_the_last():
    assert equal_width_bins([0.0, 0.2, 0.2 - 1e-9, 1 / 15, 0.999, 1.0]).tolist() == [0, 3, 2, 1, 14, 14]
    assert ece([0.0, 1.0], [False, True]) == 0.0


def test_adaptive_ece_equals_the_hand_computation():
    # 3 equal-mass bins of 2: {0.1, 0.2}, {0.3, 0.6}, {0.7, 0.8}
    conf = [0.8, 0.1, 0.6, 0.3, 0.7, 0.2]
    right = [True, False, True, False, True, True]
    # gaps |1/2 - 0.15|, |1/2 - 0.45|, |1 - 0.75|, each bin 2/6 of the verdicts
    assert adaptive_ece(conf, right, n_bins=3) == pytest.approx((0.35 + 0.05 + 0.25) / 3)


def test_adaptive_ece_with_fifteen_bins_of_two():
    # 30 verdicts at 0.5 + i/60, bin b = {2b, 2b+1}, mean confidence 0.5 + (4b+1)/120;
    # bins 0-9 have one right of two (gap (4b+1)/120), bins 10-14 both right
    # (gap 0.5 - (4b+1)/120): sum 190/120 + 2.5 - 245/120 = 245/120, weight 2/30
    conf = [0.5 + i / 60 for i in range(30)]
    right = [i % 2 == 1 or i >= 20 for i in range(30)]
    assert adaptive_ece(conf, right) == pytest.approx(245 / 120 * 2 / 30)
    # equal-width ECE groups the same verdicts otherwise (8 bins of 3 or 4 verdicts)
    assert ece(conf, right) != pytest.approx(245 / 120 * 2 / 30)


def test_equal_mass_bins_sizes_and_order_independence():
    bins = equal_mass_bins([i / 17 for i in range(17)])
    assert np.bincount(bins).tolist() == [2, 2] + [1] * 13
    assert equal_mass_bins([0.5, 0.7]).tolist() == [0, 1]  # fewer verdicts than bins: one each
    rng = random.Random(3)
    conf = [rng.choice([0.6, 0.7, 0.9]) for _ in range(60)]  # many ties
    right = [rng.random() < 0.7 for _ in range(60)]
    value = adaptive_ece(conf, right)
    order = list(range(60))
    rng.shuffle(order)
    assert adaptive_ece([conf[i] for i in order], [right[i] for i in order]) == pytest.approx(value)


def test_brier_equals_the_hand_computation():
    assert brier_score([0.9, 0.6, 0.2], [1, 0, 0]) == pytest.approx((0.01 + 0.36 + 0.04) / 3)
    assert brier_score([0.5] * 4, [True, False, True, True]) == pytest.approx(0.25)


def test_overconfident_fail_verdicts():
    # the public report: 42 of 42 FAIL verdicts wrong at a mean confidence of 0.965
    cal = calibration([0.965] * 42, [False] * 42)
    assert cal.n == 42 and cal.accuracy == 0.0
    assert cal.mean_confidence_right is None and cal.mean_confidence_wrong == pytest.approx(0.965)
    assert cal.ece == pytest.approx(0.965) and cal.adaptive_ece == pytest.approx(0.965)
    assert cal.brier == pytest.approx(0.965**2)
    assert cal.overconfidence == pytest.approx(0.965)


def test_calibration_gathers_every_figure_and_the_reliability_bins():
    cal = calibration(CONF, RIGHT)
    assert cal.ece == pytest.approx(ece(CONF, RIGHT))
    assert cal.adaptive_ece == pytest.approx(adaptive_ece(CONF, RIGHT))
    assert cal.brier == pytest.approx(brier_score(CONF, RIGHT))
    assert cal.mean_confidence_right == pytest.approx((0.95 * 3 + 0.65) / 4)
    assert cal.mean_confidence_wrong == pytest.approx((0.95 + 0.65 + 0.25) / 3)
    assert len(cal.bins) == 15
    used = {i: b for i, b in enumerate(cal.bins) if b.count}
    assert sorted(used) == [3, 9, 14]
    assert (used[14].count, used[14].accuracy, used[14].mean_confidence) == (4, 0.75, pytest.approx(0.95))
    assert (used[9].count, used[9].accuracy) == (2, 0.5) and used[9].gap == pytest.approx(-0.15)
    assert used[3].low == pytest.approx(0.2) and used[3].high == pytest.approx(4 / 15)
    empty = cal.bins[0]
    assert empty.count == 0 and empty.accuracy is None and empty.mean_confidence is None and empty.gap is None
    assert cal.as_dict()["bins"][14]["count"] == 4
    assert [b.count for b in reliability_bins(CONF, RIGHT, n_bins=2)] == [1, 6]


def test_correct_flags_exact_and_with_a_tolerance():
    assert correct_flags(["pass", "fail", "pass"], ["pass", "pass", "pass"]).tolist() == [True, False, True]
    judge, human = [5, 4, 2, 3.0], [4, 4, 4, 3]
    assert correct_flags(judge, human).tolist() == [False, True, False, True]
    assert correct_flags(judge, human, tolerance=1).tolist() == [True, True, False, True]
    assert correct_flags(["B"], [80.0]).tolist() == [False]  # a label and a number never match


@pytest.mark.parametrize(
    "args, message",
    [
        ((["pass"], [None]), "missing"),
        (([float("nan")], [3]), "missing"),
        ((["pass"], ["pass", "fail"]), "same length"),
        (([1], [1], -1), "tolerance"),
    ],
)
def test_correct_flags_errors(args, message):
    with pytest.raises(ValueError, match=message):
        correct_flags(*args)


@pytest.mark.parametrize(
    "conf, right, message",
    [
        ([1.2], [True], "within"),
        ([float("nan")], [True], "within"),
        ([], [], "no verdicts"),
        ([0.5, 0.6], [True], "same length"),
        ([0.5], ["yes"], "booleans"),
    ],
)
def test_calibration_errors(conf, right, message):
    with pytest.raises(ValueError, match=message):
        calibration(conf, right)


def _overconfident(n=400, seed=3):
    rng = np.random.default_rng(seed)
    c = rng.beta(6, 1.3, n)
    return c, rng.random(n) < 0.15 + 0.7 * c


def test_reliability_png_decodes():
    cal = calibration(*_overconfident())
    png = reliability_png(cal, judge="gpt-4o-mini", dimension="overall", source="logprob")
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size == (1120, 1160)
    # the bars are drawn: the judge's blue fills part of the picture
    px = np.asarray(img.convert("RGB")).reshape(-1, 3)
    assert (np.abs(px - [0x1B, 0x80, 0xB8]) < 40).all(axis=1).mean() > 0.02


def test_reliability_svg_shows_counts_diagonal_and_figures():
    cal = calibration(*_overconfident())
    svg = reliability_svg(cal, judge="bad\x07judge $x$", dimension="overall", source="stated")
    for b in cal.bins:
        if b.count:
            assert f">{b.count}<" in svg  # every non-empty bin's count is printed
    assert "perfect calibration" in svg and "mean confidence" in svg
    assert f"ECE {cal.ece:.3f}" in svg and f"adaptive ECE {cal.adaptive_ece:.3f}" in svg
    assert f"Brier {cal.brier:.3f}" in svg and "n = 400; 15 bins" in svg
    assert "\x07" not in svg and "Reliability: badjudge $x$ / overall / stated" in svg


def test_reliability_chart_of_a_single_bin():
    svg = reliability_svg(calibration([1.0, 1.0], [True, False]))
    assert ">2<" in svg and "of right verdicts 1.00, of wrong verdicts 1.00" in svg


def test_adaptive_ece_is_unchanged_when_labels_are_permuted_within_tied_confidences():
    rng = np.random.default_rng(3)
    confidence = np.round(rng.uniform(0.5, 1.0, 400), 1)  # six values: many ties
    correct = rng.random(400) < confidence
    base = adaptive_ece(confidence, correct)
    for _ in range(20):
        shuffled = correct.copy()
        for value in np.unique(confidence):
            at = np.flatnonzero(confidence == value)
            shuffled[at] = rng.permutation(shuffled[at])
        assert adaptive_ece(confidence, shuffled) == pytest.approx(base, abs=1e-12)
    # tied confidences share a bin, whatever their labels
    bins = equal_mass_bins(confidence, correct)
    for value in np.unique(confidence):
        assert len(set(bins[confidence == value].tolist())) == 1
