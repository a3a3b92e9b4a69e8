"""Fixtures of the reliability tests."""

from __future__ import annotations

import json

import pytest

from tests.helpers.golden import GOLDEN
from tests.helpers.paths import SAMPLES
from tests.helpers.runs import cli


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
    """A project with golden set 'tiny' and the sample cards."""
    root = tmp_path_factory.mktemp("golden")
    src = root / "src"
    src.mkdir()
    (src / "tiny.json").write_text(json.dumps(GOLDEN, indent=2) + "\n", encoding="utf-8")
    db = root / "p.db"
    assert cli("import", db, src).exit_code == 0
    assert cli("import", db, SAMPLES, "--model", "m").exit_code == 0
    return db
