"""Score a folder of answers with a hand-checked answer key (docs/cards.md#fidelity).

The layout is that of shared/data/ocr-runs-dev:

    <folder>/ground-truth.json   {"<image>": {"piles": [{"label", "cards": [str]}],
                                  "image_size": {"width", "height"},
                                  "boxes": [{"text", "pile", "bbox": {x_min, ...}}]}}
    <folder>/runs/<image>_<variant>_<piles|cards>.txt   raw answers
    <folder>/images/<image>_<variant>.jpg               what the reader saw
    <folder>/expected.json       {"<run file>": {"image", "schema", "findings":
                                  [{"code", "gt_card", "model_card"}], "text_accuracy",
                                  "spatial_range"?}}

Ground-truth boxes are in pixels of the upright photo (``image_size``); the
answers' boxes are fractions of the image the reader saw (0-1), so the
variants of one photo share its ground truth. The EXIF orientation of each
variant's image is read from its header, so boxes read off stored,
un-rotated pixels are recognised (card-scoring-rules.md §6).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from reviewer.core.cards.fidelity import FidelityReport, KeyRun, compare
from reviewer.core.cards.metrics import run_metrics
from reviewer.core.cards.scoring import RunScore, score_run
from reviewer.core.models import (
    AnswerSchema,
    BBox,
    BoxConvention,
    Card,
    GroundTruth,
    Pile,
    Prompt,
    ScoringConfig,
)
from reviewer.storage.files.confine import inside, outside, plain_name, source_root

#: The two prompts of an answer-key folder (no prompt text is given there).
PROMPTS = {
    "piles": Prompt(
        name="piles",
        schema=AnswerSchema.PILES,
        text="(answer-key folder: no prompt text; answers group cards into piles)",
    ),
    "cards": Prompt(
        name="cards",
        schema=AnswerSchema.CARDS,
        box_convention=BoxConvention.UNIT,
        text="(answer-key folder: no prompt text; answers list cards with 0-1 boxes)",
    ),
}


@dataclass
class KeyedAnswer:
    """One answer of the folder with what scoring it needs."""

    name: str
    output: str
    prompt: Prompt
    ground_truth: GroundTruth
    width: int
    height: int
    orientation: int


def ground_truths(folder: Path) -> dict[str, tuple[GroundTruth, int, int]]:
    """Ground truth per image of ``folder/ground-truth.json``: (piles and
    cards with boxes in upright pixels, width, height). Raises OSError or
    ValueError on an unreadable or malformed file."""
    data = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    out = {}
    for image, entry in data.items():
        boxes: dict[tuple[str, str], list[BBox]] = {}
        for b in entry.get("boxes", []):
            boxes.setdefault((b["text"], b.get("pile")), []).append(BBox(**b["bbox"]))
        cards: list[Card] = []
        for pile in entry["piles"]:
            for text in pile["cards"]:
                found = boxes.get((text, pile["label"])) or []
                cards.append(Card(id=len(cards), text=text, pile=pile["label"], bbox=found.pop(0) if found else None))
        size = entry.get("image_size", {})
        out[image] = (
            GroundTruth(item=image, piles=[Pile(label=p["label"]) for p in entry["piles"]], cards=cards),
            int(size.get("width", 0)),
            int(size.get("height", 0)),
        )
    return out


def _orientation(folder: Path, image: str, run_file: str, schema: str) -> int:
    """EXIF orientation of the image the run was read from (1 when unknown)."""
    stem = run_file[: -len(f"_{schema}.txt")]
    for suffix in (".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff"):
        path = folder / "images" / f"{stem}{suffix}"
        if path.is_file():
            try:
                with Image.open(path) as im:
                    return int(im.getexif().get(0x0112, 1) or 1)
            except OSError:
                return 1
    return 1


def load(folder: Path) -> tuple[list[KeyedAnswer], list[KeyRun]]:
    """The answers of ``folder`` and its answer key, in the key's order.
    Raises OSError / ValueError / KeyError on a malformed folder, and
    Refused (a ValueError) for a run file named in expected.json that lies
    outside ``folder`` (reviewer.storage.files.confine)."""
    folder = Path(folder)
    truths = ground_truths(folder)
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    answers, key = [], []
    root = source_root(folder)
    for run_file, entry in expected.items():
        gt, width, height = truths[entry["image"]]
        schema = entry["schema"]
        run_path = folder / "runs" / plain_name(run_file, "expected.json run")
        if not inside(root, run_path):  # a file named in expected.json is read only inside the folder
            raise outside("expected.json run", run_file, root)
        answers.append(
            KeyedAnswer(
                name=run_file,
                output=run_path.read_text(encoding="utf-8"),
                prompt=PROMPTS[schema],
                ground_truth=gt,
                width=width,
                height=height,
                orientation=_orientation(folder, entry["image"], run_file, schema),
            )
        )
        spatial = entry.get("spatial_range")
        key.append(
            KeyRun(
                name=run_file,
                findings=[(f["code"], f.get("gt_card"), f.get("model_card")) for f in entry["findings"]],
                text_accuracy=entry.get("text_accuracy"),
                spatial_range=(int(spatial[0]), int(spatial[1])) if spatial else None,
            )
        )
    return answers, key


def score_answers(answers: list[KeyedAnswer], config: ScoringConfig) -> dict[str, RunScore]:
    """Score every answer with ``config`` (T-P5 by the card scoring rules)."""
    return {
        a.name: score_run(
            a.output, a.prompt, a.ground_truth, config, width=a.width, height=a.height, orientation=a.orientation
        )
        for a in answers
    }


def fidelity(folder: Path, config: ScoringConfig | None = None, tolerance: float = 0.05) -> FidelityReport:
    """Score ``folder``'s answers and compare them with its answer key:
    per-code precision/recall/F1, runs whose text accuracy is off by more
    than ``tolerance``, HALLUC missed (reviewer.core.cards.fidelity)."""
    answers, key = load(folder)
    scores = score_answers(answers, config or ScoringConfig())
    accuracy = {name: run_metrics(s.facts, s.findings).text_accuracy for name, s in scores.items()}
    return compare(key, {name: s.findings for name, s in scores.items()}, accuracy, tolerance)
