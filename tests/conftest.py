"""Shared test set-up: Qt offscreen by default, paths to the real data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("REVIEWER_NAME", "tester")

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("REVIEWER_SHARED_DATA", ROOT.parent / "shared" / "data"))
SAMPLES = ROOT / "samples" / "cards"


def shared(name: str) -> Path:
    """A folder of ../shared/data, or skip the test when it is absent."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is absent (real data lives beside the project, not in it)")
    return path


@pytest.fixture
def project(tmp_path):
    """An empty project in a temporary folder."""
    from reviewer.storage.db import open_project

    p = open_project(tmp_path / "p.db", create=True)
    yield p
    p.close()
