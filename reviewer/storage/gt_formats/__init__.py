"""Ground truth in and out of annotation tools (docs/formats.md): labelme, COCO
and Label Studio files import as piles and cards of an annotator (or the
consensus), and export back; the analysts' export gains gt_piles and
gt_cards. The mapping is in docs/formats.md ("Ground truth formats") and in each
module's docstring."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import Any

from reviewer.core.bounds import drawable_points
from reviewer.core.cards.gt_agreement import CONSENSUS, CONSENSUS_NAME, shown
from reviewer.storage.annotators.ground_truth import annotators
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo.sources import import_sources

#: export format name -> (module, writer(items, out))
EXPORTERS = {
    "coco": ("coco", "export_coco"),
    "labelme": ("labelme", "export_labelme"),
    "label-studio": ("label_studio", "export_label_studio"),
}


def format_function(module: str, name: str) -> Callable:
    """The function ``name`` of format module ``module``, imported when
    first asked (the format modules use the importers' base module)."""
    return getattr(import_module(f"reviewer.storage.gt_formats.{module}"), name)


GT_PILE_COLUMNS = {"item": str, "annotator": str, "pile": str, "region": str}
GT_CARD_COLUMNS = {
    "item": str,
    "annotator": str,
    "pile": str,
    "text": str,
    "x_min": float,
    "y_min": float,
    "x_max": float,
    "y_max": float,
}


def export_ground_truth(
    project: Project,
    out: Path,
    fmt: str,
    annotator: str | None = None,
    force: bool = False,
    images: str = "copy",
) -> dict[str, Any]:
    """Write the ground truth of ``annotator`` (None or 'consensus': the
    consensus) of every photo item that has one to ``out`` in ``fmt``
    (coco and label-studio: one JSON file; labelme: a folder with one JSON
    per photo). Returns counts and what was skipped. ProjectError for an
    unknown format or annotator, or when ``out`` cannot be written (the
    previous file is left whole); TargetRefused, before anything is
    written, for a project, a file of another format or a target inside a
    source the project was imported from, unless ``force``
    (reviewer.storage.files.safe_write). ``images``: 'copy' writes a copy of each
    photo beside its JSON (labelme) or under ``images/`` beside the file
    (coco, label-studio), 'reference' points at it where it is
    (gt_formats.common.plan_image_copies)."""
    if fmt not in EXPORTERS:
        raise ProjectError(f"unknown ground-truth format '{fmt}' (known: {', '.join(EXPORTERS)})")
    who = CONSENSUS if annotator in (None, "", CONSENSUS_NAME) else annotator
    if who and who not in annotators(project):
        raise ProjectError(f"no annotator '{who}' (known: {', '.join(annotators(project)) or 'none'})")
    items = []
    for item in repo_items.items(project):
        if item.kind != "photo" or not item.path:
            continue
        assert item.id is not None  # read from the database
        gt = repo_ground_truth.ground_truth(project, item.id, who)
        if gt.cards or gt.piles:
            items.append((item, project.resolve(item.path).resolve(), gt))
    out = Path(out)  # not resolved: a symbolic link OUT is safe_write's to refuse (or follow with force)
    try:
        writer = format_function(*EXPORTERS[fmt])
        counts = writer(items, out, sources=import_sources(project), force=force, images=images)
    except OSError as exc:
        raise ProjectError(f"cannot write {out}: {exc}") from exc
    counts["annotator"] = shown(who)
    return counts


def gt_tables(project: Project) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The analysts' export tables gt_piles (item, annotator, pile, region
    as JSON) and gt_cards (item, annotator, pile, text, x_min, y_min, x_max,
    y_max in upright pixels) of every annotator and the consensus
    (annotator 'consensus')."""
    names = dict(project.db.execute("SELECT id, name FROM items").fetchall())
    piles, cards = [], []
    labels = {}
    for pid, item_id, annotator, label, region in project.db.execute(
        "SELECT id, item_id, annotator, label, region FROM piles ORDER BY item_id, annotator, position, id"
    ):
        labels[pid] = label
        value = json.loads(region) if region else None
        drawn = value is not None and drawable_points(value) is not None  # NaN or infinity stored: no region
        piles.append((names.get(item_id), shown(annotator), label, json.dumps(value) if drawn else None))
    for item_id, annotator, pile_id, text, x0, y0, x1, y1 in project.db.execute(
        "SELECT item_id, annotator, pile_id, text, x_min, y_min, x_max, y_max FROM cards "
        "ORDER BY item_id, annotator, position, id"
    ):
        cards.append((names.get(item_id), shown(annotator), labels.get(pile_id), text, x0, y0, x1, y1))
    return [("gt_piles", GT_PILE_COLUMNS, None, piles), ("gt_cards", GT_CARD_COLUMNS, None, cards)]


__all__ = ["EXPORTERS", "format_function", "GT_CARD_COLUMNS", "GT_PILE_COLUMNS", "export_ground_truth", "gt_tables"]
