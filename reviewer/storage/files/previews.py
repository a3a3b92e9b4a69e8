"""Reduced previews of large photos, stored in the project (table previews).

A 24 MP JPEG takes a tenth of a second or more to decode even at a reduced
size, because the whole file must be entropy-decoded. A 1280-px preview made
once at import (as photo managers do) decodes in a few milliseconds, so the
review window shows a photo at once and sharpens it when the full decode
arrives. Previews are upright (EXIF applied once, for every format), in
colours a viewer expects, keyed by the file's sha256; they are made by
reviewer.storage.files.images.read_photo, with bounded memory.
"""

from __future__ import annotations

from pathlib import Path

from reviewer.storage.files.images import PREVIEW_SIDE, read_photo
from reviewer.storage.project.db import Project

__all__ = ["ensure_preview", "has_preview", "make_preview", "preview", "store_preview"]


def make_preview(path: Path, side: int = PREVIEW_SIDE) -> tuple[bytes, int, int] | None:
    """(JPEG bytes, width, height) of an upright preview of the photo at
    ``path`` whose long side is at most ``side``; None when the photo is
    that small already, too large or cannot be read (never raises)."""
    return read_photo(Path(path), side).preview


def store_preview(project: Project, sha256: str | None, data: bytes, width: int, height: int) -> bool:
    """Store a preview (JPEG bytes, upright size) of the photo with
    ``sha256`` unless one is there. Returns True when it was stored."""
    if not sha256 or has_preview(project, sha256):
        return False
    with project.transaction():
        cur = project.db.execute(
            "INSERT OR IGNORE INTO previews (sha256, width, height, jpeg) VALUES (?, ?, ?, ?)",
            [sha256, width, height, data],
        )
    return cur.rowcount > 0


def ensure_preview(project: Project, path: Path, sha256: str | None) -> bool:
    """Make and store the preview of a photo unless it is there or not
    needed. Returns True when one was stored."""
    if not sha256 or has_preview(project, sha256):
        return False
    made = make_preview(path)
    return made is not None and store_preview(project, sha256, *made)


def has_preview(project: Project, sha256: str) -> bool:
    """True when a preview of the photo with ``sha256`` is stored."""
    return project.db.execute("SELECT 1 FROM previews WHERE sha256 = ?", [sha256]).fetchone() is not None


def preview(project: Project, sha256: str | None) -> bytes | None:
    """The stored preview JPEG of the photo with ``sha256``, or None."""
    if not sha256:
        return None
    row = project.db.execute("SELECT jpeg FROM previews WHERE sha256 = ?", [sha256]).fetchone()
    return bytes(row[0]) if row else None
