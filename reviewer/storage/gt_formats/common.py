"""What the ground-truth formats share: finding the photo an annotation
file names, making its item, taking coordinates to upright pixels, building
piles and cards, and storing them for an annotator idempotently.

Mapping rules shared by labelme, COCO and Label Studio (docs/formats.md, "Ground
truth formats"): the label or category of a shape is its **pile**; a shape
with a transcription (labelme ``description``, COCO ``attributes.text``,
Label Studio ``textarea``) is a **card** with that text and the shape's
bounding box in upright pixels; a rectangle (box) without one is a card
with no text yet, to transcribe (left out of scoring until it has text); a
polygon without one is the **region** of its pile. A box reaching outside
the image is clamped, with a note.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from reviewer.core.bounds import BadValue, pixel, pixel_size
from reviewer.core.cards.gt_agreement import CONSENSUS, CONSENSUS_NAME, same_ground_truth
from reviewer.core.cards.gt_geometry import (
    Point,
    bounds,
    clamp_box,
    clamp_points,
    drawn_on_stored_frame,
    is_empty,
    stored_to_upright,
)
from reviewer.core.models import Card, GroundTruth, Item, Pile
from reviewer.storage.files import safe_write
from reviewer.storage.files.confine import (
    Refused,
    confined_file,
    outside,
    plain_name,
    points_outside,
    safe_file_name,
    shown,
    within,
)
from reviewer.storage.files.previews import store_preview
from reviewer.storage.importers.base import IMAGE_SUFFIXES, ImportOptions, ImportReport, photo_item
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.repo import items as repo_items

#: Label Studio prefixes uploaded files with 8 hex digits and a dash.
_UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{8}-", re.I)


def annotator_of(options: ImportOptions) -> str:
    """The annotator an import writes for (``--annotator``), '' (the
    consensus) when none is given. ProjectError for the reserved name."""
    name = (options.annotator or "").strip()
    if name.casefold() == CONSENSUS_NAME:
        raise ProjectError(f"'{CONSENSUS_NAME}' is not an annotator name: leave --annotator out for the consensus")
    return name


def photo_candidates(base: Path, ref: str) -> list[Path]:
    """Where a photo named ``ref`` in an annotation file beside ``base``
    may be: ``ref`` itself (absolute, or relative to ``base``), a Label
    Studio local-files URL's ``d`` path, and the bare file name (also
    without Label Studio's upload prefix) in ``base``, ``base/images`` and
    ``base/test-images``."""
    ref = (ref or "").strip()
    if not ref:
        return []
    parsed = urlparse(ref)
    paths = []
    if parsed.query and "d" in parse_qs(parsed.query):
        paths.append(unquote(parse_qs(parsed.query)["d"][0]))
    elif parsed.scheme in ("http", "https", "s3", "gs"):
        paths.append(unquote(parsed.path))
    else:
        paths.append(unquote(ref))
    out: list[Path] = []
    for text in paths:
        p = Path(text)
        out += [p, base / p, Path("/") / p] if not p.is_absolute() else [p]
        names = [p.name, _UPLOAD_PREFIX.sub("", p.name)]
        for place in (base, base / "images", base / "test-images"):
            out += [place / n for n in dict.fromkeys(names)]
    return list(dict.fromkeys(out))


def _as_written(ref: str) -> str:
    """The local path a photo reference names as written: a Label Studio
    local-files URL's ``d``, else the reference itself; '' for a remote URL
    (http, https, s3, gs), which names no local file."""
    parsed = urlparse(ref or "")
    query = parse_qs(parsed.query)
    if "d" in query:
        return unquote(query["d"][0])
    if parsed.scheme in ("http", "https", "s3", "gs"):
        return ""
    return unquote(ref or "")


def item_name(ref: str) -> str:
    """The item name of a photo reference: its file stem, without Label
    Studio's upload prefix (the name card-folder imports give a photo)."""
    parsed = urlparse(ref)
    query = parse_qs(parsed.query)
    text = unquote(query["d"][0]) if "d" in query else unquote(parsed.path or ref)
    return _UPLOAD_PREFIX.sub("", Path(text.replace("\\", "/")).stem)


def ensure_item(
    project: Project,
    base: Path,
    ref: str,
    name: str | None,
    options: ImportOptions,
    report: ImportReport,
    root: Path,
    field: str = "image path",
    name_field: str = "reviewer_item",
) -> Item | None:
    """The item of the photo ``ref`` (named ``name`` or after the photo):
    the project's item of that name, else a new item from the photo found
    (:func:`photo_candidates`) inside ``root``, the folder the import is
    confined to (reviewer.storage.files.confine); None (reported as
    skipped, naming ``field`` or ``name_field``) when neither, when the
    photo named lies outside ``root`` with none of its name inside, or when
    ``name`` is not a plain name."""
    if name is not None:
        try:
            name = plain_name(name, name_field)
        except Refused as exc:
            report.skip(f"photo '{shown(ref)}'", str(exc))
            return None
    name = name or item_name(ref)
    existing = repo_items.item_by_name(project, name)
    if existing is not None:
        report.count("items", False)
        return existing
    try:
        path = confined_file(root, photo_candidates(base, ref), IMAGE_SUFFIXES)
    except ValueError:  # a NUL byte in the reference
        path = None
    if path is None:
        if points_outside(root, base, _as_written(ref)):
            report.skip(f"photo '{shown(ref)}'", str(outside(field, ref, root)))
        else:
            report.skip(
                f"photo '{shown(ref)}'",
                f"{field}: not found beside the annotation file (nor in images/ or "
                "test-images/) inside the folder imported",
            )
        return None
    item, photo = photo_item(path, name, project.relative(path), options.max_pixels)
    if item.image_note:
        report.notes.append(f"{path.name}: {item.image_note}")
    _, created = repo_items.upsert_item(project, item, options.actor)
    report.count("items", created)
    if photo.preview and store_preview(project, item.sha256, *photo.preview):
        report.count("previews", True)
    return repo_items.item_by_name(project, name)


def declared_size(width: object, height: object, where: str, report: ImportReport) -> tuple[float | None, float | None]:
    """The image size a file declares, as pixels, or (None, None) with a
    note when either is missing or not an image size
    (reviewer.core.bounds.pixel_size): then the upright frame is assumed."""
    if width is None and height is None:
        return None, None
    try:
        return pixel_size(width, "width"), pixel_size(height, "height")
    except BadValue as exc:
        report.notes.append(f"{where}: declared {exc}; read as upright pixels")
        return None, None


def upright(item: Item, declared_w: float | None, declared_h: float | None) -> Callable[[Point], Point]:
    """The map of a file's pixel coordinates to upright pixels of ``item``:
    identity, or the EXIF turn when the file declares the stored (sideways)
    size (reviewer.core.cards.gt_geometry, Frame). A declared size that is
    not an image size (see :func:`declared_size`) counts as none."""
    try:
        turned = drawn_on_stored_frame(declared_w, declared_h, item.orientation, item.width, item.height)
    except (TypeError, ValueError, OverflowError):
        turned = False
    if turned:
        w, h = float(declared_w), float(declared_h)  # type: ignore[arg-type]
        return lambda p: stored_to_upright(p, item.orientation, w, h)
    return lambda p: (float(p[0]), float(p[1]))


@dataclass
class GtBuilder:
    """Collects the piles (in order of first mention) and cards of one
    item's ground truth from shapes in upright pixels, clamping what reaches
    outside the image (a note each) and skipping what cannot be a card or a
    region (with why)."""

    item: Item
    where: str
    report: ImportReport
    piles: dict[str, list | None] = field(default_factory=dict)
    cards: list[Card] = field(default_factory=list)

    def pile(self, label: str | None) -> str | None:
        """Mention pile ``label`` (None or '' is no pile); returns the label."""
        if not label:
            return None
        self.piles.setdefault(label, None)
        return label

    def valid(self, points: Iterable[Point], what: str) -> list[Point] | None:
        """``points`` when every coordinate is a pixel
        (reviewer.core.bounds.pixel: finite, within +-MAX_PIXEL); else None,
        with the shape skipped and the bad value named."""
        try:
            return [(pixel(x, "x"), pixel(y, "y")) for x, y in points]
        except BadValue as exc:
            self.report.skip(f"{self.where}: {what}", f"{exc}: not stored")
            return None
        except (TypeError, ValueError):
            self.report.skip(f"{self.where}: {what}", "points are not [x, y] numbers")
            return None

    def region(self, label: str | None, points: Sequence[Point], what: str) -> None:
        """The region polygon of pile ``label``; a second region of the same
        pile, one without a label, or one with a coordinate that is not a
        pixel is skipped."""
        checked = self.valid(points, what)
        if checked is None:
            return
        points = checked
        if not label:
            self.report.skip(f"{self.where}: {what}", "a shape with neither a label nor a transcription")
            return
        if len(points) < 3:
            self.report.skip(f"{self.where}: {what}", "a region needs 3 or more points")
            return
        if self.piles.get(label):
            self.report.skip(f"{self.where}: {what}", f"pile '{label}' has a region already")
            return
        pts = [(round(float(x), 4) + 0.0, round(float(y), 4) + 0.0) for x, y in points]
        if self.item.width and self.item.height:
            pts, changed = clamp_points(pts, self.item.width, self.item.height)
            if changed:
                self.report.notes.append(
                    f"{self.where}: region of pile '{label}' reaches outside the "
                    f"{self.item.width} x {self.item.height} image; clamped"
                )
        self.piles[label] = [list(p) for p in pts]

    def card(self, text: str, label: str | None, points: Iterable[Point], what: str) -> None:
        """A card with ``text`` in pile ``label`` and the bounding box of
        ``points`` (upright pixels), clamped to the image; skipped when a
        coordinate is not a pixel."""
        checked = self.valid(points, what)
        if checked is None:
            return
        if not checked:
            self.report.skip(f"{self.where}: {what}", "no points")
            return
        box = bounds(checked)
        if self.item.width and self.item.height:
            box, changed = clamp_box(box, self.item.width, self.item.height)
            if is_empty(box):
                self.report.skip(
                    f"{self.where}: {what}",
                    f"box of card '{text}' lies outside the {self.item.width} x {self.item.height} image",
                )
                return
            if changed:
                self.report.notes.append(
                    f"{self.where}: box of card '{text}' reaches outside the "
                    f"{self.item.width} x {self.item.height} image; clamped"
                )
        self.cards.append(Card(text=text, pile=self.pile(label), bbox=box))

    def build(self) -> GroundTruth:
        """The ground truth collected."""
        return GroundTruth(
            item=self.item.name, piles=[Pile(label=k, region=v) for k, v in self.piles.items()], cards=self.cards
        )


def store_ground_truth(
    project: Project, item: Item, gt: GroundTruth, annotator: str, report: ImportReport, actor: str | None
) -> None:
    """Store ``gt`` as ``annotator``'s ground truth of ``item`` ('' the
    consensus) unless that annotator has one already: the same is counted
    as already present, a different one is kept with a note. The first
    annotator's ground truth of an item without a consensus is also its
    consensus (until adjudications change it)."""
    who = annotator or CONSENSUS_NAME
    assert item.id is not None  # a stored item
    current = repo_ground_truth.ground_truth(project, item.id, annotator)
    if current.cards or current.piles:
        report.count("ground truths", False)
        if not same_ground_truth(current, gt):
            report.notes.append(f"ground truth of '{item.name}' ({who}) differs from the file; the project's is kept")
        return
    if not gt.cards and not gt.piles:
        report.skip(f"'{item.name}'", "no card or pile in the file")
        return
    repo_ground_truth.set_ground_truth(project, item.id, gt, actor, annotator=annotator)
    report.count("ground truths", True)
    if (
        annotator != CONSENSUS
        and not repo_ground_truth.has_ground_truth(project, item.id)
        and not repo_ground_truth.ground_truth(project, item.id).piles
    ):
        repo_ground_truth.set_ground_truth(project, item.id, gt, actor)
        report.notes.append(f"'{item.name}': {annotator}'s ground truth is also the consensus (the first annotator's)")


@dataclass
class Drawable:
    """What an exporter can draw of one item's ground truth (drawable):
    ``regions`` the piles with a region and ``cards`` the cards with a box,
    each with its 1-based position in the ground truth; ``kept_piles`` the
    piles that have a region or a card (a label in use)."""

    regions: list[tuple[int, Pile]]
    cards: list[tuple[int, Card]]
    kept_piles: int


def drawable(item: Item, gt: GroundTruth, skipped: list[str]) -> Drawable:
    """The piles and cards of ``gt`` an export can draw; what it cannot is
    named in ``skipped`` (a pile with no region and no card, a card with no
    box), piles first. Shared by the labelme, COCO and Label Studio exports."""
    regions, kept = [], 0
    for k, pile in enumerate(gt.piles, 1):
        if pile.region:
            regions.append((k, pile))
        elif not any(c.pile == pile.label for c in gt.cards):
            skipped.append(f"{item.name}: pile '{pile.label}' has no region and no card")
            continue
        kept += 1
    cards = []
    for k, card in enumerate(gt.cards, 1):
        if card.bbox is None:
            skipped.append(f"{item.name}: card '{card.text}' has no box")
        else:
            cards.append((k, card))
    return Drawable(regions, cards, kept)


#: The photos an export copies (labelme beside its JSON, COCO and Label Studio
#: under images/): recognised by their first bytes (reviewer.storage.files.safe_write).
IMAGE_FORMAT = safe_write.magic_format(
    "image", b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF8", b"RIFF", b"BM", b"II*\x00", b"MM\x00*"
)
#: How an export refers to the photos: 'copy' (a copy written with the export) or 'reference'.
IMAGE_MODES = ("copy", "reference")


def plan_image_copies(
    items: Sequence[tuple[Item, Path, GroundTruth]],
    folder: Path,
    images: str,
    sources=(),
    force: bool = False,
) -> dict[int, Path]:
    """Where an export with ``images`` 'copy' writes the copy of each
    item's photo: ``folder`` / the item's name made a safe file name
    (reviewer.storage.files.confine.safe_file_name, one per item) + the photo's
    suffix in lower case, keyed by the item's position in ``items``. An item
    whose copy would lie outside ``folder`` gets none (the export then
    references its photo). {} for 'reference'. ValueError for another mode;
    TargetRefused, before anything is written, for a target that is not a
    file reviewer may replace, unless ``force`` (reviewer.storage.files.safe_write)."""
    if images not in IMAGE_MODES:
        raise ValueError(f"images is one of {', '.join(IMAGE_MODES)}, not '{images}'")
    copies: dict[int, Path] = {}
    if images != "copy":
        return copies
    used: set[str] = set()
    for k, (item, photo, _) in enumerate(items):
        name = safe_file_name(item.name, used) + photo.suffix.lower()
        target = Path(folder) / name
        if Path(folder).exists():
            try:
                target = within(folder, name)
            except Refused:
                continue
        safe_write.check_target(target, IMAGE_FORMAT, sources=sources, force=force)
        copies[k] = target
    return copies


def write_image_copies(
    items: Sequence[tuple[Item, Path, GroundTruth]], copies: dict[int, Path], sources=(), force: bool = False
) -> int:
    """Write the copies planned by plan_image_copies (each photo's bytes,
    replaced whole through reviewer.storage.files.safe_write, so they count as
    files reviewer wrote). Returns how many were written."""
    for k, target in copies.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        safe_write.write_bytes(target, items[k][1].read_bytes(), IMAGE_FORMAT, sources=sources, force=force)
    return len(copies)
