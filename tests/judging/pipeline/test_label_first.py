"""Label first (reviewer.core.judging.label_first, anchoring, rubrics, the
label commands, reviewer.storage.judging.labels) and `reviewer label`: the fair
queue and its splits stay put as labels arrive, anchoring equals a hand
computation, a changed judge template makes its figures stale, and the
terminal flow shows no verdict before the first label is committed."""

from __future__ import annotations

import json
import re

import pytest
import sqlite_utils
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core import templates
from reviewer.core.commands import UndoStack
from reviewer.core.judging import llm_judges as lj
from reviewer.core.judging.label_first import DISPUTE, LABEL_FIRST, parse_label, queue_order, shown_order
from reviewer.core.judging.splits import hash_split
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.core.label_commands import CommitFirstLabel, SetFinalValue
from reviewer.core.models import Item, Prompt
from reviewer.pipeline.judge import JudgeOptions, plan
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.validation import alignment_json, project_alignments
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

D = "ok"


def invoke(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def add(p, subject, value, judge="judge", scale=Scale.PASS_FAIL, rep=1, **kw):
    judging.add_verdict(
        p,
        Verdict(
            subject=subject, judge=judge, method=Method.RUBRIC, scale=scale, scores={D: value}, repetition=rep, **kw
        ),
    )


def label(p, subject, first, final=None, reviewer="alice", queue=LABEL_FIRST, judge="judge", version=None, stack=None):
    store, stack = labels.LabelStore(p, reviewer), stack or UndoStack()
    stack.push(CommitFirstLabel(subject, D, first, reviewer, queue=queue, judge=judge, rubric_version=version), store)
    stack.push(SetFinalValue(subject, D, reviewer, final, queue=queue), store)
    return stack


# -- the fair queue ------------------------------------------------------------------------------
def test_queue_stratification_and_splits_are_stable_under_added_labels(tmp_path):
    p = open_project(tmp_path / "q.db", create=True)
    for i in range(1, 31):  # 10 fail, 20 pass
        add(p, f"run:{i}", "fail" if i % 3 == 0 else "pass")
    entries = labels.refresh_queue(p, "judge", D)
    assert len(entries) == 30
    assert sum(e.stratum == "fail" for e in entries) == 10
    assert all(e.split == hash_split(e.subject) for e in entries)
    order = [e.subject for e in labels.next_entries(p, "judge", D, "alice")]
    first_nine = order[:9]  # proportional: 3 fail, 6 pass in every prefix of 9
    strata = {e.subject: e.stratum for e in entries}
    assert sorted(strata[s] for s in first_nine) == ["fail"] * 3 + ["pass"] * 6
    # batch 1: label the first six in order
    for s in order[:6]:
        label(p, s, "pass", None)
    after = labels.refresh_queue(p, "judge", D)
    assert after == entries  # strata, splits and ranks unchanged
    assert [e.subject for e in labels.next_entries(p, "judge", D, "alice")] == order[6:]
    splits = labels.stored_splits(p)
    # the judge changes its mind on a queued subject and judges six more subjects
    add(p, order[0], "fail" if strata[order[0]] == "pass" else "pass", rep=2)
    for i in range(31, 37):
        add(p, f"run:{i}", "fail")
    grown = labels.refresh_queue(p, "judge", D)
    assert [e for e in grown if e.subject in strata] == entries  # old entries kept as drawn
    assert {e.subject for e in grown} - set(strata) == {f"run:{i}" for i in range(31, 37)}
    # batch 2: eight more labels; nothing drawn moves
    for s in [e.subject for e in labels.next_entries(p, "judge", D, "alice")][:8]:
        label(p, s, "fail", "fail")
    assert labels.refresh_queue(p, "judge", D) == grown
    assert {k: v for k, v in labels.stored_splits(p).items() if k in splits} == splits
    # alignment reads the fair sample's final values and the stored splits
    v = project_alignments(p, n_resamples=200)
    (a,) = v.items
    assert a.people == {"majority": 14}  # both batches' final values, one vote each
    assert {s: split for s, split, _, _ in a.labelled} == {
        s: splits.get(s) or hash_split(s) for s, _, _, _ in a.labelled
    }
    p.close()


def test_queue_order_is_proportional_and_deterministic():
    from reviewer.core.judging.label_first import draw

    entries = draw({f"s{i}": ("pass" if i < 6 else "fail") for i in range(9)}, seed=3)
    a, b = queue_order(entries), queue_order(list(reversed(entries)))
    assert [e.subject for e in a] == [e.subject for e in b]
    assert [e.stratum for e in a[:3]].count("fail") == 1


def test_pairwise_order_is_seeded_and_a_shown_winner_is_stored_in_the_original_order():
    orders = {shown_order(f"pair:{i}:{i + 1}", seed=0) for i in range(20)}
    assert orders == {"ab", "ba"}
    assert shown_order("pair:1:2", seed=5) == "ba"  # pinned: the order is a function of subject and seed
    assert {shown_order("pair:1:2", seed=s) for s in range(6)} == {"ab", "ba"}  # and the seed matters
    assert parse_label("a", Scale.WINNER, "ab") == "1" and parse_label("a", Scale.WINNER, "ba") == "2"
    assert parse_label("t", Scale.WINNER, "ba") == "tie" and parse_label("x", Scale.WINNER, "ab") is None
    assert parse_label("p", Scale.PASS_FAIL) == "pass" and parse_label("4", Scale.ORDINAL5) == 4.0


def test_label_commands_undo_and_redo(tmp_path):
    p = open_project(tmp_path / "c.db", create=True)
    store, stack = labels.LabelStore(p, "alice"), UndoStack()
    stack.push(CommitFirstLabel("run:1", D, "pass", "alice", judge="judge", rubric_version="v1"), store)
    got = store.get_label("run:1", D, "alice", LABEL_FIRST)
    assert (got.first_value, got.final_value, got.rubric_version) == ("pass", None, "v1") and got.first_at
    stack.push(SetFinalValue("run:1", D, "alice", "fail"), store)
    got = store.get_label("run:1", D, "alice", LABEL_FIRST)
    assert (got.first_value, got.final_value) == ("pass", "fail") and got.final_at >= got.first_at
    stack.undo(store)
    assert store.get_label("run:1", D, "alice", LABEL_FIRST).final_value is None
    stack.undo(store)
    assert store.get_label("run:1", D, "alice", LABEL_FIRST) is None
    stack.redo(store)
    stack.redo(store)
    assert store.get_label("run:1", D, "alice", LABEL_FIRST).final_value == "fail"
    with pytest.raises(KeyError):
        stack.push(SetFinalValue("run:2", D, "alice"), store)
    p.close()


# -- anchoring ----------------------------------------------------------------------------------
JUDGE = ["pass", "pass", "fail", "fail", "pass", "fail"]
FIRST = ["pass", "fail", "fail", "pass", "fail", "fail"]
FINAL = ["pass", "pass", "fail", "fail", "fail", "fail"]


@pytest.fixture
def anchored(tmp_path):
    path = tmp_path / "a.db"
    p = open_project(path, create=True)
    for i, (j, first, final) in enumerate(zip(JUDGE, FIRST, FINAL), 1):
        add(p, f"run:{i}", j)
        label(p, f"run:{i}", first, None if final == first else final)
    # made while settling a dispute, with the judge in view: kept apart
    label(p, "run:2", "pass", "pass", queue=DISPUTE)
    p.close()
    return path


def test_anchoring_equals_a_hand_computation(anchored):
    p = open_project(anchored)
    (a,), rows = labels.anchoring_figures(p, n_resamples=300)
    p.close()
    assert (a.reviewer, a.judge, a.dimension, a.n) == ("alice", "judge", D, 6)
    # by hand: first vs final agree on runs 1, 3, 5, 6; judge vs first on 1, 3, 6; judge vs final on all but 5
    assert a.value("first vs final") == pytest.approx(4 / 6)
    assert a.value("judge vs first") == pytest.approx(3 / 6)
    assert a.value("judge vs final") == pytest.approx(5 / 6)
    assert a.gap() == pytest.approx(1 / 3)
    # kappa: po - pe over 1 - pe; first and final pass 2 of 6 each, the judge 3 of 6
    assert a.value("first vs final", "cohen_kappa") == pytest.approx((4 / 6 - 5 / 9) / (1 - 5 / 9))
    assert a.value("judge vs first", "cohen_kappa") == pytest.approx(0.0)
    assert a.value("judge vs final", "cohen_kappa") == pytest.approx((5 / 6 - 0.5) / 0.5)
    assert all(r.ci_method for r in rows if r.statistic == "percent_agreement")


def test_agreement_reports_anchoring_per_reviewer(anchored):
    data = json.loads(invoke("agreement", anchored, "--json").output)
    (a,) = data["anchoring"]
    assert a["reviewer"] == "alice" and a["n"] == 6
    c = a["comparisons"]
    assert c["judge vs final"]["percent_agreement"]["value"] == pytest.approx(5 / 6)
    assert c["judge vs first"]["percent_agreement"]["value"] == pytest.approx(0.5)
    assert c["first vs final"]["cohen_kappa"]["value"] == pytest.approx(0.25)
    assert c["judge vs final"]["percent_agreement"]["ci_method"] == "Wilson"  # 5 of 6 independent subjects
    assert a["gap"]["percent_agreement"] == pytest.approx(1 / 3)
    text = invoke("agreement", anchored).output
    assert "Anchoring" in text and "judge vs first" in text and "alice" in text


def test_export_has_first_and_final_labels(anchored, tmp_path):
    out = tmp_path / "out.db"
    assert invoke("export", anchored, out).exit_code == 0
    rows = list(
        sqlite_utils.Database(out).query(
            "SELECT subject, queue, first_value, final_value, first_at, final_at, split FROM human_labels "
            "ORDER BY queue, subject"
        )
    )
    dispute = [r for r in rows if r["queue"] == DISPUTE]
    fair = [r for r in rows if r["queue"] == LABEL_FIRST]
    assert len(dispute) == 1 and len(fair) == 6
    assert [(r["first_value"], r["final_value"]) for r in fair] == list(zip(FIRST, FINAL))
    assert all(r["first_at"] and r["final_at"] for r in fair)
    described = {(r["table"], r["column"]) for r in sqlite_utils.Database(out)["_columns"].rows if r["description"]}
    cols = [c.name for c in sqlite_utils.Database(out)["human_labels"].columns]
    assert {("human_labels", c) for c in cols} <= described


# -- versioned rubrics ---------------------------------------------------------------------------
def _tarot_project(path):
    p = open_project(path, create=True)
    item_id, _ = repo_items.upsert_item(p, Item(name="q1", kind="text", text="Will it rain?"))
    prompt_id, _ = repo_items.upsert_prompt(p, Prompt(name="tarot-reading", text="read"))
    for model in ("m1", "m2"):
        repo_runs.add_run(p, item_id, prompt_id, model, f"reading by {model}")
    return p


def _judge(p, rep, value):
    asks = plan(p, JudgeOptions(kind="tarot-rubric", model="jm"))
    for ask in asks:
        v = ask.verdict.model_copy(update={"repetition": rep, "scores": {d: value for d in lj.TAROT_DIMENSIONS}})
        judging.add_verdict(p, v)
    return asks[0].verdict.prompt_version


def test_changing_a_judge_template_marks_its_comparison_stale(tmp_path, monkeypatch):
    p = _tarot_project(tmp_path / "t.db")
    v1 = _judge(p, 1, 4.0)
    assert v1.startswith(lj.TAROT + "@")
    subjects = sorted({v.subject for v in judging.verdicts(p)})
    for dim in ("tone", "safety"):
        for s in subjects:
            store = labels.LabelStore(p, "alice")
            CommitFirstLabel(s, dim, 4, "alice", judge="tarot-rubric/jm", rubric_version=v1).do(store)
            SetFinalValue(s, dim, "alice").do(store)
    assert not any(st.stale for st in labels.stale_figures(p))
    real = templates.load

    def edited(folder, name):
        text = real(folder, name)
        return text + "\nBe stricter about tone." if (folder, name) == (lj.TAROT, "system.md") else text

    monkeypatch.setattr(templates, "load", edited)
    v2 = _judge(p, 2, 2.0)
    assert v2 != v1 and v2.startswith(lj.TAROT + "@")
    stale = {st.dimension: st for st in labels.stale_figures(p)}
    assert set(stale) == {"safety", "tone"} and all(st.stale and st.needs_labels for st in stale.values())
    assert stale["tone"].version == v2 and stale["tone"].labels_apply == []
    # a new label under the new rubric still applies
    store = labels.LabelStore(p, "bob")
    CommitFirstLabel(subjects[0], "tone", 2, "bob", judge="tarot-rubric/jm", rubric_version=v2).do(store)
    tone = next(st for st in labels.stale_figures(p) if st.dimension == "tone")
    assert tone.labels_apply == [(subjects[0], "bob")] and len(tone.old_labels) == 2
    v = project_alignments(p, n_resamples=200)
    data = alignment_json(v)
    marked = {a["dimension"]: a["stale"] for a in data["alignments"] if a["stale"]}
    assert set(marked) == {"safety", "tone"} and marked["tone"]["needs_labels_again"]
    p.close()
    text = invoke("agreement", tmp_path / "t.db").output
    assert re.search(r"STALE tarot-rubric/jm / safety .*'safety' needs labels again", text)
    still = r"STALE tarot-rubric/jm / tone .*labels that still apply: " + re.escape(f"{subjects[0]} (bob)")
    assert re.search(still, text)


# -- the terminal flow -----------------------------------------------------------------------------
SECRETS = ("87", "13", "gpt-secret", "judge-x", "RATIONALE-TEXT", "Verdicts")


@pytest.fixture
def runs_db(tmp_path):
    path = tmp_path / "l.db"
    p = open_project(path, create=True)
    item_id, _ = repo_items.upsert_item(p, Item(name="poem", kind="text", text="Write a poem about rain."))
    prompt_id, _ = repo_items.upsert_prompt(p, Prompt(name="write", text="Write"))
    for model, value in (("writer-a", 87), ("writer-b", 13)):
        run_id, _ = repo_runs.add_run(p, item_id, prompt_id, model, f"Drops on the roof, says {model[-1]}.")
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{run_id}",
                run_id=run_id,
                judge="judge-x/gpt-secret",
                judge_model="gpt-secret",
                prompt_version="rubric-v9",
                method=Method.RUBRIC,
                scale=Scale.PERCENT,
                scores={D: value},
                rationale="RATIONALE-TEXT",
            ),
        )
    p.close()
    return path


def test_label_flow_shows_no_verdict_before_the_first_label(runs_db):
    out = invoke("label", runs_db, "--judge", "judge-x/gpt-secret", "--reviewer", "carol", input="50\nk\n20\nc\n30\n")
    assert out.exit_code == 0, out.output
    blocks = re.split(r"\n\[\d/2\] ", out.output)[1:]
    assert len(blocks) == 2
    for block in blocks:
        before, after = block.split("first label committed", 1)
        assert "Write a poem about rain." in before and "Drops on the roof" in before
        assert "writer-" not in before  # no model name of the outputs either
        for secret in SECRETS:
            assert secret not in before, secret
        assert "gpt-secret" in after and "RATIONALE-TEXT" in after and "Verdicts" in after
        mine = "87" if "says a." in before else "13"  # the block's own run's verdict, not the other's
        assert mine in after and ({"87", "13"} - {mine}).pop() not in after
    p = open_project(runs_db)
    got = sorted((x.first_value, x.final_value, x.rubric_version, x.reviewer) for x in labels.labels(p))
    p.close()
    assert got == [(20.0, 30.0, "rubric-v9", "carol"), (50.0, 50.0, "rubric-v9", "carol")]
    again = invoke("label", runs_db, "--judge", "judge-x/gpt-secret", "--reviewer", "carol")
    assert "nothing to label" in again.output


def test_label_flow_quits_keeping_what_was_committed(runs_db):
    out = invoke("label", runs_db, "--judge", "judge-x/gpt-secret", "--reviewer", "dan", input="nope\n70\nq\n")
    assert "not a value here" in out.output
    p = open_project(runs_db)
    (x,) = labels.labels(p)
    p.close()
    assert (x.first_value, x.final_value) == (70.0, None)
    bad = invoke("label", runs_db, "--judge", "nobody")
    assert bad.exit_code == 1 and "Error: no judge 'nobody'" in bad.output
