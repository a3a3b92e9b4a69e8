"""Benchmark: the review window on a big project (decision big-projects-stay-interactive), offscreen.

Two generated projects (reviewer.storage.repo, as bench_export.build_project,
10 runs per item: 2 prompts x 5 models, scored once, 5 % of the findings
decided; every item a 1600x1200 JPEG with a stored preview, 8 distinct
photos shared by the items):

* small: 20 items, 200 runs (the baseline of the same run);
* big: 10,000 items, 100,000 runs (``--quick``: 200 items, 2,000 runs).

Each project also holds TEXT_ITEMS text items of the judged-output
workflow (one run each), so the window switches perspective.

Measured on each, offscreen:

1. launch to first photo: ``reviewer.qt.app.build`` (session, window,
   opening the project) and ``show()`` until the canvas has painted the
   first photo. Target: big within 1.5x of small (the last line).
2. item switch: ``session.set_item`` of an item whose photo is not cached
   until the canvas painted it and the event loop is idle. Target < 100 ms.
3. decision latency: Y (the confirm action) on a proposed finding until the
   event loop is idle and the background work it started (the T-P1 scores)
   is applied, over DECISIONS decisions. Targets: median < 50 ms, p95 < 100 ms.
4. perspective switch: ``session.set_item`` from a card item to a text item
   of another workflow (and back) until the event loop is idle: the centre,
   docks, tools and layout of the other perspective. Target: median < 150 ms.

Then a third project, the big one's builder at VERDICT_ITEMS items (20,000
runs) with two judges' verdicts on every card run (40,000 verdicts, one
subject in ten disputed), none of its runs scored for the current config
and its disputes never found (so opening has every kind of work to do):

5. the window shows: ``launch`` as in 1. Target < 2 s.
6. the longest event-loop stall while everything loads: from ``show()``
   until the session is idle (summary, stale scores, disputes), the
   longest single ``processEvents`` pass. Target < 250 ms.

Numbers are medians (and p95), printed with PASS/FAIL, never asserted.

Usage:
    python benchmarks/bench_gui.py            # full run, 100,000 runs (~6-8 min, mostly building the project)
    python benchmarks/bench_gui.py --quick    # smoke run
    python benchmarks/bench_gui.py --big-items 2000   # 20,000 runs
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_export
import bench_scoring as synth
import numpy as np
from PIL import Image
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication

from reviewer.core.models import AnswerSchema, Item, Prompt, Status
from reviewer.core.workflows import Workflow
from reviewer.storage.files import previews
from reviewer.storage.files.images import file_sha256
from reviewer.storage.project.db import now, open_project
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.scoring import score_project

TARGET_LAUNCH_RATIO = 1.5
TARGET_DECISION_MS = 50.0
TARGET_DECISION_P95_MS = 100.0
TARGET_SWITCH_MS = 100.0
TARGET_PERSPECTIVE_MS = 150.0
TARGET_SHOW_MS = 2000.0
TARGET_STALL_MS = 250.0
#: Items of the verdict project (10 runs each, two verdicts per card run).
VERDICT_ITEMS = 2000
#: Decisions timed on each project (the p95 needs enough of them).
DECISIONS = 50
#: Text items (judged output, one run each) beside the card items.
TEXT_ITEMS = 20
PHOTOS = 8
SEED = 20250901


def make_photos(folder: Path) -> list[Path]:
    """PHOTOS distinct 1600x1200 JPEGs (smooth blotches and noise)."""
    rng = np.random.default_rng(SEED)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    w, h = synth.IMAGE_SIZE
    for k in range(PHOTOS):
        blotches = Image.fromarray(rng.integers(0, 255, (12, 16, 3), dtype=np.uint8))
        base = np.asarray(blotches.resize((w, h), Image.BICUBIC), dtype=np.int16)
        noisy = np.clip(base + rng.normal(0.0, 8.0, (h, w, 3)), 0, 255).astype(np.uint8)
        path = folder / f"photo-{k}.jpg"
        Image.fromarray(noisy).save(path, quality=88)
        out.append(path)
    return out


def build_project(path: Path, n_items: int, photos: list[Path]) -> None:
    """``n_items`` items x 2 prompts x 5 models (10 runs each), scored, 5 %
    of findings decided, every photo's preview stored."""
    rng = random.Random(f"{SEED}-{n_items}")
    project = open_project(path, create=True)
    shas = {p: file_sha256(p) for p in photos}
    with project.transaction():
        prompt_ids = {s: repo_items.upsert_prompt(project, p)[0] for s, p in synth.PROMPTS.items()}
        for k in range(n_items):
            it = synth.make_item(f"table-{k:04d}", 10, rng)
            photo = photos[k % len(photos)]
            item_id, _ = repo_items.upsert_item(
                project,
                Item(
                    name=it.name,
                    path=project.relative(photo),
                    sha256=shas[photo],
                    width=synth.IMAGE_SIZE[0],
                    height=synth.IMAGE_SIZE[1],
                ),
            )
            repo_ground_truth.set_ground_truth(project, item_id, it.ground_truth())
            for schema, prompt_id in prompt_ids.items():
                for model in bench_export.MODELS:
                    run = synth.make_run(it, schema, rng, n_perturb=rng.randint(3, 9))
                    repo_runs.add_run(
                        project,
                        item_id,
                        prompt_id,
                        model,
                        run.output,
                        repetition=1,
                        timestamp="2025-03-01T10:00:00",
                        source=f"runs/{it.name}-{model}.txt",
                    )
        free = repo_items.upsert_prompt(project, Prompt(name="summary", text="Summarise.", schema=AnswerSchema.FREE))[0]
        for k in range(TEXT_ITEMS):
            words = " ".join(rng.choice(synth.GO_WISH) for _ in range(40))
            text_id, _ = repo_items.upsert_item(
                project, Item(name=f"x-note-{k:03d}", kind="text", text=words, workflow=Workflow.JUDGED.value)
            )
            repo_runs.add_run(project, text_id, free, "m0", words[:400], repetition=1, timestamp="2025-03-01T10:00:00")
    for photo in photos:
        previews.ensure_preview(project, photo, shas[photo])
    score_project(project)
    found = repo_findings.findings(project)
    with project.db.conn:
        project.db.conn.executemany(
            "UPDATE findings SET status = ?, reviewer = 'bench', decided_at = ? WHERE id = ?",
            [(Status.CONFIRMED.value, now(), f.id) for f in rng.sample(found, len(found) // 20)],
        )
    project.close()


def build_verdict_project(path: Path, n_items: int, photos: list[Path]) -> None:
    """``build_project`` at ``n_items`` items, then two judges' 1-5 verdicts
    on every card run (one subject in ten a dispute: 1 against 5), and
    every stored score dropped (the runs are stale when the window opens)."""
    from reviewer.core.judging.verdicts import Verdict
    from reviewer.storage.judging import verdicts as judging

    build_project(path, n_items, photos)
    rng = random.Random(f"{SEED}-verdicts")
    project = open_project(path)
    runs = [
        r[0]
        for r in project.db.execute("SELECT r.id FROM runs r JOIN items i ON i.id = r.item_id WHERE i.kind = 'photo'")
    ]
    with project.transaction():
        for k, run_id in enumerate(runs):
            a = rng.randint(1, 5)
            b = (5 if a < 3 else 1) if k % 10 == 0 else a
            for judge, value in (("judge-a", a), ("judge-b", b)):
                judging.add_verdict(
                    project, Verdict(subject=f"run:{run_id}", run_id=run_id, judge=judge, scores={"quality": value})
                )
        project.db.execute("DELETE FROM run_scores")
    project.close()


def load_stall(app: QApplication, path: Path) -> tuple[float, float, float]:
    """(ms to the first painted photo, longest processEvents pass in ms from
    ``show()`` until the session is idle, ms until then)."""
    t = time.perf_counter()
    ms, window = launch(app, path)
    longest, end = 0.0, time.perf_counter() + 600
    while True:
        s = time.perf_counter()
        app.processEvents()
        longest = max(longest, (time.perf_counter() - s) * 1000)
        if QThreadPool.globalInstance().activeThreadCount() == 0 and not busy(app):
            break
        if time.perf_counter() > end:
            raise TimeoutError("the window did not settle in time")
        time.sleep(0.0005)
    loaded = (time.perf_counter() - t) * 1000
    close(app, window)
    return ms, longest, loaded


def idle(app: QApplication, until=lambda: True, timeout: float = 120.0) -> None:
    """Process events until ``until()`` holds, no thread-pool job of the
    session runs and the event loop has nothing left to do."""
    end = time.perf_counter() + timeout
    while True:
        app.processEvents()
        if until() and QThreadPool.globalInstance().activeThreadCount() == 0 and not busy(app):
            app.processEvents()
            return
        if time.perf_counter() > end:
            raise TimeoutError("the window did not settle in time")
        time.sleep(0.0005)


def busy(app: QApplication) -> bool:
    """The open window's session still computes something in the background."""
    window = getattr(app, "bench_window", None)
    pending = getattr(getattr(window, "session", None), "busy", None)
    return bool(pending()) if callable(pending) else False


def launch(app: QApplication, path: Path):
    """(ms from nothing to the first painted photo, the window)."""
    from reviewer.qt.app import build

    t = time.perf_counter()
    window = build(path, ask_name=False, mode="review")
    window.resize(1600, 1000)
    window.show()
    canvas = window.canvas
    end = time.perf_counter() + 120
    while not (canvas.photo.has_image and canvas.photo.paints > 0):
        app.processEvents()
        if time.perf_counter() > end:
            raise TimeoutError("no photo in time")
    ms = (time.perf_counter() - t) * 1000
    app.bench_window = window
    return ms, window


def close(app: QApplication, window) -> None:
    idle(app)
    window.canvas.loader.wait()
    window.close()
    app.bench_window = None
    app.processEvents()


def switch_ms(app: QApplication, window, item_ids: list[int]) -> list[float]:
    """Each switch: set_item until the canvas painted the photo and all is idle."""
    out = []
    session, canvas = window.session, window.canvas
    for item_id in item_ids:
        idle(app)
        canvas.loader.wait()
        canvas.loader.clear_cache()
        before = canvas.photo.paints
        t = time.perf_counter()
        session.set_item(item_id)
        idle(app, lambda: canvas.photo.has_image and canvas.photo.paints > before)  # noqa: B023 - idle() runs it now
        out.append((time.perf_counter() - t) * 1000)
    return out


def decision_ms(app: QApplication, window, n: int) -> list[float]:
    """Y on the current run's first proposed finding (next item when none),
    until the event loop is idle and the background work applied."""
    session = window.session
    confirm = window.actions_by_name["confirm"]
    out = []
    statuses = window.session.items()
    k = 0
    while len(out) < n and k < len(statuses):
        idle(app)
        run = session.run()
        proposed = [f for f in (run.findings if run else []) if f.status == Status.PROPOSED]
        if not proposed:
            k += 1
            session.set_item(statuses[k % len(statuses)].id)
            continue
        session.select_findings([proposed[0].id])
        t = time.perf_counter()
        confirm.trigger()
        idle(app)
        out.append((time.perf_counter() - t) * 1000)
    return out


def perspective_ms(app: QApplication, window, pairs: list[tuple[int, int]]) -> list[float]:
    """Each switch: from a card item to a text item of the judged-output
    workflow (and back), set_item until the event loop is idle."""
    out = []
    for card_id, text_id in pairs:
        for item_id in (text_id, card_id):
            idle(app)
            window.canvas.loader.wait()
            t = time.perf_counter()
            window.session.set_item(item_id)
            idle(app)
            out.append((time.perf_counter() - t) * 1000)
    return out


def p95(values: list[float]) -> float:
    """The 95th percentile (linear interpolation, numpy's default)."""
    return float(np.percentile(values, 95))


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def resident_mb() -> float:
    """This process's resident memory now (Linux /proc; 0 elsewhere), MB."""
    try:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:")) / 1024
    except (OSError, StopIteration, ValueError):
        return 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: 200 items / 2,000 runs")
    parser.add_argument(
        "--big-items",
        type=int,
        default=None,
        help="items of the big project, 10 runs each (default 2000; 10000: 100,000 runs)",
    )
    parser.add_argument("--keep", type=Path, help="build (or reuse) the projects in this folder")
    args = parser.parse_args(argv)
    big_items = args.big_items or (200 if args.quick else 10000)
    repeat = 2 if args.quick else 3
    tmp = None
    if args.keep:
        root = args.keep
        root.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory()
        root = Path(tmp.name)
    os.environ["REVIEWER_CONFIG_DIR"] = str(root / "config")
    os.environ.setdefault("REVIEWER_NAME", "bench")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    photos = make_photos(root / "photos")
    paths = {"small": root / "small-20.db", "big": root / f"big-{big_items}.db"}
    for name, n in (("small", 20), ("big", big_items)):
        if not paths[name].exists():
            t = time.perf_counter()
            build_project(paths[name], n, photos)
            print(f"built {name}: {n} items, {n * 10} runs in {time.perf_counter() - t:.1f} s")

    launches: dict[str, list[float]] = {"small": [], "big": []}
    for _ in range(repeat):  # alternate, so both see the same machine
        for name in ("small", "big"):
            ms, window = launch(app, paths[name])
            launches[name].append(ms)
            close(app, window)
    verdict_items = VERDICT_ITEMS if not args.quick else 200
    vpath = root / f"verdicts-{verdict_items}.db"
    if not vpath.exists():
        t = time.perf_counter()
        build_verdict_project(vpath, verdict_items, photos)
        print(f"built verdicts: {verdict_items} items, {verdict_items * 10} runs in {time.perf_counter() - t:.1f} s")
    work = root / "verdicts-open.db"
    shows, stalls, loads = [], [], []
    for _ in range(repeat):  # a fresh copy each time: the work at open is done once per copy
        for suffix in ("", "-wal", "-shm"):
            Path(f"{work}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(vpath, work)
        ms, stall, loaded = load_stall(app, work)
        shows.append(ms)
        stalls.append(stall)
        loads.append(loaded)
    results, resident = {}, {}
    for name in ("small", "big"):
        ms, window = launch(app, paths[name])
        idle(app)
        statuses = window.session.items()
        items = [st.id for st in statuses if st.kind == "photo"]
        texts = [st.id for st in statuses if st.kind == "text"]
        picks = [items[(k * 7 + 3) % len(items)] for k in range(2 * repeat + 1)]
        switches = switch_ms(app, window, picks)
        decisions = decision_ms(app, window, DECISIONS if name == "big" else 3 * repeat)
        views = perspective_ms(
            app, window, [(items[(k * 11 + 5) % len(items)], texts[k % len(texts)]) for k in range(5 * repeat)]
        )
        results[name] = (
            statistics.median(launches[name]),
            statistics.median(switches),
            max(switches),
            statistics.median(decisions),
            p95(decisions),
            statistics.median(views),
            p95(views),
        )
        resident[name] = resident_mb()  # the summary of every run is in by now
        close(app, window)
    print(
        f"\nQT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM')}; medians of {repeat} launches, "
        f"{2 * repeat + 1} item switches, {DECISIONS} decisions on big ({3 * repeat} on small), "
        f"{10 * repeat} perspective switches"
    )
    for name in ("small", "big"):
        launch_med, sw_med, sw_max, dec_med, dec_p95, view_med, view_p95 = results[name]
        runs = 200 if name == "small" else big_items * 10
        print(
            f"{name:>5} ({runs:6d} runs): launch to first photo {launch_med:7.0f} ms | "
            f"item switch {sw_med:6.1f} ms (max {sw_max:6.1f}) {verdict(sw_med < TARGET_SWITCH_MS)} "
            f"(target < {TARGET_SWITCH_MS:.0f} ms)"
        )
        print(
            f"{'':>5}  Y to idle median {dec_med:6.1f} ms {verdict(dec_med < TARGET_DECISION_MS)} "
            f"(target < {TARGET_DECISION_MS:.0f} ms), p95 {dec_p95:6.1f} ms "
            f"{verdict(dec_p95 < TARGET_DECISION_P95_MS)} (target < {TARGET_DECISION_P95_MS:.0f} ms) | "
            f"perspective switch median {view_med:6.1f} ms (p95 {view_p95:6.1f}) "
            f"{verdict(view_med < TARGET_PERSPECTIVE_MS)} (target < {TARGET_PERSPECTIVE_MS:.0f} ms)"
        )
    print(
        f"resident memory of this process with the project open and summarised: small {resident['small']:.0f} MB, "
        f"big {resident['big']:.0f} MB (informational: the window keeps a RunLine per run, whole runs per shown item)"
    )
    show_med, stall_max = statistics.median(shows), max(stalls)
    print(
        f"verdicts ({verdict_items * 10} runs, {verdict_items * 20} verdicts, stale, disputes not found): "
        f"window shows {show_med:6.0f} ms {verdict(show_med < TARGET_SHOW_MS)} (target < {TARGET_SHOW_MS:.0f} ms) | "
        f"longest event-loop stall while loading {stall_max:6.1f} ms {verdict(stall_max < TARGET_STALL_MS)} "
        f"(target < {TARGET_STALL_MS:.0f} ms) | everything loaded after {statistics.median(loads):7.0f} ms"
    )
    ratio = results["big"][0] / results["small"][0]
    ok = (
        ratio <= TARGET_LAUNCH_RATIO
        and all(
            r[1] < TARGET_SWITCH_MS
            and r[3] < TARGET_DECISION_MS
            and r[4] < TARGET_DECISION_P95_MS
            and r[5] < TARGET_PERSPECTIVE_MS
            for r in results.values()
        )
        and show_med < TARGET_SHOW_MS
        and stall_max < TARGET_STALL_MS
    )
    print(
        f"overall {verdict(ok)}: launch ratio big/small {ratio:.2f} "
        f"{verdict(ratio <= TARGET_LAUNCH_RATIO)} (target <= {TARGET_LAUNCH_RATIO})"
    )
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
