"""Bias checks (reviewer.core.judging.judge_bias): length, self-preference,
and a pairwise judge's accuracy over both orders; `reviewer alignment --bias`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.judge_bias import both_orders, length_bias, score_length, self_preference
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.core.models import Item, Prompt
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_length_shares_by_hand():
    lengths = {"a": (10, 20), "b": (30, 5), "c": (7, 7), "d": (1, 2), "e": (9, 3)}
    judge = {"a": "2", "b": "1", "c": "1", "d": "2", "e": "tie"}
    people = {"a": "2", "b": "2", "c": "1", "d": "1", "e": "1"}
    r = length_bias(judge, people, lengths)
    # c: equal lengths; e: the judge tied -> left out; a, b, d: judge picked the longer 3 times, people once (a)
    assert (r.n, r.judge_hits, r.people_hits) == (3, 3, 1)
    assert r.judge_ci.method == "Clopper-Pearson"  # 3 of 3: exact at the boundary
    assert "too few" in r.difference_ci.note


def test_self_preference_flags_a_judge_favouring_its_own_model():
    rng = np.random.default_rng(1)
    judge, people, models = {}, {}, {}
    for i in range(150):
        own = "1" if i % 2 else "2"
        other = "2" if own == "1" else "1"
        models[f"p{i}"] = ("judge-model", "rival") if own == "1" else ("rival", "judge-model")
        people[f"p{i}"] = own if rng.random() < 0.5 else other  # people: no preference
        judge[f"p{i}"] = own if rng.random() < 0.8 else other  # the judge: its own answer 80 %
    r = self_preference("judge-model", judge, people, models, n_resamples=1000)
    assert r.n == 150 and r.flagged and r.judge_share > 0.7 and 0.35 < r.people_share < 0.65
    fair = {s: people[s] for s in people}
    assert not self_preference("judge-model", fair, people, models, n_resamples=1000).flagged
    # pairs where both or neither answer is the judge's model do not count
    both = {s: ("judge-model", "judge-model") for s in models}
    assert self_preference("judge-model", judge, people, both).n == 0


def test_both_orders_by_hand():
    people = {"a": "1", "b": "2", "c": "1", "d": "2"}
    ab = {"a": "1", "b": "2", "c": "2", "d": None}
    ba = {"a": "1", "b": "1", "c": "2", "d": "2"}
    r = both_orders(ab, ba, people)
    # a right both; b right in ab; c wrong both (consistent); d right in ba
    assert (r.n, r.correct_both, r.correct_either, r.consistent, r.consistent_right) == (4, 1, 3, 2, 1)
    assert r.swap_accuracy == pytest.approx((1 + 0.5 + 0 + 0.5) / 4)


def test_score_against_length():
    lengths = {f"s{i}": i * 10 for i in range(10)}
    judge = {f"s{i}": float(1 + i // 2) for i in range(10)}
    people = {f"s{i}": float(5 - i // 2) for i in range(10)}
    r = score_length(judge, people, lengths)
    assert r.n == 10 and r.judge_rho > 0.9 and r.people_rho < -0.9


def test_self_preference_on_a_constructed_project(tmp_path):
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    prompt_id, _ = repo_items.upsert_prompt(p, Prompt(name="q"))
    rng = np.random.default_rng(4)
    for i in range(80):
        item_id, _ = repo_items.upsert_item(p, Item(name=f"q{i}", kind="text", text=f"question {i}"))
        a = repo_runs.add_run(p, item_id, prompt_id, "gpt-x", f"answer by x {i}")
        b = repo_runs.add_run(p, item_id, prompt_id, "other", f"answer by other {i}")
        ids = [a[0], b[0]]
        people = "1" if rng.random() < 0.5 else "2"
        judged = "1" if rng.random() < 0.85 else "2"
        for judge, value, method, model in (
            ("gold", people, Method.HUMAN, None),
            ("j", judged, Method.RUBRIC, "gpt-x"),
        ):
            judging.add_verdict(
                p,
                Verdict(
                    subject=f"pair:{ids[0]}:{ids[1]}",
                    run_id=ids[0],
                    other_run_id=ids[1],
                    judge=judge,
                    judge_model=model,
                    method=method,
                    scale=Scale.WINNER,
                    scores={"winner": value},
                ),
            )
    p.close()
    out = invoke("alignment", db, "--bias", "--json", "--resamples", "500")
    assert out.exit_code == 0, out.output
    (b,) = json.loads(out.stdout)["bias"]
    (sp,) = b["self_preference"]
    assert sp["what"] == "own model's (gpt-x) answer wins" and sp["n"] == 80 and sp["flagged"]


@pytest.mark.shared_data
def test_length_check_on_pandalm(tmp_path):
    """PandaLM (../shared/data; skipped when absent): each judge's and people's
    shares of longer-answer wins, with intervals."""
    from tests.helpers.paths import shared

    folder = shared("pairwise-pandalm")
    db = tmp_path / "pandalm.db"
    assert invoke("import", db, folder, "--format", "pairwise-pandalm").exit_code == 0
    data = json.loads(invoke("alignment", db, "--bias", "--json", "--resamples", "1000").stdout)["bias"]
    by = {b["judge"]: b["length"] for b in data}
    gpt = by["gpt-3.5-turbo"]
    assert gpt["n"] == 843 and round(gpt["judge"]["share"], 3) == 0.620 and round(gpt["people"]["share"], 3) == 0.674
    assert gpt["judge"]["ci"]["method"] == "Wilson" and gpt["difference"]["ci"]["high"] < 0
    assert by["pandalm-7b"]["difference"]["ci"]["low"] < 0 < by["pandalm-7b"]["difference"]["ci"]["high"]


@pytest.mark.shared_data
def test_both_orders_on_llmbar_natural(tmp_path):
    """LLMBar Natural: GPT-4/Vanilla's accuracy over both orders as LLMBar reports it."""
    from tests.helpers.paths import shared

    db = tmp_path / "llmbar.db"
    assert invoke("import", db, shared("pairwise-llmbar") / "Natural", "--format", "pairwise-llmbar").exit_code == 0
    data = json.loads(invoke("alignment", db, "--bias", "--json", "--resamples", "500").stdout)["bias"]
    gpt4 = next(b for b in data if b["judge"] == "GPT-4/Vanilla")["both_orders"]
    assert (gpt4["correct_both"]["hits"], gpt4["correct_either"]["hits"], gpt4["correct_both"]["n"]) == (93, 98, 100)
    assert gpt4["swap_accuracy"]["value"] == pytest.approx(0.955)
