"""The active label-first order (reviewer.core.judging.active_order): an
explicit choice that draws disagreements and low confidence more often,
each subject with a stored seeded inclusion probability pi, and alignment
weighing its labels by 1 / pi (Horvitz-Thompson) so TPR and TNR estimate
what a fair sample would, where the unweighted labels are biased."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.active_order import draw_active, inclusion_probabilities, weights
from reviewer.core.judging.alignment import align
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project


def _world(n=3000, seed=1):
    """Truth, a judge right 85 % of the time, and a second judge that sides
    with the truth mostly: their disagreements hold most of the judge's errors."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.5
    judge = np.where(rng.random(n) < 0.85, truth, ~truth)
    other = np.where(rng.random(n) < 0.9, truth, ~truth)
    subjects = [f"run:{i}" for i in range(n)]
    return subjects, truth, judge, other


def test_inclusion_probabilities_sum_to_the_budget_and_never_exceed_one():
    pi = inclusion_probabilities([4, 4, 1, 1, 1, 1, 1, 1], 3)
    assert pi.sum() == pytest.approx(3) and pi.max() <= 1
    assert pi[0] == pi[1] > pi[2]
    capped = inclusion_probabilities([100, 1, 1, 1], 2)
    assert capped[0] == 1.0 and capped.sum() == pytest.approx(2)
    assert inclusion_probabilities([1, 2], 5).tolist() == [1.0, 1.0]


def test_weighted_labels_of_an_active_draw_estimate_what_a_fair_sample_would():
    subjects, truth, judge, other = _world()
    disagree = (judge != other).tolist()
    drawn = draw_active(subjects, disagree, [None] * len(subjects), 400, seed=3)
    assert drawn == draw_active(subjects, disagree, [None] * len(subjects), 400, seed=3)  # seeded
    took = [x for x in drawn if x.drawn]
    assert 330 < len(took) < 470  # about the budget
    share = np.mean([disagree[subjects.index(x.subject)] for x in took])
    assert share > 2 * np.mean(disagree)  # disagreements come much more often
    as_pf = {True: "pass", False: "fail"}
    judge_values = {s: as_pf[bool(judge[i])] for i, s in enumerate(subjects)}
    people = {x.subject: (as_pf[bool(truth[subjects.index(x.subject)])], "majority") for x in took}
    population_tpr = judge[truth].mean()
    plain = align("j", "ok", Scale.PASS_FAIL, judge_values, people, n_resamples=200).figures()
    weighted = align(
        "j",
        "ok",
        Scale.PASS_FAIL,
        judge_values,
        people,
        n_resamples=200,
        weights=weights({x.subject: x.inclusion for x in took}),
    ).figures()
    assert weighted.weighted and not plain.weighted
    assert abs(plain.tpr - population_tpr) > 0.08  # the unweighted labels are biased
    assert abs(weighted.tpr - population_tpr) < 0.05
    assert weighted.tpr_ci.method in ("BCa", "percentile") and weighted.tpr_ci.low < weighted.tpr < weighted.tpr_ci.high


def test_label_order_active_stores_its_draw_and_alignment_says_it_weighs(tmp_path):
    subjects, truth, judge, other = _world(n=800, seed=4)
    path = tmp_path / "a.db"
    p = open_project(path, create=True)
    for i, s in enumerate(subjects):
        for name, value in (("judge", judge[i]), ("other", other[i])):
            judging.add_verdict(
                p,
                Verdict(
                    subject=s,
                    judge=name,
                    method=Method.RUBRIC,
                    scale=Scale.PASS_FAIL,
                    scores={"ok": "pass" if value else "fail"},
                ),
            )
    p.close()
    runner = CliRunner()
    fair = [f"{'p' if truth[i] else 'f'}\nk\n" for i in range(len(subjects))]
    # a first fair batch sizes the budget
    out = runner.invoke(
        main, ["label", str(path), "--judge", "judge", "--reviewer", "bob", "--limit", "40"], input="".join(fair)
    )
    assert out.exit_code == 0
    p = open_project(path)
    stored_before = labels.inclusions(p, "judge", "ok", drawn_only=False)
    p.close()
    assert stored_before == {}
    out = runner.invoke(
        main,
        ["label", str(path), "--judge", "judge", "--reviewer", "ana", "--order", "active", "--limit", "1"],
        input="q\n",
    )
    p = open_project(path)
    drawn = labels.inclusions(p, "judge", "ok")
    stored = labels.inclusions(p, "judge", "ok", drawn_only=False)
    p.close()
    assert drawn and set(drawn) <= set(stored) and all(0 < x <= 1 for x in stored.values())
    walked = [line.split("] ", 1)[1] for line in out.output.splitlines() if line.startswith("[1/")]
    assert walked and walked[0] in drawn
    out = runner.invoke(
        main,
        ["label", str(path), "--judge", "judge", "--reviewer", "ana", "--order", "active", "--limit", "60"],
        input="p\nk\n" * 60,  # the values do not matter here: the draw, its storage and the weighting do
    )
    assert "60 subject(s) labelled by ana" in out.output
    assert len(drawn) < len(subjects)
    p = open_project(path)
    assert labels.inclusions(p, "judge", "ok", drawn_only=False) == stored  # set once, never changed
    p.close()
    data = json.loads(runner.invoke(main, ["alignment", str(path), "--json", "--resamples", "200"]).output)
    a = next(x for x in data["alignments"] if x["judge"] == "judge")
    assert a["splits"][0]["weighted"], (a["people"], out.output[-500:])
    assert "weighted 1/pi" in runner.invoke(main, ["alignment", str(path), "--resamples", "200"]).output


def test_a_project_from_before_the_active_draw_is_migrated_keeping_its_labels(tmp_path):
    import sqlite3

    path = tmp_path / "old.db"
    p = open_project(path, create=True)
    for i in range(12):
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{i}", judge="judge", method=Method.RUBRIC, scale=Scale.PASS_FAIL, scores={"ok": "pass"}
            ),
        )
    p.close()
    out = CliRunner().invoke(
        main, ["label", str(path), "--judge", "judge", "--reviewer", "bob", "--limit", "3"], input="p\nk\n" * 3
    )
    assert out.exit_code == 0
    con = sqlite3.connect(path)  # as the previous version wrote it: no label_inclusion, no record of 0025
    con.execute("DROP TABLE label_inclusion")
    con.execute("DELETE FROM _sqlite_migrations WHERE name = '0025_label_inclusion'")
    con.commit()
    before = con.execute("SELECT subject, first_value, final_value FROM human_labels ORDER BY id").fetchall()
    con.close()
    p = open_project(path)  # migrates
    try:
        assert labels.inclusions(p, "judge", "ok", drawn_only=False) == {}
        after = p.db.execute("SELECT subject, first_value, final_value FROM human_labels ORDER BY id").fetchall()
        assert after == before and len(after) == 3
    finally:
        p.close()
    out = CliRunner().invoke(
        main,
        ["label", str(path), "--judge", "judge", "--reviewer", "ana", "--order", "active", "--limit", "1"],
        input="q\n",
    )
    assert out.exit_code == 0
