"""Two judges compared on the same subjects (reviewer.core.judging.judge_compare):
McNemar's exact p pinned against statsmodels, the paired bootstrap of the
difference in kappa and accuracy, and `reviewer alignment --compare`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar

from reviewer.cli import main
from reviewer.core.judging.judge_compare import compare_judges, mcnemar_exact
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project

D = "preference"


def _constructed(n: int = 120, seed: int = 3):
    """People's winners, a weak judge (right ~65 %) and a strong one (~90 %)."""
    rng = np.random.default_rng(seed)
    people = rng.choice(["1", "2"], size=n)
    flip = {"1": "2", "2": "1"}
    weak = [p if rng.random() < 0.65 else flip[p] for p in people]
    strong = [p if rng.random() < 0.9 else flip[p] for p in people]
    return [str(x) for x in people], weak, strong


@pytest.mark.parametrize("b,c", [(0, 0), (3, 9), (10, 2), (25, 31), (7, 7), (1, 0)])
def test_mcnemar_exact_equals_statsmodels(b, c):
    expected = 1.0 if b + c == 0 else mcnemar([[5, b], [c, 4]], exact=True).pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_comparison_pinned_against_statsmodels_and_sklearn():
    people, weak, strong = _constructed()
    subjects = [f"s{i}" for i in range(len(people))]
    c = compare_judges(
        "weak",
        "strong",
        D,
        Scale.WINNER,
        dict(zip(subjects, weak)),
        dict(zip(subjects, strong)),
        dict(zip(subjects, people)),
        n_resamples=1000,
    )
    assert c.n == len(people)
    right_weak = np.array(weak) == np.array(people)
    right_strong = np.array(strong) == np.array(people)
    table = [
        [int(np.sum(right_weak & right_strong)), int(np.sum(right_weak & ~right_strong))],
        [int(np.sum(~right_weak & right_strong)), int(np.sum(~right_weak & ~right_strong))],
    ]
    assert (c.only_first, c.only_second) == (table[0][1], table[1][0])
    assert c.p == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    k_weak, k_strong = cohen_kappa_score(weak, people), cohen_kappa_score(strong, people)
    assert c.kappa_first == pytest.approx(k_weak) and c.kappa_second == pytest.approx(k_strong)
    assert c.delta_kappa == pytest.approx(k_strong - k_weak)
    assert c.delta_accuracy == pytest.approx(right_strong.mean() - right_weak.mean())
    # the paired bootstrap: the interval holds the estimate and, on these data, lies above 0
    iv = c.delta_kappa_ci
    assert iv.method in ("BCa", "percentile") and iv.low < c.delta_kappa < iv.high
    assert iv.low > 0
    assert c.sentence().startswith("strong agrees with people more than weak (Δκ +")
    assert f"n = {len(people)})" in c.sentence()
    # the reverse order says less
    r = compare_judges(
        "strong",
        "weak",
        D,
        Scale.WINNER,
        dict(zip(subjects, strong)),
        dict(zip(subjects, weak)),
        dict(zip(subjects, people)),
        n_resamples=1000,
    )
    assert r.delta_kappa == pytest.approx(-c.delta_kappa) and "less than" in r.sentence()


def test_paired_interval_is_narrower_than_unpaired_resampling():
    """Pairing: resampling subjects with both judges' values keeps their
    shared difficulty; the paired interval of the difference in accuracy is
    the bootstrap of per-subject differences (checked by hand here)."""
    people, weak, strong = _constructed(200, seed=5)
    subjects = [f"s{i}" for i in range(len(people))]
    c = compare_judges(
        "a",
        "b",
        D,
        Scale.WINNER,
        dict(zip(subjects, weak)),
        dict(zip(subjects, strong)),
        dict(zip(subjects, people)),
        n_resamples=2000,
    )
    d = (np.array(strong) == np.array(people)).astype(float) - (np.array(weak) == np.array(people)).astype(float)
    rng = np.random.default_rng(0)
    boots = d[rng.integers(0, d.size, size=(4000, d.size))].mean(axis=1)
    low, high = np.quantile(boots, [0.025, 0.975])
    assert c.delta_accuracy_ci.low == pytest.approx(low, abs=0.02)
    assert c.delta_accuracy_ci.high == pytest.approx(high, abs=0.02)


def test_no_difference_shown_when_judges_are_alike():
    people, weak, _ = _constructed(60, seed=9)
    subjects = [f"s{i}" for i in range(len(people))]
    values = dict(zip(subjects, weak))
    c = compare_judges("a", "b", D, Scale.WINNER, values, dict(values), dict(zip(subjects, people)))
    assert c.only_first == c.only_second == 0 and c.p == 1.0
    assert "no difference shown" in c.sentence()


def test_no_shared_subject_is_one_clear_error():
    with pytest.raises(ValueError, match="no subject"):
        compare_judges("a", "b", D, Scale.WINNER, {"x": "1"}, {"y": "1"}, {"x": "1", "y": "2"})


@pytest.fixture
def db(tmp_path):
    people, weak, strong = _constructed()
    path = tmp_path / "p.db"
    p = open_project(path, create=True)
    for i, (h, w, s) in enumerate(zip(people, weak, strong)):
        subject = f"pair:{i}"
        for judge, value, method in (
            ("gold", h, Method.HUMAN),
            ("weak", w, Method.RUBRIC),
            ("strong", s, Method.RUBRIC),
        ):
            judging.add_verdict(
                p, Verdict(subject=subject, judge=judge, method=method, scale=Scale.WINNER, scores={D: value})
            )
    p.close()
    return path


def test_alignment_compare_command(db):
    r = CliRunner().invoke(main, ["alignment", str(db), "--compare", "weak,strong", "--resamples", "500"])
    assert r.exit_code == 0, r.output
    assert "McNemar exact" in r.output and "strong agrees with people more than weak" in r.output
    r = CliRunner().invoke(main, ["alignment", str(db), "--compare", "weak,strong", "--json", "--resamples", "500"])
    (c,) = json.loads(r.output)["comparisons"]
    assert c["n"] == 120 and c["mcnemar"]["method"] == "exact (binomial)"
    assert c["delta_kappa"]["resampled"] == "subjects"
    r = CliRunner().invoke(main, ["alignment", str(db), "--compare", "weak,nobody"])
    assert r.exit_code == 1 and "no judge 'nobody' (judges: strong, weak)" in r.output
    r = CliRunner().invoke(main, ["alignment", str(db), "--compare", "weak"])
    assert r.exit_code == 2
