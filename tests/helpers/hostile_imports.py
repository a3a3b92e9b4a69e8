"""Hostile files to import (issue "Every input bounded and confined", part
A): each maker writes one source under ``base`` as other people's tools
might, and returns the path to give ``reviewer import``. A secret file
outside the source (``secret_photo``, ``secret_text``) is what must never
be read. Shared by the confinement, values and window tests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.helpers.paths import SAMPLES

PHOTO = SAMPLES / "test-images" / "table-01.jpg"  # 1600 x 1200


def secret_photo(base: Path) -> Path:
    """A private photo outside every source made here."""
    path = base / "secret" / "private-photo.jpg"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(PHOTO, path)
    return path


def secret_text(base: Path) -> Path:
    """A private text outside every source made here (an /etc/hostname or an id_rsa)."""
    path = base / "secret" / "id_rsa"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("-----BEGIN PRIVATE KEY----- never to be read\n")
    return path


def folder_with_photo(base: Path, name: str = "photos") -> Path:
    """A folder holding table-01.jpg."""
    folder = base / name
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(PHOTO, folder / "table-01.jpg")
    return folder


def labelme_doc(image_path: str, shapes: list[dict]) -> dict:
    """A labelme file naming ``image_path``."""
    return {
        "version": "5.5.0",
        "flags": {},
        "shapes": shapes,
        "imagePath": image_path,
        "imageData": None,
        "imageHeight": 1200,
        "imageWidth": 1600,
    }


def rect(label: str, points, text: str = "", **extra) -> dict:
    """A labelme rectangle (a card when it has ``text``)."""
    return {"label": label, "points": points, "description": text, "shape_type": "rectangle", "flags": {}, **extra}


def write_json_text(path: Path, text: str) -> Path:
    """Write JSON text as a tool would (NaN and Infinity are what Python's json writes for them)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def labelme_bad_numbers(base: Path) -> Path:
    """labelme points [[NaN, 20], [300, Infinity]] and 1e309, a polygon with a
    NaN (a region), a group_id that is a list, beside one good card."""
    folder = folder_with_photo(base, "labelme-numbers")
    shapes = [
        rect("left", [[10, 20], [300, 200]], "Good card"),
        rect("left", [["NaN", 20], [300, "Infinity"]], "NaN card"),
        rect("left", [[10, 20], [300, "1e309"]], "Huge card"),
        {
            "label": "left",
            "points": [[10, 20], [300, 40], ["NaN", 50]],
            "description": "",
            "shape_type": "polygon",
            "flags": {},
        },
        rect("right", [[10, 20], [300, 40]], "Listed group", group_id=[1]),
    ]
    text = json.dumps(labelme_doc("table-01.jpg", shapes))
    for word in ("NaN", "Infinity", "1e309"):
        text = text.replace(f'"{word}"', word)
    write_json_text(folder / "table-01.json", text)
    return folder


def label_studio_bad_numbers(base: Path) -> Path:
    """Label Studio results with x NaN, width 1e308 and original_width a list."""
    folder = folder_with_photo(base, "ls-numbers")

    def result(rid, value, **extra):
        return [
            {
                "id": rid,
                "type": "rectanglelabels",
                "from_name": "pile",
                "to_name": "image",
                "original_width": 1600,
                "original_height": 1200,
                **extra,
                "value": {"rotation": 0, "rectanglelabels": ["left"], **value},
            },
            {
                "id": rid,
                "type": "textarea",
                "from_name": "transcription",
                "to_name": "image",
                "value": {"text": [f"card {rid}"]},
            },
        ]

    results = (
        result("good", {"x": 10, "y": 10, "width": 10, "height": 10})
        + result("nan", {"x": "NaN", "y": 10, "width": 10, "height": 10})
        + result("huge", {"x": 10, "y": 10, "width": 1e308, "height": 10})
        + result("listed", {"x": 10, "y": 10, "width": 10, "height": 10}, original_width=[1600])
    )
    tasks = [
        {
            "id": 1,
            "data": {"image": "/data/upload/1/1a2b3c4d-table-01.jpg"},
            "annotations": [{"id": 1, "result": results}],
        }
    ]
    return write_json_text(folder / "export.json", json.dumps(tasks).replace('"NaN"', "NaN"))


def coco_bad_ids(base: Path) -> Path:
    """COCO ids given as lists (an image, a category, an annotation's
    image_id and category_id), beside a good image and annotation."""
    folder = folder_with_photo(base, "coco-ids")
    doc = {
        "images": [
            {"id": 1, "file_name": "table-01.jpg", "width": 1600, "height": 1200},
            {"id": [2], "file_name": "table-01.jpg", "width": 1600, "height": 1200},
        ],
        "categories": [{"id": 1, "name": "left"}, {"id": [9], "name": "bad"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 100, 50], "attributes": {"text": "Good card"}},
            {
                "id": 2,
                "image_id": [1],
                "category_id": 1,
                "bbox": [10, 10, 100, 50],
                "attributes": {"text": "Listed image"},
            },
            {
                "id": 3,
                "image_id": 1,
                "category_id": [1],
                "bbox": [10, 10, 100, 50],
                "attributes": {"text": "Listed category"},
            },
            {"id": 4, "image_id": 1, "category_id": 1, "bbox": [10, 10, "NaN", 50], "attributes": {"text": "NaN box"}},
            {"id": 5, "image_id": 1, "category_id": 1, "segmentation": [[1, 1, 50, 1, "NaN", 40]]},
        ],
    }
    return write_json_text(folder / "coco.json", json.dumps(doc).replace('"NaN"', "NaN"))


def card_folder_nan_region(base: Path) -> Path:
    """A card folder whose ground-truth.json has a region with NaN (and a
    good card), and a second photo whose card box reaches 1e300."""
    folder = base / "cards-nan"
    (folder / "test-images").mkdir(parents=True)
    shutil.copy(PHOTO, folder / "test-images" / "table-01.jpg")
    shutil.copy(PHOTO, folder / "test-images" / "table-02.jpg")
    gt = {
        "table-01": {
            "piles": [
                {
                    "label": "left",
                    "region": [[0, 0], ["NaN", 0], [10, 10]],
                    "cards": [{"text": "A", "bbox": {"x_min": 0, "y_min": 0, "x_max": 5, "y_max": 10}}],
                }
            ]
        },
        "table-02": {
            "piles": [
                {
                    "label": "left",
                    "cards": [{"text": "B", "bbox": {"x_min": 0, "y_min": 0, "x_max": 1e300, "y_max": 10}}],
                }
            ]
        },
    }
    write_json_text(
        folder / "test-images" / "ground-truth.json",
        json.dumps(gt).replace('"NaN"', "NaN").replace('"Infinity"', "Infinity"),
    )
    return folder


def cicada_nan(base: Path) -> Path:
    """A CICADA dataset whose first case has "citationCount": NaN."""
    cases = [
        {
            "id": "cite-nan",
            "query": "Who is Rena?",
            "context": {"userId": "u"},
            "expectedBehavior": {"shouldCite": True, "citationCount": "NaN"},
            "metadata": {"category": "citation"},
        },
        {
            "id": "cite-ok",
            "query": "Who is Mion?",
            "context": {"userId": "u"},
            "expectedBehavior": {"shouldCite": True, "citationCount": 1},
            "metadata": {"category": "citation"},
        },
    ]
    return write_json_text(base / "cicada" / "citation-accuracy.json", json.dumps(cases).replace('"NaN"', "NaN"))


def golden_huge_offset(base: Path) -> Path:
    """A golden set with a span at offset 10^20 beside a good one."""
    doc = {
        "metadata": {"name": "g"},
        "prompts": [
            {
                "id": "golden-1",
                "text": "hello world",
                "groundTruth": {
                    "spans": [
                        {"text": "hello", "start": 0, "end": 5, "role": "Subject.identity"},
                        {"text": "x", "start": 10**20, "end": 10**20 + 1, "role": "Subject.identity"},
                    ]
                },
            }
        ],
    }
    return write_json_text(base / "golden" / "golden-set.json", json.dumps(doc))


def span_snapshot_bad_numbers(base: Path) -> Path:
    """A span-labeling judge snapshot whose spans start at 10^20, at
    Infinity and have a NaN confidence."""
    output = "Medium Shot of a woman dribbling a basketball."
    spans = [
        {"text": "Medium Shot", "role": "shot.type", "confidence": 1, "start": 0, "end": 11},
        {"text": "woman", "role": "subject.identity", "confidence": "NaN", "start": 17, "end": 22},
        {"text": "dribbling", "role": "action.movement", "confidence": 0.9, "start": 10**20, "end": 10**20 + 9},
        {"text": "basketball", "role": "subject.identity", "confidence": 0.9, "start": "Infinity", "end": 45},
    ]
    judge = {
        "scores": {"coverage": 4, "precision": 5, "granularity": 5, "taxonomy": 4, "technicalSpecs": 5},
        "totalScore": 23,
        "missedElements": [],
        "falsePositives": [],
        "taxonomyErrors": [],
        "granularityErrors": [],
        "notes": "fine",
    }
    doc = {
        "timestamp": "2025-12-25T07:46:36.252Z",
        "promptCount": 1,
        "judgeModel": "gpt-4o-mini",
        "results": [
            {
                "promptId": "p1",
                "input": "woman dribbling",
                "output": output,
                "spanCount": 4,
                "spans": spans,
                "judgeResult": judge,
                "error": None,
                "latencyMs": 100,
            }
        ],
    }
    text = json.dumps(doc).replace('"NaN"', "NaN").replace('"Infinity"', "Infinity")
    return write_json_text(base / "snapshots" / "baseline.json", text)


def coco_reviewer_item_escape(base: Path) -> Path:
    """A COCO file whose image has "reviewer_item": "../../../../pwned"."""
    folder = folder_with_photo(base, "coco-escape")
    doc = {
        "images": [
            {"id": 1, "file_name": "table-01.jpg", "width": 1600, "height": 1200, "reviewer_item": "../../../../pwned"}
        ],
        "categories": [{"id": 1, "name": "left"}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [10, 10, 100, 50], "attributes": {"text": "A card"}}
        ],
    }
    return write_json_text(folder / "coco.json", json.dumps(doc))


def label_studio_reviewer_item_escape(base: Path) -> Path:
    """A Label Studio task whose data.reviewer_item is '../../../../pwned'."""
    folder = folder_with_photo(base, "ls-escape")
    tasks = [
        {
            "id": 1,
            "data": {"image": "table-01.jpg", "reviewer_item": "../../../../pwned"},
            "annotations": [
                {
                    "id": 1,
                    "result": [
                        {
                            "id": "r",
                            "type": "rectanglelabels",
                            "from_name": "pile",
                            "to_name": "image",
                            "original_width": 1600,
                            "original_height": 1200,
                            "value": {
                                "x": 1,
                                "y": 1,
                                "width": 5,
                                "height": 5,
                                "rotation": 0,
                                "rectanglelabels": ["left"],
                            },
                        },
                        {
                            "id": "r",
                            "type": "textarea",
                            "from_name": "t",
                            "to_name": "image",
                            "value": {"text": ["A card"]},
                        },
                    ],
                }
            ],
        }
    ]
    return write_json_text(folder / "export.json", json.dumps(tasks))


def labelme_outside(base: Path, how: str) -> Path:
    """A labelme file (beside no photo of that name) whose imagePath names
    the secret photo: 'absolute', 'relative' (../../secret/...),
    'root-relative' (the absolute path without its leading '/') or
    'symlink' (a photo.jpg in the folder that links to it)."""
    secret = secret_photo(base)
    folder = base / f"labelme-{how}"
    folder.mkdir(parents=True, exist_ok=True)
    ref = {
        "absolute": str(secret),
        "relative": "../secret/private-photo.jpg",
        "root-relative": str(secret).lstrip("/"),
        "symlink": "private-photo.jpg",
    }[how]
    if how == "symlink":
        (folder / "private-photo.jpg").symlink_to(secret)
    shapes = [rect("left", [[10, 20], [300, 200]], "A card")]
    return write_json_text(folder / "private-photo.json", json.dumps(labelme_doc(ref, shapes)))


def failter_outside(base: Path) -> Path:
    """A bare Failter artifacts folder in an experiment (a spec beside it)
    whose outputs name an input and a template outside the experiment:
    one input also exists inside by its last parts, one does not."""
    secret = secret_text(base)
    exp = base / "experiment"
    (exp / "exp1" / "inputs").mkdir(parents=True)
    (exp / "exp1" / "inputs" / "doc1.md").write_text("# Doc 1, the copy inside\n")
    (exp / "spec.yml").write_text("version: 2\ninputs_dir: ./exp1/inputs\nartifacts_dir: ./artifacts\n")
    art = exp / "artifacts" / "m_cleanup"
    art.mkdir(parents=True)
    outside_doc = base / "elsewhere" / "exp1" / "inputs" / "doc1.md"  # outside: its last parts are inside
    outside_doc.parent.mkdir(parents=True)
    outside_doc.write_text("# Doc 1, the copy OUTSIDE, never to be read\n")
    for doc, where in (("doc1.md", str(outside_doc)), ("doc2.md", str(secret))):
        (art / doc).write_text(
            f"---\nfiltered-by-model: m\nfiltered-by-template: cleanup.md\n"
            f"source-input-path: {where}\nsource-template-path: {secret}\n---\nbody of {doc}\n"
        )
    return exp / "artifacts"


HOSTILE = {
    "labelme-numbers": labelme_bad_numbers,
    "label-studio-numbers": label_studio_bad_numbers,
    "coco-ids": coco_bad_ids,
    "card-folder-nan": card_folder_nan_region,
    "cicada-nan": cicada_nan,
    "golden-offset": golden_huge_offset,
    "span-snapshot-numbers": span_snapshot_bad_numbers,
    "coco-escape": coco_reviewer_item_escape,
    "label-studio-escape": label_studio_reviewer_item_escape,
    "labelme-absolute": lambda base: labelme_outside(base, "absolute"),
    "labelme-symlink": lambda base: labelme_outside(base, "symlink"),
    "failter-outside": failter_outside,
}
