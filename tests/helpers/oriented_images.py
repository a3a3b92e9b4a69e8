"""A photo with a red card saved in each EXIF orientation and format, and a
test of a red pixel: shared by the image reliability tests."""

from __future__ import annotations

from PIL import Image

W, H = 1600, 1000  # upright size: larger than a preview
CARD = (300, 200, 700, 500)  # the card, upright pixels
#: orientation -> the transpose that makes the stored pixels from the upright ones
STORE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}
FORMATS = {"jpg": ("JPEG", {"quality": 90}), "png": ("PNG", {}), "webp": ("WEBP", {"quality": 90}), "tif": ("TIFF", {})}


def save_oriented(path, orientation: int) -> None:
    fmt, kw = FORMATS[path.suffix[1:]]
    stored = upright().transpose(STORE[orientation]) if orientation in STORE else upright()
    exif = Image.Exif()
    exif[274] = orientation
    stored.save(path, fmt, exif=exif.tobytes(), **kw)


def is_red(px) -> bool:
    return px[0] > 150 and px[1] < 90 and px[2] < 90


def upright() -> Image.Image:
    im = Image.new("RGB", (W, H), "white")
    im.paste((220, 20, 20), CARD)
    return im
