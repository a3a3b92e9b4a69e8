"""COCO detection JSON (cocodataset.org/#format-data, "Object Detection").

    {"images": [{"id", "file_name", "width", "height"}],
     "annotations": [{"id", "image_id", "category_id", "bbox": [x, y, w, h],
                      "segmentation": [[x1, y1, x2, y2, ...], ...] | RLE, "area", "iscrowd",
                      "attributes": {"text": str}}],
     "categories": [{"id", "name", "supercategory"}]}

Mapping (docs/formats.md, "Ground truth formats"): the category is the pile; an
annotation with a transcription (``attributes.text`` as CVAT writes
attributes, else ``utf8_string`` as COCO-Text, else ``text`` or
``description``) is a card, its box the ``bbox`` ([x, y, width, height] ->
x_min = x, x_max = x + width), or the bounds of its polygon segmentation;
an annotation without text is a card with no text yet (to transcribe) when
it is a box (a bbox without polygon segmentation, as detection datasets
have, or ``attributes.text`` present but empty, as reviewer writes such a
card), else the region of its category's pile (its first polygon). RLE
masks without a bbox are skipped.
Coordinates are pixels of the image size the file declares (upright, or the
stored frame when width and height are the stored sideways size).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from reviewer.core.bounds import BadValue, ident
from reviewer.core.cards.gt_geometry import Point, bounds, rectangle_points
from reviewer.core.models import BBox, GroundTruth, Item
from reviewer.storage.files import safe_write
from reviewer.storage.files.confine import source_root
from reviewer.storage.gt_formats.common import (
    GtBuilder,
    annotator_of,
    declared_size,
    drawable,
    ensure_item,
    plan_image_copies,
    store_ground_truth,
    upright,
    write_image_copies,
)
from reviewer.storage.importers.base import ImportOptions, ImportReport, read_json
from reviewer.storage.project.db import Project

_TEXT_KEYS = ("utf8_string", "text", "description")


def is_coco(data: Any) -> bool:
    """A COCO detection file: an object with ``images``, ``annotations`` and ``categories`` lists."""
    return isinstance(data, dict) and all(
        isinstance(data.get(k), list) for k in ("images", "annotations", "categories")
    )


def detect(source: Path) -> bool:
    """A .json file in COCO detection form (:func:`is_coco`)."""
    return source.is_file() and source.suffix.lower() == ".json" and is_coco(read_json(source))


def annotation_text(ann: dict) -> str:
    """The transcription of an annotation ('' when none; module doc)."""
    attrs = ann.get("attributes")
    if isinstance(attrs, dict) and str(attrs.get("text") or "").strip():
        return str(attrs["text"]).strip()
    for key in _TEXT_KEYS:
        if str(ann.get(key) or "").strip():
            return str(ann[key]).strip()
    return ""


def _polygons(ann: dict) -> list[list[Point]]:
    seg = ann.get("segmentation")
    if not isinstance(seg, list):
        return []
    out = []
    for poly in seg:
        if isinstance(poly, list) and len(poly) >= 6:
            out.append([(float(poly[k]), float(poly[k + 1])) for k in range(0, len(poly) - 1, 2)])
    return out


def _bbox_points(ann: dict) -> list[Point] | None:
    b = ann.get("bbox")
    if isinstance(b, list) and len(b) == 4:
        x, y, w, h = (float(v) for v in b)
        return rectangle_points(BBox(x_min=x, y_min=y, x_max=x + w, y_max=y + h))
    return None


def parse(
    image: dict, anns: list[dict], categories: dict[Any, str], item: Item, where: str, report: ImportReport
) -> GroundTruth:
    """The ground truth of one COCO image on ``item`` (module doc)."""
    to_upright = upright(item, *declared_size(image.get("width"), image.get("height"), where, report))
    builder = GtBuilder(item, where, report)
    for ann in anns:
        what = f"annotation {ann.get('id')}"
        try:
            cat = ident(ann.get("category_id"), "category_id")
        except BadValue as exc:
            report.skip(f"{where}: {what}", str(exc))
            continue
        if cat not in categories:
            report.skip(f"{where}: {what}", f"category {cat} is not in categories")
            continue
        label = categories[cat]
        text = annotation_text(ann)
        try:
            box_points = _bbox_points(ann)
            polygons = _polygons(ann)
        except (TypeError, ValueError, OverflowError):
            report.skip(f"{where}: {what}", "bbox or segmentation is not numbers")
            continue
        attrs = ann.get("attributes")
        a_box = not text and box_points is not None and (not polygons or (isinstance(attrs, dict) and "text" in attrs))
        if text or a_box:
            points = box_points or [p for poly in polygons for p in poly]
            if not points:
                report.skip(f"{where}: {what}", "neither a bbox nor a polygon segmentation")
                continue
            builder.card(
                text,
                label,
                [to_upright(p) for p in points],
                f"{what} ('{text}')" if text else f"{what} (a box to transcribe)",
            )
        else:
            outline = polygons[0] if polygons else box_points
            if not outline:
                report.skip(f"{where}: {what}", "neither a bbox nor a polygon segmentation")
                continue
            if len(polygons) > 1:
                report.notes.append(f"{where}: {what}: the region of pile '{label}' is its first polygon")
            builder.pile(label)
            builder.region(label, [to_upright(p) for p in outline], f"{what} ({label})")
    return builder.build()


def import_coco(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import a COCO detection file (module doc): photos by ``file_name``
    beside the file (or in images/), one ground truth per image. Idempotent."""
    annotator = annotator_of(options)
    report = ImportReport(format="coco")
    data = read_json(source)
    if not is_coco(data):
        report.skip(source.name, "not a COCO detection file (images, annotations, categories)")
        return report
    categories = _categories(data, report)
    by_image = _annotations_by_image(data, report)
    root = source_root(source)
    with project.batched(auto=True):
        for n, image in enumerate(data["images"]):
            if not _valid_image(n, image, report):
                continue
            item = ensure_item(
                project,
                source.parent,
                image["file_name"],
                image.get("reviewer_item"),
                options,
                report,
                root,
                field=f"images[{n}].file_name",
                name_field=f"images[{n}].reviewer_item",
            )
            if item is None:
                continue
            gt = parse(image, by_image.get(image.get("id"), []), categories, item, str(image["file_name"]), report)
            store_ground_truth(project, item, gt, annotator, report, options.actor)
    return report


def _categories(data: dict, report: ImportReport) -> dict[Any, str]:
    """{category id: name} of a COCO file; a category without a usable id is reported, not stored."""
    categories = {}
    for n, c in enumerate(data["categories"]):
        if isinstance(c, dict):
            try:
                categories[ident(c.get("id"), "id")] = str(c.get("name") or "")
            except BadValue as exc:
                report.skip(f"category {n + 1}", f"{exc}: not stored")
    return categories


def _annotations_by_image(data: dict, report: ImportReport) -> dict[Any, list[dict]]:
    """{image id: its annotations}. An annotation without a usable id or image_id is
    reported, not stored; so are the annotations of an image id not in ``images``."""
    by_image: dict[Any, list[dict]] = {}
    for n, ann in enumerate(data["annotations"]):
        if isinstance(ann, dict):
            try:
                ident(ann.get("id", 0), "id")
                by_image.setdefault(ident(ann.get("image_id"), "image_id"), []).append(ann)
            except BadValue as exc:
                report.skip(f"annotation {n + 1}", f"{exc}: not stored")
    known = set()
    for image in data["images"]:
        if isinstance(image, dict):
            with contextlib.suppress(BadValue):  # reported with the image in import_coco
                known.add(ident(image.get("id"), "id"))
    for image_id in by_image:
        if image_id not in known:
            report.skip(f"annotations of image {image_id}", "no such image in images")
    return by_image


def _valid_image(n: int, image: Any, report: ImportReport) -> bool:
    """Whether the ``n``-th entry of ``images`` can be imported: a dict with a usable id and
    a text ``file_name``. Else the reason is reported and the image skipped."""
    if not isinstance(image, dict) or not image.get("file_name"):
        report.skip(f"image {image.get('id') if isinstance(image, dict) else image!r}", "no file_name")
        return False
    try:
        ident(image.get("id"), "id")
    except BadValue as exc:
        report.skip(f"image {n + 1}", f"{exc}: not stored")
        return False
    if not isinstance(image["file_name"], str):
        report.skip(f"image {image['id']}", "file_name is not a text")
        return False
    return True


def _area(points: list) -> float:
    n = len(points)
    return (
        abs(sum(points[k][0] * points[(k + 1) % n][1] - points[(k + 1) % n][0] * points[k][1] for k in range(n))) / 2.0
    )


#: What export_coco writes, to check a file it would replace (reviewer.storage.files.safe_write).
COCO_FORMAT = safe_write.json_format("COCO JSON file", is_coco)


def export_coco(
    items: list[tuple[Item, Path, GroundTruth]],
    out: Path,
    sources=(),
    force: bool = False,
    images: str = "copy",
) -> dict[str, Any]:
    """Write one COCO detection file ``out``: a category per pile label (in
    order of first use; '' for cards in no pile), an image per item
    (``file_name`` relative to the file's folder, upright width and height,
    ``reviewer_item``), a polygon annotation per pile region and a bbox
    annotation per card with a box (``attributes.text``, '' for a card to
    transcribe; a rectangle segmentation). Cards without a box are counted
    in ``skipped``. ``images``: 'copy' writes a copy of each photo under
    ``images/`` beside ``out`` and ``file_name`` names it (the export stands
    alone and imports back; the copies are files reviewer wrote,
    common.plan_image_copies); 'reference' names the photo where it is."""
    copies = plan_image_copies(items, out.parent / "images", images, sources=sources, force=force)
    safe_write.check_target(out, COCO_FORMAT, sources=sources, force=force)
    categories: dict[str, int] = {}
    entries: list[dict[str, Any]] = []
    anns: list[dict[str, Any]] = []
    counts: dict[str, Any] = {"images": 0, "piles": 0, "cards": 0, "skipped": []}

    def cat(label: str) -> int:
        return categories.setdefault(label, len(categories) + 1)

    for image_id, (item, photo, gt) in enumerate(items, 1):
        shown_at = copies.get(image_id - 1, photo)
        entries.append(
            {
                "id": image_id,
                "file_name": Path(os.path.relpath(shown_at, out.parent)).as_posix(),
                "width": item.width,
                "height": item.height,
                "reviewer_item": item.name,
            }
        )
        counts["images"] += 1
        for pile in gt.piles:
            cat(pile.label)  # every label a category, in order of first use
        draw = drawable(item, gt, counts["skipped"])
        for _, pile in draw.regions:
            region = pile.region
            assert region is not None  # drawable keeps the piles with a region
            box = bounds(region)
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": image_id,
                    "category_id": cat(pile.label),
                    "segmentation": [[v for p in region for v in p]],
                    "bbox": [box.x_min, box.y_min, box.x_max - box.x_min, box.y_max - box.y_min],
                    "area": _area(region),
                    "iscrowd": 0,
                    "attributes": {},
                }
            )
            counts["piles"] += 1
        for _, card in draw.cards:
            b = card.bbox
            assert b is not None  # drawable keeps the cards with a box
            w, h = b.x_max - b.x_min, b.y_max - b.y_min
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": image_id,
                    "category_id": cat(card.pile or ""),
                    "segmentation": [[v for p in rectangle_points(b) for v in p]],
                    "bbox": [b.x_min, b.y_min, w, h],
                    "area": w * h,
                    "iscrowd": 0,
                    "attributes": {"text": card.text},
                }
            )
            counts["cards"] += 1
    doc = {
        "info": {"description": "ground truth exported by reviewer"},
        "licenses": [],
        "images": entries,
        "annotations": anns,
        "categories": [{"id": i, "name": n, "supercategory": "pile"} for n, i in categories.items()],
    }
    if copies:
        counts["copied images"] = write_image_copies(items, copies, sources=sources, force=force)
    safe_write.write_json(out, doc, COCO_FORMAT, sources=sources, force=force, indent=1, newline=False)
    return counts
