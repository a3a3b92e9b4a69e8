"""Storage and CLI of judging statistics: refresh_disputes, agreement_table on
a small hand-computed example, the judge report (weights, charts), the export
tables and ``reviewer agreement --json``."""

from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.agreement import krippendorff_alpha
from reviewer.core.judging.verdicts import Adjudication, DisputeKind, Method, Scale, Verdict
from reviewer.core.models import Code, Finding, Item, Prompt
from reviewer.storage.dispute_queue import agreement_table, refresh_disputes
from reviewer.storage.export import export_project
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.verdict_table import parse_weights, verdict_score, verdict_table
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

W = "winner"


def add(
    project,
    subject,
    judge,
    value,
    *,
    method=Method.PAIRWISE,
    scale=Scale.WINNER,
    order="ab",
    dim=W,
    rep=1,
    run_id=None,
    **extra,
):
    v = Verdict(
        subject=subject,
        judge=judge,
        method=method,
        scale=scale,
        scores={dim: value},
        answer_order=order if method == Method.PAIRWISE else None,
        repetition=rep,
        run_id=run_id,
        **extra,
    )
    return judging.add_verdict(project, v)[0]


def pairwise_example(project):
    """4 pairs. Judge A (both orders), judge B ('ab'), three annotators.

    subject   A ab  A ba  B   ann1 ann2 ann3  majority
    pair:1:2   1     1    1    1    1    2     1
    pair:3:4   2     1    1    2    2    2     2
    pair:5:6   1     1    1    2    1    1     1
    pair:7:8   -     2    2    2    2    1     2      (A ab undecided: 'garbage')
    """
    table = {
        "pair:1:2": ("1", "1", "1", ("1", "1", "2")),
        "pair:3:4": ("2", "1", "1", ("2", "2", "2")),
        "pair:5:6": ("1", "1", "1", ("2", "1", "1")),
        "pair:7:8": (None, "2", "2", ("2", "2", "1")),
    }
    for subject, (a_ab, a_ba, b, anns) in table.items():
        add(project, subject, "A", a_ab, order="ab", raw="garbage" if a_ab is None else a_ab)
        add(project, subject, "A", a_ba, order="ba")
        add(project, subject, "B", b)
        for i, x in enumerate(anns, 1):
            add(project, subject, f"annotator{i}", x, method=Method.HUMAN)
    return table


def rows_by(rows, raters, statistic):
    found = [r for r in rows if (r.raters, r.statistic) == (raters, statistic)]
    assert len(found) == 1, (raters, statistic, [(r.raters, r.statistic) for r in rows])
    return found[0]


def test_agreement_table_hand_computed(project):
    table = pairwise_example(project)
    judging.put_adjudication(project, Adjudication(subject="pair:3:4", dimension=W, value="2", reviewer="r"))
    rows = agreement_table(project)
    assert {r.dimension for r in rows} == {W}

    # A (ab) vs B: pairs 1, 2, 3 (4 undecided): agree on 1 and 3 -> 2/3
    r = rows_by(rows, "A vs B", "percent_agreement")
    assert (r.value, r.n) == (pytest.approx(2 / 3), 3) and "1 pairs with a missing value skipped" in r.note
    # kappa: p_o = 2/3; A marginals 1: 2/3, 2: 1/3; B all '1' -> p_e = 2/3 -> kappa 0
    assert rows_by(rows, "A vs B", "cohen_kappa").value == pytest.approx(0.0)

    # against the human majority (1, 2, 1, 2)
    r = rows_by(rows, "A vs human majority", "agreement_with_human_majority")
    assert (r.value, r.n) == (1.0, 3) and "undecided=1" in r.note
    r = rows_by(rows, "A vs human majority", "agreement_with_human_majority_undecided_wrong")
    assert (r.value, r.n) == (0.75, 4)
    r = rows_by(rows, "B vs human majority", "agreement_with_human_majority")
    assert (r.value, r.n) == (0.75, 4)

    # position swap of A: pair 1 consistent, pair 2 flip ('2' ab, '1' ba), pair 3 consistent, pair 4 undecided
    r = rows_by(rows, "A", "position_swap_consistency")
    assert (r.value, r.n) == (pytest.approx(2 / 3), 3)
    assert "flipped=1" in r.note and "undecided_ab=1" in r.note and "second 1" in r.note
    r = rows_by(rows, "A", "position_swap_consistency_undecided_inconsistent")
    assert (r.value, r.n) == (0.5, 4)
    r = rows_by(rows, "A [ab] vs A [ba]", "cohen_kappa")
    # ab [1,2,1] vs ba [1,1,1]: same as A vs B above
    assert (r.value, r.n) == (pytest.approx(0.0), 3)

    # adjudicated pair 3:4 = '2': A agrees, B does not
    assert rows_by(rows, "A vs adjudicated", "agreement_with_adjudicated").value == 1.0
    assert rows_by(rows, "B vs adjudicated", "agreement_with_adjudicated").value == 0.0

    # Krippendorff's alpha over A, B and the annotators (not 'adjudicated')
    r = rows_by(rows, "all raters: A, B, annotator1, annotator2, annotator3", "krippendorff_alpha_nominal")
    data = [[a_ab, b, *anns] for a_ab, _, b, anns in table.values()]
    expected = krippendorff_alpha(data, "nominal", categories=["1", "2", "tie"])
    assert r.value == pytest.approx(expected.value) and r.n == expected.n == 19
    r = rows_by(rows, "humans: annotator1, annotator2, annotator3", "krippendorff_alpha_nominal")
    assert r.n == 12

    # annotator pairs are there too; 'adjudicated' is a rater of pairs
    assert rows_by(rows, "annotator1 vs annotator2", "percent_agreement").value == 0.75
    assert rows_by(rows, "A vs adjudicated", "percent_agreement").n == 1


def test_agreement_ordinal_quadratic_kappa_and_tolerance(project):
    for i, (x, y) in enumerate(((5, 5), (4, 5), (3, 3), (2, 1)), 1):
        add(project, f"run:{i}", "X", x, method=Method.RUBRIC, scale=Scale.ORDINAL5, dim="overall")
        add(project, f"run:{i}", "Y", y, method=Method.RUBRIC, scale=Scale.ORDINAL5, dim="overall")
    rows = agreement_table(project)
    assert rows_by(rows, "X vs Y", "percent_agreement").value == 0.5
    # p_o = 1/2, p_e = (1*1 [3] + 1*2 [5]) / 16 = 3/16
    assert rows_by(rows, "X vs Y", "cohen_kappa").value == pytest.approx((0.5 - 3 / 16) / (1 - 3 / 16))
    # quadratic: observed weighted 0+1+0+1 = 2, expected (20+12+12+20)/4 = 16 -> 1 - 2/16
    assert rows_by(rows, "X vs Y", "cohen_kappa_quadratic").value == pytest.approx(0.875)
    assert rows_by(rows, "X vs Y", "agreement_within_tolerance").value == 1.0
    assert rows_by(rows, "all raters: X, Y", "krippendorff_alpha_ordinal").n == 8


def test_llmbar_style_accuracy_vs_gold_per_order(project):
    for s, gold, ab, ba in (("pair:1:2", "1", "1", "2"), ("pair:3:4", "2", "2", "2"), ("pair:5:6", "2", None, "2")):
        add(project, s, "gold", gold, method=Method.HUMAN)
        add(project, s, "gpt-4", ab, order="ab")
        add(project, s, "gpt-4", ba, order="ba")
    rows = agreement_table(project)
    r = rows_by(rows, "gpt-4 [ab] vs gold", "accuracy_vs_gold")
    assert (r.value, r.n) == (1.0, 2) and "undecided=1" in r.note
    assert rows_by(rows, "gpt-4 [ab] vs gold", "accuracy_vs_gold_undecided_wrong").value == pytest.approx(2 / 3)
    assert rows_by(rows, "gpt-4 [ba] vs gold", "accuracy_vs_gold").value == pytest.approx(2 / 3)
    assert not [r for r in rows if r.statistic == "agreement_with_human_majority"]  # gold alone is no majority


def test_refresh_disputes_stores_and_keeps_ids(project):
    pairwise_example(project)
    found = refresh_disputes(project)
    assert found and all(d.id for d in found)
    by = {(d.kind, d.subject) for d in found}
    assert (DisputeKind.POSITION, "pair:3:4") in by  # A flips
    assert (DisputeKind.JUDGES, "pair:3:4") in by  # A ab '2' vs B '1'
    assert (DisputeKind.HUMAN, "pair:3:4") in by  # B '1' vs majority '2'
    again = refresh_disputes(project)
    assert [d.id for d in again] == [d.id for d in found]
    assert [d.id for d in judging.disputes(project)] == [d.id for d in found]


def _run(project, item="i1", prompt="p1", model="m1", output="answer"):
    item_id, _ = repo_items.upsert_item(project, Item(name=item, kind="text", text="question"))
    prompt_id, _ = repo_items.upsert_prompt(project, Prompt(name=prompt, text="do it", schema="free"))
    run_id, _ = repo_runs.add_run(project, item_id, prompt_id, model, output)
    return run_id


def test_halluc_findings_contradict_a_top_score(project):
    run_id = _run(project)
    repo_findings.insert_finding(project, run_id, Finding(code=Code.HALLUC, model_card="The Moon"))
    add(project, f"run:{run_id}", "llama", 5, method=Method.RUBRIC, scale=Scale.ORDINAL5, dim="accuracy", run_id=run_id)
    [d] = refresh_disputes(project)
    assert (d.kind, d.dimension, d.severity) == (DisputeKind.METRICS, "accuracy", 1.0)
    assert "HALLUC" in d.detail


# -- the judge report ----------------------------------------------------------------


def test_parse_weights():
    assert parse_weights("0.4:0.6") == pytest.approx((0.4, 0.6))
    assert parse_weights("2:3") == pytest.approx((0.4, 0.6))
    assert parse_weights("1:0") == (1.0, 0.0)
    for bad in ("0.4", "0.4:0.6:0", "a:b", "-1:2", "0:0", "nan:1", "inf:1"):
        with pytest.raises(ValueError):
            parse_weights(bad)


def test_verdict_score_prefers_overall_then_grade_then_mean():
    assert verdict_score(Verdict(subject="s", judge="j", scores={"tone": 2, "overall": 4})) == 4.0
    assert verdict_score(Verdict(subject="s", judge="j", scores={"tone": 2, "safety": 5})) == 3.5
    assert verdict_score(Verdict(subject="s", judge="j", scale=Scale.GRADE, scores={"grade": "B"})) == 80.0
    assert verdict_score(Verdict(subject="s", judge="j", scale=Scale.WINNER, scores={"winner": "1"})) is None


def dual_project(path):
    """Two runs of model m1 / prompt p1, judged by a rules-based and a
    ground-truth judge (Failter Path B), and one run of m2 / p1 with a rules
    judge only."""
    p = open_project(path, create=True)
    r1, r2 = _run(p, "doc1"), _run(p, "doc2")
    r3 = _run(p, "doc1", model="m2")
    for run_id, rules, gt in ((r1, "B", "A"), (r2, "C", "B"), (r3, "D", None)):
        add(
            p,
            f"run:{run_id}",
            "failter-rules",
            rules,
            method=Method.RULES,
            scale=Scale.GRADE,
            dim="grade",
            run_id=run_id,
        )
        if gt:
            add(
                p,
                f"run:{run_id}",
                "failter-gt",
                gt,
                method=Method.GROUND_TRUTH,
                scale=Scale.GRADE,
                dim="grade",
                run_id=run_id,
            )
    for i in range(6):  # an all-5s rubric judge on m1 / p1 for the calibration section
        add(
            p,
            f"run:{r1 if i % 2 else r2}",
            "llama-8b",
            5,
            method=Method.RUBRIC,
            scale=Scale.ORDINAL5,
            dim="overall",
            rep=i + 1,
            run_id=r1 if i % 2 else r2,
        )
    p.close()
    return path


def test_verdict_table_weights(tmp_path):
    p = open_project(dual_project(tmp_path / "d.db"))
    try:
        runs = {r["id"]: r for r in repo_runs.run_rows(p)}
        rows = verdict_table(judging.verdicts(p), runs, (0.4, 0.6))
    finally:
        p.close()
    by = {(r.model, r.judge): r for r in rows}
    m1 = by[("m1", "failter-rules+failter-gt")]
    # run 1: 0.4*80 + 0.6*100 = 92; run 2: 0.4*60 + 0.6*80 = 72; mean 82
    assert (m1.avg_score, m1.rules_score, m1.gt_score) == (pytest.approx(82.0), 70.0, 90.0)
    assert m1.eval_method == "rules-based+ground-truth" and m1.runs == 2 and m1.scale == "A-F"
    m2 = by[("m2", "failter-rules")]
    assert (m2.avg_score, m2.rules_score, m2.gt_score, m2.eval_method) == (40.0, 40.0, None, "rules-based")
    llama = by[("m1", "llama-8b")]
    assert (llama.avg_score, llama.eval_method, llama.runs) == (100.0, "rubric", 2)  # 5 of 5: 5 x 20 points


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result


def test_report_markdown_weights_and_charts(tmp_path):
    db = dual_project(tmp_path / "d.db")
    out = invoke("report", db, "--weights", "0.4:0.6", "--charts", tmp_path / "charts")
    assert out.exit_code == 0, out.output
    md = out.output
    assert md.startswith("# reviewer report: d.db")
    for word in (
        "Eval_Method",
        "Rules_Score",
        "GT_Score",
        "Avg_Score",
        "## Agreement",
        "## Disputes",
        "## Calibration",
        "judge-vs-metrics",
    ):
        assert word in md
    assert "T-P1 verdicts" not in md  # no scored card runs: card sections skipped
    assert "| m1 | p1 | failter-rules+failter-gt | rules-based+ground-truth | A-F | 2 | 82.00 | 70.00 | 90.00 |" in md
    assert "| m2 | p1 | failter-rules | rules-based | A-F | 1 | 40.00 | 40.00 | - |" in md
    assert "0.4 x Rules_Score + 0.6 x GT_Score" in md
    assert "llama-8b / overall: inflated" in md
    files = sorted(f.name for f in (tmp_path / "charts").iterdir())
    assert "distribution-llama-8b-overall.svg" in files and "distribution-llama-8b-overall.png" in files
    # the same project with a single run of weights 0.4:0.6 on B/A: 92
    csv_out = invoke("report", db, "--format", "csv", "--weights", "0.4:0.6").output
    rows = list(csv.DictReader(io.StringIO(csv_out)))
    m1 = next(r for r in rows if r["Model"] == "m1" and r["Judge"].startswith("failter"))
    assert (m1["Avg_Score"], m1["Rules_Score"], m1["GT_Score"]) == ("82.0000", "70.0000", "90.0000")


def test_report_single_run_weighted_score(tmp_path):
    p = open_project(tmp_path / "one.db", create=True)
    run_id = _run(p)
    add(p, f"run:{run_id}", "rules", "B", method=Method.RULES, scale=Scale.GRADE, dim="grade", run_id=run_id)
    add(p, f"run:{run_id}", "gt", "A", method=Method.GROUND_TRUTH, scale=Scale.GRADE, dim="grade", run_id=run_id)
    p.close()
    md = invoke("report", tmp_path / "one.db", "--weights", "0.4:0.6").output
    assert "| m1 | p1 | rules+gt | rules-based+ground-truth | A-F | 1 | 92.00 | 80.00 | 100.00 |" in md
    md = invoke("report", tmp_path / "one.db").output  # default 0.5:0.5
    assert "| 90.00 | 80.00 | 100.00 |" in md


def test_report_rejects_bad_weights(tmp_path):
    db = dual_project(tmp_path / "d.db")
    for bad in ("0.4", "-1:1", "x:y", "0:0"):
        result = invoke("report", db, "--weights", bad)
        assert result.exit_code != 0 and "--weights" in result.output


def test_report_without_verdicts_is_unchanged(tmp_path):
    db = tmp_path / "empty.db"
    invoke("init", db)
    md = invoke("report", db).output
    assert "## T-P1 verdicts" in md and "## Findings per code" in md and "Judge verdicts" not in md


def test_agreement_json(tmp_path):
    p = open_project(tmp_path / "a.db", create=True)
    pairwise_example(p)
    p.close()
    result = invoke("agreement", tmp_path / "a.db", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["disputes"]["total"] > 0 and data["disputes"]["by_kind"]["position-flip"] == 1
    stats = {(r["raters"], r["statistic"]): r for r in data["agreement"]}
    assert stats[("A vs B", "percent_agreement")]["n"] == 3
    assert set(data["agreement"][0]) == {
        "raters",
        "dimension",
        "statistic",
        "value",
        "n",
        "note",
        "ci_low",
        "ci_high",
        "ci_method",
        "prevalence",
    }
    kappa = stats[("A vs B", "cohen_kappa")]
    assert (
        kappa["ci_method"] in ("BCa", "percentile")
        and kappa["ci_low"] <= kappa["value"] <= kappa["ci_high"]
        or (kappa["n"] < 10 and kappa["ci_low"] is None and "too few" in kappa["note"])
    )
    assert sum(kappa["prevalence"].values()) == pytest.approx(1.0)
    text = invoke("agreement", tmp_path / "a.db").output
    assert "position_swap_consistency" in text and "disputes:" in text


def test_export_has_the_judge_tables(tmp_path):
    p = open_project(tmp_path / "e.db", create=True)
    pairwise_example(p)
    add(p, "run:9", "llama", 5, method=Method.RUBRIC, scale=Scale.ORDINAL5, dim="tone")
    judging.put_adjudication(
        p, Adjudication(subject="pair:3:4", dimension=W, value="2", reviewer="r", rationale="humans agree")
    )
    counts = export_project(p, tmp_path / "out.db")
    p.close()
    for table in ("verdicts", "disputes", "adjudications", "agreement"):
        assert counts[table] > 0, table
    con = sqlite3.connect(tmp_path / "out.db")
    cols = [r[1] for r in con.execute("PRAGMA table_info(verdicts)")]
    assert cols == [
        "verdict_id",
        "subject",
        "run_id",
        "other_run_id",
        "judge",
        "judge_model",
        "prompt_version",
        "method",
        "scale",
        "dimension",
        "value",
        "value_text",
        "rationale",
        "answer_order",
        "repetition",
        "flags",
        "issues_found",
        "source",
        "raw",
    ]
    assert con.execute("SELECT value, value_text FROM verdicts WHERE judge = 'llama'").fetchone() == (5.0, None)
    assert con.execute("SELECT count(*) FROM verdicts WHERE judge = 'A' AND value_text IS NULL").fetchone() == (1,)
    assert [r[1] for r in con.execute("PRAGMA table_info(disputes)")] == [
        "dispute_id",
        "kind",
        "subject",
        "dimension",
        "verdict_ids",
        "severity",
        "detail",
    ]
    assert con.execute("SELECT value, reviewer, sided_with FROM adjudications").fetchone() == ("2", "r", None)
    assert [r[1] for r in con.execute("PRAGMA table_info(agreement)")] == [
        "raters",
        "dimension",
        "statistic",
        "value",
        "n",
        "note",
        "ci_low",
        "ci_high",
        "ci_method",
        "prevalence",
    ]
    value, low, high, method, prevalence = con.execute(
        "SELECT value, ci_low, ci_high, ci_method, prevalence FROM agreement WHERE raters = 'A vs B' "
        "AND statistic = 'percent_agreement'"
    ).fetchone()
    assert value == pytest.approx(2 / 3) and low <= value <= high and method == "Wilson"
    assert prevalence.startswith("1 ")
    con.close()


def test_export_without_verdicts_has_empty_judge_tables(tmp_path):
    p = open_project(tmp_path / "e.db", create=True)
    counts = export_project(p, tmp_path / "out.db")
    p.close()
    assert all(counts[t] == 0 for t in ("verdicts", "disputes", "adjudications", "agreement"))
