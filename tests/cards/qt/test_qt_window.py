"""The review window (docs/window.md): drive the real main window with keys and the mouse,
offscreen, and check the database after each step."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from reviewer.core.models import Code, Status
from reviewer.qt.app import build
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import ground_truth as repo_ground_truth
from tests.helpers.canvas import at, drag, type_and_enter
from tests.helpers.paths import SAMPLES

pytestmark = pytest.mark.gui


@pytest.fixture
def window(card_window):
    return card_window


def fresh(window):
    """A second connection, as another process would read the file."""
    return open_project(window.session.project.path)


def key(qtbot, window, k, modifier=Qt.NoModifier):
    qtbot.keyClick(window.findings_panel.view, k, modifier)


def finding_row(window, finding_id):
    p = fresh(window)
    try:
        return repo_findings.finding(p, finding_id)
    finally:
        p.close()


def test_draw_pile_and_card_type_text_undo_redo(qtbot, window):
    s, canvas = window.session, window.canvas
    item_id = s.item_id
    before = len(repo_ground_truth.ground_truth(s.project, item_id).cards)
    s.set_tool("pile")
    drag(qtbot, canvas, at(canvas, 40, 40), at(canvas, 400, 300))
    type_and_enter(qtbot, canvas, "corner")
    p = fresh(window)
    assert any(pl.label == "corner" for pl in repo_ground_truth.ground_truth(p, item_id).piles)
    p.close()
    s.set_tool("card")
    drag(qtbot, canvas, at(canvas, 100, 100), at(canvas, 300, 200))
    type_and_enter(qtbot, canvas, "To see the sea")
    p = fresh(window)
    cards = repo_ground_truth.ground_truth(p, item_id).cards
    p.close()
    new = [c for c in cards if c.text == "To see the sea"]
    assert len(cards) == before + 1 and new and new[0].pile == "corner"
    assert abs(new[0].bbox.x_min - 100) < 4 and abs(new[0].bbox.y_max - 200) < 4
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)  # undo the card
    p = fresh(window)
    assert len(repo_ground_truth.ground_truth(p, item_id).cards) == before
    p.close()
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)  # redo
    p = fresh(window)
    again = [c for c in repo_ground_truth.ground_truth(p, item_id).cards if c.text == "To see the sea"]
    p.close()
    assert again and again[0].id == new[0].id


def test_review_keys_confirm_reject_reclassify_and_bulk(qtbot, window):
    s = window.session
    s.set_run(next(r.run["id"] for r in s.runs() if r.run["prompt"] == "spatial-grouping" and r.run["repetition"] == 2))
    run = s.run()
    ids = [f.id for f in run.findings]
    assert len(ids) >= 3  # OCR, PARTIAL, SPATIAL on this run
    s.select_findings([ids[0]])
    key(qtbot, window, Qt.Key_Y)
    first = finding_row(window, ids[0])
    assert first.status == Status.CONFIRMED and first.reviewer == "ann" and first.decided_at
    assert s.selected_findings == [ids[1]]  # moved on to the next undecided finding
    key(qtbot, window, Qt.Key_N)  # rejects at once; the bar only shows
    assert finding_row(window, ids[1]).status == Status.REJECTED
    assert window.reason_bar.isVisible() and not window.reason_bar.edit.hasFocus()
    key(qtbot, window, Qt.Key_R)  # R: type the reason
    assert window.reason_bar.edit.hasFocus()
    qtbot.keyClicks(window.reason_bar.edit, "legible on the photo")
    qtbot.keyClick(window.reason_bar.edit, Qt.Key_Return)
    second = finding_row(window, ids[1])
    assert second.status == Status.REJECTED and second.reason == "legible on the photo"
    assert not window.reason_bar.isVisible()
    assert window.session.stack.history().count("reject 1 finding(s)") == 1  # the reason amended the rejection
    s.select_findings([ids[2]])
    assert run.findings[2].code == Code.SPATIAL
    key(qtbot, window, Qt.Key_2)  # MISS: a paired card cannot be missed; refused, and the status line says why
    assert finding_row(window, ids[2]).status == Status.PROPOSED
    key(qtbot, window, Qt.Key_1)  # reclassify as OCR
    third = finding_row(window, ids[2])
    assert third.final_code == Code.OCR and third.status == Status.CONFIRMED
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    assert finding_row(window, ids[2]).status == Status.PROPOSED
    # bulk: select every finding and reject them in one step
    s.select_findings(ids)
    key(qtbot, window, Qt.Key_N)
    key(qtbot, window, Qt.Key_Escape)
    assert not window.reason_bar.isVisible()
    assert all(finding_row(window, i).status == Status.REJECTED for i in ids)
    assert window.session.stack.undo_text().startswith("reject")
    assert s.run_id != run.run["id"]  # the run is reviewed: on to the next one that needs review
    # reviewed metrics follow: every error rejected -> every card correct
    run = s.scored_run(run.run["id"])
    assert run.reviewed.cards_correct == run.reviewed.cards_visible
    assert run.auto.cards_correct < run.auto.cards_visible


def test_next_run_needing_review_and_add_finding(qtbot, window):
    s = window.session
    start = s.run_id
    qtbot.keyClick(window, Qt.Key_J, Qt.ShiftModifier)
    assert s.run_id != start
    assert any(f.status == Status.PROPOSED for f in s.run().findings)
    card = s.ground_truth().cards[0]
    s.select_cards([card.id])
    key(qtbot, window, Qt.Key_A)
    key(qtbot, window, Qt.Key_1)
    p = fresh(window)
    added = [f for f in repo_findings.findings(p, s.run_id) if f.source.value == "human"]
    p.close()
    assert added and added[0].code == Code.OCR and added[0].gt_card_id == card.id


def test_convention_switch_moves_the_overlay(qtbot, window):
    s = window.session
    run = next(r for r in s.runs() if r.run["prompt"] == "bounding-boxes" and r.facts.box_convention)
    s.set_run(run.run["id"])
    before = [r.getCoords() for r in window.canvas.predicted_rects()]
    combo = window.output_panel.convention_combo
    target = next(i for i in range(combo.count()) if combo.itemText(i).startswith("0-1000"))
    combo.setCurrentIndex(target)
    after = [r.getCoords() for r in window.canvas.predicted_rects()]
    assert before and after and before != after


def test_corrupt_image_shows_a_message(qtbot, window, tmp_path):
    folder = tmp_path / "broken"
    (folder / "test-images").mkdir(parents=True)
    bad = folder / "test-images" / "smashed.jpg"
    bad.write_bytes(b"\xff\xd8\xff garbage")
    (folder / "test-images" / "ground-truth.json").write_text(
        json.dumps({"smashed": {"piles": [{"label": "a", "cards": ["x"]}]}})
    )
    window.session.import_source(folder)
    item = next(st.item for st in window.session.items() if st.item.name == "smashed")
    window.session.set_item(item.id)
    qtbot.waitUntil(lambda: "smashed.jpg" in window.canvas.message(), timeout=5000)
    assert window.isVisible()


def test_layout_and_reviewer_name_are_remembered(qtbot, window, tmp_path, monkeypatch):
    window.settings.setValue("reviewer_name", "ann from the dialog")
    window.docks["findings"].hide()
    window.close()
    monkeypatch.delenv("REVIEWER_NAME")
    w2 = build(tmp_path / "p.db", ask_name=False)
    qtbot.addWidget(w2)
    assert w2.session.reviewer == "ann from the dialog"
    assert str(tmp_path / "p.db") in w2.recent_projects.paths()
    assert w2.docks["findings"].isHidden() and not w2.docks["runs"].isHidden()
    w2.canvas.loader.wait()


def test_recent_menu_drop_and_sample_start(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtCore import QMimeData, QPoint, QUrl
    from PySide6.QtGui import QDropEvent

    window.recent_projects.fill()
    assert [a.text() for a in window.recent_menu.actions()] == [str(tmp_path / "p.db")]
    # dropping a folder imports it into the open project
    folder = tmp_path / "more"
    (folder / "test-images").mkdir(parents=True)
    from PIL import Image

    Image.new("RGB", (64, 48), "white").save(folder / "test-images" / "extra.jpg")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(folder))])
    event = QDropEvent(QPoint(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.dropEvent(event)
    assert any(st.item.name == "extra" for st in window.session.items())
    # `reviewer` alone: the bundled sample, imported once into the user's data folder
    monkeypatch.setenv("REVIEWER_DATA_DIR", str(tmp_path / "data"))
    w2 = build(None, sample=SAMPLES, ask_name=False)
    qtbot.addWidget(w2)
    assert (tmp_path / "data" / "sample.db").is_file()
    assert {st.item.name for st in w2.session.items()} == {"table-01", "table-02"}
    w2.canvas.loader.wait()


def test_g_moves_selected_cards_to_the_next_pile(qtbot, window):
    s = window.session
    card = s.ground_truth().cards[0]
    piles = [p.label for p in s.ground_truth().piles]
    s.select_cards([card.id])
    qtbot.keyClick(window, Qt.Key_G)
    p = fresh(window)
    moved = next(c for c in repo_ground_truth.ground_truth(p, s.item_id).cards if c.id == card.id)
    p.close()
    assert moved.pile == piles[(piles.index(card.pile) + 1) % len(piles)]
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    assert next(c for c in s.ground_truth().cards if c.id == card.id).pile == card.pile


def test_a_reason_typed_after_another_edit_undoes_nothing_else(qtbot, window):
    s = window.session
    from reviewer.core.commands import EditCards
    from reviewer.core.models import BBox

    run = s.run()
    fid = run.findings[0].id
    s.select_findings([fid])
    key(qtbot, window, Qt.Key_N)
    card = next(c for c in s.ground_truth().cards if c.bbox)
    moved = BBox(x_min=1, y_min=2, x_max=30, y_max=40)
    s.execute(EditCards({card.id: {"bbox": moved}}))  # another edit before the reason
    key(qtbot, window, Qt.Key_R)
    qtbot.keyClicks(window.reason_bar.edit, "late reason")
    qtbot.keyClick(window.reason_bar.edit, Qt.Key_Return)
    p = fresh(window)
    kept = next(c for c in repo_ground_truth.ground_truth(p, s.item_id).cards if c.id == card.id)
    p.close()
    assert kept.bbox == moved  # the move was not undone
    assert finding_row(window, fid).reason == "late reason"


def test_escape_in_the_card_editor_keeps_the_card_tool(qtbot, window):
    s, canvas = window.session, window.canvas
    s.set_tool("card")
    drag(qtbot, canvas, at(canvas, 100, 100), at(canvas, 300, 200))
    editor = canvas.inline_editor()
    assert editor is not None
    qtbot.keyClick(editor, Qt.Key_Escape)
    assert canvas.inline_editor() is None and s.tool == "card"


def test_a_project_reopens_where_the_reviewer_left_off(qtbot, tmp_path):
    from reviewer.qt.session import Session

    s = Session("ann")
    assert s.open(tmp_path / "p.db", create=True)
    s.import_source(SAMPLES, model="m")
    target = next(
        x.id for x in s.run_lines() if x.item == "table-02" and x.prompt == "bounding-boxes" and x.repetition == 3
    )
    s.set_run(target)
    s.close()
    again = Session("ann")
    assert again.open(tmp_path / "p.db")
    assert again.run_id == target and again.item().name == "table-02"
    again.close()


def test_a_miss_is_confirmed_or_rejected_never_reclassified(qtbot, window):
    """A MISS has no model card: 4 (HALLUC) would count the missed card as
    read, so the key is refused with the reason in the status line and the
    reviewed metrics stay (decision reclassification-keeps-the-finding-shape)."""
    s = window.session
    run = next(
        r for r in (s.scored_run(line.run["id"]) for line in s.runs()) if any(f.code == Code.MISS for f in r.findings)
    )
    s.set_run(run.run["id"])
    miss = next(f for f in s.run().findings if f.code == Code.MISS)
    before = s.scored_run(run.run["id"]).reviewed
    said: list[str] = []
    s.message.connect(said.append)
    s.select_findings([miss.id])
    key(qtbot, window, Qt.Key_4)
    assert said and "no model card" in said[-1] and "N rejects" in said[-1]
    row = finding_row(window, miss.id)
    assert row.status == Status.PROPOSED and row.final_code is None
    assert s.scored_run(run.run["id"]).reviewed == before
    key(qtbot, window, Qt.Key_Y)  # confirming it is fine
    assert finding_row(window, miss.id).status == Status.CONFIRMED
