"""Importer (a): a card-photo folder laid out as go-wish-spike does.

    <folder>/test-images/*.jpg|png      photos (or directly in <folder>)
    <folder>/test-images/ground-truth.json
        {"<image stem>": {"piles": [{"label": str, "region": [[x, y], ...]?,
                                     "cards": [str | {"text": str, "bbox": {...}}]}]}}
    <folder>/prompts/<prompt>.md        prompt texts (schema read from the text)
    <folder>/runs/<image>_<prompt>_<YYYYMMDD-HHMMSS>.txt   raw model outputs

Boxes in ground-truth.json are in upright image pixels. A photo that is a
link to a file outside the folder is skipped (reviewer.storage.files.confine). Photos are read
by reviewer.storage.files.images.read_photo (every format, EXIF orientation once,
size limit, truncated files noted).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from reviewer.core.bounds import pixel
from reviewer.core.cards.prompts import prompt_from_text
from reviewer.core.models import BBox, Card, GroundTruth, Pile
from reviewer.storage.files.confine import inside, source_root
from reviewer.storage.files.previews import store_preview
from reviewer.storage.importers.base import (
    IMAGE_SUFFIXES,
    ImportOptions,
    ImportReport,
    add_file_run,
    load_json,
    photo_item,
)
from reviewer.storage.project.db import Project
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

_TIMESTAMP = re.compile(r"^(\d{8})-(\d{6})$")


def _gt_file(folder: Path) -> Path | None:
    for candidate in (folder / "test-images" / "ground-truth.json", folder / "ground-truth.json"):
        if candidate.is_file():
            return candidate
    return None


def detect(source: Path) -> bool:
    """A folder with a ground-truth.json, with runs/ and prompts/, or with
    photos (to draw their ground truth in the review window)."""
    return source.is_dir() and (
        _gt_file(source) is not None
        or ((source / "runs").is_dir() and (source / "prompts").is_dir())
        or bool(_images(source))
    )


def _images(folder: Path) -> list[Path]:
    places = [folder / "test-images", folder / "images", folder]
    found: dict[str, Path] = {}
    for place in places:
        if place.is_dir():
            for p in sorted(place.iterdir()):
                if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file():
                    found.setdefault(p.stem, p)
    return list(found.values())


def parse_ground_truth(name: str, entry: Any) -> GroundTruth:
    """GroundTruth from one image's entry of ground-truth.json; raises
    ValueError with the problem when it is malformed, or when a region
    point or a box value is not a pixel (reviewer.core.bounds.pixel:
    finite, within +-MAX_PIXEL)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("piles"), list):
        raise ValueError("expected an object with a 'piles' list")
    piles, cards = [], []
    for i, p in enumerate(entry["piles"]):
        if not isinstance(p, dict) or not isinstance(p.get("cards"), list):
            raise ValueError(f"piles[{i}] needs 'label' and a 'cards' list")
        label = str(p.get("label") or f"pile {i + 1}")
        region = p.get("region")
        if region:
            region = [(pixel(pt[0], f"piles[{i}].region x"), pixel(pt[1], f"piles[{i}].region y")) for pt in region]
        piles.append(Pile(label=label, region=region or None))
        for c in p["cards"]:
            if isinstance(c, str):
                cards.append(Card(text=c, pile=label))
            elif isinstance(c, dict) and isinstance(c.get("text"), str):
                box = c.get("bbox")
                if box and not isinstance(box, dict):
                    raise ValueError(f"piles[{i}] card '{c['text'][:40]}': bbox is not an object")
                if box:
                    box = BBox(
                        **{
                            k: pixel(box.get(k), f"piles[{i}] card '{c['text'][:40]}' bbox {k}")
                            for k in ("x_min", "y_min", "x_max", "y_max")
                        }
                    )
                cards.append(Card(text=c["text"], pile=label, bbox=box or None))
            else:
                raise ValueError(f"piles[{i}] has a card that is neither text nor {{'text': ...}}")
    return GroundTruth(item=name, piles=piles, cards=cards)


def _split_run_name(stem: str, images: list[str], prompts: list[str]) -> tuple[str, str, str | None] | None:
    """(image, prompt, ISO timestamp) from '<image>_<prompt>_<timestamp>'."""
    head, _, tail = stem.rpartition("_")
    stamp = None
    m = _TIMESTAMP.match(tail)
    if m and head:
        try:
            stamp = datetime.strptime(tail, "%Y%m%d-%H%M%S").isoformat()
        except ValueError:  # looks like a timestamp but is no date: part of the name
            head = stem
    else:
        head = stem
    for image in sorted(images, key=len, reverse=True):
        if head.startswith(image + "_"):
            prompt = head[len(image) + 1 :]
            if prompt in prompts:
                return image, prompt, stamp
    return None


def import_folder(project: Project, folder: Path, options: ImportOptions) -> ImportReport:
    """Import a card-photo folder (see module doc). Idempotent."""
    report = ImportReport(format="card-folder")
    actor = options.actor
    item_ids: dict[str, int] = {}
    root = source_root(folder)
    with project.batched(auto=True):
        for path in _images(folder):
            if not inside(root, path):
                report.skip(path.name, "a link to a file outside the folder imported: not read")
                continue
            existing = repo_items.item_by_name(project, path.stem)
            if existing:
                assert existing.id is not None  # read from the database
                item_ids[path.stem] = existing.id
                report.count("items", False)
                continue
            item, photo = photo_item(path, path.stem, project.relative(path), options.max_pixels)
            if item.image_note:
                report.notes.append(f"{path.name}: {item.image_note}")
            item_ids[path.stem], created = repo_items.upsert_item(project, item, actor)
            report.count("items", created)
            if photo.preview and store_preview(project, item.sha256, *photo.preview):
                report.count("previews", True)
        _import_ground_truth(project, folder, item_ids, report, actor)
        prompt_ids = _import_prompts(project, folder, options, report)
        _import_runs(project, folder, item_ids, prompt_ids, options, report)
    return report


def _import_ground_truth(
    project: Project, folder: Path, item_ids: dict[str, int], report: ImportReport, actor: str | None
) -> None:
    gt_path = _gt_file(folder)
    if gt_path is None:
        report.notes.append("no ground-truth.json: items have no ground truth yet")
        return
    try:
        data = load_json(gt_path)
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError and nesting are ValueErrors
        report.skip(gt_path.name, str(exc) if str(exc).startswith("nested") else f"not valid JSON ({exc})")
        return
    if not isinstance(data, dict):
        report.skip(gt_path.name, "expected an object keyed by image name")
        return
    for name, entry in data.items():
        if name not in item_ids:
            report.skip(f"ground truth '{name}'", "no image with that name")
            continue
        try:
            gt = parse_ground_truth(name, entry)
        except (ValueError, TypeError, IndexError) as exc:
            report.skip(f"ground truth '{name}'", str(exc))
            continue
        current = repo_ground_truth.ground_truth(project, item_ids[name])
        if current.cards:
            report.count("ground truths", False)
            if [(c.text, c.pile) for c in current.cards] != [(c.text, c.pile) for c in gt.cards]:
                report.notes.append(f"ground truth of '{name}' differs from the file; the project's is kept")
            continue
        repo_ground_truth.set_ground_truth(project, item_ids[name], gt, actor)
        report.count("ground truths", True)


def _import_prompts(project: Project, folder: Path, options: ImportOptions, report: ImportReport) -> dict[str, int]:
    ids: dict[str, int] = {}
    pdir = folder / "prompts"
    files = sorted(p for p in pdir.iterdir() if p.suffix in {".md", ".txt"}) if pdir.is_dir() else []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        name = path.stem
        override = name in options.schemas or name in options.conventions
        prompt = prompt_from_text(name, text, options.schemas.get(name), options.conventions.get(name))
        ids[name], created = repo_items.upsert_prompt(project, prompt, override=override, actor=options.actor)
        report.count("prompts", created)
    return ids


def _import_runs(
    project: Project,
    folder: Path,
    item_ids: dict[str, int],
    prompt_ids: dict[str, int],
    options: ImportOptions,
    report: ImportReport,
) -> None:
    rdir = folder / "runs"
    if not rdir.is_dir():
        return
    model = options.model or "unknown"
    if not options.model:
        report.notes.append("no --model given: runs are recorded for model 'unknown'")
    parsed = []
    for path in sorted(rdir.iterdir()):
        if not path.is_file() or path.suffix not in {".txt", ".md", ".log", ".json"}:
            continue
        split = _split_run_name(path.stem, list(item_ids), list(prompt_ids))
        if split is None:
            report.skip(path.name, "name is not <image>_<prompt>_<timestamp> with a known image and prompt")
            continue
        parsed.append((split[2] or "", split, path))
    for _, (image, prompt, stamp), path in sorted(parsed, key=lambda t: (t[0], t[2].name)):
        output = path.read_text(encoding="utf-8", errors="replace")
        if options.model and repo_runs.adopt_default_model(
            project, item_ids[image], prompt_ids[prompt], path.name, output, options.model, options.actor
        ):
            report.notes.append(f"{path.name}: run recorded for model 'unknown' now names '{model}'")
            report.count("runs", False)
            continue
        _run_id, status = add_file_run(
            project, report, options, path.name, item_ids[image], prompt_ids[prompt], model, output, stamp
        )
        if status.startswith("exists as model"):
            report.notes.append(f"{path.name} {status}: not added again for '{model}'")
