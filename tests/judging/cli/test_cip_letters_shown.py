"""C/I/P read right everywhere, on a real inspect_ai log
(tests/helpers/inspect_logs.py): the agreement table names C/I/P classes
by their letters in Markdown, CSV and JSON (decision record
"classes-shown-as-their-letters"), a pass threshold of "C" is C/I/P's C on
a C/I/P dimension and A-F's C on an A-F one, and the judge gate's help
names C/I/P."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.agreement_table import agreement_rows
from reviewer.core.judging.alignment import is_pass, read_pass_threshold
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.storage.judging.validation import project_alignments
from reviewer.storage.project.db import open_project
from tests.helpers.inspect_logs import make_log, no_tokenizer_download  # noqa: F401

pytest.importorskip("inspect_ai")
pytestmark = pytest.mark.usefixtures("no_tokenizer_download")

#: match vs the grader over the six epochs' runs, both raters' values pooled:
#: match C C I I C I, the grader C C P P C I (tests/helpers/inspect_logs.py)
PAIR_PREVALENCE = {"I": 4 / 12, "P": 2 / 12, "C": 6 / 12}


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def project(tmp_path):
    db = tmp_path / "p.db"
    out = invoke("import", db, make_log(tmp_path / "logs"))
    assert out.exit_code == 0, out.output
    return db


def set_thresholds(db, thresholds: dict) -> None:
    p = open_project(db)
    try:
        with p.transaction():
            p.db.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('alignment.pass_threshold', ?)",
                [json.dumps(thresholds)],
            )
    finally:
        p.close()


def test_the_agreement_table_names_cip_classes_by_their_letters(project):
    text = invoke("agreement", project)
    assert text.exit_code == 0, text.output
    pair = next(line for line in text.stdout.splitlines() if "match vs model_graded_qa" in line and "kappa " in line)
    assert "I 0.33; P 0.17; C 0.50" in pair and "100 0.50" not in text.stdout
    data = json.loads(invoke("agreement", project, "--json").stdout)
    rows = [r for r in data["agreement"] if r["raters"] == "match vs model_graded_qa"]
    assert rows and all(r["prevalence"] == pytest.approx(PAIR_PREVALENCE) for r in rows)
    assert list(rows[0]["prevalence"]) == ["I", "P", "C"]  # in the scale's order
    alpha = next(r for r in data["agreement"] if r["statistic"].startswith("krippendorff_alpha"))
    assert set(alpha["prevalence"]) <= {"I", "P", "C"}
    report = invoke("report", project, "--format", "csv")
    assert report.exit_code == 0, report.output
    agreement = [r for r in csv.reader(io.StringIO(report.stdout)) if r and r[0] == "judge_agreement"]
    assert agreement and "I 0.33; P 0.17; C 0.50" in {r[-1] for r in agreement}
    markdown = invoke("report", project)
    assert "I 0.33; P 0.17; C 0.50" in markdown.stdout


def test_grade_classes_are_named_by_their_grades():
    def grade(subject, judge, letter):
        return Verdict(subject=subject, judge=judge, method=Method.RULES, scale=Scale.GRADE, scores={"g": letter})

    verdicts = [grade("s1", "a", "A"), grade("s1", "b", "B"), grade("s2", "a", "B"), grade("s2", "b", "B")]
    (kappa,) = [r for r in agreement_rows(verdicts) if r.statistic == "cohen_kappa" and r.sample is not None]
    assert kappa.sample.prevalence == {"B": 0.75, "A": 0.25}
    # a number that is no grade's points keeps its number
    verdicts.append(grade("s3", "a", 73))
    verdicts.append(grade("s3", "b", 73))
    (kappa,) = [r for r in agreement_rows(verdicts) if r.statistic == "cohen_kappa"]
    assert set(kappa.sample.prevalence) == {"73", "B", "A"}


def test_a_c_threshold_reads_on_the_dimensions_own_scale():
    assert read_pass_threshold("C", Scale.CIP, "score") == 100.0
    assert read_pass_threshold(" c ", Scale.GRADE, "grade") == 60.0
    assert read_pass_threshold("P", Scale.CIP, "score") == 50.0
    assert read_pass_threshold(3, Scale.ORDINAL5, "tone") == 3.0
    assert [is_pass(x, Scale.CIP, read_pass_threshold("C", Scale.CIP, "score")) for x in (0.0, 50.0, 100.0)] == [
        False,
        False,
        True,
    ]
    with pytest.raises(ValueError, match=r"'C' of score is ambiguous .*60 points on A-F or 100 points on C/I/P"):
        read_pass_threshold("C", None, "score")
    assert read_pass_threshold("B", None, "grade") == 80.0  # only A-F has B
    with pytest.raises(ValueError, match=r"'B' of score is no letter of its scale C/I/P \(C, P, I\)"):
        read_pass_threshold("B", Scale.CIP, "score")
    with pytest.raises(ValueError, match="the scale 1-5 has no letters"):
        read_pass_threshold("C", Scale.ORDINAL5, "tone")
    with pytest.raises(ValueError, match="must be a number or a letter"):
        read_pass_threshold([1], Scale.CIP, "score")  # type: ignore[arg-type]


def test_a_c_threshold_on_a_cip_dimension_passes_c_only(project):
    set_thresholds(project, {"score": "C"})
    p = open_project(project)
    try:
        runs = dict(p.db.execute("SELECT id, output FROM runs").fetchall())
        truth = {"4": "C", "Lyon": "I", "Jupiter": "C", "Saturn": "I"}
        with p.transaction():
            for run_id, output in runs.items():
                p.db.execute(
                    "INSERT INTO adjudications (subject, dimension, value, reviewer, decided_at) "
                    "VALUES (?, 'score', ?, 'ana', '2026-01-01T00:00:00')",
                    [f"run:{run_id}", json.dumps({"C": 100.0, "I": 0.0}[truth[output]])],
                )
        graded = next(a for a in project_alignments(p, n_resamples=50).items if a.judge == "model_graded_qa")
        assert graded.threshold == 100.0  # C of C/I/P, not A-F's C (60 points)
        every = graded.figures("all")
        # the grader's P on both Lyon runs fails, as people's I does: only C passes
        assert (every.tpr, every.tnr) == (1.0, 1.0)
    finally:
        p.close()
    set_thresholds(project, {"score": "P"})
    p = open_project(project)
    try:
        graded = next(a for a in project_alignments(p, n_resamples=50).items if a.judge == "model_graded_qa")
        assert graded.threshold == 50.0 and graded.figures("all").tnr == pytest.approx(1 / 3)  # P passes now
    finally:
        p.close()
    set_thresholds(project, {"score": "B"})
    out = invoke("alignment", project)
    assert out.exit_code == 1
    assert out.output.strip().splitlines()[-1] == (
        "Error: alignment.pass_threshold: pass threshold 'B' of score is no letter of its scale C/I/P (C, P, I)"
    )


def test_the_judge_gate_help_names_cip():
    out = invoke("judge", "--help")
    assert out.exit_code == 0
    text = " ".join(out.output.split())
    assert "C/I/P (inspect's letters, C=100, P=50, I=0" in text
    assert "Pairwise and pass/fail verdicts are not gated" in text
