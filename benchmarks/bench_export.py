"""Benchmark: the whole `reviewer export` command against raw sqlite3
writing the same tables.

Builds a project in a temporary folder (open_project(create=True); items,
prompts, ground truth and runs added with reviewer.storage.repo in one
transaction; synthetic raw model answers from bench_scoring), scores it once
with score_project and reviews a few findings. Then, interleaved, best of
the rounds:

* subject: ``python -m reviewer export P out.db``, the command a user runs
  (start-up, reading the project, metrics and verdicts, writing every table
  and view), as a fresh process;
* baseline: a fresh ``python`` process that does the same job with plain
  sqlite3 and the rows already computed: reads every table of a previous
  export (the same rows) and writes them, with the same CREATE statements
  and views, to a new file in one transaction with one executemany per
  table.

Ratio = baseline seconds / export seconds; target >= 0.8, printed as
PASS/FAIL (never asserted). Also printed: the phases of export_project in
this process (score stale runs, gather = read the project and compute
metrics, write) and the peak memory of the export process (GNU time). When
the target is missed with --profile the export is profiled (cProfile).

Usage:
    python benchmarks/bench_export.py            # 5,000 runs, ~1 min
    python benchmarks/bench_export.py --quick    # 200 runs, smoke run
    python benchmarks/bench_export.py --profile  # also print a cProfile of one export
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import cProfile
import io
import pstats
import random
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_scoring as synth
from bench_cli import compile_sources, timed_process

from reviewer.core.models import Code, Item, Status
from reviewer.storage.export import export_project
from reviewer.storage.project.db import Project, now, open_project
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.scoring import score_project

TARGET_RATIO = 0.8
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
            item_id, _ = repo_items.upsert_item(
                project,
                Item(name=it.name, path=f"photos/{it.name}.jpg", width=synth.IMAGE_SIZE[0], height=synth.IMAGE_SIZE[1]),
            )
            repo_ground_truth.set_ground_truth(project, item_id, it.ground_truth())
            item_ids.append(item_id)
        prompt_ids = {s: repo_items.upsert_prompt(project, p)[0] for s, p in synth.PROMPTS.items()}
        added = 0
        for it, item_id in zip(items, item_ids):
            for schema, prompt_id in prompt_ids.items():
                for model in MODELS:
                    for rep in range(1, reps + 1):
                        if added >= n_runs:
                            break
                        run = synth.make_run(it, schema, rng, n_perturb=rng.randint(3, 9))
                        stamp = f"2025-03-{1 + added % 28:02d}T10:{added % 60:02d}:00"
                        repo_runs.add_run(
                            project,
                            item_id,
                            prompt_id,
                            model,
                            run.output,
                            repetition=rep,
                            timestamp=stamp,
                            source=f"runs/{it.name}-{added}.txt",
                        )
                        added += 1
    score_project(project)
    # a reviewer has been through a few findings: confirmed, rejected, reclassified
    found = repo_findings.findings(project)
    picked = rng.sample(found, int(len(found) * review_share))
    with project.transaction():
        for k, f in enumerate(picked):
            if k % 3 == 0:
                repo_findings.update_finding(project, f.id, status=Status.CONFIRMED, reviewer="bench", decided_at=now())
            elif k % 3 == 1:
                repo_findings.update_finding(
                    project,
                    f.id,
                    status=Status.REJECTED,
                    reviewer="bench",
                    reason="the card is really there",
                    decided_at=now(),
                )
            else:
                repo_findings.update_finding(
                    project,
                    f.id,
                    status=Status.CONFIRMED,
                    final_code=Code.PARTIAL,
                    reviewer="bench",
                    reason="half the card is covered",
                    decided_at=now(),
                )
    return project


# --------------------------------------------------------------------------
# Timing export_project, with a breakdown of where its time goes
# --------------------------------------------------------------------------
# --------------------------------------------------------------------------
# The two processes
# --------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parents[1]

#: The baseline process: copy every table and view of export SRC into a new DST
#: with plain sqlite3 (one transaction, one executemany per table).
RAW = """
import sqlite3, sys
src, dst = sys.argv[1], sys.argv[2]
con = sqlite3.connect(src)
objects = con.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                      "ORDER BY type = 'view', rowid").fetchall()
tables = [(name, sql, con.execute(f"SELECT * FROM [{name}]").fetchall()) for kind, name, sql in objects
          if kind == "table"]
con.close()
out = sqlite3.connect(dst)
with out:
    for name, sql, rows in tables:
        out.execute(sql)
        if rows:
            out.executemany(f"INSERT INTO [{name}] VALUES ({', '.join('?' * len(rows[0]))})", rows)
    for kind, name, sql in objects:
        if kind != "table":
            out.execute(sql)
out.close()
"""


def run(args: list[str], env: dict, tmp: Path) -> tuple[float, float]:
    """Wall seconds and peak memory (MB, GNU time's %M: see
    bench_cli.timed_process) of a fresh ``python ARGS`` process."""
    seconds, mb, code, err = timed_process([sys.executable, *args], tmp / "stdout.txt", env)
    if code != 0:
        raise RuntimeError(f"python {' '.join(args[:3])} ... failed: {err[-2000:]}")
    return seconds, mb


def table_rows(path: Path) -> dict[str, int]:
    con = sqlite3.connect(path)
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    counts = {n: con.execute(f"SELECT count(*) FROM [{n}]").fetchone()[0] for n in names}
    con.close()
    return counts


def time_export(project: Project, out: Path) -> tuple[float, dict[str, int], dict[str, float]]:
    """Wall time of one export_project call in this process, its row counts
    and its phases (score, gather, write)."""
    timings: dict[str, float] = {}
    t = time.perf_counter()
    counts = export_project(project, out, timings=timings)
    return time.perf_counter() - t, counts, timings


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


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="short smoke run (200 runs, one round)")
    ap.add_argument("--runs", type=int, default=None, help="runs in the project (default 5000)")
    ap.add_argument("--repeat", type=int, default=None, help="interleaved rounds, best kept (default 5)")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of one export")
    ap.add_argument("--seed", type=int, default=synth.SEED)
    args = ap.parse_args(argv)
    n_runs = args.runs or (200 if args.quick else 5000)
    repeat = args.repeat or (1 if args.quick else 5)
    compile_sources()  # as installing the wheel does
    cpu = None if args.quick else synth.pin_one_core()  # a smoke run may share the machine; children inherit
    pinned = f"pinned to CPU {cpu}" if cpu is not None else "not pinned"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}

    with tempfile.TemporaryDirectory(prefix="bench_export_") as tmp:
        tmp_path = Path(tmp)
        t = time.perf_counter()
        project = build_project(tmp_path / "project.db", n_runs, seed=args.seed)
        built = time.perf_counter() - t
        n_findings = project.db.execute("SELECT count(*) FROM findings").fetchone()[0]
        codes = Counter(dict(project.db.execute("SELECT code, count(*) FROM findings GROUP BY code").fetchall()))
        print(
            f"bench_export: Python {sys.version.split()[0]}, {pinned}; built and scored "
            f"{n_runs} runs, {n_findings} findings in {built:.1f} s; best of {repeat} interleaved rounds"
        )
        print("  findings: " + ", ".join(f"{k} {v}" for k, v in sorted(codes.items())))

        out, raw_out = tmp_path / "export.db", tmp_path / "raw.db"
        seconds, counts, phases = time_export(project, out)  # warm-up, in process, by phase
        project.close()
        source = tmp_path / "rows.db"
        os.replace(out, source)  # the rows the baseline copies
        export_args = ["-m", "reviewer", "export", str(tmp_path / "project.db"), str(out)]
        best_export, best_raw, peak = float("inf"), float("inf"), 0.0
        for _ in range(repeat):  # interleaved: disk and CPU drift hit both alike
            s, mb = run(export_args, env, tmp_path)
            if s < best_export:
                best_export, peak = s, mb
            raw_out.unlink(missing_ok=True)
            best_raw = min(best_raw, run(["-c", RAW, str(source), str(raw_out)], env, tmp_path)[0])
        same = table_rows(out) == table_rows(raw_out) == table_rows(source)
        rows = sum(counts.values())
        ratio = best_raw / best_export
        print(f"\nrows: {', '.join(f'{v} {k}' for k, v in counts.items())} = {rows}; 2 views")
        print(f"{'':<44} {'seconds':>9} {'rows/s':>12}")
        print(
            f"{'reviewer export (process, whole command)':<44} {best_export:>9.3f} {rows / best_export:>12,.0f}"
            f"   peak {peak:.0f} MB"
        )
        print(
            f"{'raw sqlite3 copy of the same tables (process)':<44} {best_raw:>9.3f} {rows / best_raw:>12,.0f}"
            f"   {'same tables and rows' if same else 'TABLES DIFFER'}"
        )
        print(
            f"  in process: export_project {seconds:.3f} s = score stale {phases['score']:.3f} + gather (read + "
            f"metrics) {phases['gather']:.3f} + write {phases['write']:.3f}; the rest of the command is start-up"
        )
        verdict = "PASS" if ratio >= TARGET_RATIO else "FAIL"
        if args.profile:
            project = open_project(tmp_path / "project.db")
            print("\ncProfile of one export_project call:")
            print(profile_export(project, out))
            project.close()
        print(
            f"\nratio {ratio:.2f} (target >= {TARGET_RATIO}: the whole `reviewer export` against raw sqlite3 "
            f"writing the same tables): {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
