"""The score panels of the span, Failter, rubric and pairwise perspectives over a real
Session on the repository's samples (offscreen): each shows the figures of
``reviewer report``, follows decisions while shown (once per burst), and
computes nothing while hidden."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt

from reviewer.cli.demo_samples import import_text_sample
from reviewer.core.commands import DecideFindings
from reviewer.core.judging.agreement_table import agreement_rows
from reviewer.core.judging.calibration import SCORES, expected_for, inflation_warning, score_distribution
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.core.models import AnswerSchema, Item, Prompt, SpanCode, Status
from reviewer.core.span_commands import DeleteGoldenSpan
from reviewer.core.tables import markdown_table
from reviewer.qt.judging.failter_scores import NOTHING as NO_FAILTER
from reviewer.qt.judging.failter_scores import FailterScoresPanel
from reviewer.qt.judging.pairwise_scores import NOTHING as PAIRWISE_NOTHING
from reviewer.qt.judging.pairwise_scores import PairwiseScoresPanel
from reviewer.qt.judging.rubric_scores import RubricScoresPanel
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.session import Session
from reviewer.qt.spans.scores import NOTHING as NO_SPANS
from reviewer.qt.spans.scores import SpanScoresPanel
from reviewer.storage.dispute_queue import refresh_disputes
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.failter_report import HEADER, failter_rows
from reviewer.storage.judging.report import build_judge_report
from reviewer.storage.judging.verdict_table import DEFAULT_WEIGHTS
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.report import ReportOptions, build_report
from reviewer.storage.spans import spans as span_store
from reviewer.storage.spans.report import debug_tables
from tests.helpers import span_twin
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.gui

SAMPLES = ROOT / "samples"


@pytest.fixture
def open_session(qtbot, tmp_path):
    """open_session(workflow or None) -> a Session on a project holding that sample."""
    sessions = []

    def make(workflow=None) -> Session:
        db = tmp_path / f"{workflow or 'empty'}.db"
        if workflow:
            import_text_sample(SAMPLES, workflow, db)
        s = Session("tester")
        errors: list[str] = []
        s.error.connect(errors.append)
        assert s.open(db, create=workflow is None), errors
        sessions.append((s, errors))
        return s

    yield make
    for s, errors in sessions:
        assert not errors
        s.close()


def shown(qtbot, panel):
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    qtbot.waitExposed(panel)
    assert not panel.live.stale  # computed when shown
    return panel


def report_f1(project) -> dict[tuple[str, str], list[str]]:
    """{(mode, category): [golden, predicted, matched, precision, recall, F1]} of the
    span report's F1 table (Markdown, as ``reviewer report`` prints it)."""
    text = span_store.report_markdown(project)
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 8 and cells[0] in ("exact", "relaxed"):
            rows[(cells[0], cells[1])] = cells[2:]
    assert rows, text
    return rows


def assert_f1_equals_report(panel, project):
    report = report_f1(project)
    header, *rows = panel.figures()["f1"]
    assert header[:2] == ["run", "category"] and rows
    for group, category, golden, predicted, exact, relaxed, coverage, precision in rows:
        assert group == "model:sample-labeler"
        assert report[("exact", category)][5] == exact
        r = report[("relaxed", category)]
        assert [golden, predicted, relaxed, coverage, precision] == [r[0], r[1], r[5], r[4], r[3]]
    return {row[1]: row for row in rows}


def test_span_panel_f1_equals_the_report_and_follows_golden_edits_once_per_burst(qtbot, open_session):
    s = open_session("spans")
    panel = shown(qtbot, SpanScoresPanel(s))
    before = assert_f1_equals_report(panel, s.project)
    assert before["all"][5] == "0.733"  # the sample's relaxed span F1 (reviewer demo)
    assert {"shot", "subject", "environment"} <= set(before)  # per category
    assert panel.figures()["severity"] == []  # no judged snapshot in this sample
    assert panel.judge_note.isVisible() and "no span judge" in panel.judge_note.text()
    # three golden-span deletions in a burst: computed once, the figures follow
    item = next(i for i in repo_items.items(s.project) if i.name == "sample-kite")
    golden = span_store.golden_spans(s.project, item.id, item.text)
    count = panel.live.computed
    for span in golden[:3]:  # a burst: the event loop runs between the decisions
        assert s.execute(DeleteGoldenSpan(span.id, item.text))
        qtbot.wait(30)
    assert panel.live.stale
    qtbot.waitUntil(lambda: not panel.live.stale)
    qtbot.wait(300)
    assert panel.live.computed == count + 1
    after = assert_f1_equals_report(panel, s.project)
    assert int(after["all"][2]) == int(before["all"][2]) - 3
    assert after["all"][5] != before["all"][5]
    # hidden: a change computes nothing until the panel is shown again
    panel.hide()
    s.undo()
    qtbot.wait(300)
    assert panel.live.stale and panel.live.computed == count + 1
    panel.show()
    assert not panel.live.stale and panel.live.computed == count + 2
    assert int(panel.figures()["f1"][1][2]) == int(before["all"][2]) - 2
    assert_f1_equals_report(panel, s.project)


def test_span_panel_missed_by_severity_as_the_report_and_after_review(qtbot, open_session, tmp_path):
    s = open_session(None)
    assert s.import_source(span_twin.write(tmp_path / "twin.json", span_twin.snapshot())) is not None
    panel = shown(qtbot, SpanScoresPanel(s))
    figures = panel.figures()
    (_, _, _, severity_rows), names = debug_tables(s.project)[1], span_store.snapshot_names(s.project)
    assert len(names) == 1
    assert figures["severity"][0] == ["snapshot", "severity", "judge", "after review"]
    assert [row[:3] for row in figures["severity"][1:]] == [[n, k, str(c)] for n, k, c, _ in severity_rows]
    assert {row[1]: int(row[3]) for row in figures["severity"][1:]} == span_twin.EXPECTED["severity"]
    assert [row[1:] for row in figures["categories"][1:]][:2] == [["shot", "4.00", "4.00"], ["subject", "4.00", "4.00"]]
    assert figures["f1"] == [] and "no span F1" in panel.note.text()
    # rejecting a critical missed element takes it out after review; the judge's count stays
    critical = [
        f.id
        for f in repo_findings.findings(s.project)
        if f.code == SpanCode.MISSED and f.attrs.get("severity") == "critical"
    ]
    assert len(critical) == 1
    assert s.execute(DecideFindings(critical, Status.REJECTED, "tester"))
    qtbot.waitUntil(lambda: not panel.live.stale)
    rows = {row[1]: row for row in panel.figures()["severity"][1:]}
    assert rows["critical"][2:] == ["1", "0"] and rows["important"][2:] == ["3", "3"]


def test_span_panel_says_when_there_is_nothing(qtbot, open_session):
    panel = shown(qtbot, SpanScoresPanel(open_session(None)))
    assert panel.figures() == {"f1": [], "categories": [], "severity": [], "note": [[NO_SPANS]]}
    assert panel.note.textFormat() == Qt.PlainText


def test_failter_panel_is_the_reports_table(qtbot, open_session):
    s = open_session("failter")
    panel = shown(qtbot, FailterScoresPanel(s))
    rows = failter_rows(s.project, DEFAULT_WEIGHTS)
    assert len(rows) == 2
    assert panel.figures() == [HEADER, *[r.cells() for r in rows]]
    assert panel.figures()[0][:8] == [
        "Model",
        "Prompt",
        "Eval_Method",
        "Trials",
        "Errors",
        "Avg_Score",
        "Rules_Score",
        "GT_Score",
    ]
    # the same table `reviewer report` prints
    text = build_report(s.project, ReportOptions()).text
    assert markdown_table(HEADER, panel.figures()[1:]) in text
    # plain text, names elided in the middle with the whole on hover
    table = panel.table
    assert table.textElideMode() == Qt.ElideMiddle
    assert table.item(0, 0).toolTip() == plain_tooltip(rows[0].model)
    assert panel.note.text().startswith("Errors: 0 of 4 trials")


def test_failter_panels_eval_method_is_shown_whole(qtbot, open_session):
    # the sample's rows name the scales they mix ("mixed: ... (scales 1-5,
    # A-F, in points)"): the column fits the whole text, or the row is tall
    # enough for it wrapped; either way nothing is elided
    s = open_session("failter")
    panel = shown(qtbot, FailterScoresPanel(s))
    table, column = panel.table, HEADER.index("Eval_Method")
    metrics = table.fontMetrics()
    assert table.wordWrap()
    for row in range(table.rowCount()):
        text = table.item(row, column).text()
        assert "(scales " in text
        margin = table.style().pixelMetric(table.style().PixelMetric.PM_FocusFrameHMargin)
        width = table.columnWidth(column) - 2 * margin - 2
        needed = metrics.boundingRect(0, 0, width, 10_000, Qt.TextWordWrap, text)
        assert needed.width() <= width and needed.height() <= table.rowHeight(row), (text, width, needed)


def test_failter_panel_says_when_there_is_nothing(qtbot, open_session):
    panel = shown(qtbot, FailterScoresPanel(open_session(None)))
    assert panel.figures() == [] and panel.note.text() == NO_FAILTER and not panel.table.isVisible()


def test_rubric_panel_counts_equal_the_report_and_warns_of_inflation(qtbot, open_session):
    s = open_session("rubric")
    panel = shown(qtbot, RubricScoresPanel(s))
    report = build_judge_report(s.project, refresh_disputes(s.project))
    assert panel.figures()["counts"] == [
        [d.judge, d.dimension, [d.counts[k] for k in SCORES]] for d in report.distributions
    ]
    table = panel.figures()["table"]
    assert table[1][:8] == ["expected (plan)", "", "", "5%", "10%", "35%", "40%", "10%"]
    assert len(table) == 2 + len(report.distributions)
    assert panel.figures()["warnings"] == report.warnings == []  # three readings: too few to judge
    assert len(panel.chart.series()) == 1 and len(panel.chart.series()[0].barSets()) == 2
    # a judge that gives every reading 5 (an untrusted name) is flagged as the report flags it
    name = "<b>gushing</b>"
    run = repo_runs.run_rows(s.project, with_output=False)[0]
    for rep in range(1, 6):
        judging.add_verdict(
            s.project,
            Verdict(
                subject=f"run:{run['id']}",
                run_id=run["id"],
                judge=name,
                scale=Scale.ORDINAL5,
                scores={"overall": 5.0},
                repetition=rep,
            ),
        )
    s.judging.refresh()  # as after an import: disputesChanged
    qtbot.waitUntil(lambda: not panel.live.stale)
    report = build_judge_report(s.project, refresh_disputes(s.project))
    dists = score_distribution(judging.verdicts(s.project))
    expected = [inflation_warning(d, expected_for(d.dimension)) for d in dists]
    assert panel.figures()["warnings"] == report.warnings == [w for w in expected if w]
    assert any(name in w for w in panel.figures()["warnings"])
    row = next(r for r in panel.figures()["table"] if r[0] == name)
    assert row[2:] == ["5", "0 (0%)", "0 (0%)", "0 (0%)", "0 (0%)", "5 (100%)", "5.00", "yes"]
    assert "⚠" in panel.note.text() and panel.note.textFormat() == Qt.PlainText
    # the chart shows the inflated judge, its name escaped (Qt Charts reads rich text)
    assert panel.chart.title().startswith("&lt;b&gt;gushing&lt;/b&gt;")
    assert re.search(r"n = 5", panel.chart.title())


def test_rubric_panel_says_when_there_is_nothing(qtbot, open_session):
    panel = shown(qtbot, RubricScoresPanel(open_session(None)))
    figures = panel.figures()
    assert figures["table"] == [] and figures["counts"] == [] and "no 1-5 rubric scores" in panel.note.text()


def test_span_panel_shows_the_sample_imported_while_open(qtbot, open_session):
    s = open_session(None)
    panel = shown(qtbot, SpanScoresPanel(s))
    assert panel.figures()["f1"] == []
    for rel in ("spans/golden-set.json", "spans/golden-set-results-latest.json"):
        assert s.import_source(SAMPLES / rel) is not None
    qtbot.waitUntil(lambda: not panel.live.stale)
    assert_f1_equals_report(panel, s.project)


def test_pairwise_panel_win_rates_position_bias_and_the_reports_consistency(qtbot, open_session):
    s = open_session(None)
    p = s.project
    prompt, _ = repo_items.upsert_prompt(p, Prompt(name="answer", text="Answer it", schema=AnswerSchema.FREE))
    #: pair -> (winner with run a shown first, winner with run b shown first, gold); '1': run a's answer won
    outcomes = {"p1": ("1", "1", "1"), "p2": ("1", "2", "1"), "p3": ("2", "2", "2"), "p4": ("tie", None, "tie")}
    for name, (ab, ba, gold) in outcomes.items():
        item, _ = repo_items.upsert_item(p, Item(name=name, kind="text", text=f"question {name}"))
        a, _ = repo_runs.add_run(p, item, prompt, "m-a", "answer a")
        b, _ = repo_runs.add_run(p, item, prompt, "m-b", "answer b")
        for judge, method, order, winner in (
            ("j", Method.PAIRWISE, "ab", ab),
            ("j", Method.PAIRWISE, "ba", ba),
            ("gold", Method.HUMAN, None, gold),
        ):
            judging.add_verdict(
                p,
                Verdict(
                    subject=f"pair:{a}:{b}",
                    run_id=a,
                    other_run_id=b,
                    judge=judge,
                    method=method,
                    scale=Scale.WINNER,
                    scores={"winner": winner},
                    answer_order=order,
                ),
            )
    s.judging.refresh()  # as after an import
    panel = shown(qtbot, PairwiseScoresPanel(s))
    figures = panel.figures()
    rows = agreement_rows(judging.verdicts(p), judging.adjudications(p))
    swap = next(r for r in rows if r.statistic == "position_swap_consistency" and r.raters == "j")
    gold = next(r for r in rows if r.statistic == "accuracy_vs_gold" and r.raters == "j [ab+ba] vs gold")
    assert (swap.formatted(), swap.n) == ("0.667", 3)  # p1 and p3 agree, p2 flips; p4 undecided in one order
    assert figures["judges"][1] == ["j", "8", "38%", "38%", "12%", "12%", "67%", "0.667", "3", gold.formatted()]
    assert figures["models"][1:] == [
        ["j", "m-a", "7", "3", "3", "1", "43%"],
        ["j", "m-b", "7", "3", "3", "1", "43%"],
    ]


def test_pairwise_panel_says_when_there_is_nothing(qtbot, open_session):
    panel = shown(qtbot, PairwiseScoresPanel(open_session("rubric")))
    assert panel.figures() == {"judges": [], "models": []} and panel.note.text() == PAIRWISE_NOTHING


def test_pairwise_win_rates_name_answering_models_never_answer_positions(qtbot, open_session):
    """The pairwise sample is LLMBar-shaped: its runs are named output_1 and
    output_2, which are positions, not models: no win rate lists them, and
    the panel says the models are not named."""
    panel = shown(qtbot, PairwiseScoresPanel(open_session("pairwise")))
    figures = panel.figures()
    assert figures["judges"][1:], "the sample has pairwise judges"
    assert not any(row[1] in ("output_1", "output_2") for row in figures["models"][1:])
    assert panel.models_note.isVisible() and "models not named" in panel.models_note.text()
    assert not panel.model_table.isVisible()
