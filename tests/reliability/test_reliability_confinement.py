"""Reliability: a file named inside an imported file is read only inside
the source the user named, and every export stays inside its OUT (issue
"Every input bounded and confined", Confinement of imported files;
reviewer.storage.files.confine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.models import BBox, Card, GroundTruth, Item
from reviewer.storage.files.confine import Refused, plain_name, safe_file_name, within
from reviewer.storage.importers import import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from tests.helpers import hostile_imports as h


def _import(tmp_path, source):
    p = open_project(tmp_path / "p.db", create=True)
    try:
        report = import_source(p, source)
        items = [(i.name, i.path) for i in repo_items.items(p)]
    finally:
        p.close()
    return report, items


def _files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.mark.parametrize("how", ["absolute", "relative", "root-relative", "symlink"])
def test_a_labelme_image_path_outside_the_folder_is_refused(tmp_path, how, monkeypatch):
    monkeypatch.chdir("/")  # a root-relative path was also tried from '/'
    source = h.labelme_outside(tmp_path, how)
    report, items = _import(tmp_path, source.parent)
    assert items == []  # the private photo is no item: not shown, never sent to a model
    whys = [why for what, why in report.skipped if "private-photo" in what]
    assert whys and all("\n" not in why for why in whys)
    assert any("private-photo.json imagePath" in why for why in whys), whys  # the field is named
    if how in ("absolute", "relative"):
        assert any("outside" in why for why in whys), whys


def test_a_coco_file_name_and_a_label_studio_image_outside_are_refused(tmp_path):
    secret = h.secret_photo(tmp_path)
    folder = tmp_path / "annotations"
    folder.mkdir()
    coco = {
        "images": [{"id": 1, "file_name": f"../secret/{secret.name}", "width": 1600, "height": 1200}],
        "categories": [{"id": 1, "name": "left"}],
        "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 1, 5, 5], "attributes": {"text": "A"}}],
    }
    (folder / "coco.json").write_text(json.dumps(coco))
    report, items = _import(tmp_path, folder / "coco.json")
    assert items == [] and any("images[0].file_name" in why and "outside" in why for _, why in report.skipped)
    tasks = [
        {
            "id": 7,
            "data": {"image": f"/data/local-files/?d={secret}"},
            "annotations": [
                {
                    "id": 1,
                    "result": [
                        {
                            "id": "r",
                            "type": "rectanglelabels",
                            "original_width": 1600,
                            "original_height": 1200,
                            "value": {"x": 1, "y": 1, "width": 5, "height": 5, "rectanglelabels": ["left"]},
                        }
                    ],
                }
            ],
        }
    ]
    (folder / "ls.json").write_text(json.dumps(tasks))
    (tmp_path / "p.db").unlink()
    report, items = _import(tmp_path, folder / "ls.json")
    assert items == [] and any("task 7 data.image" in why and "outside" in why for _, why in report.skipped)


def test_an_image_path_outside_is_looked_up_by_name_inside(tmp_path):
    """Label Studio's '/data/upload/1/1a2b3c4d-table-01.jpg' names a place on
    the Label Studio server: the photo of that name inside the folder is used."""
    source = h.label_studio_bad_numbers(tmp_path)
    report, items = _import(tmp_path, source)
    assert [name for name, _ in items] == ["table-01"]


@pytest.mark.parametrize("maker", [h.coco_reviewer_item_escape, h.label_studio_reviewer_item_escape])
def test_a_reviewer_item_that_climbs_out_is_refused(tmp_path, maker):
    report, items = _import(tmp_path, maker(tmp_path))
    assert items == []
    [why] = [why for _, why in report.skipped if "reviewer_item" in why]
    assert "'../../../../pwned' climbs out of its folder" in why


def test_export_gt_labelme_writes_safe_names_inside_out(tmp_path):
    """A project that already holds items named like paths (imported before
    the check, or by another tool): every file lands inside OUT."""
    p = open_project(tmp_path / "deep" / "er" / "p.db", create=True)
    try:
        photo = h.folder_with_photo(tmp_path / "deep" / "er") / "table-01.jpg"
        names = ["../../../../pwned", "/etc/passwd-like", "a/b\\c", "CON", "table", "TABLE", ".hidden", "\u202egpj.exe"]
        for name in names:
            item_id, _ = repo_items.upsert_item(
                p, Item(name=name, path=p.relative(photo), width=1600, height=1200, sha256=name)
            )
            repo_ground_truth.set_ground_truth(
                p,
                item_id,
                GroundTruth(item=name, cards=[Card(text="A", bbox=BBox(x_min=1, y_min=1, x_max=5, y_max=5))]),
                None,
            )
    finally:
        p.close()
    out = tmp_path / "deep" / "er" / "out" / "gt"
    result = CliRunner().invoke(
        main, ["export-gt", str(tmp_path / "deep" / "er" / "p.db"), str(out), "--format", "labelme"]
    )
    assert result.exit_code == 0, result.output
    written = sorted(f.name for f in out.glob("*.json"))  # each beside its photo
    assert len(written) == len(names)  # one file per item, none lost to a clash
    assert all("/" not in n and "\\" not in n and not n.startswith(".") for n in written)
    assert "CON.json" not in written and "_CON.json" in written
    photos = {n.removesuffix(".json") + ".jpg" for n in written}  # each photo copied beside its JSON, named as it
    assert not (tmp_path / "pwned.json").exists() and _files_under(tmp_path / "deep" / "er" / "out") == {"gt"} | {
        f"gt/{n}" for n in (*written, *photos)
    }


def test_safe_names_and_within():
    used: set[str] = set()
    assert safe_file_name("table-01", used) == "table-01"  # a safe name stays as it is
    assert safe_file_name("Table-01", used) == "Table-01-2"  # one file per item, also on a case-blind disk
    assert safe_file_name("../../x") == "_.._x"
    assert safe_file_name("") == "_" and safe_file_name("...") == "_"
    assert len(safe_file_name("\u00e9" * 300).encode()) <= 200
    with pytest.raises(Refused):
        within(Path("/tmp"), "../x.json")
    for bad in ("../x", "/abs", "C:\\x", "a/../../b", "x\x00y", 3):
        with pytest.raises(Refused):
            plain_name(bad, "reviewer_item")
    assert plain_name("exp1/doc.md", "reviewer_item") == "exp1/doc.md"


def test_within_refuses_a_symlink_in_out_that_leads_outside(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "table-01.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(Refused):
        within(out, "table-01.json")


def test_failter_front_matter_paths_outside_are_never_read(tmp_path):
    """source-input-path outside the experiment folder: looked up by its last
    parts inside (doc1) or skipped naming the field (doc2, an id_rsa);
    source-template-path outside: not read, noted."""
    art = h.failter_outside(tmp_path)
    report, items = _import(tmp_path, art)
    p = open_project(tmp_path / "p.db")
    try:
        texts = {i.name: i.text for i in repo_items.items(p)}
        prompts = {pr.name: pr.text for pr in repo_items.prompts(p)}
    finally:
        p.close()
    assert texts == {"exp1/doc1.md": "# Doc 1, the copy inside\n"}
    [why] = [why for what, why in report.skipped if what.endswith("doc2.md")]
    assert "source-input-path" in why and "id_rsa was not found inside the experiment folder" in why
    assert any("source-template-path" in n for n in report.notes)
    assert all("PRIVATE KEY" not in (t or "") for t in [*texts.values(), *prompts.values()])


def test_failter_paths_climbing_out_through_a_symlink_are_refused(tmp_path):
    art = h.failter_outside(tmp_path)
    inputs = art.parent / "exp1" / "inputs"
    (inputs / "doc1.md").unlink()
    (inputs / "doc1.md").symlink_to(h.secret_text(tmp_path))  # inside by name, outside once followed
    report, _ = _import(tmp_path, art)
    assert not report.added.get("items")
    assert any(what.endswith("doc1.md") and "source-input-path" in why for what, why in report.skipped)


def test_fidelity_reads_no_run_named_outside_its_folder(tmp_path):
    """`reviewer fidelity` reads the run files its expected.json names: only inside the folder."""
    folder = tmp_path / "key"
    (folder / "runs").mkdir(parents=True)
    (folder / "images").mkdir()
    h.secret_text(tmp_path)
    (folder / "ground-truth.json").write_text(
        json.dumps({"photo": {"piles": [{"label": "a", "cards": ["A"]}], "image_size": {"width": 10, "height": 10}}})
    )
    (folder / "expected.json").write_text(
        json.dumps({"../../secret/id_rsa": {"image": "photo", "schema": "piles", "findings": []}})
    )
    result = CliRunner().invoke(main, ["fidelity", str(folder)])
    assert result.exit_code != 0 and "climbs out of its folder" in result.output, result.output
    assert "PRIVATE KEY" not in result.output and "Traceback" not in result.output


def test_a_failter_experiment_reads_no_link_leading_out(tmp_path):
    """Files of an experiment folder that are symlinks to files outside it
    (an input, a trial output) are skipped, never read."""
    exp = tmp_path / "exp"
    (exp / "inputs").mkdir(parents=True)
    (exp / "inputs" / "doc1.md").write_text("# Doc 1\n")
    (exp / "inputs" / "key.md").symlink_to(h.secret_text(tmp_path))
    out = exp / "results" / "m" / "cleanup"
    out.mkdir(parents=True)
    (out / "doc1.md").symlink_to(tmp_path / "secret" / "id_rsa")
    (out / "doc1.md.eval").write_text("score: 80\nevaluation-method: rules-based\n")
    report, items = _import(tmp_path, exp)
    assert [name for name, _ in items] == ["exp/doc1.md"]
    skipped = dict(report.skipped)
    assert "outside the folder imported" in skipped["exp/inputs/key.md"]
    assert "outside the folder imported" in skipped["exp/results/m/cleanup/doc1.md"]
    p = open_project(tmp_path / "p.db")
    try:
        assert not any("PRIVATE KEY" in r["output"] for r in repo_runs.run_rows(p))
    finally:
        p.close()
