"""Items keep their source's metadata (migration 0027, reviewer.storage.repo.item_metadata),
and `--by FIELD` gives every alignment figure per slice."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.cli.demo_samples import import_text_sample
from reviewer.storage.importers import import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.repo.item_metadata import add_item_metadata, item_metadata, subject_slices
from tests.helpers.paths import ROOT, SAMPLES


def _as_before_the_metadata(db: Path) -> None:
    """The project as the previous reviewer wrote it: no metadata column, no record of 0027."""
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE items DROP COLUMN metadata")
    con.execute("DELETE FROM _sqlite_migrations WHERE name = '0027_item_metadata'")
    con.commit()
    con.close()


def test_a_project_of_the_previous_version_migrates_and_keeps_its_items(tmp_path):
    db = tmp_path / "old.db"
    p = open_project(db, create=True)
    import_source(p, SAMPLES)
    p.close()
    for sample in ("cases", "pairwise"):
        import_text_sample(ROOT / "samples", sample, db)
    p = open_project(db)
    before = p.db.execute("SELECT id, name, kind, text, workflow FROM items ORDER BY id").fetchall()
    p.close()
    _as_before_the_metadata(db)
    con = sqlite3.connect(db)
    assert "metadata" not in [r[1] for r in con.execute("PRAGMA table_info(items)")]
    con.close()
    p = open_project(db)  # migrates
    try:
        assert p.db.execute("SELECT id, name, kind, text, workflow FROM items ORDER BY id").fetchall() == before
        assert {r[0] for r in p.db.execute("SELECT metadata FROM items")} == {"{}"}
        item_id = before[0][0]
        add_item_metadata(p, item_id, {"subset": "Natural"})
        add_item_metadata(p, item_id, {"difficulty": "hard"})
        assert item_metadata(p) == {item_id: {"subset": "Natural", "difficulty": "hard"}}
    finally:
        p.close()


def test_test_cases_keep_their_category_and_difficulty(tmp_path):
    db = tmp_path / "cases.db"
    open_project(db, create=True).close()
    import_text_sample(ROOT / "samples", "cases", db)
    p = open_project(db)
    try:
        meta = list(item_metadata(p).values())
        assert meta and all("category" in m and "dataset" in m for m in meta)
        assert any("difficulty" in m for m in meta)
    finally:
        p.close()


def test_jsonl_runs_keep_a_lines_metadata(tmp_path):
    src = tmp_path / "runs.jsonl"
    src.write_text(
        json.dumps(
            {
                "item": "q1",
                "prompt": "p",
                "model": "m",
                "repetition": 1,
                "output": "a",
                "metadata": {"topic": "maths", "level": 2},
            }
        )
        + "\n"
    )
    p = open_project(tmp_path / "p.db", create=True)
    try:
        import_source(p, src)
        assert list(item_metadata(p).values()) == [{"level": 2, "topic": "maths"}]
        with pytest.raises(ValueError, match="no item has metadata field 'nothing' \\(fields: level, topic\\)"):
            subject_slices(p, "nothing")
    finally:
        p.close()


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.shared_data
def test_by_subset_on_llmbar_equals_each_subset_alone(tmp_path):
    """LLMBar keeps its subset folder; `--by subset` gives Natural and
    MT-Bench rows, each equal to the figures of a project holding that
    subset alone (../shared/data; skipped when absent)."""
    from tests.helpers.paths import shared

    folder = shared("pairwise-llmbar")
    both = tmp_path / "both.db"
    assert invoke("import", both, folder, "--format", "pairwise-llmbar").exit_code == 0
    out = invoke("alignment", both, "--by", "subset", "--json", "--resamples", "300")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["by"] == "subset" and [s["slice"] for s in data["slices"]] == ["MT-Bench", "Natural"]
    assert [s["subjects"] for s in data["slices"]] == [200, 100]
    for part in data["slices"]:
        alone = tmp_path / f"{part['slice']}.db"
        assert invoke("import", alone, folder / part["slice"], "--format", "pairwise-llmbar").exit_code == 0
        single = json.loads(invoke("alignment", alone, "--json", "--resamples", "300").stdout)
        assert [a["judge"] for a in part["alignments"]] == [a["judge"] for a in single["alignments"]]
        for sliced, own in zip(part["alignments"], single["alignments"]):
            assert sliced["splits"][0] == own["splits"][0]  # 'all': n, kappa, its interval, TPR/TNR, confusion
    text = invoke("alignment", both, "--by", "subset", "--resamples", "300").output
    assert "== subset = Natural (100 subjects) ==" in text and "== subset = MT-Bench (200 subjects) ==" in text


@pytest.mark.shared_data
def test_agreement_by_subset_on_llmbar_equals_each_subset_alone(tmp_path):
    from tests.helpers.paths import shared

    folder = shared("pairwise-llmbar")
    both = tmp_path / "both.db"
    assert invoke("import", both, folder, "--format", "pairwise-llmbar").exit_code == 0
    out = invoke("agreement", both, "--by", "subset", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    natural = next(s for s in data["slices"] if s["slice"] == "Natural")
    alone = tmp_path / "natural.db"
    assert invoke("import", alone, folder / "Natural", "--format", "pairwise-llmbar").exit_code == 0
    own = json.loads(invoke("agreement", alone, "--json").stdout)["agreement"]
    assert natural["subjects"] == 100 and natural["agreement"] == own
    out = invoke("calibration", both, "--by", "subset")
    assert out.exit_code == 0 and "== subset = MT-Bench (200 subjects) ==" in out.output
