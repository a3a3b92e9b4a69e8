"""The review window (docs/window.md): the real main window driven with
keys, offscreen, on the bundled sample plus fixtures made here; the
database is read through a second connection after each step."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QRectF, QSettings, Qt

from reviewer.core.models import Code, Status
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import ground_truth as repo_ground_truth
from tests.helpers.card_project import make_project, run_id
from tests.helpers.window import open_window

pytestmark = pytest.mark.gui


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    return tmp_path


@pytest.fixture
def window(qtbot, env):
    w = open_window(qtbot, make_project(env), item="table-01", prompt="spatial-grouping")
    yield w
    w.canvas.loader.wait()


def key(qtbot, window, k, modifier=Qt.NoModifier):
    """A key pressed with the keyboard in the findings list (as after a click there)."""
    qtbot.keyClick(window.findings_panel.view, k, modifier)


def stored(window, finding_id):
    p = open_project(window.session.project.path)
    try:
        return repo_findings.finding(p, finding_id)
    finally:
        p.close()


def test_a_ten_card_run_with_two_findings_is_done_and_the_next_run_shown_in_two_keys(qtbot, window):
    s = window.session
    target = run_id(window, "spatial-grouping", 3)
    s.set_run(target)
    run = s.run()
    assert run.auto.cards_visible == 10 and len(run.findings) == 2
    key(qtbot, window, Qt.Key_Y)
    key(qtbot, window, Qt.Key_Y)
    assert all(stored(window, f.id).status == Status.CONFIRMED for f in run.findings)
    assert s.run_id != target  # shown by itself: the next run that needs review
    assert s.selected_findings and all(
        f.status == Status.PROPOSED for f in s.run().findings if f.id in s.selected_findings
    )
    from reviewer.qt.panels import IdRole

    assert window.runs_panel.view.currentIndex().data(IdRole) == s.run_id  # the runs table shows it too
    assert window.findings_panel.current_ids() == s.selected_findings


def test_every_spatial_finding_of_a_run_is_rejected_with_one_key_and_undone_with_one(qtbot, window):
    s = window.session
    s.set_run(run_id(window, "spatial-grouping", 1, model="cols"))
    run = s.run()
    spatial = [f.id for f in run.findings if f.code == Code.SPATIAL]
    others = [f.id for f in run.findings if f.code != Code.SPATIAL]
    assert len(spatial) == 3 and others  # and an OCR
    s.select_findings([spatial[1]])
    key(qtbot, window, Qt.Key_N, Qt.ShiftModifier)  # Shift+N: the whole SPATIAL group
    assert all(stored(window, i).status == Status.REJECTED for i in spatial)
    assert all(stored(window, i).status == Status.PROPOSED for i in others)
    assert s.stack.undo_text() == "reject 3 SPATIAL finding(s)"
    assert s.selected_findings == [others[0]]  # on to what is left of the run
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier)  # one undo step for the group
    assert all(stored(window, i).status == Status.PROPOSED for i in spatial)
    # Ctrl+Shift+Y: every undecided finding of the run, then the next run
    key(qtbot, window, Qt.Key_Y, Qt.ControlModifier | Qt.ShiftModifier)
    assert all(stored(window, f.id).status == Status.CONFIRMED for f in run.findings)
    assert s.run_id != run.run["id"]
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier)  # undo shows the run again
    assert s.run_id == run.run["id"] and set(s.selected_findings) == {f.id for f in run.findings}
    assert all(stored(window, f.id).status == Status.PROPOSED for f in run.findings)


def test_review_keys_work_while_the_reason_bar_is_open(qtbot, window):
    s = window.session
    s.set_run(run_id(window, "spatial-grouping", 2))
    ids = [f.id for f in s.run().findings]
    key(qtbot, window, Qt.Key_N)  # rejects the first at once
    bar = window.reason_bar
    assert bar.isVisible() and stored(window, ids[0]).status == Status.REJECTED
    assert s.selected_findings == [ids[1]]
    key(qtbot, window, Qt.Key_Y)  # confirms the next finding, types nothing
    assert stored(window, ids[1]).status == Status.CONFIRMED
    assert bar.edit.text() == "" and bar.isVisible()
    key(qtbot, window, Qt.Key_K)
    assert s.selected_findings == [ids[1]]
    key(qtbot, window, Qt.Key_J)
    key(qtbot, window, Qt.Key_3)  # reclassify the third as SPATIAL
    assert stored(window, ids[2]).final_code == Code.SPATIAL and bar.edit.text() == ""
    # R: a reason for the finding rejected last, typed into the bar
    key(qtbot, window, Qt.Key_R)
    assert bar.edit.hasFocus()
    qtbot.keyClicks(bar.edit, "fine by me")
    qtbot.keyClick(bar.edit, Qt.Key_Return)
    assert stored(window, ids[0]).reason == "fine by me" and stored(window, ids[0]).status == Status.REJECTED
    assert not bar.isVisible() and not bar.edit.hasFocus()
    # Ctrl+Z while typing a reason undoes the rejection, not the typing
    s.select_findings([ids[1]])
    key(qtbot, window, Qt.Key_N)
    key(qtbot, window, Qt.Key_R)
    qtbot.keyClicks(bar.edit, "oops")
    qtbot.keyClick(bar.edit, Qt.Key_Z, Qt.ControlModifier)
    assert stored(window, ids[1]).status == Status.CONFIRMED  # back to before the rejection
    assert not bar.isVisible()


def test_selecting_a_finding_brings_its_card_into_view_at_any_zoom(qtbot, window):
    s, canvas = window.session, window.canvas
    s.set_run(run_id(window, "spatial-grouping", 2))
    findings = s.run().findings
    cards = {c.id: c.bbox for c in s.ground_truth().cards}
    for zoom in (0.2, 1.0, 3.0, 12.0, 40.0):
        for f in findings:
            canvas.fit()
            canvas.zoom_by(zoom / canvas.zoom())
            canvas.centerOn(0, 0)  # far from the cards
            s.select_findings([])
            key(qtbot, window, Qt.Key_J)  # select through the keyboard
            while s.selected_findings != [f.id]:
                key(qtbot, window, Qt.Key_J)
            box = cards[f.gt_card_id]
            rect = QRectF(box.x_min, box.y_min, box.x_max - box.x_min, box.y_max - box.y_min)
            assert canvas.visible_rect().contains(rect), (zoom, f.code, rect, canvas.visible_rect())


def test_search_filters_items_runs_and_esc_clears(qtbot, window):
    s = window.session
    qtbot.keyClick(window.findings_panel.view, Qt.Key_F, Qt.ControlModifier)
    assert window.search_box.hasFocus()
    qtbot.keyClicks(window.search_box, "pray")  # a card text
    items = window.items_panel.proxy
    assert items.rowCount() == 1 and items.index(0, 0).data().startswith("table-01")
    runs = window.runs_panel.proxy
    prompts = {runs.index(r, 0).data() for r in range(runs.rowCount())}
    assert prompts == {"spatial-grouping", "bounding-boxes"} and runs.rowCount() < len(s.runs())
    window.search_box.clear()
    qtbot.keyClicks(window.search_box, "cols")  # a model name
    assert runs.rowCount() == 1 and runs.index(0, 1).data() == "cols"
    qtbot.keyClick(window.search_box, Qt.Key_Escape)
    assert window.search_box.text() == "" and s.search == ""
    assert items.rowCount() == 2 and runs.rowCount() == len(s.runs())
    assert not window.search_box.hasFocus()


def test_auto_advance_off_stays_on_the_run_and_is_remembered(qtbot, window, env):
    s = window.session
    action = window.actions_by_name["auto_advance"]
    assert action.isChecked()  # on by default
    action.trigger()
    assert not window.review.auto_advance
    target = run_id(window, "spatial-grouping", 3)
    s.set_run(target)
    key(qtbot, window, Qt.Key_Y)
    key(qtbot, window, Qt.Key_Y)
    assert s.run().is_reviewed and s.run_id == target
    window.close()
    settings = QSettings(str(env / "config" / "reviewer.ini"), QSettings.IniFormat)
    assert str(settings.value("review/auto_advance")).lower() == "false"
    w2 = open_window(qtbot, env / "p.db")
    assert not w2.actions_by_name["auto_advance"].isChecked() and not w2.review.auto_advance
    w2.canvas.loader.wait()


def test_status_messages_never_cover_the_legend(qtbot, window):
    legend = window.compact_legend
    window.session.message.emit("a long message " * 30)
    qtbot.wait(10)
    assert legend.isVisible() and window.statusBar().currentMessage() == ""
    assert window.message_label.text().startswith("a long message")
    assert not legend.geometry().intersects(window.message_label.geometry())
    window.show_error("broken")
    assert legend.isVisible() and "broken" in window.message_label.text()


def test_ground_truth_from_a_run_boxes_undo_redo(qtbot, env):
    w = open_window(qtbot, make_project(env, strip_boxes=["table-01"]), item="table-01", prompt="bounding-boxes")
    s = w.session
    s.set_run(run_id(w, "bounding-boxes", 1))
    item = s.item()
    w.actions_by_name["use_boxes"].trigger()

    def boxes():
        p = open_project(s.project.path)
        try:
            return {c.text: c.bbox for c in repo_ground_truth.ground_truth(p, item.id).cards}
        finally:
            p.close()

    # proposed, not taken: the ground truth has no box until each is accepted
    assert all(b is None for b in boxes().values()) and len(w.proposed_boxes.boxes()) == 10
    w.canvas.setFocus()
    for _ in range(10):
        qtbot.keyClick(w.canvas, Qt.Key_Return)
    got = boxes()
    assert all(b is not None for b in got.values()) and len(got) == 10
    assert got["To pray"].x_min > item.width / 2  # upright pixels, on the right half
    assert w.unplaced_panel.card_ids() == [] and w.proposed_boxes.boxes() == []
    for _ in range(10):
        qtbot.keyClick(w, Qt.Key_Z, Qt.ControlModifier)
    assert all(b is None for b in boxes().values()) and len(w.proposed_boxes.boxes()) == 10
    for _ in range(10):
        qtbot.keyClick(w, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert boxes() == got
    w.canvas.loader.wait()


def test_ground_truth_from_a_run_draft_undo_redo(qtbot, env):
    w = open_window(qtbot, make_project(env, clear_gt=["table-02"]), item="table-02", prompt="spatial-grouping")
    s = w.session
    s.set_run(run_id(w, "spatial-grouping", 2, item="table-02"))
    assert not s.ground_truth().cards
    w.actions_by_name["accept_cards"].trigger()

    def gt():
        p = open_project(s.project.path)
        try:
            return repo_ground_truth.ground_truth(p, s.item_id)
        finally:
            p.close()

    made = gt()
    assert [p.label for p in made.piles] == ["left", "center", "right"] and len(made.cards) == 6
    assert s.run().auto.text_accuracy == 1.0  # re-scored against the new ground truth
    qtbot.keyClick(w, Qt.Key_Z, Qt.ControlModifier)
    assert gt().cards == [] and gt().piles == []
    qtbot.keyClick(w, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert [c.id for c in gt().cards] == [c.id for c in made.cards]
    w.actions_by_name["accept_cards"].trigger()  # has ground truth now: nothing happens
    assert len(gt().cards) == 6
    w.canvas.loader.wait()


def test_ctrl_i_imports_a_file_with_the_model_name_typed_inline(qtbot, window, env):
    path = env / "more.jsonl"
    path.write_text(
        json.dumps(
            {
                "item": "table-02",
                "prompt": "spatial-grouping",
                "repetition": 1,
                "output": json.dumps({"piles": [{"label": "left", "cards": ["To pray"]}]}),
            }
        )
        + "\n"
    )
    key(qtbot, window, Qt.Key_I, Qt.ControlModifier)
    bar = window.import_bar
    assert bar.isVisible() and bar.path.hasFocus()
    qtbot.keyClicks(bar.path, str(path))
    bar.model.setFocus()
    qtbot.keyClicks(bar.model, "typed-model")
    qtbot.keyClick(bar.model, Qt.Key_Return)
    assert not bar.isVisible()
    assert any(x.model == "typed-model" for x in window.session.run_lines())
    # a folder goes the same way
    key(qtbot, window, Qt.Key_I, Qt.ControlModifier)
    qtbot.keyClicks(bar.path, str(env / "missing-folder"))
    qtbot.keyClick(bar.path, Qt.Key_Return)
    assert bar.isVisible() and any("missing-folder" in e for e in window.errors)  # says why, stays open


def test_first_start_asks_the_name_inline_without_blocking(qtbot, env, monkeypatch):
    import getpass

    monkeypatch.delenv("REVIEWER_NAME")
    monkeypatch.setattr(getpass, "getuser", lambda: "login-ann")
    w = open_window(qtbot, make_project(env), ask_name=True, item="table-01", prompt="spatial-grouping")
    bar = w.name_bar
    assert bar.isVisible() and bar.edit.text() == "login-ann" and w.session.reviewer == "login-ann"
    assert not bar.edit.hasFocus()
    first = w.session.selected_findings[0]
    key(qtbot, w, Qt.Key_Y)  # the window works meanwhile
    assert stored(w, first).reviewer == "login-ann"
    bar.edit.setFocus()
    bar.edit.selectAll()
    qtbot.keyClicks(bar.edit, "Ann Example")
    qtbot.keyClick(bar.edit, Qt.Key_Return)
    assert not bar.isVisible() and w.session.reviewer == "Ann Example"
    assert w.settings.value("reviewer_name") == "Ann Example"
    nxt = w.session.selected_findings[0]
    key(qtbot, w, Qt.Key_N)
    assert stored(w, nxt).reviewer == "Ann Example"
    assert "Ann Example" in w.progress_label.text()
    w.close()
    w2 = open_window(qtbot, env / "p.db", ask_name=True)
    assert not w2.name_bar.isVisible() and w2.session.reviewer == "Ann Example"
    w2.canvas.loader.wait()


def test_first_start_layout_shows_six_runs_and_the_card_columns(qtbot, env, monkeypatch):
    from PySide6.QtCore import QSize

    from reviewer.qt import layout

    class BigScreen:  # the offscreen platform's screen is 800x800: pretend a 1920x1200 one
        @staticmethod
        def primaryScreen():  # noqa: N802 (Qt name)
            return type("S", (), {"availableSize": staticmethod(lambda: QSize(1920, 1200))})()

    monkeypatch.setattr(layout, "QGuiApplication", BigScreen)
    w = open_window(qtbot, make_project(env), size=None, item="table-01", prompt="spatial-grouping")
    assert (w.width(), w.height()) == (1600, 1000)
    qtbot.wait(50)
    runs = w.runs_panel.view
    assert runs.model().rowCount() >= 6
    bottom = runs.rowViewportPosition(5) + runs.rowHeight(5)
    assert runs.rowViewportPosition(5) >= 0 and bottom <= runs.viewport().height()
    view = w.findings_panel.view
    for column in (2, 3):  # ground truth and model card
        assert view.columnWidth(column) >= 60
        assert view.header().sectionViewportPosition(column) + view.columnWidth(column) <= view.viewport().width()
    w.canvas.loader.wait()


def test_every_new_key_is_on_the_shortcuts_sheet(window):
    from reviewer.qt.panels.shortcuts import SHORTCUTS

    sheet = " ".join(keys for keys, _ in SHORTCUTS)
    for name in ("reason", "confirm_code", "reject_code", "confirm_run", "reject_run", "search", "import", "blind"):
        sequence = window.actions_by_name[name].shortcut().toString()
        assert sequence and sequence in sheet, name
