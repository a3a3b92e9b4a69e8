"""reviewer.core.judging.agreement: percent agreement, Cohen's kappa, Krippendorff's
alpha, position-swap consistency, agreement with a reference, majority.

Known values come from textbook examples (cited at each test); properties are
checked with hypothesis. scikit-learn is not imported: the weighted-kappa
values are worked out by hand below (they were cross-checked once against
``sklearn.metrics.cohen_kappa_score`` 1.9.1 outside the project).
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import permutations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from reviewer.core.judging.agreement import cohen_kappa, krippendorff_alpha, percent_agreement
from reviewer.core.judging.pairwise_agreement import agreement_with_reference, majority, position_swap_consistency
from reviewer.core.judging.stats import AgreementResult, is_missing

NAN = float("nan")
LEVELS = ("nominal", "ordinal", "interval", "ratio")

# ---------------------------------------------------------------------------
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section
# C ("Nominal data, any number of observers, missing data") and following:
# 4 observers x 12 units, missing values. Reported: nominal .743, ordinal
# .815, interval .849, ratio .797; n = 40 pairable values (unit 12 has a
# single value and is not pairable).

OBSERVERS = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    "C": [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
}
PAPER = np.array(list(OBSERVERS.values())).T  # units x raters
PAPER_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


@pytest.mark.parametrize("level", LEVELS)
def test_krippendorff_2011_example_numpy(level):
    result = krippendorff_alpha(PAPER, level)
    assert result.statistic == f"krippendorff_alpha_{level}"
    assert round(result.value, 3) == PAPER_ALPHA[level]
    assert result.n == 40
    assert result.counts == {"units": 12, "pairable_units": 11, "unpaired_values": 1}


def test_krippendorff_2011_nominal_exact_fraction():
    # The paper's nominal formula: alpha = ((n-1) sum_c o_cc - sum_c n_c(n_c-1)) / (n(n-1) - sum_c n_c(n_c-1)).
    # Coincidence marginals for values 1..5: n_c = (9, 13, 10, 5, 3), n = 40; the off-diagonal
    # coincidences are 2 (unit 2: 2,2,3,2) + 4 (unit 6: 1,2,3,4) + 2 (unit 8: 1,1,2,1) = 8, so
    # sum_c o_cc = 32 and alpha = (39*32 - 344) / (1560 - 344) = 904/1216 = .7434.
    units = [[v for v in row if not math.isnan(v)] for row in PAPER.tolist()]
    off_diagonal = sum(
        Fraction(sum(1 for i, x in enumerate(u) for j, y in enumerate(u) if i != j and x != y), len(u) - 1)
        for u in units
        if len(u) >= 2
    )
    assert off_diagonal == 8
    n_c = [9, 13, 10, 5, 3]
    same = sum(c * (c - 1) for c in n_c)
    expected = Fraction(39 * (40 - off_diagonal) - same, 40 * 39 - same)
    assert expected == Fraction(904, 1216)
    assert krippendorff_alpha(PAPER, "nominal").value == pytest.approx(float(expected), abs=1e-12)


def test_krippendorff_2011_example_as_lists_with_none_and_ragged_rows():
    rows = [[None if math.isnan(v) else int(v) for v in row] for row in PAPER.tolist()]
    ragged = [[v for v in row if v is not None] for row in rows]  # a unit's values only
    for level in LEVELS:
        assert krippendorff_alpha(rows, level).value == pytest.approx(krippendorff_alpha(PAPER, level).value)
        assert krippendorff_alpha(ragged, level).value == pytest.approx(krippendorff_alpha(PAPER, level).value)


def test_krippendorff_2011_example_as_value_counts():
    values = [1, 2, 3, 4, 5]
    counts = np.array([[sum(1 for v in row if v == c) for c in values] for row in PAPER.tolist()])
    for level in LEVELS:
        got = krippendorff_alpha(counts, level, categories=values, value_counts=True)
        assert round(got.value, 3) == PAPER_ALPHA[level]
        assert got.n == 40
    # nominal and ordinal only need the column order; default values 0..K-1
    assert krippendorff_alpha(counts, "ordinal", value_counts=True).value == pytest.approx(0.8153875, abs=1e-7)


def test_krippendorff_nominal_string_labels_match_numbers():
    names = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    rows = [[None if math.isnan(v) else names[int(v)] for v in row] for row in PAPER.tolist()]
    assert krippendorff_alpha(rows, "nominal").value == pytest.approx(krippendorff_alpha(PAPER, "nominal").value)


def test_krippendorff_ordinal_order_comes_from_categories():
    names = {1: "very low", 2: "low", 3: "mid", 4: "high", 5: "very high"}
    rows = [[None if math.isnan(v) else names[int(v)] for v in row] for row in PAPER.tolist()]
    ordered = krippendorff_alpha(rows, "ordinal", categories=list(names.values()))
    assert ordered.value == pytest.approx(krippendorff_alpha(PAPER, "ordinal").value)
    alphabetical = krippendorff_alpha(rows, "ordinal")  # sorted strings: a wrong scale order
    assert alphabetical.value != pytest.approx(ordered.value, abs=1e-3)


def test_krippendorff_degenerate_cases_are_nan_with_note():
    same = krippendorff_alpha([[3, 3], [3, None], [3, 3, 3]], "interval")
    assert math.isnan(same.value) and same.n == 5 and "undefined" in same.note
    assert same.formatted() == "undefined"
    lonely = krippendorff_alpha([[1, None], [None, 2]], "nominal")
    assert math.isnan(lonely.value) and lonely.n == 0
    assert lonely.counts["unpaired_values"] == 2


def test_krippendorff_rejects_bad_input():
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(PAPER, "cardinal")
    with pytest.raises(ValueError, match="numeric"):
        krippendorff_alpha([["a", "b"], ["a", "a"]], "interval")
    with pytest.raises(ValueError, match="non-negative"):
        krippendorff_alpha([[-1, 2], [2, 2]], "ratio")
    with pytest.raises(ValueError, match="categories"):
        krippendorff_alpha([[1, 2], [2, 2]], "nominal", categories=[1, 3])
    with pytest.raises(ValueError, match="categories"):
        krippendorff_alpha(np.array([[1, 1], [0, 2]]), "interval", value_counts=True)
    with pytest.raises(ValueError, match="non-negative"):
        krippendorff_alpha(np.array([[1, -1], [0, 2]]), "nominal", value_counts=True)
    with pytest.raises(ValueError, match="2-D"):
        krippendorff_alpha(np.array([1.0, 2.0, 3.0]), "nominal")


# ---------------------------------------------------------------------------
# Cohen's kappa


def test_cohen_kappa_wikipedia_example():
    # Wikipedia, "Cohen's kappa", simple example: 50 proposals read by A and B;
    # 20 yes/yes, 5 yes(A)/no(B), 10 no(A)/yes(B), 15 no/no.
    # p_o = 35/50 = .7; p_yes = .5 * .6 = .3, p_no = .5 * .4 = .2; p_e = .5; kappa = .4
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    result = cohen_kappa(a, b)
    assert result.value == pytest.approx(0.40, abs=1e-12)
    assert result.n == 50 and result.counts["agree"] == 35
    assert percent_agreement(a, b).value == pytest.approx(0.70)


# A 3-point scale, 40 items; confusion matrix rows = rater a, columns = rater b:
#        1   2   3   | row
#   1   10   3   1   | 14
#   2    2  12   4   | 18
#   3    1   2   5   |  8
#  col  13  17  10   | 40
CONFUSION = [[10, 3, 1], [2, 12, 4], [1, 2, 5]]


def _pairs_from_confusion(matrix, labels):
    a, b = [], []
    for i, row in enumerate(matrix):
        for j, count in enumerate(row):
            a += [labels[i]] * count
            b += [labels[j]] * count
    return a, b


@pytest.mark.parametrize(
    "weights, expected",
    [
        # p_o = 27/40; p_e = (14*13 + 18*17 + 8*10)/1600 = 568/1600; kappa = (.675-.355)/.645 = 64/129
        (None, Fraction(64, 129)),
        # sum |i-j| O = 3+2+2+4+2+2 = 15; sum |i-j| r_i c_j / 40 = (238+280+234+180+208+136)/40 = 31.9
        # kappa = 1 - 15/31.9 = 169/319
        ("linear", Fraction(169, 319)),
        # sum (i-j)^2 O = 3+4+2+4+4+2 = 19; sum (i-j)^2 r_i c_j / 40 = (238+560+234+180+416+136)/40 = 44.1
        # kappa = 1 - 19/44.1 = 251/441
        ("quadratic", Fraction(251, 441)),
    ],
)
def test_cohen_kappa_weighted_by_hand(weights, expected):
    # Same values as sklearn.metrics.cohen_kappa_score(a, b, weights=...) (checked once, not imported):
    # 0.4961240310, 0.5297805643, 0.5691609977.
    a, b = _pairs_from_confusion(CONFUSION, [1, 2, 3])
    result = cohen_kappa(a, b, weights=weights)
    assert result.value == pytest.approx(float(expected), abs=1e-12)
    assert result.n == 40
    # ordinal labels that do not sort correctly: order given by categories
    sa, sb = _pairs_from_confusion(CONFUSION, ["low", "mid", "high"])
    assert cohen_kappa(sa, sb, weights, categories=["low", "mid", "high"]).value == pytest.approx(float(expected))


def test_cohen_kappa_weighted_uses_category_positions_including_unused():
    # categories 1..4 with 4 unused: linear weights over positions 0..3.
    # a=[1,2,3,1], b=[1,3,3,2]: sum |i-j| O = 0+1+0+1 = 2; rows (2,1,1,0), cols (1,1,2,0),
    # sum |i-j| r_i c_j / 4 = (2*1*1 + 2*2*2 + 1*1*1 + 1*2*1 + 1*1*2 + 1*1*1)/4 = 16/4 = 4 -> kappa = .5
    assert cohen_kappa([1, 2, 3, 1], [1, 3, 3, 2], "linear", categories=[1, 2, 3, 4]).value == pytest.approx(0.5)


def test_cohen_kappa_skips_missing_pairs():
    a = ["y", "n", None, "y", NAN, "n"]
    b = ["y", "n", "y", None, "n", "y"]
    result = cohen_kappa(a, b)
    assert result.n == 3 and result.counts["skipped"] == 3
    assert "3 pairs" in result.note
    assert result.value == pytest.approx(cohen_kappa(["y", "n", "n"], ["y", "n", "y"]).value)


def test_cohen_kappa_degenerate_cases():
    # both raters constant and equal: p_o = p_e = 1, kappa = 0/0 -> NaN (as sklearn), n still reported
    same = cohen_kappa(["a"] * 5, ["a"] * 5)
    assert math.isnan(same.value) and same.n == 5 and "undefined" in same.note
    assert not same.defined and same.formatted() == "undefined"
    # both constant but different: p_o = 0, p_e = 0 -> kappa = 0 (defined)
    assert cohen_kappa(["a"] * 5, ["b"] * 5).value == 0.0
    empty = cohen_kappa([None, "a"], ["b", None])
    assert math.isnan(empty.value) and empty.n == 0


def test_cohen_kappa_rejects_bad_input():
    with pytest.raises(ValueError, match="same length"):
        cohen_kappa([1, 2], [1])
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa([1, 2], [1, 2], weights="cubic")
    with pytest.raises(ValueError, match="not in categories"):
        cohen_kappa([1, 2], [1, 5], categories=[1, 2, 3])
    with pytest.raises(ValueError, match="categories"):
        cohen_kappa([1, "a"], ["a", 1], weights="linear")  # order unknown
    # unweighted kappa needs no order
    assert cohen_kappa([1, "a"], [1, "a"]).value == 1.0


def test_percent_agreement_missing_and_empty():
    result = percent_agreement([1, 2, None, 3, 4], [1, 3, 2, NAN, 4])
    assert result.value == pytest.approx(2 / 3) and result.n == 3 and result.counts == {"agree": 2, "skipped": 2}
    assert math.isnan(percent_agreement([None], [1]).value)
    with pytest.raises(ValueError):
        percent_agreement([1], [1, 2])


# ---------------------------------------------------------------------------
# judges


def test_position_swap_consistency_counts():
    ab = ["1", "1", "2", "tie", "1", "2", None, "1", None]
    ba = ["1", "2", "1", "tie", "tie", "2", "1", None, None]
    result = position_swap_consistency(ab, ba)
    # decided in both orders: items 0..5 -> consistent 0, 3, 5 -> 3/6
    assert result.value == pytest.approx(0.5) and result.n == 6
    assert result.counts == {
        "total": 9,
        "consistent": 3,
        "inconsistent": 3,
        "flipped": 2,
        "first_position_won_both": 1,
        "second_position_won_both": 1,
        "tie_mismatch": 1,
        "undecided_ab": 2,
        "undecided_ba": 2,
        "undecided_any": 3,
    }
    assert "3 of 9" in result.note


def test_position_swap_consistency_errors_and_empty():
    with pytest.raises(ValueError, match="verdict_ba\\[0\\]"):
        position_swap_consistency(["1"], ["A"])
    with pytest.raises(ValueError, match="same length"):
        position_swap_consistency(["1"], [])
    empty = position_swap_consistency([None, "1"], ["2", NAN])
    assert math.isnan(empty.value) and empty.n == 0 and empty.counts["undecided_any"] == 2


def test_agreement_with_reference_reports_undecided():
    judge = ["a", "b", None, "a", "b", None]
    ref = ["a", "a", "a", None, "b", None]
    result = agreement_with_reference(judge, ref)
    assert result.value == pytest.approx(2 / 3) and result.n == 3
    assert result.counts == {"total": 6, "correct": 2, "incorrect": 1, "undecided": 1, "no_reference": 2}
    assert "1 undecided" in result.note and "0.500" in result.note  # 2 / (3 + 1) counting undecided as wrong
    assert math.isnan(agreement_with_reference([None], ["a"]).value)


def test_majority_tie_rule():
    assert majority(["1", "1", "2"]) == "1"
    assert majority(["1", "2"]) is None  # tie -> None, never the verdict string 'tie'
    assert majority(["tie", "tie", "1"]) == "tie"  # a real majority for the 'tie' verdict
    assert majority(["a", "a", "b", "c"]) == "a"  # plurality
    assert majority([None, NAN, "b"]) == "b"
    assert majority([]) is None and majority([None]) is None
    # a tied human majority is no reference: skipped and counted
    refs = [majority(x) for x in (["1", "1", "2"], ["1", "2"])]
    assert agreement_with_reference(["1", "1"], refs).counts["no_reference"] == 1


def test_is_missing_and_result_formatting():
    assert is_missing(None) and is_missing(NAN) and is_missing(np.float32("nan"))
    assert not is_missing("nan") and not is_missing(0) and not is_missing("")
    assert AgreementResult("x", 0.12345, 3).formatted() == "0.123"


# ---------------------------------------------------------------------------
# the vectorised alpha against the definition, pair by pair


def _alpha_by_pairs(rows, level):
    """Krippendorff's alpha straight from the definition (pure Python, Fractions)."""
    units = [[v for v in row if v is not None] for row in rows]
    units = [u for u in units if len(u) >= 2]
    pooled = [v for u in units for v in u]
    cats = sorted(set(pooled))
    n_c = {c: pooled.count(c) for c in cats}

    def d2(c, k):
        if level == "nominal":
            return Fraction(int(c != k))
        if level == "ordinal":
            lo, hi = min(c, k), max(c, k)
            return (sum(n_c[g] for g in cats if lo <= g <= hi) - Fraction(n_c[c] + n_c[k], 2)) ** 2
        if level == "interval":
            return Fraction(c - k) ** 2
        return Fraction(c - k, c + k) ** 2 if c + k else Fraction(0)

    n = len(pooled)
    d_o = sum(
        Fraction(sum(d2(x, y) for i, x in enumerate(u) for j, y in enumerate(u) if i != j), len(u) - 1) for u in units
    )
    d_e = sum(n_c[c] * n_c[k] * d2(c, k) for c in cats for k in cats)
    if n == 0 or d_e == 0:
        return NAN
    return float(1 - (n - 1) * d_o / d_e)


values = st.one_of(st.none(), st.integers(min_value=1, max_value=5))


@st.composite
def reliability_data(draw, min_raters=2, max_raters=5, max_units=12):
    raters = draw(st.integers(min_value=min_raters, max_value=max_raters))
    units = draw(st.integers(min_value=1, max_value=max_units))
    return draw(st.lists(st.lists(values, min_size=raters, max_size=raters), min_size=units, max_size=units))


def _same(x, y, tol=1e-9):
    return (math.isnan(x) and math.isnan(y)) or (not math.isnan(x) and not math.isnan(y) and abs(x - y) <= tol)


@settings(max_examples=150, deadline=None)
@given(reliability_data(), st.sampled_from(LEVELS))
def test_alpha_matches_pairwise_definition(rows, level):
    assert _same(krippendorff_alpha(rows, level).value, _alpha_by_pairs(rows, level))


# ---------------------------------------------------------------------------
# properties


@settings(deadline=None)
@given(reliability_data(), st.sampled_from(LEVELS), st.randoms(use_true_random=False))
def test_alpha_invariant_to_permuting_raters_and_units(rows, level, rnd):
    base = krippendorff_alpha(rows, level).value
    cols = list(range(len(rows[0])))
    rnd.shuffle(cols)
    shuffled = [[row[c] for c in cols] for row in rows]
    rnd.shuffle(shuffled)
    assert _same(krippendorff_alpha(shuffled, level).value, base)


@settings(deadline=None)
@given(reliability_data(), st.permutations(["a", "b", "c", "d", "e"]))
def test_nominal_alpha_invariant_to_relabelling(rows, labels):
    mapping = dict(zip(range(1, 6), labels))
    relabelled = [[None if v is None else mapping[v] for v in row] for row in rows]
    assert _same(krippendorff_alpha(relabelled, "nominal").value, krippendorff_alpha(rows, "nominal").value)


@settings(deadline=None)
@given(reliability_data())
def test_ordinal_alpha_invariant_to_monotone_recoding(rows):
    recode = {1: -7, 2: 0, 3: 0.5, 4: 30, 5: 31}  # order kept, distances changed
    recoded = [[None if v is None else recode[v] for v in row] for row in rows]
    assert _same(krippendorff_alpha(recoded, "ordinal").value, krippendorff_alpha(rows, "ordinal").value)


@settings(deadline=None)
@given(reliability_data(), st.floats(min_value=0.1, max_value=100), st.floats(min_value=-50, max_value=50))
def test_interval_alpha_affine_and_ratio_alpha_scale_invariant(rows, scale, shift):
    affine = [[None if v is None else scale * v + shift for v in row] for row in rows]
    assert _same(krippendorff_alpha(affine, "interval").value, krippendorff_alpha(rows, "interval").value, 1e-7)
    scaled = [[None if v is None else scale * v for v in row] for row in rows]
    assert _same(krippendorff_alpha(scaled, "ratio").value, krippendorff_alpha(rows, "ratio").value, 1e-7)


@settings(deadline=None)
@given(reliability_data(), st.sampled_from(LEVELS))
def test_alpha_range(rows, level):
    value = krippendorff_alpha(rows, level).value
    assume(not math.isnan(value))
    assert value <= 1 + 1e-12
    if level != "ratio":
        # nominal (one-hot), ordinal (interval on midranks) and interval are squared Euclidean
        # distances: D_o = within-unit spread, at most twice the total spread, so alpha >= -1.
        # The ratio metric is not of that kind: only alpha <= 1 is checked for it.
        assert value >= -1 - 1e-12


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(min_value=1, max_value=5), st.integers(min_value=1, max_value=4)),
        min_size=1,
        max_size=15,
    ),
    st.integers(min_value=0, max_value=3),
    st.sampled_from(LEVELS),
)
def test_perfect_agreement_gives_one(units, missing, level):
    # every unit: one value given by 1-4 raters, the other cells of a 5-rater row missing
    rows = [[value] * raters + [None] * (5 - raters) for value, raters in units]
    pairable = {value for value, raters in units if raters >= 2}
    assume(len(pairable) >= 2)  # with a single value alpha is 0/0
    rows += [[None] * 5] * missing  # empty units change nothing
    assert krippendorff_alpha(rows, level).value == pytest.approx(1.0, abs=1e-12)


@settings(deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 4), st.integers(1, 4)), min_size=1, max_size=30),
)
def test_alpha_two_raters_nominal_is_close_to_scotts_pi(pairs):
    # Scott's pi (Scott 1955): p_o = share agreeing; p_e = sum_c p_c^2 with p_c the pooled share of
    # category c over both raters. Krippendorff (2011): for two observers, nominal, no missing data,
    # alpha = 1 - (2N - 1)/(2N) (1 - pi), i.e. alpha -> pi as N grows.
    a = [x for x, _ in pairs]
    b = [y for _, y in pairs]
    n_items = len(pairs)
    pooled = a + b
    p_o = sum(x == y for x, y in pairs) / n_items
    p_e = sum((pooled.count(c) / (2 * n_items)) ** 2 for c in set(pooled))
    assume(p_e < 1)
    pi = (p_o - p_e) / (1 - p_e)
    alpha = krippendorff_alpha([list(p) for p in pairs], "nominal").value
    assert alpha == pytest.approx(1 - (2 * n_items - 1) / (2 * n_items) * (1 - pi), abs=1e-12)
    assert abs(alpha - pi) <= (1 - pi) / (2 * n_items) + 1e-12


ratings = st.lists(st.one_of(st.none(), st.integers(min_value=0, max_value=4)), min_size=1, max_size=30)


@settings(deadline=None)
@given(st.data(), st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_symmetric_and_bounded(data, weights):
    a = data.draw(ratings)
    b = data.draw(st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=len(a), max_size=len(a)))
    ab = cohen_kappa(a, b, weights)
    ba = cohen_kappa(b, a, weights)
    assert _same(ab.value, ba.value, 1e-12) and ab.n == ba.n
    if ab.defined:
        assert -1 - 1e-12 <= ab.value <= 1 + 1e-12


@settings(deadline=None)
@given(ratings, st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_perfect_agreement_gives_one(a, weights):
    assume(len({x for x in a if x is not None}) >= 2)
    assert cohen_kappa(a, list(a), weights).value == pytest.approx(1.0)
    assert percent_agreement(a, list(a)).value == 1.0


@settings(deadline=None)
@given(st.data(), st.permutations(["w", "x", "y", "z", "q"]))
def test_unweighted_kappa_invariant_to_relabelling(data, labels):
    a = data.draw(ratings)
    b = data.draw(st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=len(a), max_size=len(a)))
    relabel = dict(zip(range(5), labels))
    ra = [None if x is None else relabel[x] for x in a]
    rb = [None if x is None else relabel[x] for x in b]
    assert _same(cohen_kappa(ra, rb).value, cohen_kappa(a, b).value, 1e-12)


def test_two_rater_alpha_and_kappa_agree_on_symmetric_marginals():
    # With identical marginals for both raters Cohen's p_e equals Scott's p_e, so kappa = pi and
    # alpha = 1 - (2N-1)/(2N) (1 - kappa) (Krippendorff 2011). Wikipedia example rearranged: 20 yy,
    # 15 nn, 5 yn, 5 ny.
    a = ["y"] * 20 + ["n"] * 15 + ["y"] * 5 + ["n"] * 5
    b = ["y"] * 20 + ["n"] * 15 + ["n"] * 5 + ["y"] * 5
    kappa = cohen_kappa(a, b).value
    alpha = krippendorff_alpha(list(map(list, zip(a, b))), "nominal").value
    assert alpha == pytest.approx(1 - 89 / 90 * (1 - kappa), abs=1e-12)


def test_permutations_of_paper_raters():
    base = krippendorff_alpha(PAPER, "ordinal").value
    for cols in permutations(range(4)):
        assert krippendorff_alpha(PAPER[:, list(cols)], "ordinal").value == pytest.approx(base, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(reliability_data(), st.sampled_from(LEVELS), st.sampled_from([Fraction(1, 2), 100_000, 1]))
def test_alpha_lookup_path_equals_sorting_path(rows, level, step):
    """Whole-number ratings in a small span are counted through a lookup
    table; fractional or widely spread ratings are sorted (np.unique): both
    give the value of the pairwise definition."""
    scaled = [[None if v is None else v * step for v in row] for row in rows]
    arr = np.array([[np.nan if v is None else float(v) for v in row] for row in scaled], dtype=float)
    assert _same(krippendorff_alpha(arr, level).value, _alpha_by_pairs(scaled, level))


def test_alpha_equals_the_krippendorff_package():
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(7)
    data = np.clip(rng.integers(1, 6, size=(500, 1)) + rng.integers(-1, 2, size=(500, 4)), 1, 5).astype(float)
    data[rng.random(data.shape) < 0.15] = np.nan
    for level in LEVELS:
        ours = krippendorff_alpha(data, level).value
        theirs = krippendorff.alpha(reliability_data=data.T, level_of_measurement=level)
        assert abs(ours - theirs) <= 1e-9, level
