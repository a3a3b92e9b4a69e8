"""Generate the synthetic sample project in ``samples/cards/`` and ``samples/README.md``.

Everything is made here from scratch: two photo-like renderings of cards on a
wooden table, their ground truth, three prompts, and invented model answers in
the shape of llama.cpp CLI output.  The script is deterministic (fixed seeds, no
clock), so running it twice gives byte-identical files with the same
Pillow/numpy versions.

Usage:  python samples/make_samples.py
"""
from __future__ import annotations

import json
import math
import random
import shutil
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

SEED = 20250314
HERE = Path(__file__).resolve().parent
OUT = HERE / "cards"
SIZE = (1600, 1200)            # upright photo size (width, height)
CARD = (380, 190)              # card size before rotation
FONT_PATH = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

# image stem -> (layout description, {pile label: (centre x, first centre y, [card texts])})
SCENES = {
    "table-01": ("Two piles of five cards each, fanned top to bottom: one pile on the left, one on the right.", {
        "left": (470, 215, ["To die at home", "To be free from pain", "To have human touch",
                            "To keep my sense of humor", "To be mentally aware"]),
        "right": (1130, 230, ["To have my financial affairs in order", "To pray", "To be kept clean",
                              "To say goodbye", "Wild Card"])}),
    "table-02": ("Three piles of two cards each (left, center, right). The file is stored sideways "
                 "with EXIF Orientation 6; coordinates are in the upright frame.", {
        "left": (300, 430, ["To have my family with me", "To not be a burden"]),
        "center": (800, 520, ["To not die alone", "To take care of unfinished business"]),
        "right": (1300, 450, ["To listen to music", "To be at peace"])}),
}
PROMPTS = {
    "sanity-check": "What do you see in this image? Describe briefly.",
    "spatial-grouping": (
        "Look at this photo of cards laid out on a table. The cards are sorted into spatial groups/piles. "
        "For each card you can see, read the text and determine which pile it belongs to based on its "
        "position. Return JSON with this schema: "
        '{"piles": [{"label": "string (left/center/right or descriptive)", "cards": ["card text 1", "card text 2"]}]}'),
    "bounding-boxes": (
        "Detect every card visible in this photo. For each card, return the text content and bounding box "
        "coordinates (x_min, y_min, x_max, y_max as 0-1 normalized). Return JSON with this schema: "
        '{"cards": [{"text": "card text", "bbox": {"x_min": 0.0, "y_min": 0.0, "x_max": 0.0, "y_max": 0.0}}]}'),
}
SANITY = {
    "table-01": "The image shows ten cream-coloured cards lying on a wooden table, arranged in two columns of "
                "five. Each card has a short printed phrase, for example \"To die at home\" and \"Wild Card\". "
                "The cards are slightly tilted and overlap a little, with soft shadows under them.",
    "table-02": "A photo of six white cards on a wooden tabletop, laid out in three groups of two (left, "
                "middle and right). The cards carry short phrases such as \"To not be a burden\" and "
                "\"To listen to music\".",
}
# (image, prompt, timestamp, intro sentence, operations). Operation -> failure code: see CODE.
RUNS = [
    ("table-01", "sanity-check", "20250314-101200", None, []),
    ("table-01", "spatial-grouping", "20250314-101500", "I can see two piles of cards, one on the left and one on the right.", []),
    ("table-01", "spatial-grouping", "20250314-101600", "The cards are in two groups.", [
        ("OCR", "To be free from pain", "To be free from pan"), ("SPATIAL", "To pray", "left"),
        ("PARTIAL", "To have my financial affairs in order", "To have my financial")]),
    ("table-01", "spatial-grouping", "20250314-101700", "Here are the cards grouped by pile:", [
        ("MISS", "To pray"), ("HALLUC", "To see the ocean", "right", None)]),
    ("table-01", "bounding-boxes", "20250314-102000", "I found 10 cards.", []),
    ("table-01", "bounding-boxes", "20250314-102100", "Here are the detected cards:", [("GRID1000",)]),
    ("table-01", "bounding-boxes", "20250314-102200", "", [("TRUNCATE", "To be kept clean")]),
    ("table-02", "sanity-check", "20250314-103000", None, []),
    ("table-02", "spatial-grouping", "20250314-103300", "There are three piles: left, center and right.", [
        ("DUP", "To not be a burden", "center")]),
    ("table-02", "spatial-grouping", "20250314-103400", "", []),
    ("table-02", "spatial-grouping", "20250314-103500", "The cards are arranged in three piles.", [
        ("SPATIAL", "To not die alone", "right"), ("OCR", "To listen to music", "To listen to rnusic")]),
    ("table-02", "bounding-boxes", "20250314-103800", "", []),
    ("table-02", "bounding-boxes", "20250314-103900", "I detected 6 cards in the image.", [
        ("MISS", "To be at peace"), ("HALLUC", "To see the ocean", "right", (0.70, 0.62, 0.93, 0.79))]),
    ("table-02", "bounding-boxes", "20250314-104000", "Cards detected:", [
        ("PARTIAL", "To take care of unfinished business", "To take care of"),
        ("OCR", "To have my family with me", "To have my famiiy with me")]),
]
CODE = {"OCR": "OCR", "MISS": "MISS", "SPATIAL": "SPATIAL", "HALLUC": "HALLUC", "DUP": "HALLUC",
        "GRID1000": "FORMAT", "TRUNCATE": "FORMAT", "PARTIAL": "PARTIAL"}


def load_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """DejaVu Sans if installed, otherwise Pillow's built-in scalable default font."""
    try:
        return ImageFont.truetype(FONT_PATH, size)
    except OSError:
        return ImageFont.load_default(size=size)


def smooth_noise(rng: np.random.Generator, size: tuple[int, int], grid: tuple[int, int]) -> np.ndarray:
    """Value noise in [0, 1]: a coarse random grid (cols, rows) upscaled bicubically to size."""
    small = Image.fromarray(rng.random((grid[1], grid[0])).astype(np.float32), "F")
    return np.asarray(small.resize(size, Image.Resampling.BICUBIC))


def wood_table(rng: np.random.Generator, size: tuple[int, int]) -> Image.Image:
    """Procedural planks: warped grain lines, long fibre streaks, per-plank tint and dark seams."""
    w, h = size
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    plank_h = h / 4.6
    plank = np.floor(y / plank_h).astype(int)
    warp = 70 * smooth_noise(rng, size, (5, 4)) + 10 * smooth_noise(rng, size, (40, 30))
    grain = 0.5 + 0.5 * np.sin((y + warp) / 4.5 + plank * 2.1)
    fibres = smooth_noise(rng, size, (10, h // 3))
    tint = rng.uniform(0.86, 1.08, plank.max() + 1)[plank]
    shade = tint * (0.80 + 0.10 * grain ** 3 + 0.16 * fibres)
    shade = shade * np.where(np.abs(y - np.round(y / plank_h) * plank_h) < 2.0, 0.45, 1.0)
    joints = rng.integers(250, w - 250, plank.max() + 1)[plank]
    shade = shade * np.where(np.abs(x - joints) < 1.5, 0.55, 1.0)
    rgb = shade[..., None] * np.array([156, 102, 60], dtype=np.float32)
    return Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGB")


def wrap(text: str, font, width: int) -> list[str]:
    """Greedy word wrap to a pixel width."""
    lines: list[str] = []
    for word in text.split():
        if lines and font.getlength(lines[-1] + " " + word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def render_card(text: str, font, rng: np.random.Generator) -> Image.Image:
    """An upright RGBA card: off-white paper, thin inner border, centred dark text."""
    w, h = CARD
    card = Image.new("RGBA", CARD, (0, 0, 0, 0))
    draw = ImageDraw.Draw(card)
    v = int(rng.integers(-6, 5))
    paper = (244 + v, 240 + v, 229 + v, 255)
    draw.rounded_rectangle([0, 0, w - 1, h - 1], radius=12, fill=paper)
    draw.rounded_rectangle([12, 12, w - 13, h - 13], radius=8, outline=(186, 168, 140, 255), width=2)
    lines = wrap(text, font, w - 64)
    step = font.size * 1.3
    top = h / 2 - step * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        draw.text((w / 2, top + i * step), line, font=font, fill=(38, 34, 30, 255), anchor="mm")
    return card


def render_scene(stem: str, rng: np.random.Generator) -> tuple[Image.Image, dict]:
    """Render one upright photo and return it with its ground-truth record."""
    layout, piles = SCENES[stem]
    photo = wood_table(rng, SIZE)
    font = load_font(30)
    gt_piles = []
    for label, (cx0, cy0, texts) in piles.items():
        cards = []
        for i, text in enumerate(texts):
            angle = float(rng.uniform(-4.5, 4.5))
            cx = cx0 + float(rng.uniform(-22, 22))
            cy = cy0 + i * 182 + float(rng.uniform(-6, 6))
            rot = render_card(text, font, rng).rotate(angle, Image.Resampling.BICUBIC, expand=True)
            x0, y0 = round(cx - rot.width / 2), round(cy - rot.height / 2)
            shadow = Image.new("L", SIZE, 0)
            shadow.paste(rot.getchannel("A"), (x0 + 8, y0 + 11))
            shadow = shadow.filter(ImageFilter.GaussianBlur(9)).point(lambda v: v * 55 // 100)
            photo.paste((22, 14, 8), (0, 0, *SIZE), shadow)
            photo.paste(rot, (x0, y0), rot)
            # Exact corners of the rotated card (PIL rotates counter-clockwise about the centre).
            ccx, ccy, a = x0 + rot.width / 2, y0 + rot.height / 2, math.radians(angle)
            pts = [(ccx + dx * math.cos(a) + dy * math.sin(a), ccy - dx * math.sin(a) + dy * math.cos(a))
                   for dx in (-CARD[0] / 2, CARD[0] / 2) for dy in (-CARD[1] / 2, CARD[1] / 2)]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            box = {"x_min": min(xs), "y_min": min(ys), "x_max": max(xs), "y_max": max(ys)}
            cards.append({"text": text, "bbox": {k: round(v, 1) for k, v in box.items()}})
        m = 25.0
        x_lo = max(0.0, min(c["bbox"]["x_min"] for c in cards) - m)
        y_lo = max(0.0, min(c["bbox"]["y_min"] for c in cards) - m)
        x_hi = min(SIZE[0] - 1.0, max(c["bbox"]["x_max"] for c in cards) + m)
        y_hi = min(SIZE[1] - 1.0, max(c["bbox"]["y_max"] for c in cards) + m)
        region = [[round(x, 1), round(y, 1)] for x, y in ((x_lo, y_lo), (x_hi, y_lo), (x_hi, y_hi), (x_lo, y_hi))]
        gt_piles.append({"label": label, "region": region, "cards": cards})
    # Camera look: warm light falling off towards the corners, slight softness, sensor noise.
    arr = np.asarray(photo.filter(ImageFilter.GaussianBlur(0.6)), dtype=np.float32)
    yy, xx = np.mgrid[0:SIZE[1], 0:SIZE[0]].astype(np.float32)
    r2 = ((xx - SIZE[0] * 0.45) / SIZE[0]) ** 2 + ((yy - SIZE[1] * 0.4) / SIZE[1]) ** 2
    arr = arr * (1.08 - 0.55 * r2)[..., None] * np.array([1.03, 1.0, 0.93], dtype=np.float32)
    arr += rng.normal(0, 2.0, arr.shape).astype(np.float32)
    photo = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")
    total = sum(len(p["cards"]) for p in gt_piles)
    return photo, {"total_cards_visible": total, "layout": layout, "piles": gt_piles}


def model_answer(prompt: str, gt: dict, intro: str, ops: list, rng: random.Random) -> str:
    """Invent a model answer from the ground truth, applying the run's deliberate mistakes."""
    entries = [[c["text"], p["label"], c["bbox"]] for p in gt["piles"] for c in p["cards"]]
    for op in ops:
        hit = [e for e in entries if len(op) > 1 and e[0] == op[1]]
        if op[0] in ("OCR", "PARTIAL"):
            hit[0][0] = op[2]
        elif op[0] == "MISS":
            entries.remove(hit[0])
        elif op[0] == "SPATIAL":
            entries.remove(hit[0])
            entries.append([hit[0][0], op[2], hit[0][2]])
        elif op[0] == "DUP":
            entries.append([op[1], op[2], hit[0][2]])
        elif op[0] == "HALLUC":
            box = op[3] and dict(zip(("x_min", "y_min", "x_max", "y_max"),
                                     (op[3][0] * SIZE[0], op[3][1] * SIZE[1], op[3][2] * SIZE[0], op[3][3] * SIZE[1])))
            entries.append([op[1], op[2], box])
    kinds = {op[0] for op in ops}
    if prompt == "spatial-grouping":
        labels = list(dict.fromkeys(e[1] for e in entries))
        data = {"piles": [{"label": lb, "cards": [e[0] for e in entries if e[1] == lb]} for lb in labels]}
        body = json.dumps(data, indent=2)
    else:
        scale = 1000 if "GRID1000" in kinds else 1
        lines = []
        for text, _, box in entries:
            norm = {k: min(1.0, max(0.0, v / SIZE[k[0] == "y"] + rng.uniform(-0.006, 0.006))) for k, v in box.items()}
            vals = {k: round(v * 1000) if scale == 1000 else round(v, 3) for k, v in norm.items()}
            lines.append("    " + json.dumps({"text": text, "bbox": vals}))
        body = '{\n  "cards": [\n' + ",\n".join(lines) + "\n  ]\n}"
    answer = (intro + "\n\n" if intro else "") + "```json\n" + body + "\n```"
    for op in ops:
        if op[0] == "TRUNCATE":  # max tokens hit: stop inside the card, the fence never closes
            start = answer.index(json.dumps(op[1]))
            answer = answer[: answer.index('"y_min"', start) + 11]
    return answer


def llama_log(stem: str, answer: str, rng: random.Random, truncated: bool) -> str:
    """Wrap an answer in fake llama.cpp CLI load and performance lines."""
    n_img, n_out = rng.randint(1180, 1260), 512 if truncated else len(answer) // 3 + rng.randint(5, 20)
    enc, dec, load = rng.randint(1700, 2100), rng.randint(420, 520), rng.uniform(2100, 2600)
    pe, ev = n_img * rng.uniform(0.9, 1.1), n_out * rng.uniform(23.5, 26.0)
    head = [
        "build: 4879 (f08f4b31) with cc (Debian 12.2.0-14) 12.2.0 for x86_64-linux-gnu",
        "llama_model_loader: loaded meta data with 27 key-value pairs and 339 tensors from "
        "models/example-vl-7b-Q4_K_M.gguf (version GGUF V3 (latest))",
        "clip_model_loader: loaded 519 tensors from models/mmproj-example-vl-7b-f16.gguf",
        f"main: loading image: cards/test-images/{stem}.jpg",
        "encoding image slice...", f"image slice encoded in {enc} ms",
        f"decoding image batch 1/1, n_tokens_batch = {n_img}", f"image decoded (batch 1/1) in {dec} ms"]
    perf = [
        f"llama_perf_context_print:        load time = {load:10.2f} ms",
        f"llama_perf_context_print: prompt eval time = {pe:10.2f} ms / {n_img + 60:5d} tokens "
        f"({pe / (n_img + 60):8.2f} ms per token, {1000 * (n_img + 60) / pe:8.2f} tokens per second)",
        f"llama_perf_context_print:        eval time = {ev:10.2f} ms / {n_out:5d} runs   "
        f"({ev / n_out:8.2f} ms per token, {1000 * n_out / ev:8.2f} tokens per second)",
        f"llama_perf_context_print:       total time = {load + pe + ev + enc + dec:10.2f} ms / {n_img + 60 + n_out:5d} tokens"]
    return "\n".join(head) + "\n\n" + answer + "\n\n" + "\n".join(perf) + "\n"


def describe(op: tuple) -> str:
    """One README phrase per deliberate mistake."""
    return {"OCR": lambda: f'"{op[1]}" read as "{op[2]}"', "PARTIAL": lambda: f'"{op[1]}" given as "{op[2]}"',
            "MISS": lambda: f'"{op[1]}" left out', "SPATIAL": lambda: f'"{op[1]}" put in the {op[2]} pile',
            "HALLUC": lambda: f'"{op[1]}" (not in the photo) added to the {op[2]} pile',
            "DUP": lambda: f'"{op[1]}" listed again in the {op[2]} pile',
            "GRID1000": lambda: "boxes on a 0-1000 grid instead of 0-1",
            "TRUNCATE": lambda: f'JSON cut off inside "{op[1]}" (max tokens), fence never closed'}[op[0]]()


README_HEAD = """# Samples

A small example project for `reviewer`. **Everything here is synthetic and illustrative**: the photos
are rendered by `make_samples.py` (procedural wood, cards drawn with Pillow), the card phrases are short
generic end-of-life wish phrases written for this project, and the model answers in `cards/runs/` are
invented to show what the reviewer should catch. No third-party images or text are included, so the
samples are redistributable with the project under its licence.

This file and everything in `cards/` are written by `python samples/make_samples.py`
(deterministic: a second run gives byte-identical files). Edit the script, not the outputs.

## Layout

```
cards/
  test-images/   table-01.jpg  10 cards, 2 piles (left, right)
                 table-02.jpg  6 cards, 3 piles (left, center, right); stored sideways with EXIF Orientation 6
                 ground-truth.json  per image stem: total_cards_visible, layout, piles with region polygon
                                    and per-card text + bbox, in pixels of the upright (EXIF-applied) image
  prompts/       sanity-check.md, spatial-grouping.md, bounding-boxes.md
  runs/          <image-stem>_<prompt-name>_<YYYYMMDD-HHMMSS>.txt  raw llama.cpp-style output
```

## Runs and the failure codes they are meant to show

| Run file | Intended codes | What is wrong |
|---|---|---|
"""


def main() -> None:
    """Write images, ground truth, prompts, runs and the README."""
    rng = np.random.default_rng(SEED)
    for sub in ("test-images", "prompts", "runs"):
        shutil.rmtree(OUT / sub, ignore_errors=True)
        (OUT / sub).mkdir(parents=True)
    truth = {}
    for stem in SCENES:
        photo, truth[stem] = render_scene(stem, rng)
        exif = Image.Exif()
        if stem == "table-02":  # store sideways; Orientation 6 tells viewers to turn it 90 degrees clockwise
            photo = photo.transpose(Image.Transpose.ROTATE_90)
            exif[274] = 6
        photo.save(OUT / "test-images" / f"{stem}.jpg", quality=85, exif=exif.tobytes() if exif else b"")
    (OUT / "test-images" / "ground-truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    for name, text in PROMPTS.items():
        (OUT / "prompts" / f"{name}.md").write_text(text + "\n")
    rrng, rows = random.Random(SEED), []
    for stem, prompt, stamp, intro, ops in RUNS:
        answer = SANITY[stem] if prompt == "sanity-check" else model_answer(prompt, truth[stem], intro, ops, rrng)
        name = f"{stem}_{prompt}_{stamp}.txt"
        (OUT / "runs" / name).write_text(llama_log(stem, answer, rrng, any(o[0] == "TRUNCATE" for o in ops)))
        codes = ", ".join(dict.fromkeys(CODE[o[0]] for o in ops)) or ("none (prose)" if prompt == "sanity-check" else "none (perfect)")
        rows.append(f"| `{name}` | {codes} | {'; '.join(describe(o) for o in ops) or '-'} |")
    (HERE / "README.md").write_text(README_HEAD + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
