"""Piles and cards without boxes are visible: the list beside the photo
shows every pile, card and finding (SPATIAL included) of ground truth that
has no boxes; selecting a finding selects it; B starts drawing a card's box.
On the bundled sample with its boxes taken away, and on go-wish-spike (real
data, skipped when absent)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reviewer.core.models import Code
from reviewer.qt.cards.piles_list import NO_BOX
from reviewer.storage.cards.scored import scored_runs
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.scoring import score_project
from tests.helpers.canvas import at, db_cards, drag
from tests.helpers.card_project import make_project, run_id
from tests.helpers.paths import shared
from tests.helpers.window import open_window

pytestmark = pytest.mark.gui


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    return tmp_path


def shows_everything(w) -> None:
    """Every pile, card and finding of the current item and run is a row, each card under its pile
    and each finding under its card."""
    s, rows = w.session, w.piles_list.rows()
    keys = [key for _depth, _text, key in rows]
    gt, run = s.ground_truth(), s.run()
    assert [k for k in keys if k[0] == "pile"][: len(gt.piles)] == [("pile", p.label) for p in gt.piles]
    assert sorted(k[1] for k in keys if k[0] == "card") == sorted(c.id for c in gt.cards)
    assert sorted(k[1] for k in keys if k[0] == "finding") == sorted(f.id for f in run.findings)
    parent: dict = {}
    stack: list = []
    for depth, _text, key in rows:
        stack[depth:] = [key]
        parent[key] = stack[depth - 1] if depth else None
    for c in gt.cards:
        assert parent[("card", c.id)] == ("pile", c.pile)
    for f in run.findings:
        if f.gt_card_id is not None:
            assert parent[("finding", f.id)] == ("card", f.gt_card_id)


def test_ground_truth_without_boxes_shows_every_pile_card_and_spatial_finding(qtbot, env):
    w = open_window(qtbot, make_project(env, strip_boxes=["table-01"]), item="table-01", prompt="spatial-grouping")
    s = w.session
    s.set_run(run_id(w, "spatial-grouping", 2))  # OCR, SPATIAL, PARTIAL
    assert w.docks["piles"].isVisible()
    assert all(c.bbox is None for c in s.ground_truth().cards)
    shows_everything(w)
    spatial = next(f for f in s.run().findings if f.code == Code.SPATIAL)
    texts = {key: text for _d, text, key in w.piles_list.rows()}
    assert texts[("finding", spatial.id)].startswith("SPATIAL → left")
    assert texts[("card", spatial.gt_card_id)] == f"To pray  · {NO_BOX}"
    assert texts[("pile", "right")] == "right · 5 cards"
    # selecting a finding row selects the finding
    w.piles_list.tree.setCurrentItem(w.piles_list.row_of("finding", spatial.id))
    assert s.selected_findings == [spatial.id]
    # and J moving on is followed by the list
    other = next(f for f in s.run().findings if f.id != spatial.id)
    s.select_findings([other.id])
    assert w.piles_list.tree.currentItem() is w.piles_list.row_of("finding", other.id)
    # B on a card without a box: its box is the next rectangle drawn
    w.piles_list.tree.setCurrentItem(w.piles_list.row_of("card", spatial.gt_card_id))
    w.piles_list.tree.setFocus()
    qtbot.keyClick(w.piles_list.tree, Qt.Key_B)
    assert s.tool == "card" and s.selected_cards == [spatial.gt_card_id]
    view = w.canvas
    drag(qtbot, view, at(view, 960, 320), at(view, 1340, 515))
    assert view.inline_editor() is None  # no question: the card is known
    assert db_cards(s)[spatial.gt_card_id].bbox is not None
    assert texts != {key: text for _d, text, key in w.piles_list.rows()}  # the row no longer says 'no box'
    w.canvas.loader.wait()


@pytest.fixture
def gowish_db(tmp_path):
    data = shared("go-wish-spike")
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    import_source(p, data, options=ImportOptions(model="qwen3-vl-2b-q4km"))
    score_project(p)
    p.close()
    return db


def test_go_wish_piles_and_spatial_findings_are_listed(qtbot, env, gowish_db):
    w = open_window(qtbot, gowish_db, item="01-controlled", prompt="spatial-grouping", size=(1600, 1000))
    s = w.session
    spatial = 0
    for item in ("01-controlled", "02-angled"):
        s.set_item(next(st.item.id for st in s.items() if st.item.name == item))
        assert s.ground_truth().cards and all(c.bbox is None for c in s.ground_truth().cards)
        for run in s.runs():
            s.set_run(run.run["id"])
            shows_everything(w)
            found = [f for f in s.run().findings if (f.final_code or f.code) == Code.SPATIAL]
            texts = [text for _d, text, key in w.piles_list.rows() if key[0] == "finding"]
            assert sum(t.startswith("SPATIAL") for t in texts) == len(found)
            spatial += len(found)
        assert {key[1] for _d, _t, key in w.piles_list.rows() if key[0] == "pile"} >= {"top-row", "bottom-row"}
    with_code = [f for r in scored_runs(s.project) for f in r.findings if (f.final_code or f.code) == Code.SPATIAL]
    assert spatial == len(with_code) > 0  # every SPATIAL finding of the data is listed
    w.canvas.loader.wait()
