"""Where the tests find their inputs: the project's root, the bundled card
sample, the fixtures under tests/fixtures, and the real data beside the
project (../shared/data), which a test skips without."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
SAMPLES = ROOT / "samples" / "cards"
SHARED_DATA = Path(os.environ.get("REVIEWER_SHARED_DATA", ROOT.parent / "shared" / "data"))


def shared(name: str) -> Path:
    """A folder of ../shared/data, or skip the test when it is absent."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is absent (real data lives beside the project, not in it)")
    return path
