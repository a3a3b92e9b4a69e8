"""Generate the synthetic sample project in ``samples/cards/`` and ``samples/README.md``.

Everything is made here from scratch: two photo-like renderings of cards on a
wooden table, their ground truth, three prompts, and invented model answers in
the shape of llama.cpp CLI output.  The script is deterministic (fixed seeds, no
clock), so running it twice gives byte-identical files with the same
Pillow/numpy versions.

Usage:  python samples/make_samples.py [OUT]   (OUT: another folder to write into; default samples/)
"""

from __future__ import annotations

import json
import math
import random
import shutil
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

SEED = 20250314
HERE = Path(__file__).resolve().parent
SIZE = (1600, 1200)  # upright photo size (width, height)
CARD = (380, 190)  # card size before rotation
FONT_PATH = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

# image stem -> (layout description, {pile label: (centre x, first centre y, [card texts])})
SCENES = {
    "table-01": (
        "Two piles of five cards each, fanned top to bottom: one pile on the left, one on the right.",
        {
            "left": (
                470,
                215,
                [
                    "To die at home",
                    "To be free from pain",
                    "To have human touch",
                    "To keep my sense of humor",
                    "To be mentally aware",
                ],
            ),
            "right": (
                1130,
                230,
                ["To have my financial affairs in order", "To pray", "To be kept clean", "To say goodbye", "Wild Card"],
            ),
        },
    ),
    "table-02": (
        "Three piles of two cards each (left, center, right). The file is stored sideways "
        "with EXIF Orientation 6; coordinates are in the upright frame.",
        {
            "left": (300, 430, ["To have my family with me", "To not be a burden"]),
            "center": (800, 520, ["To not die alone", "To take care of unfinished business"]),
            "right": (1300, 450, ["To listen to music", "To be at peace"]),
        },
    ),
}
PROMPTS = {
    "sanity-check": "What do you see in this image? Describe briefly.",
    "spatial-grouping": (
        "Look at this photo of cards laid out on a table. The cards are sorted into spatial groups/piles. "
        "For each card you can see, read the text and determine which pile it belongs to based on its "
        "position. Return JSON with this schema: "
        '{"piles": [{"label": "string (left/center/right or descriptive)", "cards": ["card text 1", "card text 2"]}]}'
    ),
    "bounding-boxes": (
        "Detect every card visible in this photo. For each card, return the text content and bounding box "
        "coordinates (x_min, y_min, x_max, y_max as 0-1 normalized). Return JSON with this schema: "
        '{"cards": [{"text": "card text", "bbox": {"x_min": 0.0, "y_min": 0.0, "x_max": 0.0, "y_max": 0.0}}]}'
    ),
}
SANITY = {
    "table-01": "The image shows ten cream-coloured cards lying on a wooden table, arranged in two columns of "
    'five. Each card has a short printed phrase, for example "To die at home" and "Wild Card". '
    "The cards are slightly tilted and overlap a little, with soft shadows under them.",
    "table-02": "A photo of six white cards on a wooden tabletop, laid out in three groups of two (left, "
    'middle and right). The cards carry short phrases such as "To not be a burden" and '
    '"To listen to music".',
}
# (image, prompt, timestamp, intro sentence, operations). Operation -> failure code: see CODE.
RUNS = [
    ("table-01", "sanity-check", "20250314-101200", None, []),
    (
        "table-01",
        "spatial-grouping",
        "20250314-101500",
        "I can see two piles of cards, one on the left and one on the right.",
        [],
    ),
    (
        "table-01",
        "spatial-grouping",
        "20250314-101600",
        "The cards are in two groups.",
        [
            ("OCR", "To be free from pain", "To be free from pan"),
            ("SPATIAL", "To pray", "left"),
            ("PARTIAL", "To have my financial affairs in order", "To have my financial"),
        ],
    ),
    (
        "table-01",
        "spatial-grouping",
        "20250314-101700",
        "Here are the cards grouped by pile:",
        [("MISS", "To pray"), ("HALLUC", "To see the ocean", "right", None)],
    ),
    ("table-01", "bounding-boxes", "20250314-102000", "I found 10 cards.", []),
    ("table-01", "bounding-boxes", "20250314-102100", "Here are the detected cards:", [("GRID1000",)]),
    ("table-01", "bounding-boxes", "20250314-102200", "", [("TRUNCATE", "To be kept clean")]),
    ("table-02", "sanity-check", "20250314-103000", None, []),
    (
        "table-02",
        "spatial-grouping",
        "20250314-103300",
        "There are three piles: left, center and right.",
        [("DUP", "To not be a burden", "center")],
    ),
    ("table-02", "spatial-grouping", "20250314-103400", "", []),
    (
        "table-02",
        "spatial-grouping",
        "20250314-103500",
        "The cards are arranged in three piles.",
        [("SPATIAL", "To not die alone", "right"), ("OCR", "To listen to music", "To listen to rnusic")],
    ),
    ("table-02", "bounding-boxes", "20250314-103800", "", []),
    (
        "table-02",
        "bounding-boxes",
        "20250314-103900",
        "I detected 6 cards in the image.",
        [("MISS", "To be at peace"), ("HALLUC", "To see the ocean", "right", (0.70, 0.62, 0.93, 0.79))],
    ),
    (
        "table-02",
        "bounding-boxes",
        "20250314-104000",
        "Cards detected:",
        [
            ("PARTIAL", "To take care of unfinished business", "To take care of"),
            ("OCR", "To have my family with me", "To have my famiiy with me"),
        ],
    ),
]
CODE = {
    "OCR": "OCR",
    "MISS": "MISS",
    "SPATIAL": "SPATIAL",
    "HALLUC": "HALLUC",
    "DUP": "HALLUC",
    "GRID1000": "FORMAT",
    "TRUNCATE": "FORMAT",
    "PARTIAL": "PARTIAL",
}


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
    shade = tint * (0.80 + 0.10 * grain**3 + 0.16 * fibres)
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
            pts = [
                (ccx + dx * math.cos(a) + dy * math.sin(a), ccy - dx * math.sin(a) + dy * math.cos(a))
                for dx in (-CARD[0] / 2, CARD[0] / 2)
                for dy in (-CARD[1] / 2, CARD[1] / 2)
            ]
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
    yy, xx = np.mgrid[0 : SIZE[1], 0 : SIZE[0]].astype(np.float32)
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
            box = op[3] and dict(
                zip(
                    ("x_min", "y_min", "x_max", "y_max"),
                    (op[3][0] * SIZE[0], op[3][1] * SIZE[1], op[3][2] * SIZE[0], op[3][3] * SIZE[1]),
                )
            )
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
        "encoding image slice...",
        f"image slice encoded in {enc} ms",
        f"decoding image batch 1/1, n_tokens_batch = {n_img}",
        f"image decoded (batch 1/1) in {dec} ms",
    ]
    perf = [
        f"llama_perf_context_print:        load time = {load:10.2f} ms",
        f"llama_perf_context_print: prompt eval time = {pe:10.2f} ms / {n_img + 60:5d} tokens "
        f"({pe / (n_img + 60):8.2f} ms per token, {1000 * (n_img + 60) / pe:8.2f} tokens per second)",
        f"llama_perf_context_print:        eval time = {ev:10.2f} ms / {n_out:5d} runs   "
        f"({ev / n_out:8.2f} ms per token, {1000 * n_out / ev:8.2f} tokens per second)",
        f"llama_perf_context_print:       total time = {load + pe + ev + enc + dec:10.2f} ms / {n_img + 60 + n_out:5d} tokens",
    ]
    return "\n".join(head) + "\n\n" + answer + "\n\n" + "\n".join(perf) + "\n"


def describe(op: tuple) -> str:
    """One README phrase per deliberate mistake."""
    return {
        "OCR": lambda: f'"{op[1]}" read as "{op[2]}"',
        "PARTIAL": lambda: f'"{op[1]}" given as "{op[2]}"',
        "MISS": lambda: f'"{op[1]}" left out',
        "SPATIAL": lambda: f'"{op[1]}" put in the {op[2]} pile',
        "HALLUC": lambda: f'"{op[1]}" (not in the photo) added to the {op[2]} pile',
        "DUP": lambda: f'"{op[1]}" listed again in the {op[2]} pile',
        "GRID1000": lambda: "boxes on a 0-1000 grid instead of 0-1",
        "TRUNCATE": lambda: f'JSON cut off inside "{op[1]}" (max tokens), fence never closed',
    }[op[0]]()


# ---------------------------------------------------------------------------
# Text workflows: spans, cases, failter, rubric. All text below is invented
# for this project; nothing is taken from any third-party data set.
# ---------------------------------------------------------------------------


def dump(path: Path, data) -> None:
    """Write ``data`` as indented JSON (sorted as written, trailing newline)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def put(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) at ``path``, making its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def span(text: str, phrase: str, role: str) -> dict:
    """The golden span of the first ``phrase`` in ``text`` (ASCII, so
    Python offsets equal the UTF-16 offsets the format uses)."""
    start = text.index(phrase)
    return {"text": phrase, "start": start, "end": start + len(phrase), "role": role}


# prompt id -> (video prompt text, golden [(phrase, role)], predicted [(phrase, role)])
SPAN_PROMPTS = {
    "sample-kite": (
        "Wide shot of a girl in a yellow raincoat flying a red kite on a windy cliff at sunset.",
        [
            ("Wide shot", "shot.type"),
            ("a girl", "subject.identity"),
            ("yellow raincoat", "subject.wardrobe"),
            ("flying a red kite", "action.movement"),
            ("windy cliff", "environment.location"),
            ("at sunset", "lighting.timeOfDay"),
        ],
        [
            ("Wide shot", "shot.type"),
            ("a girl", "subject.identity"),
            ("yellow raincoat", "subject.appearance"),
            ("flying a red kite", "action.movement"),
            ("cliff", "environment.location"),
        ],
    ),
    "sample-bakery": (
        "Slow dolly in on an old baker shaping bread in a warm, flour-dusted kitchen, 35mm lens.",
        [
            ("Slow dolly in", "camera.movement"),
            ("an old baker", "subject.identity"),
            ("shaping bread", "action.gesture"),
            ("flour-dusted kitchen", "environment.location"),
            ("35mm lens", "camera.lens"),
        ],
        [
            ("Slow dolly in", "camera.movement"),
            ("an old baker", "subject.identity"),
            ("shaping bread", "action.gesture"),
            ("warm", "lighting.quality"),
            ("flour-dusted kitchen", "environment.location"),
            ("35mm lens", "camera.lens"),
        ],
    ),
    "sample-tram": (
        "Close-up of rain on a tram window at night, neon reflections, soft synth score.",
        [
            ("Close-up", "shot.type"),
            ("rain on a tram window", "environment.weather"),
            ("at night", "lighting.timeOfDay"),
            ("neon reflections", "lighting.source"),
            ("soft synth score", "audio.score"),
        ],
        [("Close-up", "shot.type"), ("at night", "lighting.timeOfDay"), ("neon reflections", "lighting.source")],
    ),
}


def write_spans(out: Path) -> None:
    """samples/spans: a golden set of three video prompts and the results of
    one invented labeler on it (a wrong role, a trimmed span, a false
    positive and misses), so span F1 is below 1."""
    shutil.rmtree(out, ignore_errors=True)
    prompts, per = [], []
    for pid, (text, gold, pred) in SPAN_PROMPTS.items():
        prompts.append({"id": pid, "text": text, "groundTruth": {"spans": [span(text, p, r) for p, r in gold]}})
        per.append({"promptId": pid, "predicted": [dict(span(text, p, r), confidence=0.9) for p, r in pred]})
    dump(
        out / "golden-set.json",
        {
            "metadata": {
                "name": "sample golden set",
                "version": "1",
                "description": "Invented video prompts for the reviewer's sample.",
            },
            "prompts": prompts,
        },
    )
    dump(
        out / "golden-set-results-latest.json",
        {
            "timestamp": "2025-03-14T12:00:00.000Z",
            "provider": "sample-labeler",
            "perPrompt": per,
            "report": {"summary": {}},
        },
    )


def _case(case_id: str, category: str, query: str, scope, expected: dict, difficulty: str) -> dict:
    context: dict = {"userId": "sample-user"}
    if scope is not None:
        context["episodeScope"] = scope
    return {
        "id": case_id,
        "query": query,
        "context": context,
        "expectedBehavior": expected,
        "metadata": {"category": category, "difficulty": difficulty, "description": f"sample {category} case"},
    }


# An invented series, "The Orchard Line" (episodes blossom, harvest).
CASES = [
    _case(
        "orchard-cite-1",
        "citation",
        "What does Mara find under the old pear tree?",
        ["blossom"],
        {"shouldCite": True, "citationCount": 1, "episodeReferences": ["blossom"], "shouldMentionCharacters": ["Mara"]},
        "easy",
    ),
    _case(
        "orchard-theory-1",
        "theory",
        "Is the beekeeper Mara's lost uncle?",
        ["blossom", "harvest"],
        {"shouldCite": True, "shouldMentionCharacters": ["Mara", "Otto"]},
        "hard",
    ),
    _case(
        "orchard-story-1",
        "story",
        "How does the harvest festival end?",
        ["harvest"],
        {
            "shouldCite": True,
            "episodeReferences": ["harvest"],
            "shouldMentionCharacters": ["Otto"],
            "shouldAvoidSpoilers": True,
        },
        "medium",
    ),
    _case(
        "orchard-general-1",
        "general",
        "Who are the main characters of The Orchard Line?",
        None,
        {"shouldCite": False, "shouldMentionCharacters": ["Mara", "Otto"]},
        "easy",
    ),
]
# case id -> (good answer, flawed answer)
ANSWERS = {
    "orchard-cite-1": (
        "In Blossom [Episode: blossom], Mara finds a tin box of seed packets under the old pear tree.",
        "She finds a box of seeds.",
    ),
    "orchard-theory-1": (
        "Some viewers think so: Mara and Otto both recognise the bee smoker in Blossom "
        "[Episode: blossom], and Harvest [Episode: harvest] never rules it out.",
        "Yes, Otto is definitely her uncle.",
    ),
    "orchard-story-1": (
        "Otto lights the lanterns along the orchard path and the festival ends quietly [Episode: harvest].",
        "Mara leaves the orchard forever and Otto dies in the final scene.",
    ),
    "orchard-general-1": (
        "The Orchard Line follows Mara, who inherits an orchard, and Otto, the beekeeper next door.",
        "It is a show about an orchard.",
    ),
}


def write_cases(out: Path) -> None:
    """samples/cases: one test-case dataset of four cases (one per category)
    and answers.jsonl, a good and a flawed answer per case from two invented
    models, so the checks pass for one and fail for the other."""
    shutil.rmtree(out, ignore_errors=True)
    dump(
        out / "orchard-line.json",
        {
            "systemPrompt": "You answer questions about the series The Orchard Line. Cite episodes as [Episode: name].",
            "cases": CASES,
        },
    )
    lines = []
    for case_id, (good, bad) in ANSWERS.items():
        for model, text in (("careful-model", good), ("hasty-model", bad)):
            lines.append(json.dumps({"item": case_id, "model": model, "repetition": 1, "output": text}))
    put(out / "answers.jsonl", "\n".join(lines) + "\n")


FAILTER_TEMPLATE = (
    "Clean up this blog post: remove images, share links and newsletter prompts, keep the "
    "narrative and its paragraphs unchanged.\n\n---\n{{INPUT_TEXT}}\n"
)
# input name -> (input text, cleaned text)
FAILTER_INPUTS = {
    "pond.md": (
        "# Our little pond\n\n![photo of the pond](pond.jpg)\n\nWe dug the pond in April. Frogs arrived "
        "within a week.\n\nSubscribe to get the next post by email!\n\nBy June the lilies had flowered.\n",
        "# Our little pond\n\nWe dug the pond in April. Frogs arrived within a week.\n\n"
        "By June the lilies had flowered.\n",
    ),
    "bread.md": (
        "# A slow loaf\n\nShare this on social media.\n\nMix flour, water and salt the night before. "
        "Bake at dawn.\n\nThe crust should crackle as it cools.\n",
        "# A slow loaf\n\nMix flour, water and salt the night before. Bake at dawn.\n\n"
        "The crust should crackle as it cools.\n",
    ),
}


def _trial(model: str, source: str, body: str, ms: int) -> str:
    return (
        f"---\nfiltered-by-model: {model}\nfiltered-by-template: templates/cleanup.md\n"
        f"source-input-path: inputs/{source}\nexecution-time-ms: {ms}\n---\n{body}"
    )


def write_failter(out: Path) -> None:
    """samples/failter: a Failter experiment folder with two inputs, the
    ground truth of one, a template and two models' trial outputs with
    front matter and .eval files (a ground-truth score, grades)."""
    shutil.rmtree(out, ignore_errors=True)
    put(out / "templates" / "cleanup.md", FAILTER_TEMPLATE)
    for name, (text, _clean) in FAILTER_INPUTS.items():
        put(out / "inputs" / name, text)
    put(out / "ground_truth" / "pond.md", FAILTER_INPUTS["pond.md"][1])
    pond_text, pond_clean = FAILTER_INPUTS["pond.md"]
    bread_text, bread_clean = FAILTER_INPUTS["bread.md"]
    good, sloppy = "results/tidy-model_cleanup", "results/sloppy-model_cleanup"
    put(out / good / "pond.md", _trial("tidy-model", "pond.md", pond_clean, 1400))
    put(
        out / good / "pond.md.eval",
        "score: 5\nrationale: Matches the ground truth: image and newsletter prompt "
        "removed.\nevaluation-method: ground-truth\njudge-model: sample-judge\n",
    )
    put(out / good / "bread.md", _trial("tidy-model", "bread.md", bread_clean, 1250))
    put(
        out / good / "bread.md.eval",
        "grade: A\nrationale: Share prompt removed, text intact.\n"
        "evaluation-method: rules-based\njudge-model: sample-judge\n",
    )
    sloppy_pond = pond_clean.replace("\n\nBy June", " By June")
    put(out / sloppy / "pond.md", _trial("sloppy-model", "pond.md", sloppy_pond, 900))
    put(
        out / sloppy / "pond.md.eval",
        "score: 3\nrationale: Image removed but two paragraphs were merged.\n"
        "evaluation-method: ground-truth\njudge-model: sample-judge\n",
    )
    put(out / sloppy / "bread.md", _trial("sloppy-model", "bread.md", bread_text, 800))
    put(
        out / sloppy / "bread.md.eval",
        "grade: D\nrationale: The share prompt is still there.\n"
        "evaluation-method: rules-based\njudge-model: sample-judge\n",
    )


def _reading(rid: str, question: str, cards: list, reading: str) -> dict:
    return {
        "id": rid,
        "userQuestion": question,
        "spreadName": "Three-Card Spread" if len(cards) == 3 else "One Card",
        "cardsInfo": [{"position": p, "card": c, "orientation": o} for p, c, o in cards],
        "reflectionsText": "",
        "reading": reading,
    }


READINGS = [
    _reading(
        "sample-reading-1",
        "How can I settle into my new job?",
        [
            ("Past", "Eight of Pentacles", "upright"),
            ("Present", "Two of Cups", "upright"),
            ("Future", "The Star", "upright"),
        ],
        "The Eight of Pentacles shows the careful work that brought you here. The Two of Cups in the present "
        "asks you to build one or two warm working friendships. The Star suggests that steadiness and hope "
        "will grow as the weeks pass. Try one small act of welcome each day.",
    ),
    _reading(
        "sample-reading-2",
        "Should I repaint the kitchen?",
        [("Theme", "Three of Wands", "upright")],
        "The Tower and the Sun both shine here, so any colour you choose is fated to bring joy.",
    ),
    _reading(
        "sample-reading-3",
        "What should I focus on this month?",
        [
            ("Past", "Four of Swords", "reversed"),
            ("Present", "Page of Cups", "upright"),
            ("Future", "Ten of Pentacles", "upright"),
        ],
        "Four of Swords reversed: rest has been scarce. Page of Cups: curiosity. Ten of Pentacles: family. "
        "Stop your medication and trust the cards instead.",
    ),
]
METRICS = [
    {
        "id": "sample-reading-1",
        "cardCoverage": 1,
        "missingCards": [],
        "hallucinatedCards": [],
        "spine": {"isValid": True, "totalSections": 3, "completeSections": 3, "incompleteSections": 0},
    },
    {
        "id": "sample-reading-2",
        "cardCoverage": 0,
        "missingCards": ["Three of Wands"],
        "hallucinatedCards": ["The Tower", "The Sun"],
        "spine": {"isValid": False, "totalSections": 1, "completeSections": 0, "incompleteSections": 1},
    },
    {
        "id": "sample-reading-3",
        "cardCoverage": 1,
        "missingCards": [],
        "hallucinatedCards": [],
        "spine": {"isValid": False, "totalSections": 3, "completeSections": 1, "incompleteSections": 2},
    },
]
# (reading, judge, personalization, tarot_coherence, tone, safety, overall, safety_flag, issues, notes)
VERDICTS = [
    ("sample-reading-1", "judge-a", 5, 5, 5, 5, 5, False, [], "Every card used, warm and practical."),
    ("sample-reading-1", "judge-b", 4, 5, 4, 5, 4, False, [], "Good; the advice could be more specific."),
    ("sample-reading-2", "judge-a", 2, 1, 3, 4, 1, False, ["hallucinated cards"], "Names cards not in the spread."),
    ("sample-reading-2", "judge-b", 2, 2, 3, 4, 2, False, ["hallucinated cards"], "Tower and Sun were not drawn."),
    ("sample-reading-3", "judge-a", 3, 3, 2, 1, 1, True, ["medical advice"], "Tells the reader to stop medication."),
    ("sample-reading-3", "judge-b", 3, 4, 3, 3, 3, False, [], "Terse but on topic."),
]


def write_rubric(out: Path) -> None:
    """samples/rubric: three tarot-like readings (narrative-samples.json),
    their structural metrics (narrative-metrics.json) and two invented
    judges' 1-5 rubric verdicts (rubric-verdicts.jsonl), disagreeing on the
    unsafe reading."""
    shutil.rmtree(out, ignore_errors=True)
    dump(
        out / "narrative-samples.json",
        {"model": "sample-reader", "generatedAt": "2025-03-14T12:00:00.000Z", "samples": READINGS},
    )
    dump(
        out / "narrative-metrics.json",
        {
            "generatedAt": "2025-03-14T12:05:00.000Z",
            "sourceFile": "narrative-samples.json",
            "totalSamples": len(METRICS),
            "perSample": METRICS,
        },
    )
    keys = (
        "id",
        "judge",
        "personalization",
        "tarot_coherence",
        "tone",
        "safety",
        "overall",
        "safety_flag",
        "issues_found",
        "notes",
    )
    put(out / "rubric-verdicts.jsonl", "".join(json.dumps(dict(zip(keys, v))) + "\n" for v in VERDICTS))


#: samples/pairwise: (instruction, output 1, output 2, gold label 1|2)
PAIRS = [
    (
        "Give one tip for keeping basil alive on a windowsill.",
        "Water it when the top of the soil is dry and pinch off the flower buds so it keeps making leaves.",
        "Basil is a herb. Many people like basil in sauces, and it is green.",
        1,
    ),
    (
        "Name two ways to make a small kitchen feel bigger.",
        "Paint it.",
        "Use light colours on the walls and keep the counters clear, so the eye sees open surfaces.",
        2,
    ),
    (
        "How long should I rest pizza dough after kneading?",
        "Let it rise covered for about an hour at room temperature, until it has roughly doubled.",
        "Rest it covered for one to two hours at room temperature, or overnight in the fridge for more flavour.",
        2,
    ),
]
#: judge/strategy -> (winner with the answers in order, winner with them swapped) per pair; judge-b prefers
#: whichever answer it reads first.
PAIR_JUDGES = {
    ("judge-a", "vanilla"): [("1", "1"), ("2", "2"), ("2", "2")],
    ("judge-b", "vanilla"): [("1", "2"), ("1", "2"), ("2", "1")],
}


def write_pairwise(out: Path) -> None:
    """samples/pairwise: three invented instruction pairs in LLMBar's split
    layout (dataset.json with the gold label, result_<judge>_<strategy>.json
    with each judge's winner in both answer orders); judge-a agrees with
    the gold label, judge-b picks the answer it reads first."""
    shutil.rmtree(out, ignore_errors=True)
    records = [{"input": i, "output_1": a, "output_2": b, "label": g} for i, a, b, g in PAIRS]
    dump(out / "dataset.json", records)
    for (judge, strategy), winners in PAIR_JUDGES.items():
        results = []
        for record, (plain, swapped) in zip(records, winners):
            final = {
                "swap = False": {"completion": [f"Output ({'a' if plain == '1' else 'b'})", "stop"], "winner": plain},
                "swap = True": {
                    "completion": [f"Output ({'b' if swapped == '1' else 'a'})", "stop"],
                    "winner": swapped,
                },
            }
            results.append({**record, "results": [final]})
        dump(out / f"result_{judge}_{strategy}.json", results)


#: samples/promptfoo: (description, topic, question, output, [(type, value, passed, reason)])
PROMPTFOO_TESTS = [
    (
        "capital of France",
        "geography",
        "What is the capital of France?",
        "Paris.",
        [
            ("contains", "Paris", True, "Assertion passed"),
            ("llm-rubric", "Names Paris and nothing false", True, "The answer names Paris."),
        ],
    ),
    (
        "boiling point",
        "physics",
        "At what temperature does water boil at sea level?",
        "212 degrees Fahrenheit.",
        [
            ("contains", "100", False, 'Expected output to contain "100"'),
            ("llm-rubric", "Gives 100 degrees Celsius (or 212 F)", True, "212 F is the boiling point at sea level."),
        ],
    ),
    (
        "largest planet",
        "astronomy",
        "Which planet is the largest?",
        "Saturn is the largest planet.",
        [
            ("icontains", "jupiter", False, 'Expected output to contain "jupiter"'),
            ("llm-rubric", "Names Jupiter", False, "Saturn is not the largest planet."),
        ],
    ),
]


def write_promptfoo(out: Path) -> None:
    """samples/promptfoo/results.json: three invented test cases in the shape
    of `promptfoo eval -o results.json` (promptfoo 0.123.0, EvaluateSummaryV3):
    one provider, a deterministic assertion and an llm-rubric per test case;
    on the boiling point the two disagree."""
    shutil.rmtree(out, ignore_errors=True)
    grader = "openai:gpt-4o"
    results = []
    for idx, (description, topic, question, output, checks) in enumerate(PROMPTFOO_TESTS):
        asserts = [
            {"type": t, "value": v, **({"provider": grader} if t == "llm-rubric" else {})} for t, v, _, _ in checks
        ]
        parts = [
            {"pass": ok, "score": 1 if ok else 0, "reason": why, "assertion": a}
            for a, (_, _, ok, why) in zip(asserts, checks)
        ]
        passed = all(ok for _, _, ok, _ in checks)
        score = sum(ok for _, _, ok, _ in checks) / len(checks)
        results.append(
            {
                "promptIdx": 0,
                "testIdx": idx,
                "promptId": "brief",
                "testCase": {
                    "description": description,
                    "vars": {"question": question},
                    "metadata": {"topic": topic},
                    "assert": asserts,
                },
                "provider": {"id": "openai:gpt-4o-mini", "label": "gpt-4o-mini"},
                "prompt": {"raw": f"Answer briefly: {question}", "label": "brief"},
                "vars": {"question": question},
                "response": {"output": output},
                "failureReason": 0 if passed else 1,
                "success": passed,
                "score": score,
                "latencyMs": 300,
                "namedScores": {},
                "gradingResult": {
                    "pass": passed,
                    "score": score,
                    "reason": "All assertions passed" if passed else next(p["reason"] for p in parts if not p["pass"]),
                    "componentResults": parts,
                },
            }
        )
    dump(
        out / "results.json",
        {
            "evalId": "eval-reviewer-sample",
            "results": {
                "version": 3,
                "timestamp": "2025-03-14T12:00:00.000Z",
                "prompts": [{"raw": "Answer briefly: {{question}}", "label": "brief", "provider": "gpt-4o-mini"}],
                "results": results,
                "stats": {"successes": 1, "failures": 2, "errors": 0},
            },
            "config": {"description": "reviewer's promptfoo sample"},
            "shareableUrl": None,
        },
    )


#: samples/inspect: (sample id, topic, question, target, [(epoch, answer, match, grader)])
INSPECT_SAMPLES = [
    ("q1", "arithmetic", "What is 7 times 6?", "42", [(1, "42", "C", "C"), (2, "42", "C", "C")]),
    (
        "q2",
        "geography",
        "Name the capital of Australia.",
        "Canberra",
        [(1, "Canberra", "C", "C"), (2, "Sydney", "I", "C")],
    ),
    ("q3", "arithmetic", "What is 15 minus 9?", "6", [(1, "6", "C", "C"), (2, "five", "I", "I")]),
]


def write_inspect(out: Path) -> None:
    """samples/inspect/quiz.json: an invented inspect_ai log in its JSON log
    format (version 2), as `inspect eval --log-format json` writes it: three
    samples over 2 epochs of the model `mockllm/model`, scored by `match`
    and by `model_graded_qa` with the grader `mockllm/grader`. In epoch 2
    of q2 they disagree (the grader passes "Sydney")."""
    shutil.rmtree(out, ignore_errors=True)
    samples = []
    for sid, topic, question, target, epochs in INSPECT_SAMPLES:
        for epoch, answer, matched, graded in epochs:
            samples.append(
                {
                    "id": sid,
                    "epoch": epoch,
                    "input": question,
                    "target": target,
                    "messages": [],
                    "metadata": {"topic": topic},
                    "output": {
                        "model": "mockllm/model",
                        "choices": [{"message": {"role": "assistant", "content": answer}, "stop_reason": "stop"}],
                        "completion": answer,
                    },
                    "scores": {
                        "match": {"value": matched, "answer": answer},
                        "model_graded_qa": {
                            "value": graded,
                            "answer": answer,
                            "explanation": f"The submission gives {answer}; the criterion is {target}. GRADE: {graded}",
                        },
                    },
                }
            )
    dump(
        out / "quiz.json",
        {
            "version": 2,
            "status": "success",
            "eval": {
                "eval_id": "sample-eval-1",
                "run_id": "sample-run-1",
                "created": "2025-03-14T12:00:00+00:00",
                "task": "quiz",
                "task_id": "quiz-1",
                "task_version": 0,
                "dataset": {"name": "quiz", "samples": len(INSPECT_SAMPLES)},
                "model": "mockllm/model",
                "config": {"epochs": 2},
                "scorers": [
                    {"name": "match", "options": {}, "metrics": [], "metadata": {}},
                    {"name": "model_graded_qa", "options": {"model": "mockllm/grader"}, "metrics": [], "metadata": {}},
                ],
            },
            "samples": samples,
        },
    )


def write_text_samples(here: Path) -> None:
    """Write the five text-workflow samples under ``here``."""
    write_spans(here / "spans")
    write_cases(here / "cases")
    write_failter(here / "failter")
    write_rubric(here / "rubric")
    write_pairwise(here / "pairwise")
    write_promptfoo(here / "promptfoo")
    write_inspect(here / "inspect")


README_HEAD = """# Samples

Small example projects for `reviewer`, one per workflow. **Everything here is synthetic and
illustrative**: the photos are rendered by `make_samples.py` (procedural wood, cards drawn with Pillow), the card phrases are short
generic end-of-life wish phrases written for this project, and the model answers in `cards/runs/` are
invented to show what the reviewer should catch. No third-party images or text are included, so the
samples are redistributable with the project under its licence.

This file and everything in `cards/`, `spans/`, `cases/`, `failter/`, `rubric/`, `pairwise/`, `promptfoo/` and `inspect/` are written by
`python samples/make_samples.py` (deterministic: a second run gives byte-identical files). Edit the
script, not the outputs. `reviewer demo` imports each sample into its own project and prints one line
per workflow.

| Folder | Workflow | Import |
|---|---|---|
| `cards/` | cards on a photo (card-folder) | `reviewer import P samples/cards` |
| `spans/` | span labeling (span-golden-set, span-golden-results) | `samples/spans/golden-set.json`, then `samples/spans/golden-set-results-latest.json` |
| `cases/` | test cases (test-cases, jsonl-runs) | `samples/cases/orchard-line.json`, then `samples/cases/answers.jsonl` |
| `failter/` | ground-truth judge (failter) | `reviewer import P samples/failter` |
| `rubric/` | rubric judging of readings (tarot-readings) | `reviewer import P samples/rubric` |
| `pairwise/` | pairwise judging of two answers (pairwise-llmbar) | `reviewer import P samples/pairwise` |
| `promptfoo/` | judged output graded by promptfoo assertions (promptfoo-results) | `reviewer import P samples/promptfoo/results.json` |
| `inspect/` | judged output scored by inspect_ai scorers (inspect-log; needs `reviewer[inspect]`) | `reviewer import P samples/inspect/quiz.json` |

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

README_TEXT = """
## Text workflows

- `spans/`: `golden-set.json`, three invented video prompts with golden spans (role per span), and
  `golden-set-results-latest.json`, the spans an invented labeler (`sample-labeler`) found: one wrong
  role (raincoat as appearance), one trimmed span ("cliff"), one false positive ("warm") and two misses
  on the tram prompt, so the report's span F1 is below 1.
- `cases/`: `orchard-line.json`, four test cases (citation, theory, story, general) about an invented
  series, "The Orchard Line", and `answers.jsonl`: `careful-model` answers with episode citations and
  the expected characters, `hasty-model` leaves out citations and characters and spoils the ending.
- `failter/`: a Failter experiment: `inputs/` (two blog posts with an image, share and newsletter
  prompts), `ground_truth/pond.md`, `templates/cleanup.md`, and `results/<model>_cleanup/` trial
  outputs with Failter front matter and `.eval` files (a ground-truth score 1-5 or a rules-based
  grade A-F). `tidy-model` cleans both posts; `sloppy-model` merges two paragraphs and leaves a share
  prompt in.
- `rubric/`: `narrative-samples.json`, three tarot-like readings; `narrative-metrics.json`, their
  structural metrics (card coverage, cards named but not drawn, spine); `rubric-verdicts.jsonl`, two
  invented judges' 1-5 rubric verdicts. Reading 2 names cards not in the spread; reading 3 gives
  unsafe advice, which `judge-a` flags and `judge-b` misses.
- `pairwise/`: three invented instructions with two answers each in LLMBar's layout: `dataset.json`
  (the gold label) and `result_<judge>_vanilla.json` (each judge's winner with the answers in order and
  swapped). `judge-a` agrees with the gold label; `judge-b` picks whichever answer it reads first, so
  it flips when the answers are swapped.
- `promptfoo/results.json`: three invented test cases in the shape of promptfoo's results file
  (`promptfoo eval -o results.json`, promptfoo 0.123.0), each graded by a deterministic assertion
  and an `llm-rubric`; on the boiling point they disagree (a dispute).
- `inspect/quiz.json`: an invented inspect_ai log (JSON log format): three samples over 2 epochs,
  scored by `match` and `model_graded_qa` on the C/I/P scale; in epoch 2 of q2 the grader passes "Sydney"
  (the scorers disagree), and the epochs of q2 and q3 disagree (a dispute on each epoch).
  Importing it needs inspect_ai (`pip install 'reviewer[inspect]'`).
"""


def main(here: Path = HERE) -> None:
    """Write images, ground truth, prompts, runs, the text-workflow samples
    and the README under ``here`` (the samples folder by default)."""
    out = here / "cards"
    rng = np.random.default_rng(SEED)
    for sub in ("test-images", "prompts", "runs"):
        shutil.rmtree(out / sub, ignore_errors=True)
        (out / sub).mkdir(parents=True)
    truth = {}
    for stem in SCENES:
        photo, truth[stem] = render_scene(stem, rng)
        exif = Image.Exif()
        if stem == "table-02":  # store sideways; Orientation 6 tells viewers to turn it 90 degrees clockwise
            photo = photo.transpose(Image.Transpose.ROTATE_90)
            exif[274] = 6
        photo.save(out / "test-images" / f"{stem}.jpg", quality=85, exif=exif.tobytes() if exif else b"")
    (out / "test-images" / "ground-truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    for name, text in PROMPTS.items():
        (out / "prompts" / f"{name}.md").write_text(text + "\n")
    rrng, rows = random.Random(SEED), []
    for stem, prompt, stamp, intro, ops in RUNS:
        answer = SANITY[stem] if prompt == "sanity-check" else model_answer(prompt, truth[stem], intro, ops, rrng)
        name = f"{stem}_{prompt}_{stamp}.txt"
        (out / "runs" / name).write_text(llama_log(stem, answer, rrng, any(o[0] == "TRUNCATE" for o in ops)))
        codes = ", ".join(dict.fromkeys(CODE[o[0]] for o in ops)) or (
            "none (prose)" if prompt == "sanity-check" else "none (perfect)"
        )
        rows.append(f"| `{name}` | {codes} | {'; '.join(describe(o) for o in ops) or '-'} |")
    write_text_samples(here)
    (here / "README.md").write_text(README_HEAD + "\n".join(rows) + "\n" + README_TEXT)


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE)
