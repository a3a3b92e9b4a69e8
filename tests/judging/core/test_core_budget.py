"""reviewer.core.judging.budget: labels still needed for a 95 % interval of
half-width <= 0.1 on kappa (Fleiss-Cohen-Everitt), TPR and TNR (Wilson),
checked against a simulation from the current labels."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from reviewer.core.judging.bounds import kappa_fce, wilson_half_width
from reviewer.core.judging.budget import (
    binary_table,
    kappa_budget,
    label_budget,
    labelling_order,
    rate_budget,
    simulate_budget,
)

Z = stats.norm.ppf(0.975)


def _from_table(cells):
    """judge and human values from {(judge, human): count}."""
    judge, human = [], []
    for (j, h), count in cells.items():
        judge += [j] * count
        human += [h] * count
    return judge, human


CASES = {
    # 40 labels, balanced classes, kappa 0.6
    "balanced": (
        _from_table({("pass", "pass"): 16, ("pass", "fail"): 4, ("fail", "pass"): 4, ("fail", "fail"): 16}),
        {},
    ),
    # 50 labels, people pass 30 %, a judge strict on passes
    "rare passes": (
        _from_table({("pass", "pass"): 12, ("pass", "fail"): 4, ("fail", "pass"): 3, ("fail", "fail"): 31}),
        {},
    ),
    # 60 labels on a 1-5 scale, linearly weighted kappa, pass = 4 or 5
    "ordinal": (
        _from_table(
            {
                (5, 5): 5,
                (5, 4): 3,
                (5, 3): 1,
                (4, 5): 3,
                (4, 4): 7,
                (4, 3): 4,
                (3, 5): 1,
                (3, 4): 4,
                (3, 3): 8,
                (3, 2): 4,
                (2, 4): 1,
                (2, 3): 3,
                (2, 2): 5,
                (2, 1): 3,
                (1, 3): 1,
                (1, 2): 3,
                (1, 1): 4,
            }
        ),
        {"weights": "linear", "positive": lambda s: s >= 4, "categories": [1, 2, 3, 4, 5]},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_analytic_budget_agrees_with_the_simulation(case):
    (judge, human), kwargs = CASES[case]
    budgets = label_budget(judge, human, **kwargs)
    for statistic in ("kappa", "tpr", "tnr"):
        b = budgets[statistic]
        simulated = simulate_budget(judge, human, statistic, seed=29, **kwargs)
        assert b.needed is not None and simulated is not None
        # the subjects needed in all; the further labels are these less the current ones
        assert abs(b.needed - simulated) <= 0.10 * simulated, (case, statistic, b.needed, simulated)
        assert b.further == max(0, b.needed - b.n)


def test_kappa_budget_is_the_smallest_n_with_half_width_at_most_h():
    (judge, human), _ = CASES["balanced"]
    b = label_budget(judge, human)["kappa"]
    est = kappa_fce(binary_table(judge, human))
    assert b.estimate == pytest.approx(est.kappa) and b.n == 40
    assert b.half_width == pytest.approx(Z * est.se)
    # half-width at the budget <= 0.1, one label fewer > 0.1
    assert Z * math.sqrt(est.unit_variance / b.needed) <= 0.1 < Z * math.sqrt(est.unit_variance / (b.needed - 1))
    assert b.further == b.needed - 40
    wider = kappa_budget(binary_table(judge, human), half_width=0.2)
    assert wider.needed == pytest.approx(b.needed / 4, abs=1)  # n scales with 1 / h²


def test_rate_budget_by_hand():
    # TPR 16/20 with 20 positives among 50 labels (prevalence 0.4)
    b = rate_budget(16, 20, 50, "tpr")
    m = next(m for m in range(1, 10_000) if wilson_half_width(0.8, m) <= 0.1)
    assert wilson_half_width(0.8, m - 1) > 0.1
    assert b.estimate == 0.8 and b.prevalence == 0.4
    assert b.needed == math.ceil(m / 0.4) and b.further == math.ceil((m - 20) / 0.4) == b.needed - 50
    assert b.half_width == pytest.approx(wilson_half_width(0.8, 20))
    # enough already: nothing further
    enough = rate_budget(90, 100, 120)  # enough already: nothing further
    assert enough.further == 0 and enough.needed < 120


def test_budget_cannot_be_told_without_the_class_or_with_one_category():
    judge, human = ["fail"] * 10, ["fail"] * 10
    budgets = label_budget(judge, human)
    assert budgets["tpr"].needed is None and "no labels of this class" in budgets["tpr"].note
    assert budgets["kappa"].needed is None and "undefined" in budgets["kappa"].note
    assert budgets["tnr"].needed is not None  # 10/10 negatives right: Wilson still has a width
    assert simulate_budget(judge, human, "tpr") is None
    # every label agrees, both classes present: the FCE variance is 0
    perfect = kappa_budget([[10, 0], [0, 10]])
    assert perfect.needed is None and "variance is 0" in perfect.note
    assert kappa_budget([[0, 0], [0, 0]]).note == "no labels yet"


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rate_budget(5, 4, 10), "0 <= k <= n_class <= n"),
        (lambda: rate_budget(1, 2, 3, half_width=0), "half-width"),
        (lambda: kappa_budget([[1, 2]]), "square"),
        (lambda: kappa_budget([[1, 2], [3, 4]], level=1.0), "level"),
        (lambda: simulate_budget(["pass"], ["pass"], "f1"), "statistic"),
        (lambda: simulate_budget(["pass"], ["pass"], n_sims=10), "n_sims"),
        (lambda: simulate_budget([], []), "no labels"),
        (lambda: binary_table(["pass"], []), "same length"),
    ],
)
def test_budget_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_budget_as_dict_is_plain():
    (judge, human), _ = CASES["rare passes"]
    d = label_budget(judge, human)["tpr"].as_dict()
    assert d["statistic"] == "tpr" and d["n_class"] == 15 and d["prevalence"] == pytest.approx(0.3)
    assert set(d) >= {"estimate", "half_width", "target", "level", "needed", "further", "note"}


def test_labelling_order_is_stratified_with_disagreements_and_low_confidence_first():
    # 60 'pass' subjects, 20 'fail'; budget 8 -> 6 pass, 2 fail
    subjects = [f"run:{i}" for i in range(80)]
    strata = ["pass"] * 60 + ["fail"] * 20
    confidence = [0.5 + i / 200 for i in range(60)] + [0.9] * 20
    disagreement = [i in (30, 70) for i in range(80)]
    order = labelling_order(subjects, strata, 8, disagreement=disagreement, confidence=confidence)
    assert len(order) == 8 and len(set(order)) == 8
    picked = {s: strata[subjects.index(s)] for s in order}
    assert sum(v == "pass" for v in picked.values()) == 6
    # within 'pass': the disagreement first, then the lowest confidences 0.5, 0.505, ...
    assert [s for s in order if picked[s] == "pass"] == ["run:30", "run:0", "run:1", "run:2", "run:3", "run:4"]
    assert [s for s in order if picked[s] == "fail"][0] == "run:70"
    # interleaved: the first four already hold both strata
    assert {picked[s] for s in order[:4]} == {"pass", "fail"}
    # never more than the budget, nor than the subjects
    assert labelling_order(subjects, strata, 0) == []
    assert len(labelling_order(subjects[:3], strata[:3], 10)) == 3


def test_labelling_order_ties_are_seeded_and_stable_as_subjects_arrive():
    subjects = [f"run:{i}" for i in range(40)]
    first = labelling_order(subjects, ["pass"] * 40, 40, seed=7)
    assert first == labelling_order(list(reversed(subjects)), ["pass"] * 40, 40, seed=7)
    assert first != labelling_order(subjects, ["pass"] * 40, 40, seed=8)
    more = labelling_order(subjects + ["run:99"], ["pass"] * 41, 41, seed=7)
    assert [s for s in more if s != "run:99"] == first  # a new subject does not reshuffle the others
    with pytest.raises(ValueError, match="unique"):
        labelling_order(["a", "a"], [1, 1], 1)
    with pytest.raises(ValueError, match="same length"):
        labelling_order(["a"], [1, 2], 1)


def test_undefined_figures_are_none_in_the_dict():
    d = label_budget(["fail"] * 10, ["fail"] * 10)["tpr"].as_dict()
    assert d["estimate"] is None and d["half_width"] is None and d["needed"] is None
