"""labelme JSON: one file per photo (labelme's LabelFile).

    {"version": "5.x", "flags": {}, "shapes": [{"label": str, "points": [[x, y], ...],
      "group_id": int | null, "description": str, "shape_type": "rectangle" | "polygon" | ...,
      "flags": {}}], "imagePath": str, "imageData": str | null,
      "imageHeight": int, "imageWidth": int}

Mapping (docs/formats.md, "Ground truth formats"):

* a ``rectangle`` or ``polygon`` with a ``description`` is a card: the
  description is its text, the label its pile, its box the bounding box of
  the points;
* shapes with the same label and ``group_id`` are one card (labelme's
  instance id): their descriptions joined with a space, the box around all
  their points;
* a ``rectangle`` without a description is a card with no text yet (to
  transcribe) in the pile its label names, as labelme's object-detection
  boxes are (``person``, ``bus``, ...): every box is kept;
* a ``polygon`` without a description is the region of the pile its label
  names;
* other shape types (circle, line, linestrip, point, mask) are skipped.

Points are pixels of the image labelme showed: upright (labelme applies the
EXIF orientation), or the stored frame when imageWidth / imageHeight are the
stored (sideways) size. The import is a card-folder import of the same
folder (photos, prompts, runs) plus the annotations; idempotent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from reviewer.core.bounds import BadValue, ident
from reviewer.core.models import GroundTruth, Item
from reviewer.storage.files import safe_write
from reviewer.storage.files.confine import Refused, safe_file_name, source_root, within
from reviewer.storage.gt_formats.common import (
    IMAGE_FORMAT,
    IMAGE_MODES,
    GtBuilder,
    annotator_of,
    declared_size,
    drawable,
    ensure_item,
    store_ground_truth,
    upright,
)
from reviewer.storage.importers import card_folder
from reviewer.storage.importers.base import ImportOptions, ImportReport, read_json
from reviewer.storage.project.db import Project

_PLACES = ("", "test-images", "images", "annotations")


def is_labelme(data: Any) -> bool:
    """A labelme file: an object with a ``shapes`` list and an ``imagePath``."""
    return isinstance(data, dict) and isinstance(data.get("shapes"), list) and "imagePath" in data


def _files(source: Path) -> list[Path]:
    if source.is_file():
        return [source]
    out = []
    for place in _PLACES:
        folder = source / place if place else source
        if folder.is_dir():
            out += sorted(p for p in folder.iterdir() if p.suffix.lower() == ".json" and p.is_file())
    return out


def detect(source: Path) -> bool:
    """A labelme .json file, or a folder holding one (at its top, or in
    test-images/, images/ or annotations/)."""
    if source.is_file():
        return source.suffix.lower() == ".json" and is_labelme(read_json(source))
    return source.is_dir() and any(is_labelme(read_json(p)) for p in _files(source)[:50])


def parse(data: dict, item: Item, where: str, report: ImportReport) -> GroundTruth:
    """The ground truth of one labelme file on ``item`` (module doc)."""
    to_upright = upright(item, *declared_size(data.get("imageWidth"), data.get("imageHeight"), where, report))
    builder = GtBuilder(item, where, report)
    groups: dict[tuple, list] = {}
    order: list[tuple] = []
    for n, shape in enumerate(data.get("shapes") or [], 1):
        what = f"shape {n}"
        if not isinstance(shape, dict):
            report.skip(f"{where}: {what}", "not an object")
            continue
        kind = shape.get("shape_type") or "polygon"
        label = str(shape.get("label") or "").strip()
        try:
            points = [to_upright((float(p[0]), float(p[1]))) for p in shape.get("points") or []]
        except (TypeError, ValueError, IndexError, OverflowError):
            report.skip(f"{where}: {what}", "points are not [x, y] numbers")
            continue
        if kind not in ("rectangle", "polygon"):
            report.skip(f"{where}: {what} ({label})", f"shape type '{kind}' is neither rectangle nor polygon")
            continue
        if (kind == "rectangle" and len(points) != 2) or (kind == "polygon" and len(points) < 3):
            report.skip(f"{where}: {what} ({label})", f"a {kind} with {len(points)} points")
            continue
        text = str(shape.get("description") or "").strip()
        if not text and kind == "polygon":
            builder.pile(label)
            builder.region(label, points, f"{what} ({label})")
            continue
        group = shape.get("group_id")
        if group is not None:
            try:
                group = ident(group, "group_id")
            except BadValue as exc:
                report.skip(f"{where}: {what} ({label})", str(exc))
                continue
        key = (label, group) if group is not None else (label, None, n)
        if key not in groups:
            groups[key] = [[], []]
            order.append(key)
        groups[key][0].append(text)
        groups[key][1] += points
    for key in order:
        texts, points = groups[key]
        text = " ".join(t for t in texts if t)
        builder.card(text, key[0], points, f"card '{text}'" if text else f"a box to transcribe ({key[0]})")
    return builder.build()


def import_labelme(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import a labelme folder (a card-folder import plus every labelme
    file's ground truth) or one labelme file (module doc). Idempotent."""
    annotator = annotator_of(options)
    if source.is_dir():
        report = card_folder.import_folder(project, source, options)
        report.format = "labelme"
        report.notes = [n for n in report.notes if not n.startswith("no ground-truth.json")]
    else:
        report = ImportReport(format="labelme")
    root = source_root(source)
    with project.batched(auto=True):
        for path in _files(source):
            data = read_json(path)
            if not is_labelme(data):
                continue
            ref = str(data.get("imagePath") or "")
            name = card_folder_stem(ref) or path.stem
            item = ensure_item(
                project,
                path.parent,
                ref or path.stem,
                name,
                options,
                report,
                root,
                field=f"{path.name} imagePath",
                name_field=f"{path.name} imagePath",
            )
            if item is None:
                continue
            gt = parse(data, item, path.name, report)
            store_ground_truth(project, item, gt, annotator, report, options.actor)
    return report


def card_folder_stem(ref: str) -> str:
    """The item name of a labelme ``imagePath`` (its file stem; Windows paths too)."""
    return Path(ref.replace("\\", "/")).stem if ref else ""


#: What export_labelme writes, to check a file it would replace (reviewer.storage.files.safe_write).
LABELME_FORMAT = safe_write.json_format("labelme file", is_labelme)


def export_labelme(
    items: list[tuple[Item, Path, GroundTruth]],
    out: Path,
    sources=(),
    force: bool = False,
    images: str = "copy",
) -> dict[str, Any]:
    """Write one labelme file per item into the folder ``out``: a polygon
    per pile region (label = pile, no description), a rectangle per card
    with a box (label = pile, '' for none; description = text, '' for a
    card to transcribe, which imports back as one). Cards
    without a box cannot be drawn and are counted in ``skipped``. Each file
    is named after its item made a safe file name (reviewer.storage.files.confine.safe_file_name:
    no path separator or '..', one file per item) and lies inside ``out``
    (else the item is skipped). Returns counts. Every file is checked before
    any is written (TargetRefused: ``out`` is a file, or a file inside a
    ``source``, a project or not a labelme file, unless ``force``) and each
    is replaced whole (reviewer.storage.files.safe_write). ``images``: 'copy'
    writes a copy of each photo beside its JSON, named as the JSON with the
    photo's suffix, and ``imagePath`` is that bare file name, as labelme
    saves (the folder stands alone and imports back); 'reference' writes
    ``imagePath`` as the photo's path relative to ``out``. The copies are
    files reviewer wrote, like the JSON (reviewer.storage.files.written)."""
    if images not in IMAGE_MODES:
        raise ValueError(f"images is one of {', '.join(IMAGE_MODES)}, not '{images}'")
    if out.exists() and not out.is_dir():
        raise safe_write.TargetRefused(f"{out} is a file; labelme ground truth is written to a folder")
    used: set[str] = set()
    targets: list[Path | Refused] = []
    for item, _, _ in items:
        try:
            path = within(out, safe_file_name(item.name, used) + ".json")
        except Refused as exc:
            targets.append(exc)
            continue
        safe_write.check_target(path, LABELME_FORMAT, sources=sources, force=force)
        targets.append(path)
    copies: dict[int, Path] = {}
    if images == "copy":
        for k, ((_, photo, _), target) in enumerate(zip(items, targets)):
            if not isinstance(target, Refused):
                copies[k] = target.with_suffix(photo.suffix.lower())
                safe_write.check_target(copies[k], IMAGE_FORMAT, sources=sources, force=force)
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, Any] = {"files": 0, "piles": 0, "cards": 0, "skipped": []}
    for k, ((item, photo, gt), target) in enumerate(zip(items, targets)):
        shapes: list[dict[str, Any]] = []
        draw = drawable(item, gt, counts["skipped"])
        for _, pile in draw.regions:
            region = pile.region
            assert region is not None  # drawable keeps the piles with a region
            shapes.append(
                {
                    "label": pile.label,
                    "points": [list(p) for p in region],
                    "group_id": None,
                    "description": "",
                    "shape_type": "polygon",
                    "flags": {},
                }
            )
        counts["piles"] += draw.kept_piles
        for _, card in draw.cards:
            b = card.bbox
            assert b is not None  # drawable keeps the cards with a box
            shapes.append(
                {
                    "label": card.pile or "",
                    "points": [[b.x_min, b.y_min], [b.x_max, b.y_max]],
                    "group_id": None,
                    "description": card.text,
                    "shape_type": "rectangle",
                    "flags": {},
                }
            )
            counts["cards"] += 1
        doc: dict[str, Any] = {
            "version": "5.5.0",
            "flags": {},
            "shapes": shapes,
            "imagePath": copies[k].name if k in copies else Path(os.path.relpath(photo, out)).as_posix(),
            "imageData": None,
            "imageHeight": item.height,
            "imageWidth": item.width,
        }
        if isinstance(target, Refused):
            counts["skipped"].append(f"{item.name}: {target}")
            continue
        if k in copies:
            safe_write.write_bytes(copies[k], photo.read_bytes(), IMAGE_FORMAT, sources=sources, force=force)
            counts["images"] = counts.get("images", 0) + 1
        safe_write.write_json(target, doc, LABELME_FORMAT, sources=sources, force=force, indent=2, newline=False)
        counts["files"] += 1
    return counts
