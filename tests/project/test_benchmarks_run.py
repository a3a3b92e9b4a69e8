"""The benchmark scripts still run (smoke, --quick). Speed itself is judged
by their printed ratios, never by a timed test."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers.paths import ROOT


@pytest.mark.parametrize(
    "script",
    [
        "bench_scoring.py",
        "bench_export.py",
        "bench_agreement.py",
        "bench_canvas.py",
        "bench_fidelity.py",
        "bench_runner.py",
        "bench_gui.py",
        "bench_cli.py",
        "bench_intervals.py",
    ],
)
def test_benchmark_runs(script, tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "REVIEWER_CONFIG_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--quick"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert any(word in result.stdout for word in ("PASS", "FAIL", "OK"))  # a verdict line was printed
