"""Label Studio JSON export (labelstud.io, "Export annotations": JSON).

    [{"id": 1, "data": {"image": "/data/upload/1/1a2b3c4d-table-01.jpg"},
      "annotations": [{"id": 7, "completed_by": 1 | {"email": ...}, "was_cancelled": false,
        "ground_truth": false, "result": [
          {"id": "r1", "type": "rectanglelabels", "from_name": "pile", "to_name": "image",
           "original_width": 1600, "original_height": 1200, "image_rotation": 0,
           "value": {"x": 18.3, "y": 8.7, "width": 24.5, "height": 18.1, "rotation": 0,
                     "rectanglelabels": ["left"]}},
          {"id": "r1", "type": "textarea", "from_name": "transcription", "to_name": "image",
           "value": {"x": ..., "text": ["To die at home"]}},
          {"id": "p1", "type": "polygonlabels", "value": {"points": [[x, y], ...], "polygonlabels": ["left"]}}]}]}]

Mapping (docs/formats.md, "Ground truth formats"): results sharing an ``id`` are one
region. A region with a ``textarea`` transcription is a card (text: its
lines joined with a space; pile: its rectangle/polygon label or a ``labels``
result of the same id; box: the bounds of the rectangle turned by
``value.rotation`` degrees clockwise about its top-left corner, or of the
polygon). A rectangle without text is a card with no text yet (to
transcribe) in the pile its label names; a labelled polygon without text is
its pile's region. x, y,
width, height and points are percent of ``original_width`` x
``original_height`` (else of the item's upright size); the result is rounded
to 0.0001 px. A task with one annotation is the ``--annotator``'s (else the
consensus); with several, each is its ``completed_by`` person's (email, or
``user <id>``), and one marked ``ground_truth`` is also the consensus.
Cancelled annotations, predictions and other result types are skipped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from reviewer.core.bounds import BadValue, ident
from reviewer.core.cards.gt_agreement import CONSENSUS
from reviewer.core.cards.gt_geometry import Point, rotated_corners
from reviewer.core.models import GroundTruth, Item
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

_REGIONS = {"rectanglelabels", "rectangle", "polygonlabels", "polygon"}
_LABEL_KEYS = ("rectanglelabels", "polygonlabels", "labels")


def _tasks(data: Any) -> list | None:
    if isinstance(data, dict) and isinstance(data.get("data"), dict):
        data = [data]
    if (
        isinstance(data, list)
        and data
        and all(isinstance(t, dict) for t in data)
        and all(
            isinstance(t.get("data"), dict) and isinstance(t.get("annotations", t.get("completions")), list)
            for t in data
        )
    ):
        return data
    return None


def detect(source: Path) -> bool:
    """A .json file holding a Label Studio task or a list of them (each with
    ``data`` and ``annotations``)."""
    return source.is_file() and source.suffix.lower() == ".json" and _tasks(read_json(source)) is not None


def _image_ref(task: dict) -> str:
    data = task["data"]
    for key in ("image", "img", "photo", "url"):
        if isinstance(data.get(key), str):
            return data[key]
    return next((v for v in data.values() if isinstance(v, str)), "")


def annotator_name(annotation: dict) -> str:
    """Who made an annotation: ``completed_by``'s email or username, a
    ``created_username``, else ``user <id>``."""
    who = annotation.get("completed_by")
    if isinstance(who, dict):
        for key in ("email", "username"):
            if who.get(key):
                return str(who[key])
        name = " ".join(str(who.get(k) or "") for k in ("first_name", "last_name")).strip()
        if name:
            return name
        who = who.get("id")
    if annotation.get("created_username"):
        return str(annotation["created_username"]).split(",")[0].strip()
    return f"user {who}" if who is not None else "unknown annotator"


def parse(results: list, item: Item, where: str, report: ImportReport) -> GroundTruth:
    """The ground truth of one annotation's results on ``item`` (module doc)."""
    builder = GtBuilder(item, where, report)
    regions = _collect_regions(results, where, report)
    for rid, region in regions.items():
        _build_region(builder, rid, region, item, where, report)
    return builder.build()


def _collect_regions(results: list, where: str, report: ImportReport) -> dict[str, dict]:
    """The results grouped by region id (a result without one is its own region), in
    order of first appearance: {id: {shape, label, text, size, and 'implied' (a
    transcription's own rectangle) or 'bad' (drawn on a turned image) when so}}.
    A result that is not an object with a value, or has an unusable id, is reported."""
    regions: dict[str, dict] = {}
    for k, r in enumerate(results):
        if not isinstance(r, dict) or not isinstance(r.get("value"), dict):
            report.skip(f"{where}: result {k + 1}", "not an object with a value")
            continue
        try:
            rid = str(ident(r["id"], "id")) if r.get("id") is not None and r.get("id") != "" else f"#{k}"
        except BadValue as exc:
            report.skip(f"{where}: result {k + 1}", str(exc))
            continue
        region = regions.get(rid)
        if region is None:
            region = regions[rid] = {"shape": None, "label": None, "text": None, "size": None}
        _merge_result(region, rid, r, where, report)
    return regions


def _merge_result(region: dict, rid: str, r: dict, where: str, report: ImportReport) -> None:
    """Add one result ``r`` to its ``region``: its label (any label key), and by type
    its shape (rectangle, polygon) or its transcription (textarea). A type that is none
    of these nor 'labels' is reported."""
    kind = r.get("type")
    value = r["value"]
    for key in _LABEL_KEYS:
        if isinstance(value.get(key), list) and value[key]:
            region["label"] = str(value[key][0])
    if kind in _REGIONS:
        if r.get("image_rotation"):
            report.skip(f"{where}: region {rid}", "drawn on a turned image (image_rotation)")
            region["bad"] = True
        region["shape"] = (kind, value)
        region["size"] = (r.get("original_width"), r.get("original_height"))
    elif kind == "textarea":
        lines = value.get("text")
        region["text"] = " ".join(str(t).strip() for t in lines) if isinstance(lines, list) else str(lines or "")
        if region["shape"] is None and all(key in value for key in ("x", "y", "width", "height")):
            region["implied"] = ("rectangle", value)
            region["size"] = region["size"] or (r.get("original_width"), r.get("original_height"))
    elif kind != "labels":
        report.skip(f"{where}: result {rid}", f"type '{kind}' is not a rectangle, polygon or transcription")


def _build_region(builder: GtBuilder, rid: str, region: dict, item: Item, where: str, report: ImportReport) -> None:
    """Add one region to the ground truth: a card (a transcription, or a rectangle: a box
    to transcribe) or a pile's region (an untranscribed polygon). A region on a turned
    image is left out; one without a usable shape is reported."""
    if region.get("bad"):
        return
    shape = region["shape"] or region.get("implied")
    text = (region["text"] or "").strip()
    if shape is None:
        if text or region["label"]:
            report.skip(f"{where}: region {rid}", "a transcription or label without a rectangle or polygon")
        return
    points = _points(shape, region["size"], item, f"{where}: region {rid}", report)
    if points is None:
        report.skip(f"{where}: region {rid}", "its value lacks x, y, width, height or points")
        return
    if text or not shape[0].startswith("polygon"):
        builder.card(
            text,
            region["label"],
            points,
            f"region {rid} ('{text}')" if text else f"region {rid} (a box to transcribe)",
        )
    else:
        builder.pile(region["label"])
        builder.region(region["label"], points, f"region {rid}")


def _points(shape: tuple[str, dict], size, item: Item, where: str, report: ImportReport) -> list[Point] | None:
    kind, value = shape
    declared = declared_size(size[0], size[1], where, report) if size and (size[0] or size[1]) else (None, None)
    w, h = declared if declared[0] and declared[1] else (item.width, item.height)
    if not w or not h:
        return None
    to_upright = upright(item, w, h)
    try:
        if kind.startswith("polygon"):
            pts = [(float(p[0]) * w / 100.0, float(p[1]) * h / 100.0) for p in value["points"]]
        else:
            pts = rotated_corners(
                float(value["x"]) * w / 100.0,
                float(value["y"]) * h / 100.0,
                float(value["width"]) * w / 100.0,
                float(value["height"]) * h / 100.0,
                float(value.get("rotation") or 0.0),
            )
    except (KeyError, TypeError, ValueError, IndexError, OverflowError):
        return None
    return [to_upright(p) for p in pts]


def import_label_studio(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import a Label Studio JSON export (module doc). Idempotent."""
    default = annotator_of(options)
    report = ImportReport(format="label-studio")
    tasks = _tasks(read_json(source))
    if tasks is None:
        report.skip(source.name, "not a Label Studio JSON export (tasks with data and annotations)")
        return report
    root = source_root(source)
    with project.batched(auto=True):
        for n, task in enumerate(tasks):
            ref = _image_ref(task)
            try:
                where = f"task {ident(task['id'], 'id')}" if task.get("id") is not None else f"task {n + 1}"
            except BadValue as exc:
                report.skip(f"task {n + 1}", f"{exc}: not stored")
                continue
            annotations = [
                a
                for a in task.get("annotations", task.get("completions")) or []
                if isinstance(a, dict) and not a.get("was_cancelled")
            ]
            if not annotations:
                report.skip(where, "no annotation that is not cancelled")
                continue
            item = ensure_item(
                project,
                source.parent,
                ref,
                task["data"].get("reviewer_item"),
                options,
                report,
                root,
                field=f"{where} data.image",
                name_field=f"{where} data.reviewer_item",
            )
            if item is None:
                continue
            for annotation in annotations:
                gt = parse(annotation.get("result") or [], item, where, report)
                if len(annotations) == 1:
                    whose = [default]
                else:
                    whose = [annotator_name(annotation)] + ([CONSENSUS] if annotation.get("ground_truth") else [])
                for annotator in whose:
                    store_ground_truth(project, item, gt, annotator, report, options.actor)
    return report


def _pct(v: float, whole: int | None) -> float:
    return v * 100.0 / whole if whole else 0.0


#: What export_label_studio writes, to check a file it would replace (reviewer.storage.files.safe_write).
LABEL_STUDIO_FORMAT = safe_write.json_format("Label Studio JSON file", lambda data: _tasks(data) is not None)


def export_label_studio(
    items: list[tuple[Item, Path, GroundTruth]],
    out: Path,
    sources=(),
    force: bool = False,
    images: str = "copy",
) -> dict[str, Any]:
    """Write one Label Studio JSON export ``out``: a task per item
    (``data.image`` a local-files URL relative to the file's folder,
    ``data.reviewer_item``) with one annotation marked ``ground_truth``: a
    polygonlabels result per pile region, and per card with a box a
    rectanglelabels result (a plain rectangle for a card in no pile) and a
    textarea of the same id, in percent of the upright size, rotation 0.
    ``images``: 'copy' writes a copy of each photo under ``images/`` beside
    ``out`` and ``data.image`` names it (the export stands alone and imports
    back; the copies are files reviewer wrote, common.plan_image_copies);
    'reference' names the photo where it is."""
    copies = plan_image_copies(items, out.parent / "images", images, sources=sources, force=force)
    safe_write.check_target(out, LABEL_STUDIO_FORMAT, sources=sources, force=force)
    tasks = []
    counts: dict[str, Any] = {"tasks": 0, "piles": 0, "cards": 0, "skipped": []}
    for task_id, (item, photo, gt) in enumerate(items, 1):
        w, h = item.width, item.height
        base = {"to_name": "image", "original_width": w, "original_height": h, "image_rotation": 0}
        results: list[dict[str, object]] = []
        draw = drawable(item, gt, counts["skipped"])
        for k, pile in draw.regions:
            region = pile.region
            assert region is not None  # drawable keeps the piles with a region
            results.append(
                {
                    **base,
                    "id": f"pile{k}",
                    "type": "polygonlabels",
                    "from_name": "pile",
                    "value": {"points": [[_pct(x, w), _pct(y, h)] for x, y in region], "polygonlabels": [pile.label]},
                }
            )
            counts["piles"] += 1
        for k, card in draw.cards:
            b = card.bbox
            assert b is not None  # drawable keeps the cards with a box
            geo = {
                "x": _pct(b.x_min, w),
                "y": _pct(b.y_min, h),
                "width": _pct(b.x_max - b.x_min, w),
                "height": _pct(b.y_max - b.y_min, h),
                "rotation": 0,
            }
            value: dict[str, object] = dict(geo)
            rect: dict[str, object] = {**base, "id": f"card{k}", "from_name": "pile", "value": value}
            if card.pile:
                rect.update(type="rectanglelabels")
                value["rectanglelabels"] = [card.pile]
            else:
                rect.update(type="rectangle", from_name="box")
            results.append(rect)
            results.append(
                {
                    **base,
                    "id": f"card{k}",
                    "type": "textarea",
                    "from_name": "transcription",
                    "value": {**geo, "text": [card.text]},
                }
            )
            counts["cards"] += 1
        shown_at = copies.get(task_id - 1, photo)
        image = "/data/local-files/?d=" + Path(os.path.relpath(shown_at, out.parent)).as_posix()
        tasks.append(
            {
                "id": task_id,
                "data": {"image": image, "reviewer_item": item.name},
                "annotations": [
                    {
                        "id": task_id,
                        "completed_by": {"email": "reviewer"},
                        "ground_truth": True,
                        "was_cancelled": False,
                        "result": results,
                    }
                ],
                "predictions": [],
            }
        )
        counts["tasks"] += 1
    if copies:
        counts["copied images"] = write_image_copies(items, copies, sources=sources, force=force)
    safe_write.write_json(out, tasks, LABEL_STUDIO_FORMAT, sources=sources, force=force, indent=1, newline=False)
    return counts
