"""Reduced previews of large photos, stored in the project (table previews).

A 24 MP JPEG takes a tenth of a second or more to decode even at a reduced
size, because the whole file must be entropy-decoded. A 1280-px preview made
once at import (as photo managers do) decodes in a few milliseconds, so the
review window shows a photo at once and sharpens it when the full decode
arrives. Previews are upright (EXIF applied), keyed by the file's sha256.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Optional

from PIL import Image, ImageOps, UnidentifiedImageError

from reviewer.storage.db import Project

#: Long side of a preview in pixels; photos no larger get none.
PREVIEW_SIDE = 1280
QUALITY = 80


def make_preview(path: Path, side: int = PREVIEW_SIDE) -> Optional[tuple[bytes, int, int]]:
    """(JPEG bytes, width, height) of an upright preview of the photo at
    ``path`` whose long side is at most ``side``; None when the photo is
    that small already or cannot be read (never raises)."""
    try:
        with Image.open(path) as im:
            if max(im.size) <= side:
                return None
            im.draft("RGB", (side, side))  # JPEG: decode at 1/2, 1/4 or 1/8 scale
            im = ImageOps.exif_transpose(im)
            im = im.convert("RGB")
            im.thumbnail((side, side), Image.Resampling.BILINEAR)
            buf = io.BytesIO()
            im.save(buf, "JPEG", quality=QUALITY)
            return buf.getvalue(), im.width, im.height
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None


def ensure_preview(project: Project, path: Path, sha256: Optional[str]) -> bool:
    """Make and store the preview of a photo unless it is there or not
    needed. Returns True when one was stored."""
    if not sha256 or has_preview(project, sha256):
        return False
    made = make_preview(path)
    if made is None:
        return False
    data, width, height = made
    with project.transaction():
        project.db.execute("INSERT OR IGNORE INTO previews (sha256, width, height, jpeg) VALUES (?, ?, ?, ?)",
                           [sha256, width, height, data])
    return True


def has_preview(project: Project, sha256: str) -> bool:
    """True when a preview of the photo with ``sha256`` is stored."""
    return project.db.execute("SELECT 1 FROM previews WHERE sha256 = ?", [sha256]).fetchone() is not None


def preview(project: Project, sha256: Optional[str]) -> Optional[bytes]:
    """The stored preview JPEG of the photo with ``sha256``, or None."""
    if not sha256:
        return None
    row = project.db.execute("SELECT jpeg FROM previews WHERE sha256 = ?", [sha256]).fetchone()
    return bytes(row[0]) if row else None
