"""Importer: a folder of answers with a hand-checked answer key, laid out as
shared/data/ocr-runs-dev (see reviewer.storage.cards.answer_key):

    <folder>/images/<photo>_<variant>.jpg      what the reader saw (one item each)
    <folder>/ground-truth.json                 per photo: piles, image_size, boxes
    <folder>/runs/<photo>_<variant>_<piles|cards>.txt   raw answers
    <folder>/expected.json                     the answer key (read by `reviewer fidelity`)

Each image becomes an item with its photo's ground truth, the boxes scaled
from the photo's ``image_size`` to the item's upright size. The answers
become runs of the prompts ``piles`` and ``cards`` (the latter with boxes
as fractions, 0-1); the model is ``--model`` or 'unknown'.
"""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.core.models import BBox, Card, GroundTruth, Item
from reviewer.storage.files.previews import store_preview
from reviewer.storage.importers.base import IMAGE_SUFFIXES, ImportOptions, ImportReport, add_file_run, photo_item
from reviewer.storage.project.db import Project
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items


def detect(source: Path) -> bool:
    """A folder with expected.json, ground-truth.json, runs/ and images/."""
    return (
        source.is_dir()
        and (source / "expected.json").is_file()
        and (source / "ground-truth.json").is_file()
        and (source / "runs").is_dir()
        and (source / "images").is_dir()
    )


def _photo_of(stem: str, photos: list[str]) -> str | None:
    """The photo a variant image belongs to: the longest photo name that
    ``stem`` starts with followed by '_' (or equals)."""
    for photo in sorted(photos, key=len, reverse=True):
        if stem == photo or stem.startswith(photo + "_"):
            return photo
    return None


def _scaled(gt: GroundTruth, name: str, sx: float, sy: float) -> GroundTruth:
    cards = [
        Card(
            text=c.text,
            pile=c.pile,
            bbox=BBox(
                x_min=c.bbox.x_min * sx, y_min=c.bbox.y_min * sy, x_max=c.bbox.x_max * sx, y_max=c.bbox.y_max * sy
            )
            if c.bbox
            else None,
        )
        for c in gt.cards
    ]
    return GroundTruth(item=name, piles=gt.piles, cards=cards)


def import_answer_key(project: Project, folder: Path, options: ImportOptions) -> ImportReport:
    """Import an answer-key folder (see module doc). Idempotent; answers whose
    name names no known image or schema are skipped with the reason."""
    from reviewer.storage.cards.answer_key import PROMPTS, ground_truths  # with the scorer (scipy): only when used

    report = ImportReport(format="answer-key")
    try:
        truths = ground_truths(folder)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        report.skip("ground-truth.json", f"unreadable: {exc}")
        return report
    model = options.model or "unknown"
    if not options.model:
        report.notes.append("no --model given: runs are recorded for model 'unknown'")
    with project.batched(auto=True):
        item_ids = _import_images(project, folder, truths, options, report)
        prompt_ids = {}
        for name, prompt in PROMPTS.items():
            prompt_ids[name], created = repo_items.upsert_prompt(project, prompt, actor=options.actor)
            report.count("prompts", created)
        _import_runs(project, folder, item_ids, prompt_ids, model, options, report)
    try:
        keyed = len(json.loads((folder / "expected.json").read_text(encoding="utf-8")))
        report.notes.append(f"expected.json keys {keyed} answers: `reviewer fidelity {folder}` compares the scorer")
    except (OSError, ValueError, RecursionError):
        report.notes.append("expected.json is unreadable")
    return report


def _import_images(
    project: Project,
    folder: Path,
    truths: dict[str, tuple[GroundTruth, int, int]],
    options: ImportOptions,
    report: ImportReport,
) -> dict[str, int]:
    """Each image of ``folder``/images as an item (found by name, else added with its
    preview) and, when the item has none, its photo's ground truth scaled to the item's
    upright size. Returns {image stem: item id}; an image of no known photo is skipped."""
    item_ids: dict[str, int] = {}
    for path in sorted((folder / "images").iterdir()):
        if path.suffix.lower() not in IMAGE_SUFFIXES or not path.is_file():
            continue
        photo = _photo_of(path.stem, list(truths))
        if photo is None:
            report.skip(path.name, "no photo of ground-truth.json is a prefix of its name")
            continue
        item, item_ids[path.stem] = _image_item(project, path, options, report)
        gt, width, height = truths[photo]
        if repo_ground_truth.ground_truth(project, item_ids[path.stem]).cards:
            report.count("ground truths", False)
        elif item.width and width and height:
            sx, sy = item.width / width, (item.height or height) / height
            repo_ground_truth.set_ground_truth(
                project, item_ids[path.stem], _scaled(gt, path.stem, sx, sy), options.actor
            )
            report.count("ground truths", True)
    return item_ids


def _image_item(project: Project, path: Path, options: ImportOptions, report: ImportReport) -> tuple[Item, int]:
    """The item of the image ``path`` (named by its stem) and its id: the stored one, or a
    new one read from the photo (its note reported, its preview stored)."""
    item = repo_items.item_by_name(project, path.stem)
    if item:
        assert item.id is not None  # read from the database
        report.count("items", False)
        return item, item.id
    item, read = photo_item(path, path.stem, project.relative(path), options.max_pixels)
    if item.image_note:
        report.notes.append(f"{path.name}: {item.image_note}")
    item_id, created = repo_items.upsert_item(project, item, options.actor)
    report.count("items", created)
    if read.preview and store_preview(project, item.sha256, *read.preview):
        report.count("previews", True)
    return item, item_id


def _import_runs(
    project: Project,
    folder: Path,
    item_ids: dict[str, int],
    prompt_ids: dict[str, int],
    model: str,
    options: ImportOptions,
    report: ImportReport,
) -> None:
    """Each answer ``folder``/runs/<image>_<variant>_<piles|cards>.txt as a run of ``model``
    on its image's item with that prompt; a name naming no known image or schema, and a
    conflict with a stored run, are skipped with the reason."""
    for path in sorted((folder / "runs").iterdir()):
        if not path.is_file() or path.suffix != ".txt":
            continue
        stem, _, schema = path.stem.rpartition("_")
        if schema not in prompt_ids or stem not in item_ids:
            report.skip(path.name, "name is not <image>_<variant>_<piles|cards> with a known image")
            continue
        output = path.read_text(encoding="utf-8", errors="replace")
        add_file_run(project, report, options, path.name, item_ids[stem], prompt_ids[schema], model, output)
