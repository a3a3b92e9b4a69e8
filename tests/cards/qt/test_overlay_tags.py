"""Tags on the photo never hide what is judged (docs/window.md, tags.py):
rendered offscreen at 1600x1000 on the bundled table-01, on a dense photo of
our own (14 cards in two stacked piles, findings of every code) and, when
../shared/data is there, on ocr-runs-dev. A tag overlaps no ground-truth
card's box and no other tag, lies whole in the view, and a finding's tag
touches its card's box from outside or has a leader line ending on it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from PySide6.QtCore import QPointF, QRectF, Qt

from reviewer.core.models import Code
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.scoring import score_project
from tests.helpers.paths import SAMPLES, shared
from tests.helpers.window import open_window, scored_sample

LEFT = [
    "To die at home",
    "To be free from pain",
    "To have human touch",
    "To keep my sense of humor",
    "To be mentally aware",
    "To have my family with me",
    "To be able to help others",
]
RIGHT = [
    "To have my financial affairs in order",
    "To pray",
    "To be kept clean",
    "To say goodbye",
    "Wild Card",
    "To not be a burden",
    "To have a doctor who knows me",
]
W, H = 1200, 1000


def _box(pile: int, i: int) -> dict:
    x0 = 150 + pile * 520
    y0 = 40 + i * 125  # 150 px tall: each card covers the bottom of the one above
    return {"x_min": x0 + (i % 2) * 12, "y_min": y0, "x_max": x0 + 330 + (i % 2) * 12, "y_max": y0 + 150}


def dense_folder(root: Path) -> Path:
    """A card folder of our own: dense.jpg (two stacked piles of 7 cards),
    its ground truth, the sample's prompts and two runs whose findings hold
    every code (OCR, PARTIAL, MISS, SPATIAL, HALLUC in the piles run; FORMAT
    and a boxed HALLUC in the boxes run)."""
    images = root / "test-images"
    images.mkdir(parents=True)
    img = Image.new("RGB", (W, H), (120, 80, 50))
    draw = ImageDraw.Draw(img)
    piles = []
    for p, (label, texts) in enumerate((("left", LEFT), ("right", RIGHT))):
        cards = []
        for i, text in enumerate(texts):
            b = _box(p, i)
            draw.rectangle([b["x_min"], b["y_min"], b["x_max"], b["y_max"]], fill=(235, 235, 225), outline=(60, 60, 60))
            draw.text((b["x_min"] + 20, b["y_min"] + 60), text, fill=(0, 0, 0))
            cards.append({"text": text, "bbox": b})
        x0 = 130 + p * 520
        region = [[x0, 20], [x0 + 380, 20], [x0 + 380, 980], [x0, 980]]
        piles.append({"label": label, "region": region, "cards": cards})
    img.save(images / "dense.jpg", quality=85)
    (images / "ground-truth.json").write_text(json.dumps({"dense": {"total_cards_visible": 14, "piles": piles}}))
    shutil.copytree(SAMPLES / "prompts", root / "prompts")
    runs = root / "runs"
    runs.mkdir()
    left = ["To die at home", "To be free frm pain", "To have human", "To keep my sense of humor"]
    left += ["To be mentally aware", "To have my family with me", "To pray", "Swim with sharks"]
    right = ["To have my financial affairs in order", "To be kept clean", "To say goodbye", "Wild Card"]
    right += ["To have a doctor who knows me"]
    answer = {"piles": [{"label": "left", "cards": left}, {"label": "right", "cards": right}]}
    (runs / "dense_spatial-grouping_20250101-100000.txt").write_text(f"```json\n{json.dumps(answer)}\n```\n")
    cards = []
    for p, texts in enumerate((LEFT, RIGHT)):
        for i, text in enumerate(texts):
            if (p, i) == (0, 1):
                text = "To be fre from pain"
            b = _box(p, i)
            if (p, i) != (1, 5):  # missed
                cards.append({"text": text, "bbox": b})  # pixels where the prompt asks for 0-1: FORMAT
    cards.append({"text": "Swim with sharks", "bbox": {"x_min": 520, "y_min": 400, "x_max": 640, "y_max": 470}})
    (runs / "dense_bounding-boxes_20250101-100100.txt").write_text(f"```json\n{json.dumps({'cards': cards})}\n```\n")
    return root


def _overlap(a: QRectF, b: QRectF) -> bool:
    return min(a.right(), b.right()) - max(a.left(), b.left()) > 0.5 and (
        min(a.bottom(), b.bottom()) - max(a.top(), b.top()) > 0.5
    )


def _touches(a: QRectF, b: QRectF, tol: float = 0.6) -> bool:
    """``a`` touches ``b``'s edge from outside (shares a piece of an edge)."""
    side = (abs(a.right() - b.left()) < tol or abs(a.left() - b.right()) < tol) and (
        min(a.bottom(), b.bottom()) - max(a.top(), b.top()) > 0
    )
    top = (abs(a.bottom() - b.top()) < tol or abs(a.top() - b.bottom()) < tol) and (
        min(a.right(), b.right()) - max(a.left(), b.left()) > 0
    )
    return side or top


def _on_edge(p: QPointF, r: QRectF, tol: float = 0.6) -> bool:
    inside = r.adjusted(-tol, -tol, tol, tol).contains(p)
    return (
        inside
        and min(abs(p.x() - r.left()), abs(p.x() - r.right()), abs(p.y() - r.top()), abs(p.y() - r.bottom())) < tol
    )


def check_tags(qtbot, window) -> list:
    """Paint the canvas and check every placed tag; returns them."""
    canvas = window.canvas
    qtbot.waitUntil(lambda: canvas.ready, timeout=10_000)
    canvas.viewport().repaint()
    tags = canvas.overlay_item.placed
    t = canvas.viewportTransform()

    def screen(rect) -> QRectF:
        return t.mapRect(QRectF(QPointF(rect[0], rect[1]), QPointF(rect[2], rect[3])))

    cards = [screen(s.rect) for s in canvas.overlay().cards]
    view = QRectF(canvas.viewport().rect())
    for tag in tags:
        assert view.contains(tag.box), f"{tag.text!r} is cut at the view's edge: {tag.box}"
        for c in cards:
            assert not _overlap(tag.box, c), f"{tag.text!r} covers a ground-truth card"
        for other in tags:
            if other is not tag:
                assert not _overlap(tag.box, other.box), f"{tag.text!r} covers {other.text!r}"
        if tag.shape.kind == "finding":
            anchor = screen(tag.shape.rect)
            if tag.leader is None:
                assert _touches(tag.box, anchor), f"{tag.text!r} does not touch its card"
            else:
                assert _on_edge(tag.leader.p2(), anchor), f"{tag.text!r}'s leader does not end on its card"
                assert _touches(tag.box, QRectF(tag.leader.p1(), tag.leader.p1())) or tag.box.adjusted(
                    -0.6, -0.6, 0.6, 0.6
                ).contains(tag.leader.p1())
    return tags


@pytest.fixture
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")


def _every_run(qtbot, window, all_tags: bool = True) -> dict[str, int]:
    """Check the tags of every run of the shown item, finding tags all shown
    (Shift+L) or near the selection; returns {prompt: finding tags placed}."""
    s = window.session
    if all_tags and window.canvas.labels.tags != "all":
        window.canvas.labels.cycle_tags()
    out = {}
    for line in list(s.runs()):
        if line.run["item"] != s.item().name:
            continue
        s.set_run(line.run["id"])
        tags = check_tags(qtbot, window)
        out[f"{line.run['prompt']}#{line.run['repetition']}"] = sum(t.shape.kind == "finding" for t in tags)
    return out


def test_table_01_tags_cover_no_card_and_touch_their_own(qtbot, config, tmp_path):
    w = open_window(qtbot, scored_sample(tmp_path / "p.db"), size=(1600, 1000), item="table-01")
    placed = _every_run(qtbot, w)
    s = w.session
    for line in s.runs():  # every finding on the photo has its tag
        if line.run["item"] == "table-01":
            run = s.scored_run(line.run["id"])
            boxed = [f for f in run.findings if f.code not in (Code.FORMAT,) and f.gt_card_id is not None]
            assert placed[f"{line.run['prompt']}#{line.run['repetition']}"] >= len(boxed)
    w.canvas.loader.wait()


def test_a_dense_photo_keeps_every_tag_off_the_cards(qtbot, config, tmp_path):
    folder = dense_folder(tmp_path / "dense")
    db = tmp_path / "dense.db"
    p = open_project(db, create=True)
    import_source(p, folder, options=ImportOptions(model="m"))
    score_project(p)
    p.close()
    w = open_window(qtbot, db, size=(1600, 1000), item="dense", prompt="spatial-grouping")
    s = w.session
    codes = {f.code for line in s.runs() for f in s.scored_run(line.run["id"]).findings}
    assert codes == set(Code), codes
    near = {}
    for line in s.runs():  # near the selection (the default): the selected finding's tag always shows
        s.set_run(line.run["id"])
        run = s.run()
        boxed = [f for f in run.findings if w.canvas.overlay().card(f.gt_card_id or -1) is not None]
        if boxed:
            s.select_findings([boxed[-1].id])
            tags = check_tags(qtbot, w)
            assert any(t.shape.finding_id == boxed[-1].id for t in tags), "the selected finding has no tag"
            near[line.run["id"]] = sum(t.shape.kind == "finding" for t in tags)
    placed = _every_run(qtbot, w)
    assert sum(placed.values()) >= sum(near.values())
    w.canvas.loader.wait()


def test_tags_are_placed_once_per_view_not_per_paint(qtbot, config, tmp_path):
    w = open_window(qtbot, scored_sample(tmp_path / "p.db"), size=(1600, 1000), item="table-01")
    item = w.canvas.overlay_item
    w.canvas.viewport().repaint()
    before, paints = item.placements, item.paints
    for _ in range(3):
        w.canvas.viewport().repaint()
    assert item.paints > paints and item.placements == before
    qtbot.keyClick(w.findings_panel.view, Qt.Key_L, Qt.ShiftModifier)
    assert w.canvas.labels.tags == "all"
    w.canvas.loader.wait()


def test_ocr_runs_dev_tags_cover_no_card(qtbot, config, tmp_path):
    folder = shared("ocr-runs-dev")
    db = tmp_path / "ocr.db"
    p = open_project(db, create=True)
    import_source(p, folder, options=ImportOptions(model="tesseract"))
    score_project(p)
    p.close()
    for item in ("01-controlled_original", "02-angled_original", "match_words_regions_4_original"):
        w = open_window(qtbot, db, size=(1600, 1000), item=item)
        _every_run(qtbot, w)
        w.canvas.loader.wait()
        w.close()


def test_a_crowd_of_boxes_keeps_the_rules_and_bounds_the_far_search(qapp):
    """400 touching cards, a finding on each: no tag covers a card or a tag,
    each lies in the view and belongs to its card; only FAR_TAGS of them
    (and the selected one) look for a place away from their box."""
    from PySide6.QtGui import QTransform

    from reviewer.qt.canvas.model import Overlay, Shape
    from reviewer.qt.canvas.prepared import prepare
    from reviewer.qt.canvas.tags import FAR_TAGS, place_tags

    cards, finds = [], []
    for i in range(20):
        for j in range(20):
            r = (i * 100.0, j * 60.0, i * 100.0 + 100, j * 60.0 + 60)
            cards.append(Shape("card", r, "#4477aa", f"card {i} {j}", card_id=i * 20 + j))
            label = f'OCR "model text {i} {j}"'
            finds.append(Shape("finding", r, "#ee7733", label, card_id=i * 20 + j, finding_id=i * 20 + j, code="OCR"))
    finds[210] = Shape(
        "finding", finds[210].rect, "#ee7733", "PARTIAL selected", card_id=210, finding_id=210, selected=True
    )
    prepared = prepare(Overlay(width=2000, height=1200, cards=cards, findings=finds))
    t = QTransform().translate(30, 30).scale(0.6, 0.6)
    area = QRectF(0, 0, 1300, 800)
    tags = place_tags(prepared, finds, t, area, t.mapRect(QRectF(0, 0, 2000, 1200)))
    screen = [t.mapRect(QRectF(QPointF(c.rect[0], c.rect[1]), QPointF(c.rect[2], c.rect[3]))) for c in cards]
    assert any(tag.shape.finding_id == 210 for tag in tags), "the selected finding always finds a place"
    assert sum(tag.leader is not None for tag in tags) <= FAR_TAGS + 1
    for tag in tags:
        assert area.contains(tag.box)
        assert not any(_overlap(tag.box, c) for c in screen)
        assert not any(_overlap(tag.box, o.box) for o in tags if o is not tag)
        anchor = screen[tag.shape.card_id]
        assert _touches(tag.box, anchor) if tag.leader is None else _on_edge(tag.leader.p2(), anchor)


def test_without_ground_truth_boxes_tags_keep_off_the_models_boxes(qtbot, config, tmp_path):
    """A ground truth of piles and texts only (as go-wish's): the model's
    boxes are where the printed text is, so no tag, model labels included,
    covers one of them."""
    folder = dense_folder(tmp_path / "dense")
    gt_path = folder / "test-images" / "ground-truth.json"
    gt = json.loads(gt_path.read_text())
    for pile in gt["dense"]["piles"]:
        for card in pile["cards"]:
            del card["bbox"]
    gt_path.write_text(json.dumps(gt))
    db = tmp_path / "dense.db"
    p = open_project(db, create=True)
    import_source(p, folder, options=ImportOptions(model="m"))
    score_project(p)
    p.close()
    w = open_window(qtbot, db, size=(1600, 1000), item="dense", prompt="bounding-boxes")
    canvas = w.canvas
    assert not canvas.overlay().cards and canvas.overlay().predicted
    canvas.labels.set_mode("on")
    if canvas.labels.tags != "all":
        canvas.labels.cycle_tags()
    tags = check_tags(qtbot, w)
    assert any(t.shape.kind == "predicted" for t in tags), "no model label was placed"
    t = canvas.viewportTransform()
    boxes = [
        t.mapRect(QRectF(QPointF(s.rect[0], s.rect[1]), QPointF(s.rect[2], s.rect[3])))
        for s in canvas.overlay().predicted
    ]
    for tag in tags:
        for b in boxes:
            assert not _overlap(tag.box, b), f"{tag.text!r} covers a model box, the text it read"
    canvas.loader.wait()
