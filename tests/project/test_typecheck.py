"""The type-check baseline: mypy (configured in pyproject.toml) on all of
reviewer/ may report no more errors in any file than .mypy-baseline.json
records, so the count only shrinks (docs/contributing.md). reviewer/core and
reviewer/storage are clean (absent from the baseline, and .ci/run also runs
mypy on them), so this fails on any type error there; clients, pipeline,
cli and qt keep a per-file baseline.

After fixing type errors, lower the baseline with
``python tests/project/test_typecheck.py --update``; the update refuses to raise a
file's count (``--allow-growth`` for a file that moved or was split).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / ".mypy-baseline.json"
CHECKED = ("reviewer",)
#: Packages that must stay clean: never in the baseline.
CLEAN = ("reviewer/core/", "reviewer/storage/")
ERROR = re.compile(r"^(?P<path>[^:\s]+\.py):\d+: error: ")


def mypy_errors() -> Counter[str]:
    """Errors per file (POSIX path relative to the checkout) of one mypy run over
    CHECKED; raises RuntimeError when mypy itself fails (exit status 2)."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", *CHECKED], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"mypy failed ({proc.returncode}): {proc.stderr or proc.stdout}")
    counts: Counter[str] = Counter()
    for line in proc.stdout.splitlines():
        m = ERROR.match(line)
        if m:
            counts[Path(m["path"]).as_posix()] += 1
    return counts


def over_baseline(counts: Counter[str], baseline: dict[str, int]) -> list[str]:
    """One line per file whose error count exceeds its baseline (0 when absent)."""
    return [
        f"{path}: {n} mypy errors, baseline {baseline.get(path, 0)}"
        for path, n in sorted(counts.items())
        if n > baseline.get(path, 0)
    ]


def test_over_baseline_names_only_files_that_grew():
    got = over_baseline(Counter({"a.py": 2, "b.py": 1, "c.py": 1}), {"a.py": 2, "b.py": 3})
    assert got == ["c.py: 1 mypy errors, baseline 0"]


def test_the_clean_packages_have_no_baseline():
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    assert not [p for p in baseline if p.startswith(CLEAN)], "reviewer/core and reviewer/storage must stay clean"


def test_no_file_has_more_type_errors_than_the_baseline():
    pytest.importorskip("mypy")
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    grown = over_baseline(mypy_errors(), baseline)
    assert not grown, "mypy reports new errors (fix them; the baseline only shrinks):\n" + "\n".join(grown)


def update(allow_growth: bool = False) -> int:
    """Write the current counts to the baseline; 1 (nothing written) when a
    file's count would grow and ``allow_growth`` is not given, or when the
    total would grow."""
    counts = mypy_errors()
    old = json.loads(BASELINE.read_text(encoding="utf-8")) if BASELINE.exists() else {}
    grown = over_baseline(counts, old)
    if grown and old and not allow_growth:
        print("Error: the baseline would grow:\n" + "\n".join(grown), file=sys.stderr)
        return 1
    if any(p.startswith(CLEAN) for p in counts):
        print(
            "Error: reviewer/core and reviewer/storage must stay clean:\n"
            + "\n".join(p for p in counts if p.startswith(CLEAN)),
            file=sys.stderr,
        )
        return 1
    if old and sum(counts.values()) > sum(old.values()):
        print(f"Error: the total would grow ({sum(old.values())} -> {sum(counts.values())})", file=sys.stderr)
        return 1
    BASELINE.write_text(json.dumps(dict(sorted(counts.items())), indent=1) + "\n", encoding="utf-8")
    print(f"{sum(counts.values())} errors in {len(counts)} files written to {BASELINE.name}")
    return 0


if __name__ == "__main__":
    if "--update" not in sys.argv[1:]:
        sys.exit("usage: python tests/project/test_typecheck.py --update [--allow-growth]")
    sys.exit(update(allow_growth="--allow-growth" in sys.argv[1:]))
