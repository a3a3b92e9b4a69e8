"""The canvas (reviewer.qt.canvas) with real mouse and key events on the
viewport, offscreen, on the sample project: drawing ground truth ends in one
command each (written to the database, undoable), overlays follow the
session, photos load upright and problems show on the canvas."""

from __future__ import annotations

import json

import pytest
from PIL import Image
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QGraphicsTextItem

from reviewer.core.cards.boxes import to_pixels
from reviewer.core.commands import AddCard
from reviewer.core.models import BoxConvention, Item
from reviewer.qt.canvas import CanvasView
from reviewer.qt.canvas import hittest as ht
from reviewer.qt.canvas.images import decode, reduced_size
from reviewer.qt.session import Session
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from tests.helpers.canvas import at, db_cards, drag, type_and_enter
from tests.helpers.paths import SAMPLES

pytestmark = pytest.mark.gui
TOL = 3.0  # px: a view point maps to a scene point within this


@pytest.fixture
def session(tmp_path, qapp):
    s = Session("tester")
    assert s.open(tmp_path / "p.db", create=True)
    s.import_source(SAMPLES, model="m")
    yield s
    s.close()


def show(qtbot, session) -> CanvasView:
    view = CanvasView(session)
    qtbot.addWidget(view)
    view.resize(1000, 750)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.ready, timeout=10_000)
    return view


@pytest.fixture
def view(qtbot, session):
    v = show(qtbot, session)
    yield v
    v.loader.wait()


def item_id(session, name: str) -> int:
    return next(st.item.id for st in session.items() if st.item.name == name)


def scene(view, p: QPoint) -> tuple[float, float]:
    q = view.viewportTransform().inverted()[0].map(QPointF(p))
    return q.x(), q.y()


def near(box, expected, tol=TOL) -> bool:
    return all(abs(a - b) <= tol for a, b in zip((box.x_min, box.y_min, box.x_max, box.y_max), expected))


# -- photo ---------------------------------------------------------------------------------
def test_photo_is_upright_per_exif(qtbot, session, view):
    session.set_item(item_id(session, "table-02"))  # stored 1200x1600, EXIF orientation 6
    qtbot.waitUntil(lambda: view.ready, timeout=10_000)
    assert (view.image_rect().width(), view.image_rect().height()) == (1600, 1200)
    assert decode(session.image_path()).image.size().toTuple() == (1600, 1200)


def test_large_photo_shows_reduced_then_full(qtbot, tmp_path, session):
    folder = tmp_path / "big" / "test-images"
    folder.mkdir(parents=True)
    Image.new("RGB", (5000, 3000), (90, 60, 30)).save(folder / "big.jpg", quality=80)
    (folder / "ground-truth.json").write_text(json.dumps({"big": {"piles": [{"label": "a", "cards": ["x"]}]}}))
    session.import_source(tmp_path / "big")
    view = show(qtbot, session)
    stages = []
    view.imageShown.connect(stages.append)
    session.set_item(item_id(session, "big"))
    qtbot.waitUntil(lambda: view.ready, timeout=10_000)
    assert stages == ["reduced", "full"]
    photo = view.photo
    assert photo.reduced.width() <= 2048 and photo.full.width() == 5000
    assert (view.image_rect().width(), view.image_rect().height()) == (5000, 3000)
    assert reduced_size(photo.full.size(), 2048).toTuple() == (1250, 750)  # 1/4 in the decoder
    view.loader.wait()


def test_prefetch_fills_the_cache(qtbot, session, view):
    path = session.image_path(next(st.item for st in session.items() if st.item.name == "table-02"))
    view.loader.clear_cache()
    view.prefetch([path])
    qtbot.waitUntil(lambda: view.loader.cached(path) is not None, timeout=10_000)


def test_corrupt_and_missing_photos_show_a_message(qtbot, tmp_path, session):
    folder = tmp_path / "bad" / "test-images"
    folder.mkdir(parents=True)
    (folder / "broken.jpg").write_bytes(b"this is not a jpeg" * 50)
    Image.new("RGB", (64, 48), "red").save(folder / "gone.jpg")
    gt = {name: {"piles": [{"label": "a", "cards": ["x"]}]} for name in ("broken", "gone")}
    (folder / "ground-truth.json").write_text(json.dumps(gt))
    session.import_source(tmp_path / "bad")
    (folder / "gone.jpg").unlink()
    view = show(qtbot, session)
    for name, reason in (("broken", "image"), ("gone", "not found")):
        session.set_item(item_id(session, name))
        qtbot.waitUntil(lambda: view.ready, timeout=10_000)
        text = view.message()
        assert str(session.image_path()) in text and reason in text
        assert any(
            isinstance(i, QGraphicsTextItem) and i.isVisible() and str(session.image_path()) in i.toPlainText()
            for i in view.scene().items()
        )
    session.set_item(item_id(session, "table-01"))
    qtbot.waitUntil(lambda: view.ready, timeout=10_000)
    assert view.message() == ""
    view.loader.wait()


def test_text_item_shows_its_text(qtbot, session):
    repo_items.upsert_item(session.project, Item(name="a-text", kind="text", text="To be <b>plain</b> text"))
    session.reload()  # the item was written past the session: read the items again
    view = show(qtbot, session)
    session.set_item(item_id(session, "a-text"))
    qtbot.waitUntil(lambda: view.ready, timeout=10_000)
    texts = [i.toPlainText() for i in view.scene().items() if isinstance(i, QGraphicsTextItem) and i.isVisible()]
    assert "To be <b>plain</b> text" in texts
    assert view.overlay().shapes() == []


# -- zoom and pan --------------------------------------------------------------------------------
def test_zoom_keys_wheel_and_pan(qtbot, view):
    fit = view.zoom()
    qtbot.keyClick(view, Qt.Key_Plus)
    assert view.zoom() == pytest.approx(fit * 1.25)
    qtbot.keyClick(view, Qt.Key_1)
    assert view.zoom() == pytest.approx(1.0)
    qtbot.keyClick(view, Qt.Key_F)
    assert view.zoom() == pytest.approx(fit)
    anchor = QPointF(300, 200)
    before = view.viewportTransform().inverted()[0].map(anchor)
    view.zoom_by(3.0, anchor)
    after = view.viewportTransform().inverted()[0].map(anchor)
    assert abs(before.x() - after.x()) < 2 / view.zoom() + 1 and abs(before.y() - after.y()) < 2 / view.zoom() + 1
    h = view.horizontalScrollBar().value()
    drag(qtbot, view, QPoint(500, 400), QPoint(400, 400), button=Qt.MiddleButton)
    assert view.horizontalScrollBar().value() == h + 100


# -- overlays ---------------------------------------------------------------------------------
def test_findings_of_the_current_run_are_drawn(qtbot, session, view):
    run = next(r for r in session.runs() if {f.code.value for f in r.findings} == {"OCR", "PARTIAL", "SPATIAL"})
    session.set_run(run.run["id"])
    o = view.overlay()
    assert o.codes() == {"OCR", "PARTIAL", "SPATIAL"}
    gt = {s.card_id: s.rect for s in o.cards}
    for s in o.findings:
        assert s.rect == gt[s.card_id]  # on the ground-truth card it concerns
    spatial = next(s for s in o.findings if s.code == "SPATIAL")
    assert spatial.label == "SPATIAL \u2192 left"
    assert any("left \u2192 left" in text for text, _ in o.legend)
    session.select_findings([spatial.finding_id])
    assert [s.finding_id for s in view.overlay().findings if s.selected] == [spatial.finding_id]
    assert len(o.cards) == 10 and {p.label for p in o.piles} == {"left", "right"}


def test_halluc_is_drawn_on_its_predicted_box(qtbot, session, view):
    session.set_item(item_id(session, "table-02"))
    qtbot.waitUntil(lambda: view.ready, timeout=10_000)
    run = next(
        r
        for r in session.runs()
        if r.run["prompt"] == "bounding-boxes" and any(f.code.value == "HALLUC" for f in r.findings)
    )
    session.set_run(run.run["id"])
    o = view.overlay()
    halluc = next(s for s in o.findings if s.code == "HALLUC")
    assert halluc.rect == next(p.rect for p in o.predicted if p.model_index == halluc.model_index)
    assert "MISS" in o.codes()


def test_convention_switch_moves_predicted_boxes(qtbot, session, view):
    run = next(r for r in session.runs() if r.run["prompt"] == "bounding-boxes" and not r.findings)
    session.set_run(run.run["id"])
    assert session.convention() == BoxConvention.UNIT
    unit = view.predicted_rects()
    assert len(unit) == len(run.cards) and unit[0].width() > 100  # fractions -> pixels of 1600x1200
    box = to_pixels(run.cards[0].bbox, BoxConvention.UNIT, 1600, 1200)
    assert unit[0].left() == pytest.approx(box.x_min) and unit[0].bottom() == pytest.approx(box.y_max)
    session.set_convention(BoxConvention.GRID1000)
    grid = view.predicted_rects()
    assert grid[0].left() == pytest.approx(unit[0].left() / 1000) and grid[0].width() < 1
    session.set_convention(None)
    assert view.predicted_rects()[0] == unit[0]


def test_two_thousand_boxes_are_one_item(qtbot, session, view):
    from reviewer.core.models import BBox, Card, GroundTruth

    cards = [
        Card(
            text=f"c{i}",
            bbox=BBox(x_min=(i % 50) * 32, y_min=(i // 50) * 30, x_max=(i % 50) * 32 + 28, y_max=(i // 50) * 30 + 26),
        )
        for i in range(2000)
    ]
    repo_ground_truth.set_ground_truth(session.project, session.item_id, GroundTruth(item="table-01", cards=cards))
    session.cache.forget_ground_truth(session.item_id)
    session.groundTruthChanged.emit(session.item_id)
    assert len(view.overlay().cards) == 2000
    assert len(view.scene().items()) < 10
    view.viewport().repaint()
    view.zoom_by(4.0)
    view.viewport().repaint()


# -- drawing ground truth ----------------------------------------------------------------------
def test_draw_card_adds_it_with_a_pixel_box_in_its_pile(qtbot, session, view):
    session.set_tool("card")
    before = set(db_cards(session))
    a, b = at(view, 300, 1000), at(view, 650, 1060)  # centre in the 'left' pile region
    drag(qtbot, view, a, b)
    type_and_enter(qtbot, view, "To be loved")
    new = [c for cid, c in db_cards(session).items() if cid not in before]
    assert len(new) == 1 and new[0].text == "To be loved" and new[0].pile == "left"
    assert near(new[0].bbox, (*scene(view, a), *scene(view, b)))
    assert session.selected_cards == [new[0].id]
    # outside every pile region: no pile; Escape in the editor cancels
    drag(qtbot, view, at(view, 1400, 1100), at(view, 1550, 1180))
    type_and_enter(qtbot, view, "Loose")
    assert next(c for c in db_cards(session).values() if c.text == "Loose").pile is None
    count = len(db_cards(session))
    drag(qtbot, view, at(view, 50, 50), at(view, 150, 150))
    qtbot.keyClick(view.inline_editor(), Qt.Key_Escape)
    assert len(db_cards(session)) == count and view.tool().preview() == []
    session.undo()
    assert "Loose" not in {c.text for c in db_cards(session).values()}


def test_card_tool_places_a_selected_unplaced_card(qtbot, session, view):
    command = AddCard(session.item_id, "No box yet", pile="left")
    assert session.execute(command)
    session.select_cards([command.card.id])
    assert command.card.id in view.overlay().unplaced
    session.set_tool("card")
    a, b = at(view, 100, 1100), at(view, 200, 1180)
    drag(qtbot, view, a, b)
    assert view.inline_editor() is None
    card = db_cards(session)[command.card.id]
    assert card.text == "No box yet" and near(card.bbox, (*scene(view, a), *scene(view, b)))


def test_draw_pile_rectangle_and_polygon(qtbot, session, view):
    session.set_tool("pile")
    a, b = at(view, 750, 100), at(view, 880, 1000)
    drag(qtbot, view, a, b)
    type_and_enter(qtbot, view, "middle")
    pile = next(
        p for p in repo_ground_truth.ground_truth(session.project, session.item_id).piles if p.label == "middle"
    )
    (x0, y0), (x1, y1) = scene(view, a), scene(view, b)
    assert len(pile.region) == 4
    assert all(
        abs(u - v) <= TOL
        for pt, want in zip(pile.region, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
        for u, v in zip(pt, want)
    )
    corners = [at(view, 1400, 100), at(view, 1550, 150), at(view, 1500, 400)]
    for p in corners:
        qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.ShiftModifier, p)
    qtbot.keyClick(view, Qt.Key_Return)
    type_and_enter(qtbot, view, "corner")
    pile = next(
        p for p in repo_ground_truth.ground_truth(session.project, session.item_id).piles if p.label == "corner"
    )
    assert len(pile.region) == 3
    assert all(abs(u - v) <= TOL for pt, q in zip(pile.region, corners) for u, v in zip(pt, scene(view, q)))
    assert {"middle", "corner"} <= {p.label for p in view.overlay().piles}


def test_move_selected_card_by_drag_then_undo(qtbot, session, view):
    cards = db_cards(session)
    card = next(c for c in cards.values() if c.text == "Wild Card")
    box = card.bbox
    start = at(view, (box.x_min + box.x_max) / 2, box.y_max - 20)
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, start)
    assert session.selected_cards == [card.id]
    history = len(session.stack.history())
    drag(qtbot, view, start, start + QPoint(60, 40))
    moved = db_cards(session)[card.id].bbox
    dx, dy = 60 / view.zoom(), 40 / view.zoom()
    assert near(moved, (box.x_min + dx, box.y_min + dy, box.x_max + dx, box.y_max + dy))
    assert len(session.stack.history()) == history + 1
    session.undo()
    assert db_cards(session)[card.id].bbox == box


def test_resize_by_handle_and_move_several(qtbot, session, view):
    cards = db_cards(session)
    a, b = cards[9].bbox, cards[10].bbox  # the two lowest cards of the right pile
    session.select_cards([10])
    corner = at(view, b.x_max, b.y_max)
    drag(qtbot, view, corner, corner + QPoint(30, 20))
    resized = db_cards(session)[10].bbox
    assert near(resized, (b.x_min, b.y_min, b.x_max + 30 / view.zoom(), b.y_max + 20 / view.zoom()))
    session.select_cards([9, 10])
    start = at(view, (a.x_min + a.x_max) / 2, a.y_min + 15)
    drag(qtbot, view, start, start + QPoint(-50, 0))
    after = db_cards(session)
    assert after[9].bbox.x_min == pytest.approx(a.x_min - 50 / view.zoom(), abs=TOL)
    assert after[10].bbox.x_min == pytest.approx(resized.x_min - 50 / view.zoom(), abs=TOL)
    assert session.stack.history()[-1] == "move 2 card(s)"


def test_click_shift_click_rubber_band_and_delete(qtbot, session, view):
    cards = db_cards(session)
    first, second = cards[1].bbox, cards[6].bbox
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, at(view, first.x_min + 20, first.y_min + 20))
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.ShiftModifier, at(view, second.x_min + 20, second.y_min + 20))
    assert session.selected_cards == [1, 6]
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, at(view, 100, 1150))
    assert session.selected_cards == []
    drag(qtbot, view, at(view, 100, 60), at(view, 780, 1100))  # around the left pile
    assert sorted(session.selected_cards) == [1, 2, 3, 4, 5]
    qtbot.keyClick(view, Qt.Key_Delete)
    assert set(db_cards(session)) == {6, 7, 8, 9, 10}
    assert session.selected_cards == []
    session.undo()
    assert set(db_cards(session)) == set(range(1, 11))


def test_double_click_edits_card_text(qtbot, session, view):
    box = db_cards(session)[10].bbox
    p = at(view, (box.x_min + box.x_max) / 2, (box.y_min + box.y_max) / 2)
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, p)
    qtbot.mouseDClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, p)
    editor = view.inline_editor()
    assert editor is not None and editor.text() == "Wild Card"
    editor.selectAll()
    type_and_enter(qtbot, view, "Joker")
    assert db_cards(session)[10].text == "Joker"
    assert session.stack.history()[-1] == "edit card text"


def test_escape_cancels_a_polygon_and_tool_change_closes_editor(qtbot, session, view):
    session.set_tool("pile")
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.ShiftModifier, at(view, 100, 100))
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, at(view, 300, 100))
    assert view.tool().busy()
    qtbot.keyClick(view, Qt.Key_Escape)
    assert not view.tool().busy() and view.tool().preview() == []
    drag(qtbot, view, at(view, 100, 100), at(view, 300, 300))
    assert view.inline_editor() is not None
    session.set_tool("select")
    assert view.inline_editor() is None
    assert [p.label for p in repo_ground_truth.ground_truth(session.project, session.item_id).piles] == [
        "left",
        "right",
    ]


# -- pure parts ------------------------------------------------------------------------------
def test_hittest_geometry():
    r = (10.0, 20.0, 110.0, 70.0)
    assert ht.handle_at(r, 110, 70, 3) == 4 and ht.handle_at(r, 60, 20, 3) == 1 and ht.handle_at(r, 60, 45, 3) is None
    assert ht.resized(r, 0, 120, 80) == (110.0, 70.0, 120.0, 80.0)
    assert ht.resized(r, 3, 200, 0) == (10.0, 20.0, 200.0, 70.0)
    assert ht.point_in_polygon([(0, 0), (10, 0), (0, 10)], 2, 2)
    assert not ht.point_in_polygon([(0, 0), (10, 0), (0, 10)], 8, 8)


def test_reduced_size_uses_decoder_scales():
    from PySide6.QtCore import QSize

    assert reduced_size(QSize(6000, 4000), 2048).toTuple() == (1500, 1000)
    assert reduced_size(QSize(3000, 4000), 2048).toTuple() == (1500, 2000)
    assert reduced_size(QSize(1600, 1200), 2048) is None
    assert reduced_size(QSize(40000, 100), 2048).width() == 2048


def test_grab_renders_photo_and_overlays(qtbot, session, view):
    image: QImage = view.grab().toImage()
    assert image.width() == 1000 and view.paint_count > 0
    assert view.overlay_item.paints > 0 and view.photo.paints > 0


def test_polygon_closes_on_double_click_and_space_drag_pans(qtbot, session, view):
    session.set_tool("pile")
    vp = view.viewport()
    qtbot.mouseClick(vp, Qt.LeftButton, Qt.ShiftModifier, at(view, 760, 120))
    qtbot.mouseClick(vp, Qt.LeftButton, Qt.NoModifier, at(view, 880, 140))
    qtbot.mouseClick(vp, Qt.LeftButton, Qt.NoModifier, at(view, 860, 600))
    qtbot.mouseDClick(vp, Qt.LeftButton, Qt.NoModifier, at(view, 860, 600))
    type_and_enter(qtbot, view, "gap")
    pile = next(p for p in repo_ground_truth.ground_truth(session.project, session.item_id).piles if p.label == "gap")
    assert len(pile.region) == 3
    session.set_tool("select")
    view.zoom_by(3.0)
    h, v = view.horizontalScrollBar().value(), view.verticalScrollBar().value()
    before = list(session.selected_cards)
    qtbot.keyPress(view, Qt.Key_Space)
    drag(qtbot, view, QPoint(500, 400), QPoint(440, 370))
    qtbot.keyRelease(view, Qt.Key_Space)
    assert (view.horizontalScrollBar().value(), view.verticalScrollBar().value()) == (h + 60, v + 30)
    assert session.selected_cards == before  # panning selects nothing


def test_click_narrows_a_selection_and_delete_skips_stale_ids(qtbot, session, view):
    box = db_cards(session)[3].bbox
    session.select_cards([1, 3, 5])
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, at(view, box.x_min + 30, box.y_min + 30))
    assert session.selected_cards == [3]
    command = AddCard(session.item_id, "Short-lived", bbox=None)
    session.execute(command)
    session.undo()
    session.select_cards([3, command.card.id])
    errors = []
    session.error.connect(errors.append)
    qtbot.keyClick(view, Qt.Key_Delete)
    assert errors == [] and 3 not in db_cards(session)
