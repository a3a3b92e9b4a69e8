"""Ground truth in and out (docs/formats.md): labelme, COCO and Label Studio files
of ours import with every box in upright pixels (checked against values
computed by hand in the comments), and the bundled sample round-trips
through all three formats with nothing lost."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.cards.gt_agreement import same_ground_truth
from reviewer.core.models import BBox
from reviewer.storage.files.safe_write import TargetRefused
from reviewer.storage.gt_formats import export_ground_truth
from reviewer.storage.importers import ImportOptions, detect_format, import_source
from reviewer.storage.project.db import ProjectError, open_project
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from tests.helpers.paths import ROOT, SAMPLES

FIX = ROOT / "tests" / "fixtures" / "gt"


def box(x0, y0, x1, y1):
    return BBox(x_min=x0, y_min=y0, x_max=x1, y_max=y1)


def beside_photos(tmp_path, fmt):
    """The fixture folder of ``fmt`` copied with the sample photos in it: a
    file named inside an imported file is read only inside the folder
    imported, so the fixtures' '../../../../samples/...' paths are looked up
    by name there."""
    folder = tmp_path / fmt
    shutil.copytree(FIX / fmt, folder)
    for name in ("table-01.jpg", "table-02.jpg"):
        shutil.copy(SAMPLES / "test-images" / name, folder / name)
    return folder


def cards(project, name, annotator=""):
    gt = repo_ground_truth.ground_truth(project, repo_items.item_by_name(project, name).id, annotator)
    return (
        [(c.text, c.pile, c.bbox) for c in gt.cards],
        [(p.label, [list(pt) for pt in p.region] if p.region else None) for p in gt.piles],
    )


def test_formats_are_detected():
    assert detect_format(FIX / "labelme") == "labelme"
    assert detect_format(FIX / "labelme" / "table-01.json") == "labelme"
    assert detect_format(FIX / "coco" / "sample.json") == "coco"
    assert detect_format(FIX / "label-studio" / "export.json") == "label-studio"
    assert detect_format(SAMPLES) == "card-folder"  # a photo folder without labelme files stays a card folder


def test_labelme_rectangle_polygon_group_id_description(project, tmp_path):
    report = import_source(project, beside_photos(tmp_path, "labelme"))
    assert report.format == "labelme"
    got, piles = cards(project, "table-01")
    assert got == [
        # a rectangle drawn from its bottom-right corner: the box is still min/max
        ("To die at home", "left", box(293.4, 105.1, 686.6, 322.9)),
        # a polygon: the bounds of its 4 points (x 286.8..679.2, y 283.9..500.1)
        ("To be free from pain", "left", box(286.8, 283.9, 679.2, 500.1)),
        # two rectangles with group_id 1: one card, descriptions joined, box around both
        ("To have my financial affairs in order", "right", box(921.6, 128.2, 1302.4, 319.8)),
        # a rectangle without description: a card with no text yet, in the pile its label names
        ("", "right", box(896.6, 103.2, 1370.1, 1079.4)),
        # x_max 1650 reaches past the 1600 px wide photo: clamped
        ("Wild Card", "right", box(931.3, 861.6, 1600.0, 1054.4)),
    ]
    assert piles == [
        ("left", [[234.4, 80.1], [711.6, 80.1], [711.6, 1068.1], [234.4, 1068.1]]),  # polygon without description
        ("right", None),
    ]
    assert any("Wild Card" in n and "clamped" in n for n in report.notes)
    skipped = dict(report.skipped)
    assert "shape type 'circle'" in skipped["table-01.json: shape 8 (left)"]
    assert "shape type 'point'" in skipped["table-01.json: shape 9 (left)"]
    # table-02 is stored sideways (1200 x 1600, EXIF 6) and this file declares that
    # stored size: a stored (x, y) is upright (1600 - y, x). The rectangle
    # (349.4, 110.2)-(546.6, 493.8) becomes x 1600-493.8 = 1106.2 .. 1600-110.2 = 1489.8,
    # y 349.4 .. 546.6: the sample's box of the card.
    got, piles = cards(project, "table-02")
    assert got == [("To listen to music", "right", box(1106.2, 349.4, 1489.8, 546.6))]
    assert piles == [("right", [[1520.4, 324.4], [1520.4, 760.9], [1081.2, 760.9], [1081.2, 324.4]])]


def test_labelme_import_is_idempotent_and_keeps_the_projects_ground_truth(project, tmp_path):
    folder = beside_photos(tmp_path, "labelme")
    import_source(project, folder)
    again = import_source(project, folder)
    assert "ground truths" not in again.added and again.existing["ground truths"] == 2


def test_a_labelme_folder_is_also_a_card_folder(tmp_path):
    folder = tmp_path / "photos"
    shutil.copytree(SAMPLES, folder)
    (folder / "test-images" / "ground-truth.json").unlink()
    doc = json.loads((FIX / "labelme" / "table-01.json").read_text())
    doc["imagePath"] = "table-01.jpg"
    (folder / "test-images" / "table-01.json").write_text(json.dumps(doc))
    p = open_project(tmp_path / "p.db", create=True)
    try:
        report = import_source(p, folder, options=ImportOptions(model="m"))
        assert report.format == "labelme"
        assert report.added["runs"] == 14 and report.added["items"] == 2
        assert len(cards(p, "table-01")[0]) == 5 and cards(p, "table-02") == ([], [])  # one to transcribe
    finally:
        p.close()


def test_label_studio_rotated_rectangles_percent_and_transcriptions(tmp_path):
    folder = tmp_path / "ls"
    (folder / "images").mkdir(parents=True)
    for name in ("table-01.jpg", "table-02.jpg"):
        shutil.copy(SAMPLES / "test-images" / name, folder / "images" / name)
    shutil.copy(FIX / "label-studio" / "export.json", folder / "export.json")
    p = open_project(tmp_path / "p.db", create=True)
    try:
        report = import_source(p, folder / "export.json")
        assert report.format == "label-studio"
        got, piles = cards(p, "table-01")
        assert got == [
            # x 20 %, y 10 %, 25 % x 20 % of 1600 x 1200: (320, 120) + 400 x 240
            ("To die at home", "left", box(320, 120, 720, 360)),
            # (800, 300), 160 x 60, turned 90 degrees clockwise about (800, 300):
            # corners (800, 300), (800, 460), (740, 460), (740, 300); two lines joined
            ("To be free from pain", "left", box(740, 300, 800, 460)),
            # (400, 600), 160 x 120 turned 30 degrees: corners (400, 600),
            # (400 + 160 cos 30, 600 + 160 sin 30) = (538.5641, 680),
            # (538.5641 - 120 sin 30, 680 + 120 cos 30) = (478.5641, 783.923), (340, 703.923)
            ("To pray", "right", box(340, 600, 538.5641, 783.923)),
            # (1440, 1080) + 320 x 240 reaches past 1600 x 1200: clamped
            ("Wild Card", "right", box(1440, 1080, 1600, 1200)),
            # a plain rectangle (no label): a card in no pile; 5 % each: (80, 60)-(160, 120)
            ("To say goodbye", None, box(80, 60, 160, 120)),
        ]
        assert piles == [("left", [[160, 60], [800, 60], [800, 1140], [160, 1140]]), ("right", None)]
        assert any("Wild Card" in n and "clamped" in n for n in report.notes)
        skipped = dict(report.skipped)
        assert "type 'choices'" in skipped["task 11: result c1"]
        assert skipped["task 13"] == "no annotation that is not cancelled"
        # table-02's result declares 1200 x 1600, its stored frame: (120, 320)-(480, 480)
        # turned upright by (x, y) -> (1600 - y, x): x 1120..1280, y 120..480
        assert cards(p, "table-02")[0] == [("To not die alone", "center", box(1120, 120, 1280, 480))]
    finally:
        p.close()


def test_label_studio_several_annotations_are_several_annotators(tmp_path):
    folder = tmp_path / "ls"
    (folder / "images").mkdir(parents=True)
    shutil.copy(SAMPLES / "test-images" / "table-01.jpg", folder / "images" / "table-01.jpg")
    tasks = json.loads((FIX / "label-studio" / "export.json").read_text())[:1]
    first = tasks[0]["annotations"][0]
    second = {**first, "id": 99, "completed_by": {"id": 2, "email": "bob@example.org"}, "result": first["result"][:2]}
    tasks[0]["annotations"] = [{**first, "completed_by": {"id": 1, "email": "alice@example.org"}}, second]
    (folder / "export.json").write_text(json.dumps(tasks))
    p = open_project(tmp_path / "p.db", create=True)
    try:
        import_source(p, folder / "export.json")
        assert len(cards(p, "table-01", "alice@example.org")[0]) == 5
        assert len(cards(p, "table-01", "bob@example.org")[0]) == 1
        # the first annotator's ground truth is the consensus until adjudications change it
        assert cards(p, "table-01")[0] == cards(p, "table-01", "alice@example.org")[0]
    finally:
        p.close()


def test_coco_bbox_segmentation_categories(project, tmp_path):
    report = import_source(project, beside_photos(tmp_path, "coco") / "sample.json")
    assert report.format == "coco"
    got, piles = cards(project, "table-01")
    assert got == [
        # bbox [293.4, 105.1, 393.2, 217.8]: x_max = 293.4 + 393.2, y_max = 105.1 + 217.8
        ("To die at home", "left", box(293.4, 105.1, 686.6, 322.9)),
        # no bbox, text in utf8_string: the bounds of the polygon segmentation
        ("To pray", "right", box(958.9, 315.6, 1345.1, 518.4)),
        # a bbox without text or polygon (a detection box): a card with no text yet
        ("", "left", box(234.4, 80.1, 711.6, 1068.1)),
    ]
    assert piles == [
        ("left", None),
        ("right", [[896.6, 103.2], [1370.1, 103.2], [1370.1, 1079.4], [896.6, 1079.4]]),  # polygon, no text
    ]
    skipped = dict(report.skipped)
    assert any("neither a bbox nor a polygon" in why for what, why in report.skipped if "annotation 5" in what)
    assert any("category 9" in why for what, why in report.skipped if "annotation 6" in what)
    assert "no such image" in skipped["annotations of image 5"]


def test_the_annotator_name_consensus_is_reserved(project):
    with pytest.raises(ProjectError):
        import_source(project, FIX / "coco" / "sample.json", options=ImportOptions(annotator="Consensus"))


def _sample_project(path, sample=SAMPLES):
    p = open_project(path, create=True)
    import_source(p, sample, options=ImportOptions(model="m"))
    return p


@pytest.mark.parametrize("fmt,name", [("coco", "gt.json"), ("labelme", "test-images"), ("label-studio", "gt.json")])
def test_the_sample_round_trips_with_nothing_lost(tmp_path, fmt, name):
    # the export is written where its photos are (beside them for labelme, their
    # folder's parent for one COCO or Label Studio file): an import reads photos
    # only inside the folder imported; that folder is an import source, so the
    # export goes there only with force (reviewer.storage.files.safe_write)
    folder = tmp_path / "cards"
    shutil.copytree(SAMPLES, folder)
    source = _sample_project(tmp_path / "a.db", folder)
    (folder / "test-images" / "ground-truth.json").unlink()
    target = open_project(tmp_path / "b.db", create=True)
    try:
        with pytest.raises(TargetRefused, match="which the project was imported from"):
            export_ground_truth(source, folder / name, fmt)
        counts = export_ground_truth(source, folder / name, fmt, force=True)
        assert (counts["piles"], counts["cards"], counts["skipped"]) == (5, 16, [])
        assert (folder / name).is_dir() == (fmt == "labelme")
        report = import_source(target, folder / name)
        assert report.format == fmt and report.added["ground truths"] == 2
        for item in repo_items.items(source):
            a = repo_ground_truth.ground_truth(source, item.id)
            b = repo_ground_truth.ground_truth(target, repo_items.item_by_name(target, item.name).id)
            assert same_ground_truth(a, b), item.name
            assert [c.bbox for c in a.cards] == [c.bbox for c in b.cards]  # exactly, not only to 0.001 px
            assert [p.region for p in a.piles] == [p.region for p in b.piles]
    finally:
        source.close()
        target.close()


def test_the_coco_export_loads_in_pycocotools(tmp_path):
    coco_api = pytest.importorskip("pycocotools.coco")
    p = _sample_project(tmp_path / "a.db")
    try:
        export_ground_truth(p, tmp_path / "gt.json", "coco")
    finally:
        p.close()
    coco = coco_api.COCO(str(tmp_path / "gt.json"))
    assert sorted(c["name"] for c in coco.loadCats(coco.getCatIds())) == ["center", "left", "right"]
    image = next(im for im in coco.loadImgs(coco.getImgIds()) if im["reviewer_item"] == "table-02")
    assert (image["width"], image["height"]) == (1600, 1200)  # upright, not the stored 1200 x 1600
    right = coco.getCatIds(catNms=["right"])
    anns = [a for a in coco.loadAnns(coco.getAnnIds(imgIds=[image["id"]], catIds=right)) if a["attributes"]]
    # 'To listen to music' (1106.2, 349.4)-(1489.8, 546.6): [x, y, w, h] = [1106.2, 349.4, 383.6, 197.2]
    music = next(a for a in anns if a["attributes"]["text"] == "To listen to music")
    assert music["bbox"] == pytest.approx([1106.2, 349.4, 383.6, 197.2])
    assert music["area"] == pytest.approx(383.6 * 197.2)
    assert coco.annToMask(music).sum() > 0.95 * 383.6 * 197.2  # the rectangle segmentation covers the box
    assert len(coco.getAnnIds()) == 16 + 5


def test_export_gt_cli_and_the_analysts_tables(tmp_path):
    p = _sample_project(tmp_path / "a.db")
    p.close()
    runner = CliRunner()
    result = runner.invoke(main, ["export-gt", str(tmp_path / "a.db"), str(tmp_path / "lm"), "--format", "labelme"])
    assert result.exit_code == 0, result.output
    assert sorted(f.name for f in (tmp_path / "lm").iterdir()) == [  # each photo beside its JSON
        "table-01.jpg",
        "table-01.json",
        "table-02.jpg",
        "table-02.json",
    ]
    result = runner.invoke(
        main,
        ["export-gt", str(tmp_path / "a.db"), str(tmp_path / "x.json"), "--format", "coco", "--annotator", "nobody"],
    )
    assert result.exit_code != 0 and "no annotator 'nobody'" in result.output
    result = runner.invoke(
        main, ["import", str(tmp_path / "a.db"), str(FIX / "coco" / "sample.json"), "--annotator", "alice"]
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["export", str(tmp_path / "a.db"), str(tmp_path / "out.db")])
    assert result.exit_code == 0, result.output
    con = sqlite3.connect(tmp_path / "out.db")
    rows = con.execute(
        "SELECT item, annotator, pile, text, x_min, y_min, x_max, y_max FROM gt_cards "
        "WHERE text = 'To die at home' ORDER BY annotator"
    ).fetchall()
    assert rows == [
        ("table-01", "alice", "left", "To die at home", 293.4, 105.1, 686.6, 322.9),
        ("table-01", "consensus", "left", "To die at home", 293.4, 105.1, 686.6, 322.9),
    ]
    assert con.execute("SELECT count(*) FROM gt_cards WHERE annotator = 'consensus'").fetchone()[0] == 16
    region = con.execute(
        "SELECT region FROM gt_piles WHERE item = 'table-02' AND annotator = 'consensus' AND pile = 'center'"
    ).fetchone()[0]
    assert json.loads(region)[0] == [560.1, 396.9]
    con.close()


def test_a_labelme_export_stands_alone_and_round_trips(tmp_path):
    # export-gt writes each photo beside its JSON (imagePath its bare name, as
    # labelme saves): the folder imports into a new project, and exporting that
    # project again writes the same files
    source = _sample_project(tmp_path / "a.db")
    first, second = tmp_path / "first", tmp_path / "second"
    target = open_project(tmp_path / "b.db", create=True)
    try:
        counts = export_ground_truth(source, first, "labelme")
        assert counts["images"] == counts["files"] == 2
        for doc in first.glob("*.json"):
            ref = json.loads(doc.read_text())["imagePath"]
            assert "/" not in ref and (first / ref).is_file()
        report = import_source(target, first)
        assert report.format == "labelme" and report.added["ground truths"] == 2
        for item in repo_items.items(source):
            a = repo_ground_truth.ground_truth(source, item.id)
            b = repo_ground_truth.ground_truth(target, repo_items.item_by_name(target, item.name).id)
            assert same_ground_truth(a, b) and [c.bbox for c in a.cards] == [c.bbox for c in b.cards], item.name
        export_ground_truth(target, second, "labelme")
        names = sorted(p.name for p in first.iterdir())
        assert names == sorted(p.name for p in second.iterdir())
        assert all((first / n).read_bytes() == (second / n).read_bytes() for n in names)
        # the copies are files reviewer wrote: exporting again replaces them without --force
        assert export_ground_truth(source, first, "labelme")["images"] == 2
        reference = export_ground_truth(source, tmp_path / "ref", "labelme", images="reference")
        assert "images" not in reference
        doc = json.loads(next((tmp_path / "ref").glob("*.json")).read_text())
        assert doc["imagePath"].startswith("../")
    finally:
        source.close()
        target.close()


@pytest.mark.parametrize("fmt", ["coco", "label-studio"])
def test_a_coco_or_label_studio_export_stands_alone_and_round_trips(tmp_path, fmt):
    # export-gt writes copies of the photos under images/ beside the JSON file:
    # the folder imports into a new project, and exporting that project again
    # writes the same files, byte for byte
    source = _sample_project(tmp_path / "a.db")
    first, second = tmp_path / "first", tmp_path / "second"
    target = open_project(tmp_path / "b.db", create=True)
    try:
        counts = export_ground_truth(source, first / "gt.json", fmt)
        assert counts["copied images"] == 2
        assert sorted(p.name for p in (first / "images").iterdir()) == sorted(
            p.name for p in (SAMPLES / "test-images").iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")
        )
        text = (first / "gt.json").read_text()
        assert ".." not in text and "images/" in text
        report = import_source(target, first / "gt.json")
        assert report.format == fmt and report.added["ground truths"] == 2
        for item in repo_items.items(source):
            a = repo_ground_truth.ground_truth(source, item.id)
            b = repo_ground_truth.ground_truth(target, repo_items.item_by_name(target, item.name).id)
            assert same_ground_truth(a, b) and [c.bbox for c in a.cards] == [c.bbox for c in b.cards], item.name
            assert [p.region for p in a.piles] == [p.region for p in b.piles]
        export_ground_truth(target, second / "gt.json", fmt)
        files = sorted(str(p.relative_to(first)) for p in first.rglob("*") if p.is_file())
        assert files == sorted(str(p.relative_to(second)) for p in second.rglob("*") if p.is_file())
        assert all((first / n).read_bytes() == (second / n).read_bytes() for n in files)
        # the copies are files reviewer wrote: exporting again replaces them without --force
        assert export_ground_truth(source, first / "gt.json", fmt)["copied images"] == 2
        reference = export_ground_truth(source, tmp_path / "ref" / "gt.json", fmt, images="reference")
        assert "copied images" not in reference and not (tmp_path / "ref" / "images").exists()
        assert "../" in (tmp_path / "ref" / "gt.json").read_text()
    finally:
        source.close()
        target.close()
