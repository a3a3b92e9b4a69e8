"""The card window's details (docs/window.md): `--screenshot` leaves the user's
settings alone, the Run form after Cancel, the label key L, Esc on the key
sheet, search and the photo, a toolbar that stays put, columns that elide."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, QRectF, QSettings, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QToolBar

from reviewer.core.commands import AddCard
from reviewer.pipeline.execute import RunSummary
from reviewer.qt.app import run
from reviewer.qt.runner.controller import cancelled_text
from tests.helpers.window import open_window, scored_sample

pytestmark = pytest.mark.gui


def sample_project(tmp_path):
    return scored_sample(tmp_path / "p.db")


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = open_window(qtbot, sample_project(tmp_path), size=(1600, 1000), item="table-01", prompt="spatial-grouping")
    yield w
    w.canvas.loader.wait()


def test_screenshot_leaves_the_users_settings_byte_identical(qtbot, tmp_path, monkeypatch):
    config = tmp_path / "config"
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(config))
    db = sample_project(tmp_path)
    user = QSettings(str(config / "reviewer.ini"), QSettings.IniFormat)
    user.setValue("recent", [str(tmp_path / "elsewhere.db")])
    user.setValue("reviewer_name", "ann")
    user.sync()
    del user
    before = (config / "reviewer.ini").read_bytes()
    png = tmp_path / "shot.png"
    assert run(db, screenshot=png) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    assert (config / "reviewer.ini").read_bytes() == before
    assert sorted(p.name for p in config.iterdir()) == ["reviewer.ini"]


def test_a_cancelled_run_says_how_far_it_got_and_that_start_resumes():
    s = RunSummary(planned=10, skipped=2, asked=3, answered=2, failed=1, cancelled=True)
    text = cancelled_text(s)
    assert text.startswith("Cancelled after 5 of 10; Start resumes")
    assert "100" not in text and "command" not in text


@pytest.fixture
def boxes_window(qtbot, tmp_path, monkeypatch):
    """The window on a run with model boxes (bounding-boxes) at 1600x1000."""
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = open_window(qtbot, sample_project(tmp_path), size=(1600, 1000), item="table-01", prompt="bounding-boxes")
    yield w
    w.canvas.loader.wait()


def canvas_image(window, qtbot):
    qtbot.wait(20)
    return window.canvas.viewport().grab().toImage()


def test_l_cycles_model_card_labels_on_on_hover_off(qtbot, boxes_window):
    w, canvas = boxes_window, boxes_window.canvas
    assert canvas.overlay().predicted, "the sample run has model boxes"
    assert canvas.labels.mode == "on"
    on = canvas_image(w, qtbot)
    qtbot.keyClick(w.findings_panel.view, Qt.Key_L)
    assert canvas.labels.mode == "hover" and "on hover" in w.message_label.text()
    hover_nothing = canvas_image(w, qtbot)
    assert hover_nothing != on  # no model-card label until the mouse is over a box
    box = max(canvas.overlay().predicted, key=lambda s: (s.rect[2] - s.rect[0]) * (s.rect[3] - s.rect[1]))
    centre = canvas.mapFromScene(QPointF((box.rect[0] + box.rect[2]) / 2, (box.rect[1] + box.rect[3]) / 2))
    qtbot.mouseMove(canvas.viewport(), centre)
    qtbot.waitUntil(lambda: canvas.overlay_item.hovered is not None, timeout=2_000)
    assert canvas.overlay_item.hovered.label == box.label
    hovered = canvas_image(w, qtbot)
    assert hovered != hover_nothing  # the hovered box's label shows
    qtbot.keyClick(w.findings_panel.view, Qt.Key_L)
    assert canvas.labels.mode == "off"
    off = canvas_image(w, qtbot)
    # no model-card label, though the mouse is over a box (the card under it shows its own tag)
    assert not any(t.shape.kind == "predicted" for t in canvas.overlay_item.placed)
    qtbot.mouseMove(canvas.viewport(), centre + QPoint(1, 1))
    assert canvas_image(w, qtbot) == off  # off: hovering shows nothing either
    qtbot.keyClick(w.findings_panel.view, Qt.Key_L)
    assert canvas.labels.mode == "on" and canvas_image(w, qtbot) != off


def test_model_card_labels_sit_outside_their_boxes():
    from reviewer.qt.canvas.tags import tag_candidates

    tl, br = QPointF(100, 100), QPointF(300, 160)
    for x, y in tag_candidates("predicted", tl, br, 80, 14):
        inside = QRectF(tl, br).intersected(QRectF(x, y, 80, 14))
        assert inside.isEmpty() or inside.height() <= 0 or inside.width() <= 0, (x, y)


def test_esc_closes_the_key_sheet_first(qtbot, window):
    window.actions_by_name["shortcuts"].trigger()
    assert window.shortcuts.isVisible()
    window.session.set_tool("card")
    qtbot.keyClick(window.findings_panel.view, Qt.Key_Escape)
    assert not window.shortcuts.isVisible()
    assert window.session.tool == "card"  # the sheet took this Esc; the next goes to the tool
    qtbot.keyClick(window.findings_panel.view, Qt.Key_Escape)
    assert window.session.tool == "select"


def test_a_search_that_filters_out_the_shown_item_changes_the_photo(qtbot, window):
    s, canvas = window.session, window.canvas
    assert s.item().name == "table-01"
    before = canvas_image(window, qtbot)
    qtbot.keyClicks(window.search_box, "table-02")
    qtbot.waitUntil(lambda: s.item() is not None and s.item().name == "table-02", timeout=5_000)
    qtbot.waitUntil(lambda: canvas.ready, timeout=10_000)
    assert canvas_image(window, qtbot) != before
    assert {r.run["item"] for r in s.runs()} == {"table-02"}
    window.search_box.clear()
    qtbot.keyClicks(window.search_box, "no item holds this")
    qtbot.waitUntil(lambda: s.item() is None, timeout=5_000)  # nothing matches: no photo
    window.search_box.clear()  # the search gone: the item shown before it comes back
    qtbot.waitUntil(lambda: s.item() is not None and s.item().name == "table-02", timeout=5_000)


def test_the_toolbar_stays_put_when_undos_label_grows(qtbot, window):
    bars = [b for b in window.findChildren(QToolBar) if b.isVisible()]
    tools = window.findChild(QToolBar, "Tools")

    def geometry():
        return ([b.geometry() for b in bars], [tools.widgetForAction(a).geometry() for a in tools.actions()])

    before = geometry()
    long_text = "a card whose text is long enough to push every button along " * 2
    window.session.execute(AddCard(window.session.item_id, long_text))
    qtbot.wait(50)
    undo = window.actions_by_name["undo"]
    assert undo.isEnabled() and long_text.strip() in undo.text()  # the menu names the edit in full
    assert long_text.strip() in undo.toolTip()
    assert tools.widgetForAction(undo).text() == "Undo"
    assert geometry() == before


def test_the_reason_bar_closes_when_the_run_changes(qtbot, window):
    s = window.session
    qtbot.keyClick(window.findings_panel.view, Qt.Key_N)  # reject: the bar offers a reason
    assert window.reason_bar.isVisible()
    other = next(r.run["id"] for r in s.runs() if r.run["id"] != s.run_id)
    s.set_run(other)
    assert not window.reason_bar.isVisible()


def test_the_unplaced_line_fits_the_item():
    from types import SimpleNamespace

    from reviewer.qt.panels.unplaced import title

    photo, text = SimpleNamespace(kind="photo"), SimpleNamespace(kind="text")
    assert title(None, 0, 0) == "no item"
    assert "has a box" not in title(photo, 0, 0) and "no ground truth" in title(photo, 0, 0)
    assert "has a box" not in title(text, 0, 0)
    assert title(photo, 3, 0) == "every ground-truth card has a box"
    assert title(photo, 3, 2) == "2 cards without a box"


def test_score_names_elide_in_the_middle_with_the_whole_name_on_hover(qtbot, window):
    panel = window.score_panels["scores"]
    qtbot.waitUntil(lambda: bool(panel.model.rows), timeout=10_000)
    assert panel.view.textElideMode() == Qt.ElideMiddle
    index = panel.model.index(0, 0)
    assert panel.model.data(index, Qt.DisplayRole) in panel.model.data(index, Qt.ToolTipRole)
    bold = QFontMetrics(panel.model.bold)
    for column in (8, 9):  # any verdict word fits its column
        assert panel.view.columnWidth(column) >= bold.horizontalAdvance("unscored")
