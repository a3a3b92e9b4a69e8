"""Reading photos at import: size, orientation, a preview, problems.

Every format Pillow reads is handled alike (JPEG, PNG, WebP, TIFF, BMP):

* **Header first.** The size is read from the header before anything is
  decoded. A photo over ``MAX_PIXELS`` (default 100 MP, setting
  ``REVIEWER_MAX_PIXELS``) is not decoded whole: a JPEG is decoded at 1/2,
  1/4 or 1/8 scale (Pillow ``draft``), other formats get no preview; either
  way the import prints one line (``too large ...``). Pillow's own
  DecompressionBombWarning / Error never reach the terminal (its limit is
  lifted while reviewer reads, under a lock, and ours applies instead).
* **EXIF orientation applied once.** ``orientation`` is the file's EXIF
  value (1-8); the stored width and height are of the upright photo, and the
  preview is upright. TIFF decoders already turn the pixels (Pillow reports
  the upright size and drops the tag on decode), so the turn is applied
  only when the decoded image still carries the tag.
* **Colour as a person expects.** 16-bit and 32-bit greyscale are
  stretched to their own maximum (a 16-bit PNG is not clipped to white),
  palette and transparent images are laid on white, CMYK, 1-bit, LAB and
  the rest are converted to RGB.
* **Truncated files.** A file whose data ends early is decoded as far as it
  goes, and gets the note ``truncated: ...`` (stored as the item's
  ``image_note`` for the window).

Memory: the largest image decoded whole is MAX_PIXELS at 4 bytes a pixel
(Pillow keeps RGB in 4), so an import stays under about 500 MB.
"""

from __future__ import annotations

import hashlib
import io
import os
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageFile, UnidentifiedImageError

#: Largest photo (pixels) decoded whole at import.
MAX_PIXELS = int(os.environ.get("REVIEWER_MAX_PIXELS") or 100_000_000)
#: Long side of a stored preview in pixels.
PREVIEW_SIDE = 1280
QUALITY = 80
#: EXIF orientations that swap width and height when made upright.
SWAPS = {5, 6, 7, 8}
#: EXIF orientation -> the Pillow transpose that makes the pixels upright.
UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_ORIENTATION_TAG = 274
_PILLOW = threading.Lock()  # Pillow's bomb limit and truncation switch are globals


@dataclass
class Photo:
    """What reading a photo found. ``width`` / ``height``: upright size in
    pixels (None when even the header could not be read); ``orientation``:
    the file's EXIF orientation (1 when none); ``preview``: (JPEG bytes,
    width, height) of an upright preview whose long side is at most the
    asked side, or None (photo that small, too large, or undecodable);
    ``note``: one line for the user and the window, or ''; ``error``: the
    header could not be read."""

    width: int | None = None
    height: int | None = None
    orientation: int = 1
    preview: tuple[bytes, int, int] | None = None
    note: str = ""
    error: str = ""


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of the file at ``path``, read in chunks (bounded memory)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _orientation(im: Image.Image, header_only: bool) -> int | None:
    """The EXIF orientation of ``im`` (1-8), None when it has none. With
    ``header_only``, a PNG whose EXIF comes after its pixel data is not
    decoded to find it (Pillow would load the whole image)."""
    if header_only and im.format == "PNG" and "exif" not in im.info:
        return None
    try:
        tag = im.getexif().get(_ORIENTATION_TAG)
    except (OSError, ValueError, TypeError, SyntaxError):
        return None
    if tag is None:  # int(None) is a TypeError: no orientation
        return None
    try:
        value = int(tag)
    except (TypeError, ValueError):
        return None
    return value if 1 <= value <= 8 else None


def _stored_size(im: Image.Image) -> tuple[int, int]:
    """Width and height of the pixels as stored (before orientation). TIFF
    reports its upright size, so its size tags are read instead."""
    tags = getattr(im, "tag_v2", None)
    if im.format == "TIFF" and tags is not None and 256 in tags and 257 in tags:
        return int(tags[256]), int(tags[257])
    return im.size


def _mp(pixels: int) -> str:
    return f"{pixels / 1e6:.0f} MP"


def _to_rgb(im: Image.Image) -> Image.Image:
    """A small decoded image as RGB the way a viewer shows it (see module doc)."""
    if im.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        if im.mode != "F":
            im = im.convert("I") if im.mode != "I" else im
        lo, hi = im.getextrema()  # one band here: two numbers (Pillow types it for any band count)
        top = hi if isinstance(hi, (int, float)) and hi > 0 else 1
        im = im.point(lambda v: v * (255.0 / top)).convert("L") if top > 255 or im.mode == "F" else im.convert("L")
    if im.mode == "1":
        im = im.convert("L")
    alpha = im.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in im.info
    if alpha:
        im = im.convert("RGBA")
        white = Image.new("RGBA", im.size, (255, 255, 255, 255))
        white.alpha_composite(im)
        return white.convert("RGB")
    return im if im.mode == "RGB" else im.convert("RGB")


def _shrink(im: Image.Image, side: int) -> Image.Image:
    """``im`` (decoded) made at most ``side`` on its long side, with as
    little memory as the mode allows."""
    if max(im.size) <= side:
        return im
    scale = side / max(im.size)
    size = (max(1, round(im.width * scale)), max(1, round(im.height * scale)))
    if im.mode in ("P", "PA", "1"):
        # no smooth resampling of palettes: pick pixels down to twice the size, then smooth
        near = (min(im.width, size[0] * 2), min(im.height, size[1] * 2))
        im = im.resize(near, Image.Resampling.NEAREST)
        im = im.convert("RGBA" if "transparency" in im.info or im.mode == "PA" else "RGB")
    if im.mode.startswith("I;16"):
        return im.resize(size, Image.Resampling.BILINEAR, reducing_gap=None)
    im = im.copy() if im.readonly else im
    im.thumbnail((side, side), Image.Resampling.BILINEAR)
    return im


def read_photo(path: Path, side: int = PREVIEW_SIDE, max_pixels: int | None = None) -> Photo:
    """Read the photo at ``path``: upright size and orientation from the
    header, then (unless over ``max_pixels``, MAX_PIXELS by default) a
    decode that checks the file is whole and, for a photo larger than
    ``side``, makes the upright preview (see module doc). Never raises:
    an unreadable header gives ``error``, a decode problem ``note``."""
    limit = MAX_PIXELS if max_pixels is None else max_pixels
    with _PILLOW:
        old_limit, old_truncated = Image.MAX_IMAGE_PIXELS, ImageFile.LOAD_TRUNCATED_IMAGES
        Image.MAX_IMAGE_PIXELS = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                return _read(Path(path), side, limit)
        finally:
            Image.MAX_IMAGE_PIXELS, ImageFile.LOAD_TRUNCATED_IMAGES = old_limit, old_truncated


def _read(path: Path, side: int, limit: int) -> Photo:
    """``read_photo`` under its Pillow settings: the header's size and orientation, then
    the decode (``_decode``) and, for a photo larger than ``side``, the preview."""
    try:
        im = Image.open(path)
    except (UnidentifiedImageError, OSError, ValueError, TypeError, SyntaxError) as exc:
        return Photo(error=f"cannot read image: {exc}")
    with im:
        try:
            w, h = _stored_size(im)
        except (ValueError, TypeError) as exc:
            return Photo(error=f"cannot read image: {exc}")
        orientation = _orientation(im, header_only=True)
        photo = Photo(width=w, height=h, orientation=orientation or 1)
        if photo.orientation in SWAPS:
            photo.width, photo.height = h, w
        draft = im.format == "JPEG" and max(w, h) > side
        if draft:
            im.draft("RGB" if im.mode == "RGB" else None, (side, side))  # JPEG: 1/2, 1/4, 1/8 scale
        if not _within_limit(im, photo, w, h, limit):
            return photo
        decoded = _decode(path, im, photo, draft, side)
        if decoded is None:
            return photo
        if orientation is None:  # a PNG with its EXIF after the pixels: known now
            late = _orientation(decoded, header_only=False)
            if late:
                photo.orientation = late
                if late in SWAPS:
                    photo.width, photo.height = h, w
        still = _orientation(decoded, header_only=False)  # None when the decoder turned the pixels itself
        if max(w, h) <= side:
            return photo
        photo.preview = _preview(decoded, side, still)
        return photo


def _within_limit(im: Image.Image, photo: Photo, w: int, h: int, limit: int) -> bool:
    """Whether the pixels to decode (``im.size``, after a JPEG draft) are within ``limit``.
    Notes on ``photo`` a photo too large to decode (no preview), or one over the limit
    whose reduced decode is within it."""
    pixels = w * h
    decoded = im.size[0] * im.size[1]
    if decoded > limit:
        photo.note = f"too large to decode ({w} x {h}, {_mp(pixels)}; the limit is {_mp(limit)}): no preview"
        return False
    if pixels > limit:
        photo.note = (
            f"too large ({w} x {h}, {_mp(pixels)}; the limit is {_mp(limit)}): preview made from a reduced decode"
        )
    return True


def _decode(path: Path, im: Image.Image, photo: Photo, draft: bool, side: int) -> Image.Image | None:
    """The decoded image: ``im`` loaded, or for a truncated file ``path`` opened again with
    truncated images allowed (the missing part grey; ``draft``: drafted to ``side`` again).
    None when it cannot be decoded; ``photo.note`` says why (and notes a truncation)."""
    try:
        im.load()
    except OSError as exc:
        if "truncated" not in str(exc).lower() and "broken data stream" not in str(exc).lower():
            photo.note = f"cannot decode the image: {exc}"
            return None
        photo.note = "truncated: the file ends early; the missing part shows grey"
        ImageFile.LOAD_TRUNCATED_IMAGES = True
        try:
            im = Image.open(path)
            if draft:
                im.draft("RGB" if im.mode == "RGB" else None, (side, side))
            im.load()
        except (OSError, ValueError) as again:
            photo.note = f"truncated and cannot be decoded: {again}"
            return None
    except (ValueError, SyntaxError, MemoryError) as exc:
        photo.note = f"cannot decode the image: {exc}"
        return None
    return im


def _preview(im: Image.Image, side: int, still: int | None) -> tuple[bytes, int, int]:
    """The upright JPEG preview of the decoded ``im`` within ``side`` pixels: (bytes, width,
    height); turned by the orientation ``still`` when the decoder left the pixels as stored."""
    small = _to_rgb(_shrink(im, side))
    if still in UPRIGHT:
        small = small.transpose(UPRIGHT[still])
    buf = io.BytesIO()
    small.save(buf, "JPEG", quality=QUALITY)
    return (buf.getvalue(), small.width, small.height)
