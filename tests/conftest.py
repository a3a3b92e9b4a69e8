"""Shared test set-up: Qt offscreen by default, paths to the real data."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("REVIEWER_NAME", "tester")
# reviewer's record of the files it wrote (reviewer.storage.files.written): never the user's own
os.environ["REVIEWER_DATA_DIR"] = tempfile.mkdtemp(prefix="reviewer-test-data-")

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("REVIEWER_SHARED_DATA", ROOT.parent / "shared" / "data"))
SAMPLES = ROOT / "samples" / "cards"


def shared(name: str) -> Path:
    """A folder of ../shared/data, or skip the test when it is absent."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is absent (real data lives beside the project, not in it)")
    return path


@pytest.fixture(autouse=True)
def own_record_of_written_files(tmp_path_factory, monkeypatch):
    """Each test starts with an empty record of the files reviewer wrote."""
    monkeypatch.setenv("REVIEWER_DATA_DIR", str(tmp_path_factory.mktemp("reviewer-data")))


@pytest.fixture
def project(tmp_path):
    """An empty project in a temporary folder."""
    from reviewer.storage.project.db import open_project

    p = open_project(tmp_path / "p.db", create=True)
    yield p
    p.close()
