"""People's labels add up (reviewer.core.judging.people; decision record
hand-labels-are-not-judges): on PandaLM (../shared/data, skipped when
absent) a few label-first labels beside the three annotators change each
judge's n by at most their number, a label that ties the people is counted
apart, and a label from one judge's queue counts for every judge. And on a
small project: the rule adjudicated > gold > majority of every person's
final value."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.commands import UndoStack
from reviewer.core.judging.label_first import LABEL_FIRST
from reviewer.core.judging.people import TIE, human_ratings, people_values
from reviewer.core.judging.verdicts import Adjudication, Method, Scale, Verdict
from reviewer.core.label_commands import CommitFirstLabel, SetFinalValue
from reviewer.storage.importers import import_source
from reviewer.storage.judging import labels
from reviewer.storage.project.db import open_project
from tests.helpers.paths import shared

PANDA_JUDGES = ("pandalm-7b", "gpt-3.5-turbo")


def invoke(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


def _label(p, subject, value, reviewer="ana", judge="pandalm-7b", dimension="winner"):
    store, stack = labels.LabelStore(p, reviewer), UndoStack()
    stack.push(CommitFirstLabel(subject, dimension, value, reviewer, queue=LABEL_FIRST, judge=judge), store)
    stack.push(SetFinalValue(subject, dimension, reviewer, None, queue=LABEL_FIRST), store)


@pytest.fixture(scope="module")
def panda_db(tmp_path_factory):
    folder = shared("pairwise-pandalm")
    path = tmp_path_factory.mktemp("panda") / "panda.db"
    p = open_project(path, create=True)
    import_source(p, folder)
    p.close()
    return path


@pytest.fixture
def panda(panda_db, tmp_path):
    path = tmp_path / "panda.db"
    shutil.copy(panda_db, path)
    return path


def _alignment(path) -> dict:
    data = json.loads(invoke("alignment", path, "--json", "--resamples", 100).output)
    return {(a["judge"], a["dimension"]): a for a in data["alignments"]}


def _annotator_votes(path) -> dict[str, list]:
    p = open_project(path)
    from reviewer.storage.judging import verdicts as judging

    out: dict[str, list] = {}
    for r in human_ratings(judging.verdicts(p)):
        out.setdefault(r.subject, []).append(r.value)
    p.close()
    return out


@pytest.mark.shared_data
def test_three_labels_beside_the_annotators_change_n_by_at_most_three_and_ties_count_apart(panda):
    before = _alignment(panda)
    for judge in PANDA_JUDGES:
        assert sum(before[(judge, "winner")]["people"].values()) == 999
    votes = _annotator_votes(panda)
    split = sorted(s for s, v in votes.items() if len(set(v)) == 2)  # two annotators to one
    unanimous = sorted(s for s, v in votes.items() if len(set(v)) == 1)
    minority = [x for x in votes[split[0]] if votes[split[0]].count(x) == 1][0]
    other = next(x for x in ("1", "2", "tie") if x != votes[unanimous[0]][0])
    p = open_project(panda)
    _label(p, split[0], minority)  # 2 against 2: a tie, counted apart
    _label(p, unanimous[0], other)  # 3 against 1: the majority holds
    _label(p, unanimous[1], votes[unanimous[1]][0])  # agrees: nothing moves
    p.close()
    after = _alignment(panda)
    for judge in PANDA_JUDGES:  # the labels came from pandalm-7b's queue; they count for gpt-3.5 too
        a, b = before[(judge, "winner")], after[(judge, "winner")]
        assert a["splits"][0]["n"] - b["splits"][0]["n"] in (0, 1)
        assert abs(a["splits"][0]["n"] - b["splits"][0]["n"]) <= 3
        assert b["people"] == {"majority": 998}
        assert b["tied"] == 1 and a["tied"] == 0
        confusion_a = sum(map(sum, a["splits"][0]["confusion"]["counts"]))
        confusion_b = sum(map(sum, b["splits"][0]["confusion"]["counts"]))
        assert confusion_a - confusion_b <= 1


def _v(subject, judge, value, method=Method.HUMAN):
    return Verdict(subject=subject, judge=judge, method=method, scale=Scale.PASS_FAIL, scores={"ok": value})


def test_the_people_rule_adjudicated_then_gold_then_the_majority_of_every_final_value():
    from reviewer.core.judging.label_first import HumanLabel

    vs = [_v("s", "ann1", "pass"), _v("s", "ann2", "fail")]
    assert people_values(vs)[("s", "ok")][:2] == (None, TIE)
    lab = HumanLabel(subject="s", dimension="ok", reviewer="ana", first_value="fail", final_value="fail")
    assert people_values(vs, labels=[lab])[("s", "ok")][:2] == ("fail", "majority")
    first_only = lab.model_copy(update={"final_value": None})
    assert people_values(vs, labels=[first_only])[("s", "ok")][:2] == (None, TIE)  # no final value: no vote
    assert people_values(vs + [_v("s", "gold", "pass", Method.RUBRIC)], labels=[lab])[("s", "ok")][:2] == (
        "pass",
        "gold",
    )
    adj = [Adjudication(subject="s", dimension="ok", value="pass", reviewer="r")]
    assert people_values(vs, adj, [lab])[("s", "ok")][:2] == ("pass", "adjudicated")
    (rating,) = [r for r in human_ratings(vs, [lab]) if r.queue == LABEL_FIRST]
    assert (rating.rater, rating.first_value, rating.value) == ("ana", "fail", "fail")


@pytest.mark.shared_data
def test_a_gate_on_three_labels_refuses_with_one_line_and_exit_3(panda):
    # PandaLM without its annotators: the three terminal labels are all people say
    p = open_project(panda)
    with p.transaction():
        p.db.execute("DELETE FROM verdicts WHERE method = 'human'")
    p.close()
    out = invoke(
        "label", panda, "--judge", "pandalm-7b", "--reviewer", "ana", "--limit", "3", input="a\nk\nb\nk\nt\nk\n"
    )
    assert out.exit_code == 0 and "3 subject(s) labelled by ana" in out.output
    gate = ("gate", panda, "--judge", "pandalm-7b", "--dimension", "winner", "--resamples", "200")
    out = invoke(*gate, "--min-kappa-lower", "0", "--max-dangerous", "0")
    assert out.exit_code == 3, out.output
    (line,) = [x for x in out.output.splitlines() if x.strip()]
    assert line.startswith("Error: 3 labelled subjects, fewer than --min-labelled 30; the budget ")
    assert "gate passed" not in out.output


@pytest.mark.shared_data
def test_three_labels_beside_the_annotators_leave_the_gate_on_the_annotators_majority(panda):
    out = invoke(
        "label", panda, "--judge", "pandalm-7b", "--reviewer", "ana", "--limit", "3", input="a\nk\nb\nk\nt\nk\n"
    )
    assert out.exit_code == 0
    out = invoke(
        "gate",
        panda,
        "--judge",
        "gpt-3.5-turbo",
        "--dimension",
        "winner",
        "--resamples",
        "200",
        "--min-kappa-lower",
        "0",
    )
    assert out.exit_code == 0 and "n = 97" in out.output, out.output  # 974 decided (+- a tie the labels made)


@pytest.mark.shared_data
def test_imported_judges_get_a_rubric_version_and_a_covered_queue_says_why(panda):
    from reviewer.storage.judging.label_plan import budget_line, label_plan, progress_line

    p = open_project(panda)
    try:
        versions = dict(
            p.db.execute("SELECT judge, group_concat(DISTINCT prompt_version) FROM verdicts GROUP BY judge").fetchall()
        )
        plan = label_plan(p, "pandalm-7b", "winner", "ana")
    finally:
        p.close()
    assert versions["pandalm-7b"].startswith("import@") and "," not in versions["pandalm-7b"]
    assert versions["gpt-3.5-turbo"].startswith("import@") and versions["gpt-3.5-turbo"] != versions["pandalm-7b"]
    assert versions["annotator1"] is None  # people have no rubric version
    assert plan.rubric_version == versions["pandalm-7b"]
    assert plan.further == 0
    assert budget_line(plan).endswith(
        "no more labels needed (every subject already has people's labels: 999 by 3 annotators)"
    )
    assert progress_line(plan, 0).startswith("Progress: 0 of the budget's 0 more labels")
    text = invoke("agreement", panda).output
    assert "rubric None" not in text
