"""reviewer.core.judging.selective and bounds: the lowest trusted confidence by
fixed-sequence testing, its guarantee on held-out data, and the bounds it
rests on (Clopper-Pearson, Wilson, Fleiss-Cohen-Everitt)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from reviewer.core.judging.agreement import cohen_kappa
from reviewer.core.judging.bounds import (
    clopper_pearson_lower,
    contingency,
    kappa_fce,
    wilson_interval,
    wilson_lower,
)
from reviewer.core.judging.selective import coverage, select_threshold, trusted

# --- the guarantee on simulated splits --------------------------------------

TARGET = 0.8
POPULATIONS = {
    # confidences spread evenly, accuracy rising with them: 0.45 + 0.5 c
    "uniform": (lambda rng, n: rng.random(n), lambda c: 0.45 + 0.5 * c, 600),
    # confidences crowded near 1, as LLM judges give them: 0.2 + 0.75 c
    "skewed": (lambda rng, n: rng.beta(4.0, 1.2, n), lambda c: 0.2 + 0.75 * c, 300),
}


def _oracle(draw, acc, rng):
    """The true lowest threshold (on a 0.01 grid) whose accuracy reaches the
    target, and its coverage, from a very large sample's expected accuracy."""
    c = np.sort(draw(rng, 400_000))[::-1]
    mean_acc = np.cumsum(acc(c)) / np.arange(1, c.size + 1)
    for t in np.round(np.arange(0.0, 1.0, 0.01), 2):
        k = int(np.searchsorted(-c, -t, side="right"))  # verdicts with c >= t
        if k and mean_acc[k - 1] >= TARGET:
            return t, k / c.size
    return None, 0.0


@pytest.mark.parametrize("name", sorted(POPULATIONS))
def test_chosen_threshold_reaches_the_target_on_held_out_data(name):
    draw, acc, n = POPULATIONS[name]
    rng = np.random.default_rng(2407_18370)
    t_star, cov_star = _oracle(draw, acc, rng)
    assert t_star is not None and cov_star >= 0.30  # the premise: such a threshold exists
    splits, failures, chosen, coverages = 200, 0, 0, []
    for _ in range(splits):
        c = draw(rng, n)
        right = rng.random(n) < acc(c)
        sel = select_threshold(c, right.tolist(), [True] * n, target=TARGET)
        coverages.append(sel.coverage)
        if sel.threshold is None:
            continue
        chosen += 1
        held_c = draw(rng, 100_000)
        held_right = rng.random(held_c.size) < acc(held_c)
        if held_right[held_c >= sel.threshold].mean() < TARGET:
            failures += 1
    assert chosen >= splits // 2
    assert (chosen - failures) / chosen >= 0.90  # the chosen threshold holds on held-out data
    assert failures / splits <= 0.10
    assert float(np.median(coverages)) >= 0.30


# --- fixed-sequence testing by hand -------------------------------------------


def _labelled(blocks):
    """(confidence, judge, human) from blocks of (confidence, right, wrong)."""
    conf, judge, human = [], [], []
    for c, right, wrong in blocks:
        conf += [c] * (right + wrong)
        judge += ["pass"] * (right + wrong)
        human += ["pass"] * right + ["fail"] * wrong
    return conf, judge, human


def test_thresholds_are_tested_from_the_top_and_the_sequence_stops_at_the_first_failure():
    # 0.95: 40/40 right; 0.85: 20 more, 10 right (30 wrong-heavy); 0.75: 60 more, all right
    conf, judge, human = _labelled([(0.95, 40, 0), (0.85, 10, 10), (0.75, 60, 0)])
    sel = select_threshold(conf, judge, human, thresholds=[0.75, 0.95, 0.85], min_n=1)
    assert [t.threshold for t in sel.tests] == [0.95, 0.85]
    first, second = sel.tests
    assert (first.n, first.estimate, first.reached) == (40, 1.0, True)
    assert first.lower == pytest.approx(0.05 ** (1 / 40))  # Clopper-Pearson, k = n
    assert (second.n, second.estimate, second.reached) == (60, pytest.approx(50 / 60), False)
    assert second.lower == pytest.approx(stats.beta.ppf(0.05, 50, 11))
    # 0.75 alone would pass (110/120 right) but is never tested: the sequence stopped
    assert sel.threshold == 0.95 and sel.n == 40 and sel.coverage == pytest.approx(40 / 120)
    assert sel.summary().startswith("above 0.95, the judge is trusted on 33 % of runs")


def test_every_threshold_passing_goes_down_to_the_lowest():
    conf, judge, human = _labelled([(0.9, 50, 0), (0.6, 45, 5), (0.3, 20, 20)])
    sel = select_threshold(conf, judge, human, thresholds=[0.9, 0.6, 0.3], min_n=1)
    assert [t.reached for t in sel.tests] == [True, True, False]
    assert sel.threshold == 0.6 and sel.n == 100 and sel.estimate == pytest.approx(0.95)
    # the coverage is of every run when the unlabelled runs' confidences are given
    population = [0.95] * 30 + [0.5] * 70
    sel = select_threshold(conf, judge, human, thresholds=[0.9, 0.6, 0.3], min_n=1, population=population)
    assert sel.coverage == pytest.approx(0.30)
    assert sel.summary().startswith("above 0.60, the judge is trusted on 30 % of runs")


def test_thresholds_with_too_few_labels_are_skipped_not_failed():
    conf, judge, human = _labelled([(0.99, 3, 1), (0.8, 60, 2)])
    sel = select_threshold(conf, judge, human, thresholds=[0.99, 0.8], min_n=30)
    assert [t.threshold for t in sel.tests] == [0.8]
    assert sel.threshold == 0.8
    sel = select_threshold(conf, judge, human, thresholds=[0.99, 0.8], min_n=1)
    assert sel.threshold is None and sel.coverage == 0.0  # 3/4 at the top stops the sequence
    assert "every verdict goes to review" in sel.summary()
    sel = select_threshold(conf[:4], judge[:4], human[:4], min_n=30)
    assert sel.tests == () and "too few labels" in sel.summary()


def test_wilson_bound_is_less_strict_than_clopper_pearson():
    conf, judge, human = _labelled([(0.9, 30, 3)])
    cp = select_threshold(conf, judge, human, thresholds=[0.9], min_n=1)
    w = select_threshold(conf, judge, human, thresholds=[0.9], min_n=1, method="wilson")
    assert w.tests[0].lower == pytest.approx(wilson_lower(30, 33))
    assert w.tests[0].lower > cp.tests[0].lower


def test_accuracy_with_an_ordinal_tolerance():
    conf = [0.9] * 40
    judge = [4] * 40
    human = [4] * 20 + [5] * 18 + [1] * 2  # within 1: 38 of 40
    exact = select_threshold(conf, judge, human, thresholds=[0.9], min_n=1)
    near = select_threshold(conf, judge, human, thresholds=[0.9], min_n=1, tolerance=1)
    assert exact.tests[0].estimate == 0.5 and near.tests[0].estimate == pytest.approx(0.95)
    assert near.threshold == 0.9 and exact.threshold is None


def test_precision_counts_only_the_judges_positive_verdicts():
    # at 0.9: 40 judge passes (38 people pass) and 40 judge fails (all wrong)
    conf = [0.9] * 80
    judge = ["pass"] * 40 + ["fail"] * 40
    human = ["pass"] * 38 + ["fail"] * 2 + ["pass"] * 40
    prec = select_threshold(conf, judge, human, metric="precision", thresholds=[0.9], min_n=1)
    acc = select_threshold(conf, judge, human, metric="accuracy", thresholds=[0.9], min_n=1)
    assert prec.tests[0].n == 40 and prec.tests[0].estimate == pytest.approx(0.95) and prec.threshold == 0.9
    assert acc.tests[0].estimate == pytest.approx(38 / 80) and acc.threshold is None


def test_kappa_uses_the_fce_lower_bound():
    judge = ["pass"] * 45 + ["fail"] * 55
    human = ["pass"] * 42 + ["fail"] * 3 + ["pass"] * 4 + ["fail"] * 51
    conf = [0.9] * 100
    sel = select_threshold(conf, judge, human, metric="kappa", target=0.7, thresholds=[0.9], min_n=1)
    table, _ = contingency(judge, human)
    est = kappa_fce(table)
    assert sel.tests[0].estimate == pytest.approx(est.kappa)
    assert sel.tests[0].lower == pytest.approx(est.kappa - stats.norm.ppf(0.95) * est.se)
    assert sel.threshold == 0.9
    # one category only above the threshold: kappa undefined, the test fails
    sel = select_threshold([0.9] * 40, ["pass"] * 40, ["pass"] * 40, metric="kappa", thresholds=[0.9], min_n=1)
    assert sel.threshold is None and math.isnan(sel.tests[0].estimate)


def test_trusted_and_coverage():
    assert trusted([0.5, 0.83, 0.9, float("nan")], 0.83).tolist() == [False, True, True, False]
    assert coverage([0.5, 0.83, 0.9, 0.1], 0.83) == 0.5
    assert coverage([0.5], None) == 0.0 and coverage([], 0.5) == 0.0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"metric": "f1"}, "metric"),
        ({"method": "exact"}, "method"),
        ({"alpha": 1.0}, "alpha"),
        ({"target": 1.5}, "target"),
        ({"min_n": 0}, "min_n"),
    ],
)
def test_select_threshold_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        select_threshold([0.5], ["pass"], ["pass"], **kwargs)


def test_select_threshold_input_errors():
    with pytest.raises(ValueError, match="same length"):
        select_threshold([0.5, 0.6], ["pass"], ["pass"])
    with pytest.raises(ValueError, match="within"):
        select_threshold([1.5], ["pass"], ["pass"])
    with pytest.raises(ValueError, match="missing"):
        select_threshold([0.5], ["pass"], [None])


# --- the bounds ------------------------------------------------------------


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (28, 30), (30, 30), (170, 200)])
def test_clopper_pearson_lower_is_the_binomial_test(k, n):
    low = clopper_pearson_lower(k, n, 0.05)
    if k == 0:
        assert low == 0.0
        return
    # P(Bin(n, low) >= k) = alpha: the bound is where the one-sided test flips
    assert stats.binom.sf(k - 1, n, low) == pytest.approx(0.05, rel=1e-6)
    assert stats.binom.sf(k - 1, n, low - 1e-4) < 0.05 < stats.binom.sf(k - 1, n, low + 1e-4)


def test_wilson_by_hand_and_vectorised():
    # 8 of 10 at 95 %: centre (0.8 + 1.96²/20) / (1 + 1.96²/10)
    z = stats.norm.ppf(0.975)
    centre = (0.8 + z * z / 20) / (1 + z * z / 10)
    half = z / (1 + z * z / 10) * math.sqrt(0.16 / 10 + z * z / 400)
    assert wilson_interval(8, 10) == (pytest.approx(centre - half), pytest.approx(centre + half))
    z1 = stats.norm.ppf(0.95)
    centre1 = (0.8 + z1 * z1 / 20) / (1 + z1 * z1 / 10)
    half1 = z1 / (1 + z1 * z1 / 10) * math.sqrt(0.16 / 10 + z1 * z1 / 400)
    assert wilson_lower(8, 10) == pytest.approx(centre1 - half1)
    lows = wilson_lower(np.array([0, 8, 10]), np.array([10, 10, 10]))
    assert lows[0] == 0.0 and lows[1] == pytest.approx(centre1 - half1) and 0 < lows[2] < 1
    assert math.isnan(clopper_pearson_lower(0, 0))
    with pytest.raises(ValueError, match="0 <= k <= n"):
        wilson_lower(11, 10)


def _fce_by_loops(t):
    """statsmodels' cohens_kappa var_kappa (unweighted), written out cell by cell."""
    t = np.asarray(t, float)
    n = t.sum()
    p = t / n
    row, col = p.sum(1), p.sum(0)
    k = len(t)
    pe = sum(row[i] * col[i] for i in range(k))
    kappa = (sum(p[i, i] for i in range(k)) - pe) / (1 - pe)
    a = sum(p[i, i] * (1 - (row[i] + col[i]) * (1 - kappa)) ** 2 for i in range(k))
    b = (1 - kappa) ** 2 * sum(p[i, j] * (col[i] + row[j]) ** 2 for i in range(k) for j in range(k) if i != j)
    c = (kappa - pe * (1 - kappa)) ** 2
    return kappa, math.sqrt((a + b - c) / (1 - pe) ** 2 / n)


@pytest.mark.parametrize(
    "table",
    [
        [[42, 3], [4, 51]],
        [[20, 5, 1], [3, 30, 4], [0, 6, 31]],
        [[10, 10], [10, 10]],
    ],
)
def test_kappa_fce_matches_the_formula_written_out(table):
    est = kappa_fce(table)
    kappa, se = _fce_by_loops(table)
    assert est.kappa == pytest.approx(kappa) and est.se == pytest.approx(se)
    assert est.unit_variance == pytest.approx(se * se * est.n)


def test_weighted_kappa_matches_cohen_kappa():
    judge = [1, 2, 3, 3, 2, 1, 3, 2, 2, 1, 3, 3, 1, 2]
    human = [1, 2, 2, 3, 3, 1, 3, 1, 2, 2, 3, 2, 1, 2]
    table, cats = contingency(judge, human, [1, 2, 3])
    for weights in (None, "linear", "quadratic"):
        assert kappa_fce(table, weights).kappa == pytest.approx(cohen_kappa(judge, human, weights, cats).value)
    # identity weights: the weighted formula reduces to the unweighted one
    assert kappa_fce(table).se == pytest.approx(_fce_by_loops(table)[1])
    assert kappa_fce(table, "quadratic").se > 0
    assert math.isnan(kappa_fce([[5, 0], [0, 0]]).kappa)


def test_selection_as_dict_is_json():
    import json

    sel = select_threshold([0.9] * 40, ["pass"] * 40, ["pass"] * 40, metric="kappa", thresholds=[0.9], min_n=1)
    d = json.loads(json.dumps(sel.as_dict(), allow_nan=False))
    assert d["threshold"] is None and d["tests"][0]["estimate"] is None and "every verdict" in d["summary"]
