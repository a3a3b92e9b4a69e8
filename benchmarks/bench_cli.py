"""Benchmark: the whole command line (import + score + export + report)
against the core scoring function alone, on the same runs in the same run.

What a user waits for: a card folder (photos, ground-truth.json, prompts)
and a JSONL of N distinct ten-card runs (synthetic raw model answers from
bench_scoring, over items x 2 prompts x 5 models x repetitions) are put
through the real commands, each a fresh ``python -m reviewer`` process:

    reviewer import P folder/        photos, ground truth, prompts
    reviewer import P runs.jsonl     N runs
    reviewer score P
    reviewer export P out.db
    reviewer report P > report.md

The baseline is the core scoring function alone (``score_run`` from
reviewer.core.cards.scoring) on the same N answers with the same ground
truth, prompts and image size, in this process. Ratio = core seconds /
command-line seconds (best of the rounds, interleaved).

Start-up: reviewer's modules are byte-compiled first, as installing the
wheel does (compile_sources).

Cores: the commands run as a user runs them, on every core this machine
gives the benchmark (``score`` uses a worker per core by default, from
5,000 runs on). The core function is single-threaded, so it runs pinned to
one core (less noise, no loss). So that nobody mistakes the pool for the
rest of the work, the ``score`` step is also timed with ``--jobs 1`` on a
copy of the same project, and the ratio with that step in place of the
default one is printed as "one core". Also checked: the number of findings the command line stored
equals what the core function found (the same work was done), the import
of 50k runs takes <= 5.5x the import of 10k (linear), and the peak memory
of the ``score`` process on 50k runs (GNU time's %M) is under 400 MB.

Targets (printed, never asserted): command line >= 0.7x the core scoring
function at every size; import linear; score < 400 MB. The last line prints
the ratio and its target.

Usage:
    python benchmarks/bench_cli.py            # 10k and 50k runs, ~5-8 min
    python benchmarks/bench_cli.py --quick    # 1,000 runs, one round
    python benchmarks/bench_cli.py --sizes 10000 --rounds 1
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

import contextlib

import bench_scoring as synth

from reviewer.core.cards.prompts import prompt_example, prompt_from_text
from reviewer.core.cards.scoring import score_run
from reviewer.core.models import ScoringConfig

TARGET_RATIO = 0.7
TARGET_LINEAR = 5.5  # import of 50k runs / import of 10k runs
TARGET_MB = 400.0  # peak memory of `score` on 50k ten-card runs
MODELS = ("qwen2.5-vl-7b-q4km", "qwen3-vl-2b-q4km", "gemma3-4b-q4km", "minicpm-v-2.6-q4km", "llava-1.6-7b-q4km")
RUNS_PER_ITEM = 100  # 2 prompts x 5 models x 10 repetitions
PHOTO = (160, 120)  # photo size; runs give boxes on the 0-1000 grid, as the prompt asks


@dataclass
class Dataset:
    """A card folder and a JSONL of ``n`` runs, and the same runs as jobs for
    the core scoring function."""

    folder: Path
    jsonl: Path
    n: int
    jobs: list[tuple] = field(default_factory=list)


def make_dataset(where: Path, n: int, seed: int) -> Dataset:
    """``n`` distinct ten-card runs over n / RUNS_PER_ITEM items (at least
    one), written as a card folder plus a JSONL of runs."""
    from PIL import Image

    rng = random.Random(f"{seed}-cli-{n}")
    n_items = max(1, n // RUNS_PER_ITEM)
    items = [synth.make_item(f"table-{k:04d}", 10, rng) for k in range(n_items)]
    folder = where / f"cards-{n}"
    (folder / "test-images").mkdir(parents=True)
    (folder / "prompts").mkdir()
    photo = folder / "photo.jpg"
    Image.new("RGB", PHOTO, (200, 190, 170)).save(photo, quality=80)
    data = photo.read_bytes()
    photo.unlink()
    gt = {}
    for it in items:
        (folder / "test-images" / f"{it.name}.jpg").write_bytes(data)
        gt[it.name] = {"piles": [{"label": p, "cards": [t for t, q in it.cards if q == p]} for p in it.piles]}
    (folder / "test-images" / "ground-truth.json").write_text(json.dumps(gt, indent=1))
    prompts = {}
    for schema, p in synth.PROMPTS.items():
        (folder / "prompts" / f"{p.name}.md").write_text(p.text)
        prompts[schema] = prompt_from_text(p.name, p.text)  # as the import reads it
    config = ScoringConfig()
    examples = {s: prompt_example(p.text) for s, p in prompts.items()}
    gts = {it.name: it.ground_truth() for it in items}
    ds = Dataset(folder, where / f"runs-{n}.jsonl", n)
    per_item = -(-n // n_items)
    with ds.jsonl.open("w", encoding="utf-8") as fh:
        k = 0
        for it in items:
            for j in range(per_item):
                if k >= n:
                    break
                schema = list(synth.PROMPTS)[j % 2]
                model = MODELS[(j // 2) % len(MODELS)]
                rep = 1 + j // (2 * len(MODELS))
                run = synth.make_run(it, schema, rng)
                fh.write(
                    json.dumps(
                        {
                            "item": it.name,
                            "prompt": synth.PROMPTS[schema].name,
                            "model": model,
                            "repetition": rep,
                            "output": run.output,
                        }
                    )
                    + "\n"
                )
                ds.jobs.append((run.output, prompts[schema], gts[it.name], config, examples[schema]))
                k += 1
    return ds


def _clear_caches() -> None:
    """Empty the functools caches of reviewer's core (normalised texts,
    ground-truth groups), so that every round scores with cold caches."""
    for name, module in list(sys.modules.items()):
        if name.startswith("reviewer.core"):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def core_seconds(ds: Dataset) -> tuple[float, int]:
    """Seconds of the core scoring function over every run of ``ds``, and
    the findings it made."""
    _clear_caches()  # cold, as in a new `reviewer score` process
    found = 0
    t = time.perf_counter()
    for output, prompt, gt, config, example in ds.jobs:
        found += len(score_run(output, prompt, gt, config, width=PHOTO[0], height=PHOTO[1], example=example).findings)
    return time.perf_counter() - t, found


@dataclass
class Step:
    name: str
    seconds: float
    max_rss_mb: float


def run_cli(args: list[str], out: Path, env: dict) -> Step:
    """``python -m reviewer ARGS`` as a user runs it (stdout to ``out``);
    wall seconds and the process's peak memory (os.wait4)."""
    seconds, mb, code, err = timed_process([sys.executable, "-m", "reviewer", *args], out, env)
    if code != 0:
        raise RuntimeError(f"reviewer {' '.join(map(str, args))} failed ({code}): {err[-2000:]}")
    return Step(args[0], seconds, mb)


TIME = Path("/usr/bin/time")


def compile_sources() -> None:
    """Byte-compile reviewer's modules (into their __pycache__, ignored by
    git), as installing the wheel does: the commands then start as they do
    for a user. Without it, a machine with PYTHONDONTWRITEBYTECODE set (as
    this sandbox is) compiles every module again in every process."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "reviewer")], check=True, stdout=subprocess.DEVNULL
    )


#: The cores the benchmark was given, before it pins itself to one (the commands get them all).
ALL_CPUS = set(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None


def _all_cores() -> None:
    if ALL_CPUS:
        os.sched_setaffinity(0, ALL_CPUS)


def timed_process(cmd: list[str], out: Path, env: dict) -> tuple[float, float, int, str]:
    """(wall seconds, peak memory in MB, exit status, stderr) of ``cmd``.
    The peak is read by /usr/bin/time (GNU time, %M), a small process that
    starts ``cmd``: a child forked straight from this (large) benchmark
    process would report this process's size as its own peak (ru_maxrss
    counts the memory before exec). Without GNU time, os.wait4's figure
    (an upper bound) is given."""
    mem = out.with_suffix(".mem")
    gnu = TIME.exists()
    full = [str(TIME), "-f", "%M", "-o", str(mem), *cmd] if gnu else cmd
    t = time.perf_counter()
    with out.open("w") as fh:
        proc = subprocess.Popen(
            full, stdout=fh, stderr=subprocess.PIPE, env=env, cwd=ROOT, preexec_fn=_all_cores if ALL_CPUS else None
        )
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    kb = usage.ru_maxrss
    if gnu:
        with contextlib.suppress(OSError, ValueError, IndexError):
            kb = int(mem.read_text().strip().splitlines()[-1])
    return seconds, kb / 1024.0, os.waitstatus_to_exitcode(status), err


def cli_pipeline(ds: Dataset, tmp: Path, env: dict) -> tuple[list[Step], int]:
    """The five commands on a fresh project; (steps, findings stored)."""
    project = tmp / f"project-{ds.n}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{project}{suffix}").unlink(missing_ok=True)
    log = tmp / "stdout.txt"
    steps = [
        run_cli(["import", str(project), str(ds.folder)], log, env),
        run_cli(["import", str(project), str(ds.jsonl)], log, env),
    ]
    single = tmp / f"project-{ds.n}-one-core.db"
    _copy_project(project, single)
    steps += [
        run_cli(["score", str(project)], log, env),
        run_cli(["export", str(project), str(tmp / f"export-{ds.n}.db")], log, env),
        run_cli(["report", str(project)], tmp / "report.md", env),
    ]
    steps[0].name, steps[1].name = "import folder", "import jsonl"
    one = run_cli(["score", str(single), "--jobs", "1"], log, env)
    one.name = "score --jobs 1"
    steps.append(one)
    import sqlite3

    con = sqlite3.connect(project)
    stored = con.execute("SELECT count(*) FROM findings").fetchone()[0]
    runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
    con.close()
    if runs != ds.n:
        raise RuntimeError(f"the project has {runs} runs, expected {ds.n}")
    return steps, stored


def _copy_project(src: Path, dst: Path) -> None:
    """A copy of the project file (with its WAL, if any) at ``dst``."""
    import shutil

    for suffix in ("", "-wal", "-shm"):
        Path(f"{dst}{suffix}").unlink(missing_ok=True)
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", f"{dst}{suffix}")


def _total(steps: list[Step], one_core: bool = False) -> float:
    """Seconds of the five commands (with ``score --jobs 1`` in place of
    ``score`` when ``one_core``)."""
    skip = "score" if one_core else "score --jobs 1"
    return sum(s.seconds for s in steps if s.name != skip)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1,000 runs, one round (smoke run)")
    ap.add_argument("--sizes", type=int, nargs="+", default=None, help="runs per dataset (default 10000 50000)")
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds, best kept (default 2)")
    ap.add_argument("--seed", type=int, default=synth.SEED)
    args = ap.parse_args(argv)
    sizes = args.sizes or ([1000] if args.quick else [10_000, 50_000])
    rounds = args.rounds or (1 if args.quick else 2)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    compile_sources()
    cpu = None if args.quick else synth.pin_one_core()  # the core function; the commands get every core
    print(
        f"bench_cli: Python {sys.version.split()[0]}, core function {f'pinned to CPU {cpu}' if cpu is not None else 'not pinned'}, "
        f"commands on {len(ALL_CPUS) if ALL_CPUS else os.cpu_count()} cores, "
        f"sizes {', '.join(f'{n:,}' for n in sizes)}, best of {rounds} interleaved rounds"
    )
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench_cli_") as tmp_name:
        tmp = Path(tmp_name)
        for n in sizes:
            t = time.perf_counter()
            ds = make_dataset(tmp, n, args.seed)
            print(
                f"\n{n:,} runs: generated in {time.perf_counter() - t:.1f} s "
                f"({ds.jsonl.stat().st_size / 1e6:.1f} MB of JSONL, {max(1, n // RUNS_PER_ITEM)} items)"
            )
            best_core, best_cli, best_steps, found, stored = float("inf"), float("inf"), None, 0, 0
            for _ in range(rounds):  # interleaved: drift of the machine hits both
                core, found = core_seconds(ds)
                best_core = min(best_core, core)
                steps, stored = cli_pipeline(ds, tmp, env)
                total = _total(steps)
                if total < best_cli:
                    best_cli, best_steps = total, steps
            results[n] = (best_core, best_cli, best_steps)
            print(
                f"  {'core score_run (in process)':<30} {best_core:8.2f} s  {n / best_core:8,.0f} runs/s  "
                f"{found:,} findings"
            )
            for s in best_steps:
                print(f"  {'reviewer ' + s.name:<30} {s.seconds:8.2f} s  peak {s.max_rss_mb:6.0f} MB")
            print(
                f"  {'command line, all five':<30} {best_cli:8.2f} s  {n / best_cli:8,.0f} runs/s  "
                f"{stored:,} findings stored{'' if stored == found else ' (MISMATCH: not the same work)'}"
            )
            one_core = _total(best_steps, one_core=True)
            print(
                f"  ratio core / command line: {best_core / best_cli:.2f} "
                f"(one core, score --jobs 1: {best_core / one_core:.2f})"
            )
            del ds
    print()
    if 10_000 in results and 50_000 in results:
        imp = {n: next(s.seconds for s in results[n][2] if s.name == "import jsonl") for n in (10_000, 50_000)}
        lin = imp[50_000] / imp[10_000]
        print(
            f"import of 50k runs / 10k runs: {lin:.2f} (target <= {TARGET_LINEAR}): "
            f"{'PASS' if lin <= TARGET_LINEAR else 'FAIL'}"
        )
    big = max(results)
    # one process scoring everything: the whole memory of a score (with workers, GNU time gives
    # the largest process, each holding a chunk and the scoring caches)
    rss = next(s.max_rss_mb for s in results[big][2] if s.name == "score --jobs 1")
    if big >= 50_000:
        print(
            f"peak memory of score --jobs 1 on {big:,} runs: {rss:.0f} MB (target < {TARGET_MB:.0f} MB): "
            f"{'PASS' if rss < TARGET_MB else 'FAIL'}"
        )
    else:
        print(f"peak memory of score --jobs 1 on {big:,} runs: {rss:.0f} MB (target < {TARGET_MB:.0f} MB at 50k runs)")
    worst_n = min(results, key=lambda n: results[n][0] / results[n][1])
    ratio = results[worst_n][0] / results[worst_n][1]
    print(
        f"ratio {ratio:.2f} (target >= {TARGET_RATIO}x the core scoring function; "
        f"import + score + export + report on {worst_n:,} runs): {'PASS' if ratio >= TARGET_RATIO else 'FAIL'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
