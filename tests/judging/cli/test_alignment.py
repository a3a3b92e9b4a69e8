"""Alignment of judges with people (reviewer.core.judging.alignment), the
corrected pass rate (corrected_rate), the gate (validation_gate) and their
commands: `reviewer alignment`, `reviewer gate`, the report's section."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import beta

from reviewer.cli import main
from reviewer.core.judging.alignment import align, alignments, is_pass
from reviewer.core.judging.corrected_rate import corrected_pass_rate, rogan_gladen
from reviewer.core.judging.people import people_values
from reviewer.core.judging.splits import hash_split
from reviewer.core.judging.verdicts import Adjudication, Method, Scale, Verdict
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project

D = "quality"
#          run:1 ...                                  run:12
JUDGE = [5, 4, 4, 2, 1, 5, 3, 4, 2, 5, 1, 3]
PEOPLE = [5, 5, 2, 1, 1, 1, 3, 4, 4, 2, 2, 5]  # run:12's gold is 1, adjudicated to 5
UNLABELLED = [5, 4, 4, 1, 2, 5, 3, 4, 4, 1]  # run:13 ... run:22, 6 of 10 pass (>= 4)


def verdicts():
    out = []
    for i, (j, p) in enumerate(zip(JUDGE, PEOPLE), 1):
        out.append(
            Verdict(subject=f"run:{i}", judge="judge", method=Method.RUBRIC, scale=Scale.ORDINAL5, scores={D: j})
        )
        out.append(
            Verdict(
                subject=f"run:{i}",
                judge="gold",
                method=Method.HUMAN,
                scale=Scale.ORDINAL5,
                scores={D: 1 if i == 12 else p},
            )
        )
    for i, j in enumerate(UNLABELLED, 13):
        out.append(
            Verdict(subject=f"run:{i}", judge="judge", method=Method.RUBRIC, scale=Scale.ORDINAL5, scores={D: j})
        )
    return out


ADJ = [Adjudication(subject="run:12", dimension=D, value=5, reviewer="r")]


def test_alignment_by_hand():
    (a,) = alignments(verdicts(), ADJ, n_resamples=300)
    assert (a.judge, a.dimension, a.threshold) == ("judge", D, 4.0)
    assert a.people == {"gold": 11, "adjudicated": 1}
    f = a.figures("all")
    assert f.n == 12 and [s.split for s in a.splits] == ["all"]
    assert f.labels == ["1", "2", "3", "4", "5"]
    # rows judge, columns people
    assert f.counts[4] == [1, 1, 0, 0, 1]  # judge 5: people 1 (run:6), 2 (run:10), 5 (run:1)
    assert f.counts[0] == [1, 1, 0, 0, 0]  # judge 1: people 1 (run:5), 2 (run:11)
    five = next(c for c in f.per_class if c.label == "5")
    # judge 5 on run:1, 6, 10; people 5 on run:1, 2, 12
    assert (five.precision, five.recall, five.f1, five.support) == (
        pytest.approx(1 / 3),
        pytest.approx(1 / 3),
        pytest.approx(1 / 3),
        3,
    )
    four = next(c for c in f.per_class if c.label == "4")  # judge 4 on run:2, 3, 8; people 4 on run:8, 9
    assert (four.precision, four.recall, four.f1) == (pytest.approx(1 / 3), 0.5, pytest.approx(0.4))
    assert f.mae == pytest.approx(16 / 12)
    assert (f.positives, f.negatives) == (5, 7)
    assert f.tpr == pytest.approx(3 / 5) and f.tnr == pytest.approx(4 / 7)
    assert [d.subject for d in f.dangerous] == ["run:3", "run:6", "run:10"]
    assert (f.dangerous[1].judge, f.dangerous[1].people) == ("5", "1")
    assert f.kappa_statistic == "cohen_kappa_weighted" and f.kappa_ci.low <= f.kappa <= f.kappa_ci.high
    assert f.spearman is not None and -1 <= f.spearman <= 1
    assert sorted(s for s, _ in a.unlabelled) == sorted(f"run:{i}" for i in range(13, 23))
    assert sum(p for _, p in a.unlabelled) == 6


def test_people_values_prefer_adjudicated_then_gold_then_majority():
    vs = [
        Verdict(subject="s", judge=f"annotator{i}", method=Method.HUMAN, scale=Scale.PASS_FAIL, scores={"ok": x})
        for i, x in enumerate(["pass", "fail", "fail"], 1)
    ]
    assert people_values(vs)[("s", "ok")][:2] == ("fail", "majority")
    vs.append(Verdict(subject="s", judge="gold", method=Method.HUMAN, scale=Scale.PASS_FAIL, scores={"ok": "pass"}))
    assert people_values(vs)[("s", "ok")][:2] == ("pass", "gold")
    adj = [Adjudication(subject="s", dimension="ok", value="fail", reviewer="r")]
    assert people_values(vs, adj)[("s", "ok")][:2] == ("fail", "adjudicated")


def test_thresholds_and_dangerous_cells_per_scale():
    assert is_pass(80.0, Scale.GRADE) and not is_pass(60.0, Scale.GRADE)
    assert is_pass(70.0, Scale.PERCENT) and not is_pass(69.0, Scale.PERCENT)
    assert is_pass("pass", Scale.PASS_FAIL) and is_pass("1", Scale.WINNER) is None
    people = {"a": ("fail", "gold"), "b": ("pass", "gold"), "c": ("fail", "gold")}
    a = align("j", "ok", Scale.PASS_FAIL, {"a": "pass", "b": "pass", "c": "fail"}, people, n_resamples=200)
    f = a.figures()
    assert [d.subject for d in f.dangerous] == ["a"] and f.tpr == 1.0 and f.tnr == 0.5
    # a threshold per dimension moves the pass mark: 3 passes now
    (strict,) = alignments(verdicts(), ADJ, thresholds={D: 3.0}, n_resamples=200)
    assert strict.threshold == 3.0 and strict.figures().positives == 6


def test_results_per_split():
    split = {f"run:{i}": ("train" if i <= 3 else "dev" if i <= 6 else "test") for i in range(1, 23)}
    (a,) = alignments(verdicts(), ADJ, split_of=split.__getitem__, n_resamples=200)
    assert [(f.split, f.n) for f in a.splits] == [("all", 12), ("train", 3), ("dev", 3), ("test", 6)]
    assert [d.subject for d in a.figures("dev").dangerous] == ["run:6"]
    assert {s for s, sp, _, _ in a.labelled if sp == "test"} == {f"run:{i}" for i in range(7, 13)}


def test_hash_split_is_stable_as_labels_arrive():
    first = {f"run:{i}": hash_split(f"run:{i}", seed=3) for i in range(1000)}
    more = {f"run:{i}": hash_split(f"run:{i}", seed=3) for i in range(2000)}
    assert all(more[s] == first[s] for s in first)
    shares = {name: sum(1 for v in more.values() if v == name) / len(more) for name in ("train", "dev", "test")}
    assert shares["train"] == pytest.approx(0.2, abs=0.03) and shares["test"] == pytest.approx(0.4, abs=0.04)
    assert sum(hash_split(f"run:{i}", seed=4) != first[f"run:{i}"] for i in range(1000)) > 300
    with pytest.raises(ValueError):
        hash_split("x", shares=(0.5, 0.5, 0.5))


# ---------------------------------------------------------------------------
# corrected pass rate


def test_corrected_pass_rate_by_hand():
    # people pass 40: the judge passes 36 (TPR .9); people fail 60: the judge fails 48 (TNR .8)
    labelled = [(True, True)] * 36 + [(False, True)] * 4 + [(False, False)] * 48 + [(True, False)] * 12
    unlabelled = [True] * 50 + [False] * 50  # p_obs .5
    c = corrected_pass_rate(labelled, unlabelled, n_resamples=500)
    assert (c.tpr, c.tnr, c.observed) == (pytest.approx(0.9), pytest.approx(0.8), 0.5)
    assert c.rate == pytest.approx((0.5 + 0.8 - 1) / (0.9 + 0.8 - 1)) == pytest.approx(3 / 7)
    assert c.interval.low < c.rate < c.interval.high and c.interval.method in ("BCa", "percentile")
    assert (c.labelled, c.positives, c.negatives, c.unlabelled) == (100, 40, 60, 100)
    assert rogan_gladen(0.95, 0.9, 0.8) == 1.0  # 1.071 clipped


def test_corrected_pass_rate_says_when_it_is_undefined():
    chance = [(True, True), (False, True), (True, False), (False, False)]  # TPR .5 + TNR .5 = 1
    c = corrected_pass_rate(chance, [True, False], n_resamples=200)
    assert c.rate is None and "TPR + TNR = 1.000 <= 1" in c.note and not c.interval.defined
    assert "no unlabelled" in corrected_pass_rate(chance, []).note
    assert "no labelled subject that people fail" in corrected_pass_rate([(True, True)], [True]).note


def test_corrected_pass_rate_interval_covers_the_true_rate():
    """Simulated judge (TPR .85, TNR .9), true pass rate .3: 300 labelled and
    1,000 unlabelled subjects per run; the 95 % interval covers .3 in most of
    100 runs."""
    rng = np.random.default_rng(8)
    theta, tpr, tnr = 0.3, 0.85, 0.9

    def judge(truth):
        return np.where(truth, rng.random(truth.size) < tpr, rng.random(truth.size) >= tnr)

    hits = 0
    for i in range(100):
        people = rng.random(300) < theta
        labelled = list(zip(judge(people), people))
        unlabelled = list(judge(rng.random(1000) < theta))
        c = corrected_pass_rate(labelled, unlabelled, n_resamples=400, seed=i)
        hits += c.interval.low <= theta <= c.interval.high
    assert 0.88 <= hits / 100 <= 1.0, hits


# ---------------------------------------------------------------------------
# commands


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "v.db"
    p = open_project(path, create=True)
    for v in verdicts():
        judging.add_verdict(p, v)
    for a in ADJ:
        judging.put_adjudication(p, a)
    p.close()
    return path


GATE = ("--judge", "judge", "--dimension", D, "--resamples", "300", "--min-labelled", "5")


def test_gate_exits_0_when_the_bounds_hold(db):
    out = invoke(
        "gate", db, *GATE, "--min-tpr", "0.05", "--min-tnr", "0.1", "--max-dangerous", "3", "--min-kappa-lower", "-1"
    )
    assert out.exit_code == 0, out.output
    lower = beta.ppf(0.05 / 3 / 2, 3, 5 - 3 + 1)  # two-sided Clopper-Pearson at 1 - 0.05/3
    assert f"held: --min-tpr 0.05: TPR Clopper-Pearson 98.33 % lower bound (3 of 5 passed by people) {lower:.3f}" in (
        out.output
    )
    # three interval bounds share alpha 0.05: each Clopper-Pearson / bootstrap interval at 98.33 %
    assert "family alpha 0.05 over 3 interval bound(s) (Bonferroni): each interval at 98.33 %" in out.output
    assert "held: --min-tpr 0.6:" not in out.output  # 3 of 5: the exact lower bound is far below 0.6
    assert "held: --max-dangerous 3: dangerous cells 3 <= 3" in out.output
    assert "held: --min-kappa-lower -1" in out.output and "gate passed" in out.output


@pytest.mark.parametrize(
    "option, value, named",
    [
        (
            "--min-tpr",
            "0.6",
            "--min-tpr 0.6: TPR Clopper-Pearson 95 % lower bound (3 of 5 passed by people) 0.147 < 0.6",
        ),
        (
            "--min-tnr",
            "0.5",
            "--min-tnr 0.5: TNR Clopper-Pearson 95 % lower bound (4 of 7 failed by people) 0.184 < 0.5",
        ),
        ("--max-dangerous", "2", "--max-dangerous 2: dangerous cells 3 > 2"),
        ("--min-kappa-lower", "0.9", "--min-kappa-lower 0.9: cohen_kappa_weighted 95 % lower bound"),
    ],
)
def test_gate_exits_1_naming_each_failed_bound(db, option, value, named):
    other = ("--max-dangerous", "10") if option != "--max-dangerous" else ("--min-tpr", "0.01")
    out = invoke("gate", db, *GATE, option, value, *other)
    assert out.exit_code == 1
    assert f"Error: failed {named}" in out.output
    assert f"held: {other[0]} {other[1]}" in out.output and "gate passed" not in out.output


def test_gate_names_every_failed_bound_at_once(db):
    out = invoke("gate", db, *GATE, "--min-tpr", "0.9", "--min-tnr", "0.9", "--max-dangerous", "0")
    assert out.exit_code == 1
    assert [line.split(":")[1].split()[1] for line in out.output.splitlines() if line.startswith("Error")] == [
        "--min-tpr",
        "--min-tnr",
        "--max-dangerous",
    ]


def test_gate_refuses_unknown_judges_and_no_bounds(db):
    out = invoke("gate", db, "--judge", "nobody", "--dimension", D, "--min-tpr", "0.5")
    assert out.exit_code == 2 and "no alignment of judge 'nobody'" in out.output and "judge / quality" in out.output
    out = invoke("gate", db, *GATE)
    assert out.exit_code == 2 and "give at least one bound" in out.output
    for option, value in (
        ("--family-alpha", "nan"),
        ("--family-alpha", "inf"),
        ("--family-alpha", "0"),
        ("--min-labelled", "0"),
    ):
        out = invoke("gate", db, *GATE, "--min-tpr", "0.5", option, value)
        assert out.exit_code == 2 and option in out.output, (option, value, out.output)


def test_gate_refuses_on_fewer_labelled_subjects_than_min_labelled(db):
    out = invoke("gate", db, "--judge", "judge", "--dimension", D, "--resamples", "300", "--min-kappa-lower", "-1")
    assert out.exit_code == 3
    (line,) = [x for x in out.output.splitlines() if x.strip()]
    assert re.fullmatch(
        r"Error: 12 labelled subjects, fewer than --min-labelled 30; the budget asks for \d+ more for a half-width <= 0.1",
        line,
    ), line


def test_alignment_json_and_text(db):
    out = invoke("alignment", db, "--json", "--resamples", "300")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    (a,) = data["alignments"]
    assert a["judge"] == "judge" and a["scale"] == "1-5" and a["pass_threshold"] == 4.0
    first = a["splits"][0]
    assert first["split"] == "all" and first["tpr"]["value"] == pytest.approx(0.6)
    assert [d["subject"] for d in first["dangerous"]] == ["run:3", "run:6", "run:10"]
    assert {"rate", "ci_low", "ci_high", "ci_method", "note", "observed"} <= set(a["corrected_pass_rate"])
    assert a["corrected_pass_rate"]["observed"] == pytest.approx(0.6)
    assert data["rates_from"] == "test"
    text = invoke("alignment", db, "--resamples", "300").output
    assert "judge / quality" in text and "dangerous: run:3 (judge 4, people 2)" in text
    assert "corrected pass rate" in text


def test_report_shows_intervals_and_alignment(db):
    out = invoke("report", db)
    assert out.exit_code == 0, out.output
    assert "## Alignment with people" in out.output
    assert "| raters | dimension | statistic | value | 95 % CI | strength | n | prevalence | note |" in out.output
    assert "BCa" in out.output or "percentile" in out.output


@pytest.mark.shared_data
def test_gate_on_llmbar_gold_labels(tmp_path):
    """The README's validation on real data: LLMBar Natural against its gold
    labels (../shared/data; skipped when absent)."""
    from tests.helpers.paths import shared

    folder = shared("pairwise-llmbar")
    db = tmp_path / "llmbar.db"
    assert invoke("import", db, folder, "--format", "pairwise-llmbar").exit_code == 0
    out = invoke("gate", db, "--judge", "GPT-4/Vanilla", "--dimension", "winner", "--min-kappa-lower", "0.7")
    assert out.exit_code == 0 and "95 % lower bound (BCa, n = 100) 0.760 >= 0.7" in out.output, out.output
    out = invoke("gate", db, "--judge", "ChatGPT/CoT", "--dimension", "winner", "--min-kappa-lower", "0.7")
    assert out.exit_code == 1 and "95 % lower bound (BCa, n = 99) 0.260 < 0.7" in out.output, out.output
    data = json.loads(invoke("agreement", db, "--json").output)
    row = next(r for r in data["agreement"] if r["raters"] == "ChatGPT/CoT vs gold" and r["statistic"] == "cohen_kappa")
    assert (round(row["value"], 3), round(row["ci_low"], 3), round(row["ci_high"], 3)) == (0.434, 0.26, 0.589)


def test_a_perfect_tpr_gets_an_exact_interval_below_1_and_kappa_on_four_says_too_few():
    subjects = [f"run:{i}" for i in range(20)]
    judge = {s: "pass" for s in subjects[:17]} | {s: "fail" for s in subjects[17:]}
    people = {s: (v, "majority") for s, v in judge.items()}
    f = align("j", "ok", Scale.PASS_FAIL, judge, people, n_resamples=200).figures()
    assert f.tpr == 1.0 and f.tpr_ci.method == "Clopper-Pearson"
    assert f.tpr_ci.low == pytest.approx(0.025 ** (1 / 17)) and f.tpr_ci.low < 1
    four = {s: judge[s] for s in subjects[15:19]}
    g = align("j", "ok", Scale.PASS_FAIL, four, {s: people[s] for s in four}, n_resamples=200).figures()
    assert not g.kappa_ci.defined and g.kappa_ci.formatted() == "too few"
