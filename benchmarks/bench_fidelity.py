"""Fidelity report: the scorer's findings against the hand-checked answer key
of ../shared/data/ocr-runs-dev (40 real tesseract answers on 5 photos).

Prints per-code precision, recall and F1 over all findings, the runs whose
text accuracy is off by more than 0.05, the HALLUC findings of the key the
scorer missed, and per-run differences (with --diff). The last line gives
the code F1 and its target (>= 0.97 with no HALLUC missed).

Usage:
    python benchmarks/bench_fidelity.py [--data DIR] [--diff]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from reviewer.core.cards.fidelity import diff_lines
from reviewer.core.models import ScoringConfig
from reviewer.storage.cards.answer_key import fidelity

TARGET_F1 = 0.97
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "ocr-runs-dev"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--diff", action="store_true", help="print every run that differs from the key")
    parser.add_argument("--quick", action="store_true", help="accepted for symmetry with the other benchmarks")
    args = parser.parse_args(argv)
    if not (args.data / "expected.json").is_file():
        print(f"bench_fidelity: {args.data} has no expected.json (the dev data lives in ../shared/data)")
        print("code F1 n/a (target >= 0.97): SKIP")
        return 0
    config = ScoringConfig()
    start = time.perf_counter()
    report = fidelity(args.data, config)
    elapsed = time.perf_counter() - start
    print(
        f"bench_fidelity: {report.runs} runs of {args.data.name}, scoring config {config.version}, "
        f"{elapsed * 1000:.0f} ms"
    )
    print("\n".join(report.lines()))
    for name, key_acc, got in report.accuracy_off:
        print(f"  text accuracy off: {name}: key {key_acc:.2f}, scorer {got:.2f}")
    for name, finding in report.halluc_missed:
        print(f"  HALLUC missed: {name}: {finding[2]!r}")
    if args.diff:
        print("\n".join(diff_lines(report)))
    ok = report.f1 >= TARGET_F1 and not report.halluc_missed
    print(
        f"code F1 {report.f1:.3f} (target >= {TARGET_F1:.2f}), HALLUC missed {len(report.halluc_missed)} "
        f"(target 0): {'PASS' if ok else 'FAIL'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
