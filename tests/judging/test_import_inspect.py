"""inspect_ai logs in (reviewer.storage.importers.inspect_log): real logs made
by inspect_ai itself (mockllm/model and its custom outputs, 2 epochs,
match and model_graded_qa); only the tokenizer is stubbed (its download is
out of reach), never the reader."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.storage.db import open_project
from reviewer.storage.item_metadata import item_metadata
from reviewer.storage.judging import verdicts as judging

inspect_ai = pytest.importorskip("inspect_ai")


class _Words:
    """A stand-in tokenizer: words (tiktoken would download its encoding)."""

    def encode(self, text, **_):
        return text.split()


@pytest.fixture
def no_tokenizer_download(monkeypatch):
    import tiktoken

    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: _Words())
    monkeypatch.setattr(tiktoken, "encoding_for_model", lambda name: _Words())


def make_log(folder, answers, grades, name="arith"):
    """Run a real inspect eval: 2 samples x 2 epochs, answered with
    ``answers`` and graded by a mock grader saying ``grades`` (in order)."""
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import match, model_graded_qa
    from inspect_ai.solver import generate

    out = lambda t: ModelOutput.from_content("mockllm/model", t)  # noqa: E731
    grader = get_model("mockllm/model", custom_outputs=[out(f"GRADE: {g}") for g in grades])
    task = Task(
        dataset=[
            Sample(input="2+2?", target="4", id="q1", metadata={"topic": "maths", "level": 1}),
            Sample(input="Capital of France?", target="Paris", id="q2", metadata={"topic": "geography", "level": 2}),
        ],
        solver=generate(),
        scorer=[match(), model_graded_qa(model=grader)],
        epochs=2,
        name=name,
    )
    (log,) = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=[out(a) for a in answers]),
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success", log.error
    return log.location


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_an_inspect_log_imports_with_its_scores_and_disagreement(tmp_path, no_tokenizer_download):
    # q2 epoch 2 answers "Lyon": match says I, the grader says C -> the scorers disagree
    location = make_log(tmp_path / "logs", ["4", "Paris", "4", "Lyon"], ["C", "C", "C", "C"])
    db = tmp_path / "p.db"
    out = invoke("import", db, location)
    assert out.exit_code == 0, out.output
    assert "inspect-log" in out.output
    p = open_project(db)
    try:
        names = dict(p.db.execute("SELECT id, name FROM items").fetchall())
        assert sorted(names.values()) == ["arith/q1", "arith/q2"]
        meta = {names[i]: m for i, m in item_metadata(p).items()}
        assert meta["arith/q2"] == {"task": "arith", "topic": "geography", "level": 2}
        runs = p.db.execute("SELECT model, repetition, output, source FROM runs ORDER BY id").fetchall()
        assert len(runs) == 4 and {r[0] for r in runs} == {"mockllm/model"}
        assert sorted(r[2] for r in runs) == ["4", "4", "Lyon", "Paris"]
        vs = judging.verdicts(p)
        by = {(v.subject, v.judge): v for v in vs}
        (lyon,) = p.db.execute("SELECT id FROM runs WHERE output = 'Lyon'").fetchone()
        assert by[(f"run:{lyon}", "match")].scores == {"score": "fail"}
        graded = by[(f"run:{lyon}", "model_graded_qa")]
        assert graded.scores == {"score": "pass"} and graded.judge_model == "mockllm/model"
        assert graded.method.value == "rubric" and by[(f"run:{lyon}", "match")].method.value == "rules-based"
        assert "GRADE: C" in graded.rationale
        refs = judging.references(p, next(i for i, n in names.items() if n == "arith/q2"))
        assert refs == [("inspect target (arith)", "Paris")]
    finally:
        p.close()
    # the disagreement is a dispute between the scorers
    data = json.loads(invoke("agreement", db, "--json").stdout)
    assert data["disputes"]["total"] >= 1
    # importing again adds nothing; a second log of the same task adds runs beside the first
    again = invoke("import", db, location)
    assert again.exit_code == 0
    second = make_log(tmp_path / "logs2", ["4", "Paris", "5", "Paris"], ["C", "C", "I", "C"])
    assert invoke("import", db, second).exit_code == 0
    p = open_project(db)
    try:
        assert p.db.execute("SELECT count(*) FROM items").fetchone()[0] == 2
        assert p.db.execute("SELECT count(*) FROM runs").fetchone()[0] == 8
    finally:
        p.close()


def test_without_inspect_ai_the_import_says_what_to_install(tmp_path, monkeypatch):
    log = tmp_path / "x.eval"
    log.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip, as a .eval file is a zip
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)
    out = invoke("import", tmp_path / "p.db", log)
    assert out.exit_code == 1
    assert out.output.strip().splitlines()[-1] == "Error: inspect logs need inspect_ai: pip install 'reviewer[inspect]'"


def test_people_labels_go_back_into_an_inspect_log(tmp_path, no_tokenizer_download):
    from inspect_ai.log import read_eval_log

    from reviewer.core.judging.verdicts import Adjudication

    location = make_log(tmp_path / "logs", ["4", "Paris", "4", "Lyon"], ["C", "C", "C", "C"])
    before = open(location, "rb").read()
    db = tmp_path / "p.db"
    assert invoke("import", db, location).exit_code == 0
    # the scorers disagree on Lyon: a dispute; a person settles it (Lyon is wrong)
    data = json.loads(invoke("agreement", db, "--json").stdout)
    assert data["disputes"]["by_kind"]["judges-disagree"] == 1
    p = open_project(db)
    try:
        (lyon,) = p.db.execute("SELECT id FROM runs WHERE output = 'Lyon'").fetchone()
        judging.put_adjudication(
            p,
            Adjudication(
                subject=f"run:{lyon}",
                dimension="score",
                value="fail",
                reviewer="ana",
                rationale="Lyon is not the capital",
            ),
        )
    finally:
        p.close()
    # alignment of the grader with people on the one labelled subject
    aligned = json.loads(invoke("alignment", db, "--json", "--resamples", "200").stdout)["alignments"]
    graded = next(a for a in aligned if a["judge"] == "model_graded_qa")
    assert graded["splits"][0]["n"] == 1 and graded["splits"][0]["confusion"]["counts"] == [[0, 0], [1, 0]]
    out = tmp_path / "edited.eval"
    r = invoke("export-inspect", db, location, out)
    assert r.exit_code == 0, r.output
    assert "2 score(s) edited" in r.output  # match and model_graded_qa on the Lyon run
    assert open(location, "rb").read() == before  # the original log is never changed
    log = read_eval_log(str(out))
    sample = next(s for s in log.samples if s.id == "q2" and s.epoch == 2)
    edited = sample.scores["model_graded_qa"]
    assert edited.value == "I"
    assert edited.history and edited.history[-1].provenance.author == "ana"
    assert "Lyon is not the capital" in edited.history[-1].provenance.reason
    assert sample.scores["match"].value == "I"  # already I, recorded as edited all the same
    untouched = next(s for s in log.samples if s.id == "q1" and s.epoch == 1)
    assert untouched.scores["model_graded_qa"].value == "C" and not untouched.scores["model_graded_qa"].history
    # refuses to write over the log itself
    assert invoke("export-inspect", db, location, location).exit_code == 1


def test_demo_says_what_to_install_for_the_inspect_sample(tmp_path, monkeypatch):
    import importlib.util

    from reviewer.cli.demo_samples import import_text_sample
    from tests.conftest import ROOT

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "inspect_ai" else real(name, *a))
    line = import_text_sample(ROOT / "samples", "inspect", tmp_path / "inspect.db")
    assert line == "inspect: skipped: the sample needs inspect_ai (pip install 'reviewer[inspect]')"
    assert not (tmp_path / "inspect.db").exists()
    monkeypatch.setattr(importlib.util, "find_spec", real)
    line = import_text_sample(ROOT / "samples", "inspect", tmp_path / "inspect.db")
    assert line == "inspect: inspect.db: 3 items, 6 runs, 12 verdicts"
