"""inspect_ai logs in and people's labels back out
(reviewer.storage.importers.inspect_log, reviewer.storage.inspect_export):
real logs made by inspect_ai itself (mockllm/model and its custom outputs,
2 epochs, match and model_graded_qa); only the tokenizer is stubbed (its
download is out of reach), never the reader. The scores keep their C/I/P
scale, and the scorers' disagreements and the epochs' disagreements are
disputes a person settles."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.commands import Adjudicate, UndoStack
from reviewer.core.judging.label_first import LABEL_FIRST, parse_label
from reviewer.core.judging.verdicts import Scale
from reviewer.core.label_commands import CommitFirstLabel, SetFinalValue
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from reviewer.storage.repo.item_metadata import item_metadata
from reviewer.storage.store import ProjectStore
from tests.helpers.inspect_logs import QUESTIONS, TRUTH, make_log, no_tokenizer_download  # noqa: F401

inspect_ai = pytest.importorskip("inspect_ai")
pytestmark = pytest.mark.usefixtures("no_tokenizer_download")


def invoke(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def run_of(p, output):
    """The ids of the runs that answered ``output``, in id order."""
    return [r[0] for r in p.db.execute("SELECT id FROM runs WHERE output = ? ORDER BY id", [output])]


def test_an_inspect_log_imports_with_its_scores_on_the_cip_scale(tmp_path):
    location = make_log(tmp_path / "logs")
    db = tmp_path / "p.db"
    out = invoke("import", db, location)
    assert out.exit_code == 0, out.output
    assert "inspect-log" in out.output
    p = open_project(db)
    try:
        names = dict(p.db.execute("SELECT id, name FROM items").fetchall())
        assert sorted(names.values()) == ["arith/q1", "arith/q2", "arith/q3"]
        meta = {names[i]: m for i, m in item_metadata(p).items()}
        assert meta["arith/q2"] == {"task": "arith", "topic": "topic of q2", "level": 2}
        runs = p.db.execute("SELECT model, repetition, output, source FROM runs ORDER BY id").fetchall()
        assert len(runs) == 6 and {r[0] for r in runs} == {"mockllm/model"}
        assert sorted(r[2] for r in runs) == ["4", "4", "Jupiter", "Lyon", "Lyon", "Saturn"]
        # each epoch is a run of its own, keyed by the eval id and the epoch
        assert sorted(re.sub(r"inspect \S+ ", "", r[3]) for r in runs) == ["epoch 1"] * 3 + ["epoch 2"] * 3
        by = {(v.subject, v.judge): v for v in judging.verdicts(p)}
        lyon = run_of(p, "Lyon")[0]
        # C/I/P keep their ordered scale, stored as points: C 100, P 50, I 0
        assert by[(f"run:{lyon}", "match")].scale == Scale.CIP
        assert by[(f"run:{lyon}", "match")].scores == {"score": 0.0}
        graded = by[(f"run:{lyon}", "model_graded_qa")]
        assert graded.scale == Scale.CIP and graded.scores == {"score": 50.0}
        assert graded.judge_model == "mockllm/model" and "GRADE: P" in graded.rationale
        assert graded.method.value == "rubric" and by[(f"run:{lyon}", "match")].method.value == "rules-based"
        refs = judging.references(p, next(i for i, n in names.items() if n == "arith/q2"))
        assert refs == [("inspect target (arith)", "Paris")]
    finally:
        p.close()
    # importing again adds nothing; a second log of the same task adds runs beside the first
    assert invoke("import", db, location).exit_code == 0
    second = make_log(
        tmp_path / "logs2",
        {"2+2?": ["4", "5"], "Capital of France?": ["Paris"] * 2, "Largest planet?": ["Jupiter"] * 2},
    )
    assert invoke("import", db, second).exit_code == 0
    p = open_project(db)
    try:
        assert p.db.execute("SELECT count(*) FROM items").fetchone()[0] == 3
        assert p.db.execute("SELECT count(*) FROM runs").fetchone()[0] == 12
    finally:
        p.close()


def test_scorers_and_epochs_that_disagree_are_disputes_people_settle(tmp_path):
    """The whole way: a real log in, the scorers' and the epochs' disputes,
    settled; label first; alignment on the ordered scale; the edits back into
    a copy of the log, read back with inspect's own reader."""
    from inspect_ai.log import read_eval_log

    location = make_log(tmp_path / "logs")
    before = Path(location).read_bytes()
    db = tmp_path / "p.db"
    assert invoke("import", db, location).exit_code == 0
    data = json.loads(invoke("agreement", db, "--json").stdout)
    # q2: match I vs the grader P on each epoch; q3: each scorer's epochs, C vs I
    assert data["disputes"]["by_kind"]["judges-disagree"] == 2
    assert data["disputes"]["by_kind"]["epochs-disagree"] == 2
    assert data["disputes"]["total"] == 4
    p = open_project(db)
    try:
        disputes = judging.disputes(p)
        lyons, (jupiter,), (saturn,) = run_of(p, "Lyon"), run_of(p, "Jupiter"), run_of(p, "Saturn")
        judges = {d.subject for d in disputes if d.kind.value == "judges-disagree"}
        assert judges == {f"run:{r}" for r in lyons}
        assert next(d for d in disputes if d.subject == f"run:{lyons[0]}").detail == (
            "judges disagree on score: match=I, model_graded_qa=P"
        )
        epochs = {d.subject: d for d in disputes if d.kind.value == "epochs-disagree"}
        assert set(epochs) == {f"run:{jupiter}", f"run:{saturn}"}  # one per epoch: each output settled on its own
        (e_jupiter,) = p.db.execute("SELECT substr(source, -1) FROM runs WHERE id = ?", [jupiter]).fetchone()
        shown = "epoch 1=C, epoch 2=I" if e_jupiter == "1" else "epoch 1=I, epoch 2=C"
        detail = epochs[f"run:{saturn}"].detail
        assert "match epochs of arith/q3 (eval " in detail and detail.endswith(f"disagree on score: {shown}")
        assert "model_graded_qa epochs of arith/q3" in detail
        assert len(epochs[f"run:{saturn}"].verdict_ids) == 4  # both scorers' verdicts of both epochs
        # a person settles every dispute, as the window does: one adjudication per disputed subject
        store, stack = ProjectStore(p, "ana"), UndoStack()
        for d in disputes:
            output = p.db.execute("SELECT output FROM runs WHERE id = ?", [int(d.subject[4:])]).fetchone()[0]
            value = parse_label(TRUTH[output], Scale.CIP)
            why = f"{output} is {'right' if value == 100 else 'wrong'}"
            stack.push(Adjudicate(d.subject, {"score": value}, "ana", why, dispute_ids={"score": d.id}), store)
        assert judging.adjudication(p, f"run:{saturn}", "score").value == 0.0
        assert judging.adjudication(p, f"run:{jupiter}", "score").value == 100.0
        # label first: bo labels the grader's fair queue before seeing it
        queue = labels.refresh_queue(p, "model_graded_qa", "score")
        assert len(queue) == 6
        label_store = labels.LabelStore(p, "bo")
        for entry in queue:
            output = p.db.execute("SELECT output FROM runs WHERE id = ?", [int(entry.subject[4:])]).fetchone()[0]
            value = parse_label(TRUTH[output], Scale.CIP)
            stack.push(
                CommitFirstLabel(entry.subject, "score", value, "bo", queue=LABEL_FIRST, judge="model_graded_qa"),
                label_store,
            )
            stack.push(SetFinalValue(entry.subject, "score", "bo", value, queue=LABEL_FIRST), label_store)
    finally:
        p.close()
    # alignment treats C/I/P as ordered: I < P < C, weighted kappa, C passes
    aligned = json.loads(invoke("alignment", db, "--json", "--resamples", "200").stdout)["alignments"]
    graded = next(a for a in aligned if a["judge"] == "model_graded_qa")
    assert graded["scale"] == "C/I/P" and graded["pass_threshold"] == 100.0
    every = graded["splits"][0]
    assert every["n"] == 6 and every["confusion"]["labels"] == ["I", "P", "C"]
    # rows: the grader; columns: people. The grader's P on Lyon is I to people
    assert every["confusion"]["counts"] == [[1, 0, 0], [2, 0, 0], [0, 0, 3]]
    assert every["kappa"]["statistic"] == "cohen_kappa_weighted"
    assert every["tpr"]["value"] == 1.0 and every["tnr"]["value"] == 1.0  # P fails as I does: below C
    assert every["mae"] == pytest.approx(100 / 6)
    # the edits back into a copy of the log
    out = tmp_path / "edited.eval"
    r = invoke("export-inspect", db, location, out)
    assert r.exit_code == 0, r.output
    assert Path(location).read_bytes() == before  # the original log is never changed
    log = read_eval_log(str(out))
    by_answer = {}
    for s in log.samples:
        by_answer.setdefault(s.output.completion, []).append(s)
    for lyon in by_answer["Lyon"]:  # the scorers' dispute: each epoch's grader score edited to I
        edited = lyon.scores["model_graded_qa"]
        assert edited.value == "I" and edited.history[0].value == "P"
        assert {h.provenance.author for h in edited.history[1:]} == {"ana", "bo"}
        assert any("Lyon is wrong" in h.provenance.reason for h in edited.history[1:])
    (saturn_sample,) = by_answer["Saturn"]
    (jupiter_sample,) = by_answer["Jupiter"]
    assert {saturn_sample.epoch, jupiter_sample.epoch} == {1, 2}
    # the epochs' dispute: each epoch's own score edited with the label of its own output
    assert (
        saturn_sample.scores["match"].value == "I"
        and saturn_sample.scores["match"].history[-1].provenance.author == "ana"
    )
    assert "Saturn is wrong" in saturn_sample.scores["match"].history[-1].provenance.reason
    assert (
        jupiter_sample.scores["match"].value == "C"
        and "Jupiter is right" in jupiter_sample.scores["match"].history[-1].provenance.reason
    )
    assert jupiter_sample.scores["model_graded_qa"].value == "C"
    untouched = next(s for s in by_answer["4"] if s.scores["match"].value == "C")
    assert not untouched.scores["match"].history  # nobody settled q1's match: no edit
    # refuses to write over the log itself
    assert invoke("export-inspect", db, location, location).exit_code == 1


def test_the_label_command_takes_c_p_and_i_on_the_cip_scale(tmp_path):
    location = make_log(tmp_path / "logs")
    db = tmp_path / "p.db"
    assert invoke("import", db, location).exit_code == 0
    out = invoke("label", db, "--judge", "model_graded_qa", "--reviewer", "cy", "--limit", "1", input="p\nk\n")
    assert out.exit_code == 0, out.output
    assert "c (correct) / p (partial) / i (incorrect)" in out.output
    p = open_project(db)
    try:
        (stored,) = labels.labels(p, LABEL_FIRST)
        assert stored.first_value == 50.0 and stored.final_value == 50.0 and stored.reviewer == "cy"
    finally:
        p.close()


def test_without_inspect_ai_the_import_says_what_to_install(tmp_path, monkeypatch):
    log = tmp_path / "x.eval"
    log.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip, as a .eval file is a zip
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    out = invoke("import", tmp_path / "p.db", log)
    assert out.exit_code == 1
    assert out.output.strip().splitlines()[-1] == "Error: inspect logs need inspect_ai: pip install 'reviewer[inspect]'"


def test_demo_says_what_to_install_for_the_inspect_sample(tmp_path, monkeypatch):
    import importlib.util

    from reviewer.cli.demo_samples import import_text_sample
    from tests.helpers.paths import ROOT

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "inspect_ai" else real(name, *a))
    line = import_text_sample(ROOT / "samples", "inspect", tmp_path / "inspect.db")
    assert line == "inspect: skipped: the sample needs inspect_ai (pip install 'reviewer[inspect]')"
    assert not (tmp_path / "inspect.db").exists()
    monkeypatch.setattr(importlib.util, "find_spec", real)
    line = import_text_sample(ROOT / "samples", "inspect", tmp_path / "inspect.db")
    assert line == "inspect: inspect.db: 3 items, 6 runs, 12 verdicts"
