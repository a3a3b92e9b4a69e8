"""Fixtures of the card tests (storage and window)."""

from __future__ import annotations

import json

import pytest

from reviewer.storage.gt_formats import export_ground_truth
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.scoring import score_project
from tests.helpers.paths import SAMPLES


@pytest.fixture
def two(tmp_path):
    """The sample with annotators alice (the sample's ground truth, through
    a labelme export) and bob (the same with 'To pray' -> 'To prey', 'To be
    kept clean' -> 'To be kept clear' and Wild Card's box 140 px lower)."""
    p = open_project(tmp_path / "p.db", create=True)
    import_source(p, SAMPLES, options=ImportOptions(model="m"))
    export_ground_truth(p, tmp_path / "alice", "labelme")
    import_source(p, tmp_path / "alice", options=ImportOptions(annotator="alice"))
    doc = json.loads((tmp_path / "alice" / "table-01.json").read_text())
    for shape in doc["shapes"]:
        if shape["description"] == "To pray":
            shape["description"] = "To prey"
        elif shape["description"] == "To be kept clean":
            shape["description"] = "To be kept clear"
        elif shape["description"] == "Wild Card":
            shape["points"] = [[x, y + 140] for x, y in shape["points"]]
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "table-01.json").write_text(json.dumps(doc))
    (tmp_path / "bob" / "table-02.json").write_text((tmp_path / "alice" / "table-02.json").read_text())
    import_source(p, tmp_path / "bob", options=ImportOptions(annotator="bob"))
    score_project(p)
    yield p
    p.close()
