"""Photos as the model sees them: upright (EXIF orientation applied with
``ImageOps.exif_transpose``), downscaled so the longer side is at most
``max_side`` pixels (never upscaled), encoded as JPEG (PNG when the photo
has transparency) in a base64 ``data:`` URL for an ``image_url`` content
part (docs/runner.md)."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image, ImageOps

DEFAULT_MAX_SIDE = 1536
JPEG_QUALITY = 90


def image_data_url(path: Path, max_side: int = DEFAULT_MAX_SIDE) -> tuple[str, tuple[int, int]]:
    """(data URL, (width, height) sent) of the photo at ``path``.

    Raises OSError (file missing, not an image: PIL.UnidentifiedImageError
    is an OSError) and ValueError for ``max_side`` < 1."""
    if max_side < 1:
        raise ValueError("max_side must be at least 1 pixel")
    im: Image.Image
    with Image.open(path) as im:
        im = ImageOps.exif_transpose(im)
        im.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
        alpha = im.mode in ("RGBA", "LA") or (im.mode == "P" and "transparency" in im.info)
        buf = io.BytesIO()
        if alpha:
            im.save(buf, format="PNG", optimize=True)
            mime = "image/png"
        else:
            im.convert("RGB").save(buf, format="JPEG", quality=JPEG_QUALITY)
            mime = "image/jpeg"
        size = im.size
    return f"data:{mime};base64,{base64.b64encode(buf.getvalue()).decode('ascii')}", size
