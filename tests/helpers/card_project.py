"""A scored card project from the bundled sample plus a two-column run, and the
id of a run shown in the window: shared by the card window tests."""

from __future__ import annotations

import json

from reviewer.core.models import GroundTruth
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.scoring import score_project
from tests.helpers.paths import SAMPLES

LEFT = [
    "To die at home",
    "To be free from pain",
    "To have human touch",
    "To keep my sense of humor",
    "To be mentally aware",
]
RIGHT = ["To have my financial affairs in order", "To pray", "To be kept clean", "To say goodbye", "Wild Card"]


def make_project(tmp_path, *, strip_boxes=(), clear_gt=()):
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    import_source(p, SAMPLES, options=ImportOptions(model="m"))
    import_source(p, columns_run(tmp_path / "cols.jsonl"))
    for name in strip_boxes:
        item = repo_items.item_by_name(p, name)
        gt = repo_ground_truth.ground_truth(p, item.id)
        repo_ground_truth.set_ground_truth(
            p,
            item.id,
            GroundTruth(item=name, piles=gt.piles, cards=[c.model_copy(update={"bbox": None}) for c in gt.cards]),
        )
    for name in clear_gt:
        repo_ground_truth.set_ground_truth(p, repo_items.item_by_name(p, name).id, GroundTruth(item=name))
    score_project(p)
    p.close()
    return db


def run_id(window, prompt, rep, model="m", item="table-01"):
    return next(
        x.id
        for x in window.session.run_lines()
        if (x.item, x.prompt, x.repetition, x.model) == (item, prompt, rep, model)
    )


def columns_run(path):
    """A run of table-01 that grouped the cards by columns wrongly: the left
    pile plus three right cards in one pile ('A', mapped to left), the rest
    in another ('B', mapped to right): three SPATIAL findings; one left card
    misread (OCR)."""
    piles = [
        {"label": "A", "cards": [LEFT[0].replace("home", "hame"), *LEFT[1:], *RIGHT[:3]]},
        {"label": "B", "cards": RIGHT[3:]},
    ]
    path.write_text(
        json.dumps(
            {
                "item": "table-01",
                "prompt": "spatial-grouping",
                "model": "cols",
                "repetition": 1,
                "output": json.dumps({"piles": piles}),
            }
        )
        + "\n"
    )
    return path
