"""Boxes are never lost: a rectangle without text is a card with no text yet
(to transcribe) in the pile its label names, a polygon without text stays a
pile region, both survive labelme -> project -> labelme / COCO / Label Studio
-> project; cards to transcribe are left out of scoring until they have text."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from reviewer.core.cards.scoring import score_run
from reviewer.core.models import AnswerSchema, Card, GroundTruth, Pile, Prompt
from reviewer.storage.gt_formats import export_ground_truth
from reviewer.storage.importers import import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items

#: three photos, three boxes each, as labelme's own bbox examples are drawn:
#: rectangles labelled with an object class, without descriptions
BOXES = {
    "street-1": [("person", 10, 20, 60, 140), ("bus", 80, 30, 300, 180), ("person", 320, 40, 360, 150)],
    "street-2": [("car", 15, 100, 120, 170), ("car", 140, 110, 250, 175), ("person", 260, 60, 300, 190)],
    "street-3": [("bus", 5, 10, 200, 160), ("person", 210, 50, 250, 170), ("car", 260, 120, 390, 190)],
}


def _labelme_folder(tmp_path):
    folder = tmp_path / "lm"
    folder.mkdir()
    for name, boxes in BOXES.items():
        Image.new("RGB", (400, 200), "gray").save(folder / f"{name}.jpg")
        shapes = [
            {
                "label": label,
                "points": [[x0, y0], [x1, y1]],
                "group_id": None,
                "description": "",
                "shape_type": "rectangle",
                "flags": {},
            }
            for label, x0, y0, x1, y1 in boxes
        ]
        if name == "street-1":  # a polygon without text: the region of its pile, kept apart from the boxes
            shapes.append(
                {
                    "label": "person",
                    "points": [[0, 0], [390, 0], [390, 195], [0, 195]],
                    "group_id": None,
                    "description": "",
                    "shape_type": "polygon",
                    "flags": {},
                }
            )
        (folder / f"{name}.json").write_text(
            json.dumps(
                {
                    "version": "5.5.0",
                    "flags": {},
                    "shapes": shapes,
                    "imagePath": f"{name}.jpg",
                    "imageData": None,
                    "imageHeight": 200,
                    "imageWidth": 400,
                }
            )
        )
    return folder


def _boxes(project):
    out = {}
    for item in repo_items.items(project):
        gt = repo_ground_truth.ground_truth(project, item.id)
        out[item.name] = (
            sorted((c.pile, c.text, c.bbox.x_min, c.bbox.y_min, c.bbox.x_max, c.bbox.y_max) for c in gt.cards),
            [(p.label, p.region) for p in gt.piles if p.region],
        )
    return out


@pytest.mark.parametrize("fmt,name", [("labelme", "lm"), ("coco", "gt.json"), ("label-studio", "gt.json")])
def test_nine_boxes_without_text_survive_import_export_and_import(tmp_path, fmt, name):
    source = open_project(tmp_path / "a.db", create=True)
    target = open_project(tmp_path / "b.db", create=True)
    try:
        report = import_source(source, _labelme_folder(tmp_path))
        assert not [s for s in report.skipped if "region already" in s[1]]
        first = _boxes(source)
        expected = {
            name: sorted((label, "", float(x0), float(y0), float(x1), float(y1)) for label, x0, y0, x1, y1 in boxes)
            for name, boxes in BOXES.items()
        }
        assert {k: v[0] for k, v in first.items()} == expected
        assert sum(len(v[0]) for v in first.values()) == 9
        assert first["street-1"][1] == [("person", [(0.0, 0.0), (390.0, 0.0), (390.0, 195.0), (0.0, 195.0)])]
        # labelme goes beside its photos (an import reads photos only inside the folder
        # imported): the folder imported from, so only with force (reviewer.storage.files.safe_write)
        counts = export_ground_truth(source, tmp_path / name, fmt, force=fmt == "labelme")
        assert counts["cards"] == 9 and counts["skipped"] == []
        import_source(target, tmp_path / name)
        assert _boxes(target) == first  # 9 of 9 boxes, still without text; the region still a region
    finally:
        source.close()
        target.close()


PILES = Prompt(name="piles", schema=AnswerSchema.PILES)


def test_cards_to_transcribe_are_left_out_of_scoring():
    gt = GroundTruth(
        item="t",
        piles=[Pile(label="p")],
        cards=[Card(text="To die at home", pile="p"), Card(text="", pile="p"), Card(text="Wild Card", pile="p")],
    )
    answer = json.dumps({"piles": [{"label": "p", "cards": ["To die at home"]}]})
    out = score_run(answer, PILES, gt)
    assert len(out.facts.outcomes) == 2  # the card with no text is not visible to scoring
    assert [f.gt_card for f in out.findings] == ["Wild Card"]  # one MISS, none for the box
    # outcomes keep naming cards by their place in the whole ground truth
    assert [o.gt_card_id for o in out.facts.outcomes] == [0, 2]
    # once transcribed it counts
    gt.cards[1].text = "To pray"
    assert len(score_run(answer, PILES, gt).facts.outcomes) == 3
