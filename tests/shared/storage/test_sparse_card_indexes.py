"""Migration 0031 indexes what is rare (cards to transcribe, named
annotators' cards and piles), and the counts the item list reads through
them equal a plain count over every card; tried on a project file written
by an earlier version (tests/fixtures/workflows)."""

from __future__ import annotations

import shutil

from reviewer.core.models import Card, GroundTruth, Pile
from reviewer.storage.annotators import ground_truth as annotator_gt
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from tests.helpers.paths import FIXTURES


def _plan(project, sql: str) -> str:
    return " ".join(str(r[-1]) for r in project.db.execute(f"EXPLAIN QUERY PLAN {sql}").fetchall())


def test_an_earlier_project_gets_the_indexes_and_the_counts_stay_exact(tmp_path):
    db = tmp_path / "old.db"
    shutil.copyfile(FIXTURES / "workflows" / "before-workflows.db", db)
    project = open_project(db)
    names = {r[0] for r in project.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"idx_cards_blank", "idx_cards_named", "idx_piles_named"} <= names
    photos = [i for i in repo_items.items(project) if i.kind == "photo"]
    assert len(photos) >= 2
    first, second = photos[:2]
    repo_ground_truth.set_ground_truth(
        project, first.id, GroundTruth(item=first.name, cards=[Card(text="Wild card"), Card(text=" "), Card(text="")])
    )
    named = GroundTruth(item=second.name, piles=[Pile(label="left")], cards=[Card(text="To be known", pile="left")])
    repo_ground_truth.set_ground_truth(project, second.id, named, annotator="ada")
    plain: dict[int, list[int]] = {}
    for item_id, text in project.db.execute("SELECT item_id, text FROM cards WHERE annotator = ''"):
        c = plain.setdefault(item_id, [0, 0])
        c[0] += 1
        c[1] += not text.strip()
    assert repo_items.ground_truth_counts(project) == {k: (a, b) for k, (a, b) in plain.items()}
    assert repo_items.ground_truth_counts(project)[first.id] == (3, 2)
    assert annotator_gt.annotators(project) == ["ada"]
    blank = "SELECT item_id, count(*) FROM cards WHERE annotator = '' AND trim(text) = '' GROUP BY item_id"
    assert "idx_cards_blank" in _plan(project, blank)
    assert "idx_cards_named" in _plan(project, "SELECT DISTINCT annotator FROM cards WHERE annotator != ''")
    assert "idx_piles_named" in _plan(project, "SELECT DISTINCT annotator FROM piles WHERE annotator != ''")
    project.close()
