"""What every importer takes and reports."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from reviewer.core.models import AnswerSchema, BoxConvention, Item
from reviewer.storage.files.images import Photo, file_sha256, read_photo
from reviewer.storage.project.db import Project
from reviewer.storage.repo import runs as repo_runs

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".bmp"}


@dataclass
class ImportOptions:
    """``model``: model name for runs whose source does not say it.
    ``schemas`` / ``conventions``: per-prompt overrides of what is read from
    the prompt text. ``actor``: who imports (audit). ``max_pixels``: photos
    larger than this are not decoded whole (default
    reviewer.storage.files.images.MAX_PIXELS). ``annotator``: whose ground truth
    an annotation file holds (None: the consensus). ``human``: every verdict
    of the source is a person's label (method human; verdict formats only,
    :data:`HUMAN_FORMATS`)."""

    model: str | None = None
    schemas: dict[str, AnswerSchema] = field(default_factory=dict)
    conventions: dict[str, BoxConvention] = field(default_factory=dict)
    actor: str | None = None
    max_pixels: int | None = None
    annotator: str | None = None
    human: bool = False


#: Formats whose verdicts ``--human`` can mark as a person's.
HUMAN_FORMATS = ("jsonl-verdicts", "rubric-verdicts", "tarot-readings")


@dataclass
class ImportReport:
    """Counts of what was added and already present, and what was skipped
    with the reason for each."""

    format: str
    added: dict[str, int] = field(default_factory=dict)
    existing: dict[str, int] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def count(self, kind: str, created: bool) -> None:
        """Count one ``kind`` (items, runs, ...) as added or already present."""
        bucket = self.added if created else self.existing
        bucket[kind] = bucket.get(kind, 0) + 1

    def skip(self, what: str, why: str) -> None:
        """Record a skipped source entry and why."""
        self.skipped.append((what, why))

    def summary(self) -> str:
        """One line per fact, for the CLI."""
        fmt = lambda d: ", ".join(f"{v} {k}" for k, v in sorted(d.items())) or "nothing"  # noqa: E731
        lines = [f"format: {self.format}", f"added: {fmt(self.added)}", f"already present: {fmt(self.existing)}"]
        lines += [f"note: {n}" for n in self.notes]
        lines += [f"skipped {w}: {why}" for w, why in self.skipped]
        return "\n".join(lines)


def add_file_run(
    project: Project,
    report: ImportReport,
    options: ImportOptions,
    name: str,
    item_id: int,
    prompt_id: int,
    model: str,
    output: str,
    timestamp: str | None = None,
) -> tuple[int | None, str]:
    """Store the answer file ``name`` (its text ``output``) as a run of
    ``model`` on the item and prompt (``repo.runs.add_run``: the file name
    as its source, ``options.actor`` as who imports, and, when no
    ``options.model`` was given, the same file under another model name is
    the same run) and count it in ``report``: a conflict with a stored run
    is skipped with its reason, anything else counts as a run added or
    already present. Returns add_run's (run id or None, status)."""
    run_id, status = repo_runs.add_run(
        project,
        item_id,
        prompt_id,
        model,
        output,
        timestamp=timestamp,
        source=name,
        actor=options.actor,
        any_model=not options.model,
    )
    if status.startswith("conflict"):
        report.skip(name, status)
    else:
        report.count("runs", status == "added")
    return run_id, status


def json_depth(text: str) -> int:
    """How deep ``text`` nests JSON arrays and objects: the most ``[`` and
    ``{`` open at once outside strings (one linear scan; for messages)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def load_json(path: Path) -> Any:
    """The JSON value of the file at ``path``. Raises ValueError with the
    reason in one line: not UTF-8, not JSON, or nested deeper than
    Python's JSON reader goes (``nested 200,000 levels deep, past the
    reader's limit of about 1,000``); OSError when it cannot be read."""
    text = path.read_text(encoding="utf-8")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(nesting_message(text)) from None


def nesting_message(text: str) -> str:
    """'nested N levels deep, past the reader's limit of about L' for JSON
    ``text`` that json.loads gave up on (RecursionError)."""
    return f"nested {json_depth(text):,} levels deep, past the reader's limit of about {sys.getrecursionlimit():,}"


def too_deep(path: Path) -> str | None:
    """'PATH is JSON nested N levels deep, past ...' when the file at
    ``path`` is JSON too deep to read, else None (for a format that cannot
    be told: the reason)."""
    if not path.is_file() or path.suffix.lower() not in (".json", ".jsonl"):
        return None
    try:
        load_json(path)
    except ValueError as exc:
        return f"{path} is JSON {exc}" if str(exc).startswith("nested") else None
    except (OSError, UnicodeDecodeError):
        return None
    return None


def read_json(path: Path, max_bytes: int | None = None) -> Any:
    """The JSON value of the file at ``path``, or None when it cannot be read
    as UTF-8 JSON (or is larger than ``max_bytes``): what a format's
    detector and importer look at. Never raises."""
    try:
        if max_bytes is not None and path.stat().st_size > max_bytes:
            return None
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def photo_item(path: Path, name: str, stored_path: str, max_pixels: int | None = None) -> tuple[Item, Photo]:
    """An Item for the photo at ``path`` (sha256, upright width and height,
    EXIF orientation, ``image_note``) and what reading it found
    (reviewer.storage.files.images.read_photo: the preview, a note, or an error
    when even the header cannot be read; the item is still made, without
    size, so the window can show the error)."""
    photo = read_photo(path, max_pixels=max_pixels)
    item = Item(
        name=name,
        kind="photo",
        path=stored_path,
        sha256=file_sha256(path),
        width=photo.width,
        height=photo.height,
        orientation=photo.orientation,
        image_note=(photo.error or photo.note) or None,
    )
    return item, photo


M = TypeVar("M", bound=BaseModel)


def jsonl_lines(source: Path, model: type[M], report: ImportReport) -> Iterator[tuple[int, str, M]]:
    """Each non-empty line of a JSONL file validated as ``model``, as
    (line number, line text, value); a line that is not JSON or does not validate is
    reported as skipped (with its line number, the JSON error's column or the
    pydantic path) and left out. Reads the whole file first."""
    with source.open(encoding="utf-8", errors="replace") as fh:
        lines = list(enumerate(fh, 1))
    for number, text in lines:
        if not text.strip():
            continue
        where = f"line {number}"
        try:  # pydantic parses and validates in one pass (twice as fast as json.loads first)
            value = model.model_validate_json(text)
        except ValidationError:
            pass  # the line is read again below, for the same message as ever
        else:
            yield number, text, value
            continue
        try:
            yield number, text, model.model_validate(json.loads(text))
        except json.JSONDecodeError as exc:
            report.skip(where, f"not JSON: {exc.msg} (column {exc.colno})")
        except RecursionError:
            report.skip(where, nesting_message(text))
        except ValidationError as exc:
            err = exc.errors()[0]
            report.skip(where, f"{'.'.join(map(str, err['loc'])) or 'line'}: {err['msg']}")
