"""One perspective per workflow (docs/window.md#perspectives): on each sample
the window shows the item's workflow's centre, docks, tools and columns, and
nothing of another workflow; text items are named by their first words;
layouts are kept per perspective."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QToolBar

from reviewer.core.workflows import Workflow
from reviewer.qt.perspectives import CARD_ACTIONS, CARD_RUN_COLUMNS, PERSPECTIVES, settings_key
from reviewer.storage.project.db import open_project
from tests.helpers.perspectives import SAMPLE_WORKFLOWS, make
from tests.helpers.window import open_window

pytestmark = pytest.mark.gui

#: Widgets of the card workflow that no other perspective may show.
CARD_ONLY_DOCKS = {"unplaced", "piles", "scores"}


def workflow_counts(p) -> dict:
    """{workflow: number of items} as recorded in the project."""
    return dict(p.db.execute("SELECT workflow, count(*) FROM items GROUP BY workflow").fetchall())


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


@pytest.mark.parametrize("sample", list(SAMPLE_WORKFLOWS))
def test_every_item_is_recorded_with_its_samples_workflow(tmp_path, sample):
    p = open_project(make(tmp_path, sample))
    try:
        assert workflow_counts(p) == {SAMPLE_WORKFLOWS[sample]: len(p.db.execute("SELECT id FROM items").fetchall())}
        assert p.db.execute("SELECT count(*) FROM items WHERE workflow IS NULL").fetchone()[0] == 0
    finally:
        p.close()


@pytest.mark.parametrize("sample", list(SAMPLE_WORKFLOWS))
def test_each_perspective_shows_its_own_panels_and_nothing_of_another_workflow(qtbot, tmp_path, config, sample):
    w = open_window(qtbot, make(tmp_path, sample), size=(1600, 1000), wait_canvas=False)
    workflow = SAMPLE_WORKFLOWS[sample]
    w.set_mode("review")  # a project with disputes opens in adjudication
    qtbot.waitUntil(lambda: w.session.item() is not None, timeout=5000)
    qtbot.waitUntil(lambda: w.perspectives.perspective().workflow == workflow, timeout=5000)
    p = PERSPECTIVES[workflow]
    assert w.center_stack.currentWidget() is w.centers[p.center]
    shown = {k for k, d in w.docks.items() if d.toggleViewAction().isChecked()}  # tabbed docks count
    own = w.perspectives.docks_of(p)
    assert shown == {k for k in own if k in w.docks}
    for key, dock in w.docks.items():
        assert dock.toggleViewAction().isVisible() == (key in own)  # the View menu lists only its own
    if (
        workflow == Workflow.JUDGED
    ):  # the Failter table only beside Failter results, the distribution beside rubric ones
        assert ("failter_scores" in own) == (sample == "failter")
        assert ("rubric_scores" in own) == (sample == "rubric")
    card_tools_shown = any(w.actions_by_name[name].isVisible() for name in CARD_ACTIONS)
    assert card_tools_shown == (workflow == Workflow.CARDS)
    assert w.findChild(QToolBar, "Annotators").isVisible() == (workflow == Workflow.CARDS)
    hidden = {c for c in range(w.runs_panel.model.columnCount()) if w.runs_panel.view.isColumnHidden(c)}
    assert hidden == (set() if workflow == Workflow.CARDS else set(CARD_RUN_COLUMNS))
    if workflow != Workflow.CARDS:
        assert not (shown & CARD_ONLY_DOCKS)
        assert not w.canvas.isVisible()
        assert "Unplaced cards" not in w.statusBar().currentMessage()


def test_text_items_are_listed_by_their_id_and_first_words_with_the_id_on_hover(qtbot, tmp_path, config):
    from PySide6.QtCore import Qt

    w = open_window(qtbot, make(tmp_path, "spans"), size=(1600, 1000), wait_canvas=False)
    model = w.items_panel.model
    for row in range(model.rowCount()):
        status = model.rows[row]
        index = model.index(row)
        first = " ".join(t for t in status.item.text.split()[:3])
        assert index.data(Qt.DisplayRole).startswith(f"{status.item.name} · {first}")  # no shared opening here
        assert status.item.name in index.data(Qt.ToolTipRole)
        assert "golden span" in index.data(Qt.DisplayRole)  # its ground truth is the golden spans
        assert "no ground truth" not in index.data(Qt.DisplayRole)


def test_runs_without_findings_are_not_counted_as_reviewed(qtbot, tmp_path, config):
    """A pairwise project has no findings to decide: nothing is reviewed, and
    the status line says how many runs have no findings instead."""
    w = open_window(qtbot, make(tmp_path, "pairwise"), size=(1600, 1000), wait_canvas=False)
    p = w.session.progress()
    assert p["runs"] == 6 and p["runs_reviewed"] == 0 and p["runs_no_findings"] == 6
    assert "runs reviewed 0/0 · no findings 6" in w.progress_label.text()
    assert "2 runs, no findings" in w.items_panel.model.index(0).data()


def test_failter_ground_truth_shows_beside_the_output(qtbot, tmp_path, config):
    w = open_window(qtbot, make(tmp_path, "failter"), size=(1600, 1000), wait_canvas=False)
    w.set_mode("review")
    qtbot.waitUntil(lambda: w.perspectives.perspective().workflow == Workflow.JUDGED, timeout=5000)
    view = w.centers["judged"]
    assert view.isVisible()
    p = open_project(tmp_path / "failter.db")
    try:
        item_id, truth = p.db.execute("SELECT item_id, text FROM item_references").fetchone()  # pond.md has one
    finally:
        p.close()
    w.session.set_item(item_id)
    refs = [(truth,)]
    assert view.truth_text.toPlainText().strip() == refs[0][0].strip()
    assert view.output_text.toPlainText().strip() == w.session.run().run["output"].strip()
    assert view.verdicts.rowCount() >= 1  # the run's verdicts are listed
    labels = {st.item.id: w.items_panel.model.index(k).data() for k, st in enumerate(w.items_panel.model.rows)}
    assert "ground-truth file" in labels[item_id] and "no ground truth" not in labels[item_id]
    assert any("no ground truth" in text for i, text in labels.items() if i != item_id)  # bread.md has none


def test_each_perspective_keeps_its_own_layout(qtbot, tmp_path, config):
    db = make(tmp_path, "cards")
    w = open_window(qtbot, db, size=(1600, 1000))
    w.docks["output"].hide()  # the user closes a panel in the card perspective
    w.perspectives.save()
    settings = QSettings(str(config / "reviewer.ini"), QSettings.IniFormat)
    assert w.settings.value(settings_key(Workflow.CARDS)) is not None
    w.perspectives.show(Workflow.SPANS)
    assert not w.docks["unplaced"].isVisible() and w.docks["output"].isVisible()  # spans: its own layout
    w.perspectives.show(Workflow.CARDS)
    assert not w.docks["output"].isVisible()  # the card layout came back as the user left it
    assert w.docks["unplaced"].isVisible()
    del settings


def rows_that_fit(view) -> int:
    """Whole rows the table's (or tree's) viewport holds, at the height of its first row."""
    model = view.model()
    height = view.visualRect(model.index(0, 0)).height() if model.rowCount() else 0
    return view.viewport().height() // max(1, height or view.fontMetrics().height() + 8)


def test_the_card_findings_table_holds_at_least_8_rows_at_1600x1000(qtbot, tmp_path, config):
    w = open_window(qtbot, make(tmp_path, "cards"), size=(1600, 1000), item="table-01", prompt="spatial-grouping")
    qtbot.wait(50)  # the first-start layout is applied once the window is laid out
    assert w.docks["findings"].isVisible()
    assert rows_that_fit(w.findings_panel.view) >= 8
    assert rows_that_fit(w.runs_panel.view) >= 6


def test_a_pairwise_subject_shows_both_answers_and_the_verdicts_on_them(qtbot, tmp_path, config):
    w = open_window(qtbot, make(tmp_path, "pairwise"), size=(1600, 1000), wait_canvas=False)
    w.set_mode("review")
    qtbot.waitUntil(lambda: w.perspectives.perspective().workflow == Workflow.PAIRWISE, timeout=5000)
    view = w.centers["judged"]
    runs = {r.run["id"]: r.run["output"] for r in w.session.runs()}
    shown = w.session.run().run["id"]
    (other,) = [rid for rid in runs if rid != shown]
    assert view.output_text.toPlainText().strip() == runs[shown].strip()
    assert view.truth_text.toPlainText().strip() == runs[other].strip()
    judges = {view.verdicts.item(r, 0).text() for r in range(view.verdicts.rowCount())}
    assert judges == {"gold", "judge-a/vanilla", "judge-b/vanilla"}
    assert "pairwise_scores" in {k for k, d in w.docks.items() if d.isVisible()}
    assert "GT gold label" in w.items_panel.model.index(0).data()  # the gold label is its ground truth


def test_the_case_checks_table_holds_at_least_8_rows_at_1600x1000(qtbot, tmp_path, config):
    w = open_window(qtbot, make(tmp_path, "cases"), size=(1600, 1000), wait_canvas=False, item="orchard-theory-1")
    w.set_mode("review")
    qtbot.waitUntil(lambda: w.perspectives.perspective().workflow == Workflow.CASE, timeout=5000)
    qtbot.wait(50)
    assert w.centers["case"].checks.rowCount() >= 8  # a theory case counts nine checks
    view = w.centers["case"].checks
    visible = sum(
        1 for r in range(view.rowCount()) if view.viewport().rect().contains(view.visualItemRect(view.item(r, 0)))
    )
    assert visible >= 8


@pytest.mark.parametrize("sample", ["cards", "spans", "failter"])
def test_the_key_sheet_lists_the_keys_of_the_shown_perspective(qtbot, tmp_path, config, sample):
    w = open_window(qtbot, make(tmp_path, sample), size=(1600, 1000), wait_canvas=sample == "cards")
    w.set_mode("review")
    w.shortcuts.show()
    sheet = w.shortcuts.table
    rows = [(sheet.item(r, 0).text(), sheet.item(r, 1).text()) for r in range(sheet.rowCount())]
    keys = {k: a for k, a in rows if not a.startswith(("adjudication", "label first"))}  # the review pane's
    w.shortcuts.close()
    if sample == "cards":
        assert "P" in keys and "1-6" in keys and "E / Shift+E" in keys
    else:
        assert not {"P", "C", "G / Shift+G", "1-6", "E / Shift+E"} & set(keys)  # no card keys beside a text
    if sample == "spans":
        assert "MISSED" in keys["1-4"] and "Y" in keys
    if sample == "failter":
        assert "Y" not in keys and "J / K" not in keys  # a judged output has no findings to walk
    assert "Ctrl+F, Esc" in keys and "?" in keys


def test_adjudication_never_shows_a_dock_not_even_on_the_first_start(qtbot, tmp_path, config):
    # a first start (no saved layout) in adjudication mode: the default layout comes after the window
    # is laid out, and must not bring back docks that show judges' scores beside the label-first page
    w = open_window(qtbot, make(tmp_path, "rubric"), size=(1600, 1000), wait_canvas=False, mode="adjudication")
    assert w.mode == "adjudication"
    qtbot.wait(100)
    assert [k for k, d in w.docks.items() if d.isVisible()] == []
    w.session.projectChanged.emit()  # a reload keeps them hidden too
    w.session.set_item(w.session.items()[-1].item.id)
    qtbot.wait(50)
    assert [k for k, d in w.docks.items() if d.isVisible()] == []
    w.set_mode("review")
    assert "rubric_scores" in [k for k, d in w.docks.items() if d.isVisible()]
