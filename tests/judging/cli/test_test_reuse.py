"""Test-split reuse counted (reviewer.storage.judging.test_reuse): gate runs
count, alignment does not, a read-only project records nothing, and
`alignment --resplit SEED` restarts the count."""

from __future__ import annotations

import json
import os
import stat

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.test_reuse import WARN_AFTER, reuse_line
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project

D = "quality"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "p.db"
    p = open_project(path, create=True)
    for i in range(60):
        people = "pass" if i % 3 else "fail"
        judge = people if i % 10 else ("fail" if people == "pass" else "pass")
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{i}",
                judge="judge",
                method=Method.RUBRIC,
                scale=Scale.PASS_FAIL,
                scores={D: judge},
                prompt_version="v2",
            ),
        )
        judging.add_verdict(
            p, Verdict(subject=f"run:{i}", judge="gold", method=Method.HUMAN, scale=Scale.PASS_FAIL, scores={D: people})
        )
    p.close()
    return path


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def reads(db) -> dict:
    data = json.loads(invoke("alignment", db, "--json", "--resamples", "200").stdout)
    return data["alignments"][0]["test_split_reads"]


GATE = ["--judge", "judge", "--dimension", D, "--min-kappa-lower", "0.1", "--resamples", "200", "--min-labelled", "10"]


def test_gate_runs_count_and_alignment_does_not(db):
    assert reads(db)["count"] == 0 and reads(db)["rubric_version"] == "v2"
    for k in range(1, WARN_AFTER + 2):
        out = invoke("gate", db, *GATE)
        assert out.exit_code == 0, out.output
        times = "once" if k == 1 else f"{k} times"
        assert f"test split read {times} for rubric v2 (split seed 0)" in out.output
        assert ("tune on dev; draw a fresh test split" in out.output) == (k > WARN_AFTER)
    assert reads(db)["count"] == WARN_AFTER + 1  # the alignments above were not counted
    text = invoke("alignment", db, "--resamples", "200").output
    assert f"test split read {WARN_AFTER + 1} times for rubric v2" in text and "--resplit SEED" in text


def test_a_gate_on_a_read_only_project_records_nothing_and_says_so(db):
    assert invoke("gate", db, *GATE).exit_code == 0
    mode = stat.S_IMODE(os.stat(db).st_mode)
    os.chmod(db, 0o444)
    try:
        out = invoke("gate", db, *GATE)
        assert out.exit_code == 0, out.output
        assert (
            "test split read once for rubric v2 (split seed 0); read-only project: this read is not recorded"
            in out.output
        )
    finally:
        os.chmod(db, mode)
    assert reads(db)["count"] == 1


def test_resplit_draws_new_splits_and_restarts_the_count(db):
    before = json.loads(invoke("alignment", db, "--json", "--resamples", "200").stdout)
    for _ in range(2):
        invoke("gate", db, *GATE)
    assert reads(db)["count"] == 2
    out = invoke("alignment", db, "--resplit", "7", "--json", "--resamples", "200")
    assert out.exit_code == 0, out.output
    after = json.loads(out.stdout)
    assert after["split_seed"] == 7 and after["alignments"][0]["test_split_reads"]["count"] == 0
    n_test = lambda d: next(s["n"] for s in d["alignments"][0]["splits"] if s["split"] == "test")  # noqa: E731
    from reviewer.core.judging.splits import hash_split

    assert before["split_seed"] == 0
    assert n_test(before) == sum(hash_split(f"run:{i}", seed=0) == "test" for i in range(60))
    assert n_test(after) == sum(hash_split(f"run:{i}", seed=7) == "test" for i in range(60))
    assert n_test(before) != n_test(after)
    out = invoke("gate", db, *GATE)
    assert "test split read once for rubric v2 (split seed 7)" in out.output


def test_the_line_warns_only_past_the_limit():
    assert "warning" not in reuse_line(WARN_AFTER, "", 0) and "unversioned" in reuse_line(WARN_AFTER, "", 0)
    assert "warning" in reuse_line(WARN_AFTER + 1, "v1", 0)
