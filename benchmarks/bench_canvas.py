"""Benchmark: the canvas (reviewer.qt.canvas.CanvasView) with a 24 MP photo
and 2,000 ground-truth boxes, offscreen.

1. Time to the first painted photo: from ``session.set_item(big)`` until the
   photo item has painted an image (the reduced decode), against a full
   Pillow decode (``Image.open().load()``) of the same file in the same run.
   Target: < 1/4 of the Pillow decode. Measured with no cached decode (the
   2048-px preview stored in the project at import is decoded first, then the
   full photo off the GUI thread), prefetched (the canvas prefetched it while
   the previous item was shown, as it does for the next/previous items), and,
   for information, without a stored preview (reduced JPEG decode of the
   photo itself, whose floor is about half a full decode), plus the time to
   the full image.
2. Frame time while panning with 2,000 boxes: the view is scrolled step by
   step and each frame is timed with ``viewport().repaint()`` (photo and all
   overlays), at the fit zoom and at 1:2. Target: median < 16 ms. Baseline in
   the same run: the same 2,000 rects drawn with plain ``QPainter.drawRect``
   (one Python call each, same transform) onto a QImage of the viewport size.

The photo is synthetic and deterministic: smooth colour blotches plus
Gaussian noise (a JPEG about as heavy as a real 24 MP photo), quality 90.
Numbers are printed with PASS/FAIL, never asserted.

Usage:
    python benchmarks/bench_canvas.py            # full run, ~30 s
    python benchmarks/bench_canvas.py --quick    # smoke run, ~10 s
"""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QApplication

from reviewer.qt.canvas import CanvasView
from reviewer.qt.canvas.images import REDUCED_SIDE, decode
from reviewer.qt.session import Session

BIG = (6000, 4000)
SMALL = (1600, 1200)
BOXES = 2000
VIEWPORT = (1280, 800)
TARGET_FIRST_PAINT_RATIO = 0.25
TARGET_FRAME_MS = 16.0
SEED = 20250314


def make_photo(path: Path, size: tuple[int, int], rng: np.random.Generator, sigma: float = 10.0) -> None:
    """Smooth colour blotches plus Gaussian noise, saved as a JPEG (q 90)."""
    w, h = size
    blotches = Image.fromarray(rng.integers(0, 255, (max(h // 100, 2), max(w // 100, 2), 3), dtype=np.uint8))
    base = np.asarray(blotches.resize((w, h), Image.BICUBIC), dtype=np.int16)
    noisy = np.clip(base + rng.normal(0.0, sigma, (h, w, 3)), 0, 255).astype(np.uint8)
    Image.fromarray(noisy).save(path, quality=90)


def make_folder(root: Path, rng: np.random.Generator) -> Path:
    """A card folder: 'a-small' (a few cards) and 'big' (24 MP, 2,000 cards)."""
    images = root / "cards" / "test-images"
    images.mkdir(parents=True)
    make_photo(images / "a-small.jpg", SMALL, rng)
    make_photo(images / "big.jpg", BIG, rng)
    cols = 50
    rows = BOXES // cols
    cw, ch = BIG[0] / cols, BIG[1] / rows
    piles = []
    for p in range(4):
        cards = []
        for i in range(p * BOXES // 4, (p + 1) * BOXES // 4):
            x, y = (i % cols) * cw, (i // cols) * ch
            cards.append(
                {
                    "text": f"card {i}",
                    "bbox": {"x_min": x + 4, "y_min": y + 4, "x_max": x + cw - 4, "y_max": y + ch - 4},
                }
            )
        piles.append({"label": f"pile {p + 1}", "cards": cards})
    small = {
        "piles": [
            {"label": "a", "cards": [{"text": "x", "bbox": {"x_min": 10, "y_min": 10, "x_max": 200, "y_max": 150}}]}
        ]
    }
    gt = {"big": {"piles": piles}, "a-small": small}
    (images / "ground-truth.json").write_text(json.dumps(gt), encoding="utf-8")
    return root / "cards"


def pillow_decode_ms(path: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        with Image.open(path) as im:
            im.load()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def reduced_floor_ms(path: Path, repeat: int) -> tuple[float, float]:
    """(QImageReader 1/4 decode alone, Pillow draft 1/4 decode alone): the
    least any reduced first decode of this file costs."""
    qt, pil = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        assert decode(path, REDUCED_SIDE).reduced
        qt.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        with Image.open(path) as im:
            im.draft("RGB", (im.width // 4, im.height // 4))
            im.load()
        pil.append((time.perf_counter() - t) * 1000)
    return statistics.median(qt), statistics.median(pil)


def wait(app: QApplication, cond, timeout: float = 30.0) -> None:
    end = time.perf_counter() + timeout
    while not cond():
        if time.perf_counter() > end:
            raise TimeoutError("the canvas did not get there in time")
        app.processEvents()


def first_paint_ms(app, session, view, small_id, big_id, prefetched: bool) -> tuple[float, float, float]:
    """(ms to the first painted photo, ms to the full photo, ms set_item
    held the GUI thread) after set_item(big)."""
    session.set_item(small_id)
    wait(app, lambda: view.ready)
    view.loader.wait()  # the canvas prefetched its neighbour 'big'
    if not prefetched:
        view.loader.clear_cache()
    before = view.photo.paints
    t = time.perf_counter()
    session.set_item(big_id)
    blocked = (time.perf_counter() - t) * 1000
    wait(app, lambda: view.photo.has_image and view.photo.paints > before)
    first = (time.perf_counter() - t) * 1000
    wait(app, lambda: view.ready)
    full = (time.perf_counter() - t) * 1000
    return first, full, blocked


def pan_frames_ms(app, view, frames: int, step: int) -> list[float]:
    """Scroll right/down by ``step`` px per frame (bouncing at the ends) and
    time one full repaint per frame."""
    h, v = view.horizontalScrollBar(), view.verticalScrollBar()
    h.setValue(h.minimum())
    v.setValue(v.minimum())
    app.processEvents()
    direction, out = 1, []
    for _ in range(frames):
        if not (h.minimum() <= h.value() + direction * step <= h.maximum()):
            direction = -direction
        h.setValue(h.value() + direction * step)
        v.setValue(min(v.maximum(), v.value() + step // 3) if v.value() < v.maximum() else v.minimum())
        t = time.perf_counter()
        view.viewport().repaint()
        out.append((time.perf_counter() - t) * 1000)
    return out


def baseline_frames_ms(view, rects: list[QRectF], frames: int) -> list[float]:
    """2,000 rects with one QPainter.drawRect call each, same transform."""
    image = QImage(view.viewport().size(), QImage.Format_RGB32)
    transform = view.viewportTransform()
    pen = QPen(QColor("#4477AA"), 2.0)
    pen.setCosmetic(True)
    out = []
    for _ in range(frames):
        t = time.perf_counter()
        image.fill(QColor("#2B2B2B"))
        painter = QPainter(image)
        painter.setTransform(transform)
        painter.setPen(pen)
        for r in rects:
            painter.drawRect(r)
        painter.end()
        out.append((time.perf_counter() - t) * 1000)
    return out


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short smoke run")
    args = parser.parse_args(argv)
    repeat, frames = (2, 30) if args.quick else (5, 200)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    rng = np.random.default_rng(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        folder = make_folder(root, rng)
        big_path = folder / "test-images" / "big.jpg"
        print(
            f"photo {BIG[0]}x{BIG[1]}, {big_path.stat().st_size / 1e6:.1f} MB JPEG, {BOXES} boxes "
            f"(made in {time.perf_counter() - t:.1f} s); viewport {VIEWPORT[0]}x{VIEWPORT[1]}, "
            f"QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM')}"
        )
        session = Session("bench")
        session.open(root / "bench.db", create=True)
        session.import_source(folder, model="bench")
        ids = {st.name: st.id for st in session.items()}
        view = CanvasView(session)
        view.resize(*VIEWPORT)
        view.show()
        wait(app, lambda: view.ready)

        pillow = pillow_decode_ms(big_path, repeat)
        cold = [first_paint_ms(app, session, view, ids["a-small"], ids["big"], prefetched=False) for _ in range(repeat)]
        warm = [first_paint_ms(app, session, view, ids["a-small"], ids["big"], prefetched=True) for _ in range(repeat)]
        with session.project.transaction():  # the same photo without its stored preview
            saved = session.project.db.execute("SELECT * FROM previews").fetchall()
            session.project.db.execute("DELETE FROM previews")
        bare = [first_paint_ms(app, session, view, ids["a-small"], ids["big"], prefetched=False) for _ in range(repeat)]
        with session.project.transaction():
            session.project.db.conn.executemany("INSERT INTO previews VALUES (?, ?, ?, ?)", saved)
        pillow = (pillow + pillow_decode_ms(big_path, repeat)) / 2  # before and after, same conditions
        floor_qt, floor_pil = reduced_floor_ms(big_path, repeat)
        cold_first = statistics.median(c[0] for c in cold)
        cold_full = statistics.median(c[1] for c in cold)
        warm_first = statistics.median(w[0] for w in warm)
        print(f"\n1. time to the first painted photo (median of {repeat})")
        print(f"   Pillow full decode (Image.open().load())   {pillow:8.1f} ms")
        bare_first = statistics.median(b[0] for b in bare)
        print(
            f"   canvas, not cached (stored preview + paint){cold_first:8.1f} ms  ratio {cold_first / pillow:.2f}  "
            f"{verdict(cold_first / pillow < TARGET_FIRST_PAINT_RATIO)} (target < {TARGET_FIRST_PAINT_RATIO})"
        )
        print(
            f"   canvas, no stored preview (reduced decode) {bare_first:8.1f} ms  ratio {bare_first / pillow:.2f}  "
            f"(information: a photo added without its import-time preview)"
        )
        print(
            f"   canvas, prefetched (cached reduced + paint){warm_first:8.1f} ms  ratio {warm_first / pillow:.2f}  "
            f"{verdict(warm_first / pillow < TARGET_FIRST_PAINT_RATIO)} (target < {TARGET_FIRST_PAINT_RATIO})"
        )
        print(f"   canvas, cold, until the full image shows   {cold_full:8.1f} ms (decoded off the GUI thread)")
        print(f"   set_item() held the GUI thread for         {max(c[2] for c in cold + warm):8.1f} ms at most")
        print(
            f"   floor: reduced 1/4 decode alone, Qt        {floor_qt:8.1f} ms  ratio {floor_qt / pillow:.2f}"
            f" | Pillow draft 1/4 {floor_pil:.1f} ms ratio {floor_pil / pillow:.2f}"
        )
        print("   (a baseline JPEG must be entropy-decoded whole even when scaled in the decoder: hence the")
        print("    preview made once at import, as photo managers do)")

        assert len(view.overlay().cards) == BOXES
        rects = [QRectF(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in (s.rect for s in view.overlay().cards)]
        print(f"\n2. frame time while panning with {BOXES} boxes ({frames} frames each)")
        results = []
        for name, zoom in (("fit", None), ("1:2", 0.5), ("1:1", 1.0)):
            view.fit()
            if zoom is not None:
                view.zoom_by(zoom / view.zoom())
            app.processEvents()
            pan = pan_frames_ms(app, view, frames, step=24)
            base = baseline_frames_ms(view, rects, max(frames // 4, 5))
            med, p95, bmed = statistics.median(pan), float(np.percentile(pan, 95)), statistics.median(base)
            drawn = int(
                np.sum(
                    [
                        1
                        for s in view.overlay().cards
                        if view.mapToScene(view.viewport().rect())
                        .boundingRect()
                        .intersects(QRectF(QPointF(s.rect[0], s.rect[1]), QPointF(s.rect[2], s.rect[3])))
                    ]
                )
            )
            results.append(med)
            print(
                f"   {name:>4} (zoom {view.zoom():.3f}, {drawn:4d} boxes in view): median {med:6.2f} ms, "
                f"p95 {p95:6.2f} ms | baseline drawRect x{BOXES} {bmed:6.2f} ms | ratio {med / bmed:5.2f}  "
                f"{verdict(med < TARGET_FRAME_MS)} (target < {TARGET_FRAME_MS:.0f} ms)"
            )
        view.loader.wait()
        view.close()
        session.close()
    ok = cold_first / pillow < TARGET_FIRST_PAINT_RATIO and max(results) < TARGET_FRAME_MS
    print(f"\noverall: {verdict(ok)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
