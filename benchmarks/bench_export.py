"""Benchmark: exported rows per second of reviewer.storage.export.export_project.

Builds a project in a temporary folder (open_project(create=True); items,
prompts, ground truth and runs added with reviewer.storage.repo in one
transaction; synthetic raw model answers from bench_scoring), scores it once
with score_project, reviews a few findings, then times export_project as a
whole and by phase (export_project(timings=...): score stale runs, gather =
read the project and compute metrics, write = create tables and insert the
rows) against raw sqlite3 executemany of the same rows (the runs, findings and
prompt_verdicts tables with the same columns, one transaction, a fresh file)
in the same process.

Rows = rows of the runs + findings + prompt_verdicts tables. Target: exported
rows per second in the write phase >= 0.8 x the raw rate, printed as
PASS/FAIL (never asserted); the whole call's rate is printed beside it (it
also reads the project and computes metrics, which the raw baseline does not).
When the target is missed the export is profiled (cProfile).

Usage:
    python benchmarks/bench_export.py            # 2,000 runs, ~30-40 s
    python benchmarks/bench_export.py --quick    # 200 runs, smoke run
    python benchmarks/bench_export.py --profile  # always print the profile
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import cProfile
import gc
import io
import pstats
import random
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_scoring as synth  # noqa: E402  (synthetic runs, shared with the scoring benchmark)

from reviewer.core.models import Code, Item, Status  # noqa: E402
from reviewer.storage import repo  # noqa: E402
from reviewer.storage.db import Project, now, open_project  # noqa: E402
from reviewer.storage.export import export_project  # noqa: E402
from reviewer.storage.scores import score_project  # noqa: E402

TARGET_RATIO = 0.8
TABLES = ("runs", "findings", "prompt_verdicts")
MODELS = ("qwen2.5-vl-7b-q4km", "qwen3-vl-2b-q4km", "gemma3-4b-q4km", "minicpm-v-2.6-q4km", "llava-1.6-7b-q4km")


# --------------------------------------------------------------------------
# Building the project
# --------------------------------------------------------------------------
def build_project(path: Path, n_runs: int, seed: int = synth.SEED, review_share: float = 0.05) -> Project:
    """A project of ``n_runs`` 10-card runs (items x 2 prompts x 5 models x
    repetitions), scored once, with ``review_share`` of findings decided."""
    rng = random.Random(f"{seed}-export")
    reps = 10
    n_items = max(1, n_runs // (2 * len(MODELS) * reps))
    items = [synth.make_item(f"table-{k:03d}", 10, rng) for k in range(n_items)]
    project = open_project(path, create=True)
    with project.transaction():
        item_ids = []
        for it in items:
            item_id, _ = repo.upsert_item(project, Item(name=it.name, path=f"photos/{it.name}.jpg",
                                                        width=synth.IMAGE_SIZE[0], height=synth.IMAGE_SIZE[1]))
            repo.set_ground_truth(project, item_id, it.ground_truth())
            item_ids.append(item_id)
        prompt_ids = {s: repo.upsert_prompt(project, p)[0] for s, p in synth.PROMPTS.items()}
        added = 0
        for it, item_id in zip(items, item_ids):
            for schema, prompt_id in prompt_ids.items():
                for model in MODELS:
                    for rep in range(1, reps + 1):
                        if added >= n_runs:
                            break
                        run = synth.make_run(it, schema, rng, n_perturb=rng.randint(3, 9))
                        stamp = f"2025-03-{1 + added % 28:02d}T10:{added % 60:02d}:00"
                        repo.add_run(project, item_id, prompt_id, model, run.output,
                                     repetition=rep, timestamp=stamp, source=f"runs/{it.name}-{added}.txt")
                        added += 1
    score_project(project)
    # a reviewer has been through a few findings: confirmed, rejected, reclassified
    found = repo.findings(project)
    picked = rng.sample(found, int(len(found) * review_share))
    with project.transaction():
        for k, f in enumerate(picked):
            if k % 3 == 0:
                repo.update_finding(project, f.id, status=Status.CONFIRMED, reviewer="bench", decided_at=now())
            elif k % 3 == 1:
                repo.update_finding(project, f.id, status=Status.REJECTED, reviewer="bench",
                                    reason="the card is really there", decided_at=now())
            else:
                repo.update_finding(project, f.id, status=Status.CONFIRMED, final_code=Code.PARTIAL,
                                    reviewer="bench", reason="half the card is covered", decided_at=now())
    return project


# --------------------------------------------------------------------------
# Timing export_project, with a breakdown of where its time goes
# --------------------------------------------------------------------------
def time_export(project: Project, out: Path) -> tuple[float, dict[str, int], dict[str, float]]:
    """Wall time of one export_project call, its row counts and its phases
    (score, gather, write) as export_project reports them."""
    timings: dict[str, float] = {}
    t = time.perf_counter()
    counts = export_project(project, out, timings=timings)
    return time.perf_counter() - t, counts, timings


# --------------------------------------------------------------------------
# Raw sqlite3 baseline
# --------------------------------------------------------------------------
def exported_rows(out: Path) -> list[tuple[str, str, list[str], list[tuple]]]:
    """(table, CREATE statement, columns, rows) of the timed tables, read
    back from the export so that the baseline writes exactly the same rows."""
    con = sqlite3.connect(out)
    tables = []
    for name in TABLES:
        (sql,) = con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).fetchone()
        cur = con.execute(f"SELECT * FROM [{name}]")
        cols = [d[0] for d in cur.description]
        tables.append((name, sql, cols, cur.fetchall()))
    con.close()
    return tables


def raw_write(path: Path, tables) -> None:
    if path.exists():
        path.unlink()
    con = sqlite3.connect(path)
    with con:  # one transaction
        for name, sql, cols, rows in tables:
            con.execute(sql)
            con.executemany(
                f"INSERT INTO [{name}] ({', '.join(f'[{c}]' for c in cols)}) VALUES ({', '.join('?' * len(cols))})",
                rows,
            )
    con.close()


def time_raw(path: Path, tables, min_time: float, repeat: int) -> float:
    """Best wall time of one raw_write, over at least ``repeat`` writes and
    ``min_time`` seconds."""
    best, spent, n = float("inf"), 0.0, 0
    while n < repeat or spent < min_time:
        t = time.perf_counter()
        raw_write(path, tables)
        elapsed = time.perf_counter() - t
        best, spent, n = min(best, elapsed), spent + elapsed, n + 1
    return best


def profile_export(project: Project, out: Path, top: int = 22) -> str:
    prof = cProfile.Profile()
    prof.enable()
    export_project(project, out)
    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    buf.write("-- by cumulative time --\n")
    stats.sort_stats("cumulative").print_stats(top)
    buf.write("-- by own time --\n")
    stats.sort_stats("tottime").print_stats(top)
    return buf.getvalue()


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short smoke run (200 runs, one export)")
    ap.add_argument("--runs", type=int, default=None, help="runs in the project (default 2000)")
    ap.add_argument("--repeat", type=int, default=None, help="interleaved rounds of export + raw, best kept (default 5)")
    ap.add_argument("--profile", action="store_true", help="always print a cProfile of one export")
    ap.add_argument("--seed", type=int, default=synth.SEED)
    args = ap.parse_args(argv)
    n_runs = args.runs or (200 if args.quick else 2000)
    repeat = args.repeat or (1 if args.quick else 5)
    cpu = None if args.quick else synth.pin_one_core()  # a smoke run may share the machine
    pinned = f"pinned to CPU {cpu}" if cpu is not None else "not pinned"

    with tempfile.TemporaryDirectory(prefix="bench_export_") as tmp:
        tmp_path = Path(tmp)
        t = time.perf_counter()
        project = build_project(tmp_path / "project.db", n_runs, seed=args.seed)
        built = time.perf_counter() - t
        n_findings = project.db.execute("SELECT count(*) FROM findings").fetchone()[0]
        codes = Counter(dict(project.db.execute("SELECT code, count(*) FROM findings GROUP BY code").fetchall()))
        print(f"bench_export: Python {sys.version.split()[0]}, {pinned}; built and scored "
              f"{n_runs} runs, {n_findings} findings in {built:.1f} s")
        print("  findings: " + ", ".join(f"{k} {v}" for k, v in sorted(codes.items())))

        out = tmp_path / "export.db"
        counts = export_project(project, out)  # warm-up, and the rows the baseline writes
        rows = sum(counts[t] for t in TABLES)
        tables = exported_rows(out)
        assert sum(len(t[3]) for t in tables) == rows
        # interleaved rounds, best of each kept: disk and CPU drift hit both alike
        seconds, phases, raw_seconds = float("inf"), {}, float("inf")
        per_round = (0.2 if args.quick else 1.0) / repeat
        for _ in range(repeat):
            s, counts, ph = time_export(project, out)
            if s < seconds:
                seconds, phases = s, ph
            raw_seconds = min(raw_seconds, time_raw(tmp_path / "raw.db", tables, per_round, repeat=1))

        write_s = phases["write"]
        export_rate, raw_rate = rows / write_s, rows / raw_seconds
        ratio = export_rate / raw_rate
        print(f"\nrows: {counts['runs']} runs + {counts['findings']} findings + "
              f"{counts['prompt_verdicts']} prompt_verdicts = {rows}  (also {counts['items']} items, "
              f"{counts['scoring_config']} scoring_config rows, 2 views)")
        print(f"{'':<34} {'seconds':>9} {'rows/s':>12}")
        print(f"{'export_project: write phase':<34} {write_s:>9.3f} {export_rate:>12,.0f}")
        print(f"{'raw sqlite3 executemany':<34} {raw_seconds:>9.3f} {raw_rate:>12,.0f}")
        print(f"{'export_project: whole call':<34} {seconds:>9.3f} {rows / seconds:>12,.0f}")
        print(f"  phases: score stale {phases['score']:.3f} s, gather (read + metrics) {phases['gather']:.3f} s, "
              f"write {write_s:.3f} s")
        print(f"end-to-end ratio (includes reading the project and computing metrics, "
              f"which the raw baseline does not do): {rows / seconds / raw_rate:.3f}")
        verdict = "PASS" if ratio >= TARGET_RATIO else "FAIL"
        print(f"\ntarget exported rows/s (write phase) >= {TARGET_RATIO} x raw executemany: {ratio:.3f} -> {verdict}")
        if args.profile or (verdict == "FAIL" and not args.quick):
            gc.collect()
            gc.disable()
            try:
                t = time.perf_counter()
                export_project(project, out)
                no_gc = time.perf_counter() - t
            finally:
                gc.enable()
            print(f"\ndiagnostic: export_project with the cyclic garbage collector off: {no_gc:.3f} s "
                  f"({seconds / no_gc:.2f}x faster; {rows / no_gc:,.0f} rows/s, ratio {rows / no_gc / raw_rate:.3f})")
            print("\ncProfile of one export_project call:")
            print(profile_export(project, out))
        project.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
