"""The case perspective on samples/cases (offscreen): the centre view shows
the case beside the answer and, below, the checks that count for the case's
category in at least 8 whole rows at the centre size of a 1600x1000 window;
a decision moves the reviewed scores live; the score panel shows the case
report's figures."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QApplication

from reviewer.core.cases.scoring import counted_metrics
from reviewer.core.commands import DecideFindings
from reviewer.core.models import Status
from reviewer.core.tables import markdown_table
from reviewer.qt.cases.scores import CaseScoresPanel
from reviewer.qt.cases.view import CaseView
from reviewer.qt.session import Session
from reviewer.storage.cases.cases import project_metrics
from reviewer.storage.cases.report import case_report_markdown
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from tests.helpers.paths import ROOT

pytestmark = pytest.mark.gui
CASES = ROOT / "samples" / "cases"


@pytest.fixture
def session(qtbot, tmp_path):
    s = Session("tester")
    errors: list[str] = []
    s.error.connect(errors.append)
    assert s.open(tmp_path / "p.db", create=True)
    assert s.import_source(CASES / "orchard-line.json") is not None
    assert s.import_source(CASES / "answers.jsonl") is not None
    yield s
    assert not errors
    s.close()


def go(session, case_id, model):
    """Make ``case_id`` and its answer by ``model`` current."""
    item = repo_items.item_by_name(session.project, case_id)
    session.set_item(item.id)
    run_id = session.project.db.execute(
        "SELECT id FROM runs WHERE item_id = ? AND model = ?", [item.id, model]
    ).fetchone()[0]
    session.set_run(run_id)
    QApplication.processEvents()
    return session.run()


def shown_view(qtbot, session, size=(950, 700)):
    view = CaseView(session)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    QApplication.processEvents()
    return view


def whole_rows(table) -> int:
    """Rows of ``table`` shown whole in its viewport."""
    height = table.viewport().height()
    n = 0
    for r in range(table.rowCount()):
        rect = table.visualRect(table.model().index(r, 0))
        if rect.isValid() and rect.top() >= 0 and rect.bottom() < height:
            n += 1
    return n


def cells(table) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def test_the_checks_of_a_theory_case_fill_8_whole_rows_at_the_centre_size(qtbot, session):
    go(session, "orchard-theory-1", "hasty-model")
    view = shown_view(qtbot, session)
    assert view.applies() and view.isEnabled()
    assert view.query.text() == "Is the beekeeper Mara's lost uncle?"
    assert '"shouldMentionCharacters"' in view.expected.toPlainText()
    assert view.answer.toPlainText() == "Yes, Otto is definitely her uncle."
    # the theory case's score weighs theoryCoherence and citationAccuracy: their 9 checks, no other
    metrics = project_metrics(session.project)
    assert counted_metrics(metrics, "theory") == {"theoryCoherence", "citationAccuracy"}
    names = [row[0] for row in cells(view.checks)]
    expected = [
        f"{m.name}/{c.id}"
        for m in metrics.metrics
        if m.name in {"theoryCoherence", "citationAccuracy"}
        for c in m.checks
    ]
    assert sorted(names) == sorted(expected) and len(names) == 9
    assert view.checks.rowCount() >= 8 and whole_rows(view.checks) >= 8
    # the case and the answer side by side, the tables under them
    assert view.texts.orientation().name == "Horizontal"
    case_pane, answer_pane = view.texts.widget(0), view.texts.widget(1)
    assert case_pane.geometry().right() < answer_pane.geometry().left()
    assert (
        view.checks.mapTo(view, view.checks.rect().topLeft()).y()
        > view.answer.mapTo(view, view.answer.rect().bottomLeft()).y()
    )
    # the scores of the counted metrics and the case score, automatic and reviewed
    assert [row[0] for row in cells(view.scores)] == ["citationAccuracy", "theoryCoherence", "case score"]


def test_a_citation_case_lists_only_citation_checks_and_other_items_do_not_apply(qtbot, session):
    go(session, "orchard-cite-1", "careful-model")
    view = shown_view(qtbot, session)
    rows = cells(view.checks)
    assert {r[0].split("/")[0] for r in rows} == {"citationAccuracy"} and len(rows) == 4
    outcome = {r[0]: r[2] for r in rows}
    assert outcome["citationAccuracy/complete"] == "FIRED"  # "[Episode: blossom]" names no chapter or speaker
    assert outcome["citationAccuracy/required"] == "passed"
    # plain text: a tooltip is escaped, never markup of the answer's
    assert view.checks.item(0, 0).toolTip().startswith("<p style='white-space:pre-wrap'>")


def test_a_decision_moves_the_reviewed_scores_live(qtbot, session):
    run = go(session, "orchard-cite-1", "careful-model")
    view = shown_view(qtbot, session)
    panel = CaseScoresPanel(session)
    qtbot.addWidget(panel)
    panel.resize(900, 240)
    panel.show()
    qtbot.waitUntil(lambda: bool(panel.figures()[1]), timeout=3000)
    before = panel.figures()
    rows = {r[0]: r for r in cells(view.scores)}
    assert rows["citationAccuracy"][1:3] == ["0.80", "0.80"]  # one warning: 1.0 - 0.2
    complete = next(f for f in run.findings if f.attrs.get("check") == "complete")
    session.select_findings([complete.id])
    QApplication.processEvents()
    bold = [sel for sel in view.answer.extraSelections() if sel.format.fontWeight() == 700]
    assert [sel.cursor.selectedText() for sel in bold] == ["[Episode: blossom]"]
    assert session.execute(DecideFindings([complete.id], Status.REJECTED, "tester"))
    QApplication.processEvents()
    rows = {r[0]: r for r in cells(view.scores)}
    assert rows["citationAccuracy"][1:3] == ["0.80", "1.00"]
    assert rows["case score"][1:3] == ["0.80 pass", "1.00 pass"]
    # the score panel follows (debounced): the careful model's reviewed citationAccuracy average rises
    qtbot.waitUntil(lambda: panel.figures() != before, timeout=3000)
    header, after = panel.figures()
    col = header.index("citationAccuracy")
    old = {(r[0], r[1]): r for r in before[1]}
    new = {(r[0], r[1]): r for r in after}
    assert float(new[("careful-model", "reviewed")][col]) > float(old[("careful-model", "reviewed")][col])
    assert new[("careful-model", "auto")] == old[("careful-model", "auto")]
    session.undo()
    QApplication.processEvents()
    assert {r[0]: r for r in cells(view.scores)}["citationAccuracy"][2] == "0.80"


def test_the_score_panel_shows_the_case_reports_figures(qtbot, session):
    go(session, "orchard-story-1", "hasty-model")
    panel = CaseScoresPanel(session)
    qtbot.addWidget(panel)
    assert panel.figures() == ([], [])  # hidden: nothing computed
    session.findingsChanged.emit()
    qtbot.wait(250)
    assert panel.figures() == ([], [])  # still hidden: stale, not computed
    panel.resize(1000, 260)
    panel.show()
    qtbot.waitUntil(lambda: bool(panel.figures()[1]), timeout=3000)
    header, rows = panel.figures()
    assert {(r[0], r[1]) for r in rows} == {
        (m, b) for m in ("careful-model", "hasty-model") for b in ("auto", "reviewed")
    }
    p = open_project(session.project.path)
    try:
        report = case_report_markdown(p)
    finally:
        p.close()
    assert markdown_table(header, rows) in report
    # what is shown is what figures() gives
    table = panel.table
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == header
    assert cells(table) == rows


def test_fit_widths_keeps_the_name_column_and_narrows_the_widest_others():
    from reviewer.qt.cases.tables import fit_widths

    assert fit_widths([100, 50, 80], 300) == [100, 50, 80]  # all fit
    got = fit_widths([200, 60, 300, 250], 500)
    assert got[0] == 200 and got[1] == 60 and sum(got) <= 500 and got[2] == got[3] > 60
    # too narrow to keep the name whole: every column capped alike, never below the least width
    assert fit_widths([400, 400, 400], 200) == [66, 66, 66]
    assert fit_widths([400, 400, 400], 100) == [48, 48, 48]
