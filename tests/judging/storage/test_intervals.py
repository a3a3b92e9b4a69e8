"""Bootstrap intervals of agreement statistics (reviewer.core.judging.intervals,
count_stats, agreement_intervals): the statistics of pattern counts equal the
point estimates; the intervals equal scipy's own BCa, a reference bootstrap
written here, and cover a known kappa at the nominal rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr, ndtri
from scipy.stats import bootstrap

from reviewer.core.judging.agreement import cohen_kappa, krippendorff_alpha, percent_agreement
from reviewer.core.judging.agreement_intervals import strength, with_intervals
from reviewer.core.judging.agreement_table import agreement_rows
from reviewer.core.judging.count_stats import pair_sample, proportion_sample, units_sample
from reviewer.core.judging.intervals import bootstrap_counts, landis_koch
from reviewer.core.judging.verdicts import Method, Scale, Verdict

CATS = [1.0, 2.0, 3.0, 4.0, 5.0]


def correlated_raters(rng, n, noise=0.8, missing=0.0):
    """Two raters on 1-5 around a shared true value."""
    truth = rng.integers(1, 6, n)
    a = np.clip(truth + np.rint(rng.normal(0, noise, n)), 1, 5)
    b = np.clip(truth + np.rint(rng.normal(0, noise, n)), 1, 5)
    a = [float(x) if rng.random() >= missing else None for x in a]
    b = [float(x) if rng.random() >= missing else None for x in b]
    return a, b


# ---------------------------------------------------------------------------
# statistics of counts equal the point estimates


def test_pair_statistics_equal_point_estimates():
    rng = np.random.default_rng(3)
    a, b = correlated_raters(rng, 300, missing=0.05)
    s = pair_sample(a, b, CATS, tolerance=1.0)
    assert s.value("percent_agreement") == pytest.approx(percent_agreement(a, b).value, abs=1e-12)
    assert s.value("cohen_kappa") == pytest.approx(cohen_kappa(a, b, categories=CATS).value, abs=1e-12)
    assert s.value("cohen_kappa_quadratic") == pytest.approx(
        cohen_kappa(a, b, weights="quadratic", categories=CATS).value, abs=1e-12
    )
    pairs = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    assert s.n == len(pairs)
    assert s.value("agreement_within_tolerance") == pytest.approx(sum(abs(x - y) <= 1 for x, y in pairs) / len(pairs))
    assert sum(s.prevalence.values()) == pytest.approx(1.0)


def test_gwet_ac1_by_hand():
    # O = [[40, 10], [5, 45]]: p_a = .85, pi = (.475, .525), p_e = 2 x .475 x .525 = .49875
    a = ["pass"] * 50 + ["fail"] * 50
    b = ["pass"] * 40 + ["fail"] * 10 + ["pass"] * 5 + ["fail"] * 45
    s = pair_sample(a, b, ["pass", "fail"])
    assert s.value("gwet_ac1") == pytest.approx((0.85 - 0.49875) / (1 - 0.49875))
    assert s.prevalence == {"pass": pytest.approx(0.475), "fail": pytest.approx(0.525)}


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_of_counts_equals_krippendorff_alpha(level):
    rng = np.random.default_rng(5)
    a, b = correlated_raters(rng, 200, missing=0.2)
    c, _ = correlated_raters(rng, 200, missing=0.3)
    rows = [[x, y, z] for x, y, z in zip(a, b, c)]
    s = units_sample(rows, level, CATS, "alpha")
    assert s.n == 200  # every unit is a subject, pairable or not
    assert s.value("alpha") == pytest.approx(krippendorff_alpha(rows, level, categories=CATS).value, abs=1e-12)


def test_every_agreement_row_gets_an_interval_from_its_own_subjects():
    rng = np.random.default_rng(7)
    vs = []
    for i in range(60):
        truth = rng.integers(1, 6)
        for judge, method in (
            ("j1", Method.RUBRIC),
            ("j2", Method.RUBRIC),
            ("ann1", Method.HUMAN),
            ("ann2", Method.HUMAN),
        ):
            score = float(np.clip(truth + rng.integers(-1, 2), 1, 5))
            vs.append(
                Verdict(subject=f"run:{i}", judge=judge, method=method, scale=Scale.ORDINAL5, scores={"overall": score})
            )
    rows = with_intervals(agreement_rows(vs), n_resamples=300)
    assert {r.statistic for r in rows} >= {
        "percent_agreement",
        "cohen_kappa",
        "cohen_kappa_quadratic",
        "gwet_ac1",
        "krippendorff_alpha_ordinal",
        "agreement_with_human_majority",
    }
    for r in rows:
        if r.value is None:
            continue
        assert r.sample.value(r.statistic) == pytest.approx(r.value, abs=1e-12), r
        proportion = r.statistic.startswith(("percent_agreement", "agreement_"))
        assert r.ci_method in (("Wilson", "Clopper-Pearson") if proportion else ("BCa", "percentile")), r
        assert r.ci_low <= r.value + 1e-9 and r.value - 1e-9 <= r.ci_high, r
    kappa = next(r for r in rows if r.raters == "j1 vs j2" and r.statistic == "cohen_kappa")
    assert strength(kappa) == landis_koch(kappa.value) != ""
    assert strength(next(r for r in rows if r.statistic == "percent_agreement")) == ""


def test_landis_koch_words():
    assert [landis_koch(v) for v in (-0.1, 0.0, 0.2, 0.3, 0.5, 0.7, 0.81, 1.0)] == [
        "poor",
        "slight",
        "slight",
        "fair",
        "moderate",
        "substantial",
        "almost perfect",
        "almost perfect",
    ]
    assert landis_koch(None) == landis_koch(float("nan")) == ""


# ---------------------------------------------------------------------------
# the same intervals as scipy's BCa and as a reference bootstrap


def test_bca_equals_scipys_bca_on_the_same_resamples():
    rng = np.random.default_rng(11)
    a, b = correlated_raters(rng, 80)
    s = pair_sample(a, b, CATS)
    mine = s.intervals(["cohen_kappa_quadratic"], n_resamples=999, seed=42)["cohen_kappa_quadratic"]
    f = s.statistics["cohen_kappa_quadratic"]

    def kappa(codes, axis=-1):
        counts = np.apply_along_axis(lambda r: np.bincount(r, minlength=25), -1, codes).astype(float)
        return f(counts)

    ref = bootstrap(
        (s.codes,), kappa, method="BCa", n_resamples=999, vectorized=True, batch=250, rng=np.random.default_rng(42)
    )
    assert mine.method == "BCa"
    assert mine.low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert mine.high == pytest.approx(ref.confidence_interval.high, abs=1e-12)


def reference_bca(stat, data, n_resamples, seed, alpha=0.025):
    """A plain BCa bootstrap (Efron & Tibshirani 1993, 14.3): resample the
    subjects with replacement, jackknife every subject, no shortcuts."""
    rng = np.random.default_rng(seed)
    n = len(data)
    theta = stat(data)
    boot = np.array([stat(data[rng.integers(0, n, n)]) for _ in range(n_resamples)])
    z0 = ndtri((np.sum(boot < theta) + np.sum(boot <= theta)) / (2 * n_resamples))
    jack = np.array([stat(np.delete(data, i, axis=0)) for i in range(n)])
    d = jack.mean() - jack
    a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    z = ndtri(alpha)
    lo = ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))
    hi = ndtr(z0 + (z0 - z) / (1 - a * (z0 - z)))
    return np.quantile(boot, [lo, hi])


def _kappa_plain(pairs):
    """Quadratic weighted kappa from its textbook definition (numpy only)."""
    i, j = pairs[:, 0].astype(int) - 1, pairs[:, 1].astype(int) - 1
    o = np.zeros((5, 5))
    np.add.at(o, (i, j), 1.0)
    e = np.outer(o.sum(axis=1), o.sum(axis=0)) / len(pairs)
    w = (np.arange(5)[:, None] - np.arange(5)[None, :]) ** 2
    return 1.0 - (w * o).sum() / (w * e).sum()


def test_intervals_equal_a_reference_bootstrap_within_monte_carlo_error():
    rng = np.random.default_rng(13)
    a, b = correlated_raters(rng, 120)
    pairs = np.array([a, b], dtype=float).T
    s = pair_sample(a, b, CATS)
    found = s.intervals(["cohen_kappa_quadratic", "percent_agreement", "gwet_ac1"], n_resamples=2000, seed=1)
    low, high = reference_bca(_kappa_plain, pairs, 2000, seed=1)
    kappa = found["cohen_kappa_quadratic"]
    # Monte Carlo error of a 2.5 % quantile of 2,000 resamples: about 0.01 here (sd of kappa ~ 0.03)
    assert kappa.low == pytest.approx(low, abs=0.02) and kappa.high == pytest.approx(high, abs=0.02)
    low, high = reference_bca(lambda p: float(np.mean(p[:, 0] == p[:, 1])), pairs, 2000, seed=1)
    agree = found["percent_agreement"]
    assert agree.low == pytest.approx(low, abs=0.03) and agree.high == pytest.approx(high, abs=0.03)
    low, high = reference_bca(_ac1_plain, pairs, 2000, seed=1)
    ac1 = found["gwet_ac1"]
    assert ac1.low == pytest.approx(low, abs=0.03) and ac1.high == pytest.approx(high, abs=0.03)


def _ac1_plain(pairs):
    """Gwet's AC1 from its definition, K = 5 categories."""
    p_a = np.mean(pairs[:, 0] == pairs[:, 1])
    pi = np.array([np.mean(pairs == c) for c in CATS])  # both raters pooled
    p_e = np.sum(pi * (1 - pi)) / 4
    return (p_a - p_e) / (1 - p_e)


def test_alpha_interval_equals_a_reference_bootstrap():
    rng = np.random.default_rng(17)
    a, b = correlated_raters(rng, 100, missing=0.1)
    c, _ = correlated_raters(rng, 100, missing=0.3)
    rows = [[x, y, z] for x, y, z in zip(a, b, c)]
    mine = units_sample(rows, "ordinal", CATS, "alpha").intervals(["alpha"], n_resamples=1000, seed=2)["alpha"]
    units = np.array(rows, dtype=float)
    low, high = reference_bca(lambda u: krippendorff_alpha(u, "ordinal", categories=CATS).value, units, 1000, 2)
    assert mine.method == "BCa"
    assert mine.low == pytest.approx(low, abs=0.03) and mine.high == pytest.approx(high, abs=0.03)


def test_undefined_resamples_fall_back_to_percentile_and_are_counted():
    # 12 pairs, few 'fail's: many resamples hold one category only (kappa 0/0)
    a = ["pass"] * 10 + ["fail", "fail"]
    b = ["pass"] * 10 + ["fail", "pass"]
    iv = pair_sample(a, b, ["fail", "pass"]).intervals(["cohen_kappa"], n_resamples=500, seed=0)["cohen_kappa"]
    assert iv.method == "percentile" and iv.undefined > 0 and "undefined" in iv.note


def test_a_degenerate_bootstrap_says_too_few_and_a_proportion_at_the_boundary_is_exact():
    # a perfect 17 / 17: Clopper-Pearson, whose lower bound is below 1 (0.025 ** (1 / 17))
    all_right = proportion_sample([True] * 17, "share").intervals(["share"], n_resamples=200)["share"]
    assert all_right.method == "Clopper-Pearson" and all_right.high == 1.0
    assert all_right.low == pytest.approx(0.025 ** (1 / 17)) and all_right.low < 1
    one = proportion_sample([True], "share").intervals(["share"], n_resamples=200)["share"]
    assert one.method == "Clopper-Pearson" and one.low == pytest.approx(0.025)
    # kappa on 4 subjects: too few for a bootstrap, never [0.000, 0.000]
    four = pair_sample(["pass", "fail", "pass", "fail"], ["pass", "pass", "fail", "fail"], ["fail", "pass"])
    iv = four.intervals(["cohen_kappa"], n_resamples=200)["cohen_kappa"]
    assert not iv.defined and iv.formatted() == "too few" and "n = 4 < 10" in iv.note
    # every resample the same (a kappa of 1 wherever defined): too few, not [1.000, 1.000]
    same = pair_sample(["pass"] * 11 + ["fail"], ["pass"] * 11 + ["fail"], ["fail", "pass"])
    iv = same.intervals(["cohen_kappa"], n_resamples=300)["cohen_kappa"]
    assert not iv.defined and iv.formatted() == "too few"
    # a proportion in between: Wilson, as scipy's binomtest gives it
    from scipy.stats import binomtest

    mid = proportion_sample([True] * 12 + [False] * 5, "share").intervals(["share"])["share"]
    ci = binomtest(12, 17).proportion_ci(method="wilson")
    assert mid.method == "Wilson" and (mid.low, mid.high) == pytest.approx((ci.low, ci.high))


def test_strength_words_only_from_30_subjects():
    assert landis_koch(0.1, 1) == landis_koch(0.1, 29) == ""
    assert landis_koch(0.1, 30) == "slight"


def test_intervals_are_seeded():
    rng = np.random.default_rng(19)
    a, b = correlated_raters(rng, 50)
    s = pair_sample(a, b, CATS)
    first = s.intervals(["cohen_kappa"], seed=4)["cohen_kappa"]
    assert s.intervals(["cohen_kappa"], seed=4)["cohen_kappa"] == first
    assert s.intervals(["cohen_kappa"], seed=5)["cohen_kappa"] != first


def test_codes_out_of_range_are_refused():
    with pytest.raises(ValueError, match="pattern codes"):
        bootstrap_counts([np.array([0, 3])], [2], lambda c: c[..., 0][None])


# ---------------------------------------------------------------------------
# coverage


def known_kappa_pair(rng, n, kappa, p=0.3):
    """Two binary raters with marginals p each and population kappa
    ``kappa``: P(1, 1) = p^2 + kappa p (1 - p)."""
    p11 = p * p + kappa * p * (1 - p)
    p10 = p - p11
    probs = [1 - p11 - 2 * p10, p10, p10, p11]  # cells 00, 01, 10, 11
    cells = rng.choice(4, size=n, p=probs)
    return list(cells // 2), list(cells % 2)


def coverage(pairs, resamples, n=200, kappa=0.6, seed=0):
    rng = np.random.default_rng(seed)
    hits = 0
    for i in range(pairs):
        a, b = known_kappa_pair(rng, n, kappa)
        iv = pair_sample(a, b, [0, 1]).intervals(["cohen_kappa"], n_resamples=resamples, seed=i)["cohen_kappa"]
        hits += iv.low <= kappa <= iv.high
    return hits / pairs


def test_coverage_of_a_known_kappa():
    """200 simulated rater pairs of 200 subjects, kappa 0.6, 500 resamples
    each: the 95 % intervals cover the true kappa 90-99 % of the time (the
    benchmark runs 1,000 pairs x 2,000 resamples for 93-97 %)."""
    share = coverage(200, 500)
    assert 0.90 <= share <= 0.99, share


def test_population_kappa_of_the_simulation():
    rng = np.random.default_rng(1)
    a, b = known_kappa_pair(rng, 50_000, 0.6)
    assert cohen_kappa(a, b).value == pytest.approx(0.6, abs=0.02)
    assert math.isclose(np.mean(a), 0.3, abs_tol=0.01)


def test_two_sample_bca_equals_scipys_bca():
    """Two samples resampled on their own (the corrected pass rate's
    labelled and unlabelled subjects): the same interval as scipy's BCa."""
    rng = np.random.default_rng(23)
    x = (rng.random(60) < 0.3).astype(int)
    y = (rng.random(45) < 0.6).astype(int)
    mine = bootstrap_counts(
        [x, y], [2, 2], lambda c, d: (c[..., 1] / c.sum(-1) - d[..., 1] / d.sum(-1))[None], n_resamples=999, seed=5
    )[0]
    ref = bootstrap(
        (x, y),
        lambda a, b, axis=-1: a.mean(axis) - b.mean(axis),
        method="BCa",
        n_resamples=999,
        vectorized=True,
        batch=250,
        rng=np.random.default_rng(5),
    )
    assert mine.method == "BCa"
    assert (mine.low, mine.high) == (
        pytest.approx(ref.confidence_interval.low, abs=1e-12),
        pytest.approx(ref.confidence_interval.high, abs=1e-12),
    )


def test_every_pooled_ab_ba_row_says_first_that_pairs_are_resampled(tmp_path):
    """Both pooled [ab+ba] rows (accuracy and its undecided-as-wrong
    variant) rest on a pair bootstrap, and their note says so first, so the
    report's note cell, cut at CELL_LIMIT characters, still shows the unit
    resampled (bundled LLMBar-shaped sample: three pairs, both orders)."""
    from reviewer.core.tables import CELL_LIMIT
    from reviewer.storage.importers import import_source
    from reviewer.storage.judging import verdicts as judging
    from reviewer.storage.project.db import open_project
    from tests.helpers.paths import ROOT

    p = open_project(tmp_path / "pw.db", create=True)
    import_source(p, ROOT / "samples" / "pairwise")
    vs = judging.verdicts(p)
    p.close()
    pooled = [r for r in agreement_rows(vs) if "[ab+ba]" in r.raters]
    assert {r.statistic for r in pooled} == {"accuracy_vs_gold", "accuracy_vs_gold_undecided_wrong"}
    for r in pooled:
        assert r.note.startswith("pairs resampled"), r.note
        assert "pairs resampled" in r.note[:CELL_LIMIT]
    single = [r for r in agreement_rows(vs) if "[ab]" in r.raters or "[ba]" in r.raters]
    assert single and not any("pairs resampled" in r.note for r in single)
