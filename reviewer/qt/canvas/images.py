"""Photo loading for the canvas.

Photos are decoded upright, so scene coordinates are upright image pixels:
QImageReader's auto-transform turns JPEG and TIFF, and when it turned
nothing (PNG and WebP, whose EXIF Qt does not read) the item's stored EXIF
orientation is applied here (``upright``, the mapping of
reviewer.storage.files.images.UPRIGHT). Past Qt's image allocation limit the
message says "too large (W x H)", not Qt's "Unable to read image data". A large photo is shown in two
steps: a reduced decode first (JPEG scales in the decoder: 1/2, 1/4 or 1/8
so the long side fits ``REDUCED_SIDE``), then the full image; both decode on
a worker thread and arrive by a queued signal, so the GUI never waits on a
decoder. Reduced decodes (and small photos whole) are kept in a small LRU
cache that ``prefetch`` fills ahead of time for the next/previous items.

``PhotoItem`` draws whichever image suits the zoom: the reduced one when the
screen shows no more pixels than it has, the full one otherwise.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from PIL.Image import Transpose
from PySide6.QtCore import QObject, QRectF, QSize, QThreadPool, Signal
from PySide6.QtGui import QColor, QImage, QImageIOHandler, QImageReader, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem, QGraphicsTextItem

from reviewer.qt.session.reads import SWAPS, UPRIGHT

REDUCED_SIDE = 2048  # long side of the first, reduced decode (at most)
CACHE_SIZE = 8  # reduced decodes kept for prefetch / going back
PLACEHOLDER_COLOR = "#383838"  # the photo's area while it loads or cannot be shown


@dataclass(frozen=True)
class Decoded:
    """The result of one decode. ``size``: upright full size (w, h) when the
    header could be read; ``reduced``: ``image`` is smaller than that;
    ``error``: why there is no image."""

    path: str
    image: QImage | None = None
    size: tuple[int, int] | None = None
    reduced: bool = False
    error: str = ""


def reduced_size(stored: QSize, max_side: int) -> QSize | None:
    """Decode size for a reduced image of a photo stored at ``stored`` (before
    EXIF rotation), or None when it is small enough whole. Power-of-two
    reductions first (the JPEG decoder does those while decoding)."""
    w, h = stored.width(), stored.height()
    longest = max(w, h)
    if longest <= max_side:
        return None
    for d in (2, 4, 8):
        if math.ceil(longest / d) <= max_side:
            return QSize(math.ceil(w / d), math.ceil(h / d))
    s = max_side / longest
    return QSize(max(1, round(w * s)), max(1, round(h * s)))


#: Pillow's transposes (storage.images.UPRIGHT) as the QTransform doing the same to a QImage.
_QT_TRANSPOSE = {
    Transpose.FLIP_LEFT_RIGHT: QTransform().scale(-1, 1),
    Transpose.FLIP_TOP_BOTTOM: QTransform().scale(1, -1),
    Transpose.ROTATE_180: QTransform().rotate(180),
    Transpose.ROTATE_270: QTransform().rotate(90),
    Transpose.ROTATE_90: QTransform().rotate(-90),
    Transpose.TRANSPOSE: QTransform().rotate(90) * QTransform().scale(-1, 1),
    Transpose.TRANSVERSE: QTransform().rotate(-90) * QTransform().scale(-1, 1),
}


def upright(image: QImage, orientation: int) -> QImage:
    """``image`` (pixels as stored) turned upright for EXIF ``orientation``
    (1-8; 1 and unknown values: unchanged), as storage.images does at import."""
    transpose = UPRIGHT.get(orientation)
    return image if transpose is None else image.transformed(_QT_TRANSPOSE[transpose])


def _too_large(reader: QImageReader, stored: QSize) -> bool:
    """The image is past Qt's allocation limit (QImageReader.allocationLimit, MB)."""
    limit = QImageReader.allocationLimit()
    return bool(limit) and stored.width() * stored.height() * 4 > limit * 1024 * 1024


def _display_format(image: QImage) -> QImage:
    """``image`` in a format the raster engine draws without converting."""
    wanted = QImage.Format.Format_ARGB32_Premultiplied if image.hasAlphaChannel() else QImage.Format.Format_RGB32
    return image if image.format() == wanted else image.convertToFormat(wanted)


def decode(path: Path | str, max_side: int | None = None, orientation: int = 1) -> Decoded:
    """Decode the photo at ``path`` upright; reduced to fit ``max_side`` when
    given and the photo is larger. ``orientation``: the item's EXIF
    orientation, applied when Qt's reader turned nothing itself (PNG,
    WebP). Never raises: problems go in ``error``."""
    p = Path(path)
    if not p.exists():
        return Decoded(str(path), error="file not found")
    if not p.is_file():
        return Decoded(str(path), error="not a file")
    reader = QImageReader(str(p))
    reader.setAutoTransform(True)
    stored = reader.size()
    if not stored.isValid():
        return Decoded(str(path), error=f"not a readable image ({reader.errorString()})")
    turned = reader.transformation() != QImageIOHandler.Transformation.TransformationNone
    ours = 1 if turned else orientation  # Qt read no orientation: the stored one is applied here
    rotated = bool(reader.transformation() & QImageIOHandler.Transformation.TransformationRotate90) or ours in SWAPS
    size = (stored.height(), stored.width()) if rotated else (stored.width(), stored.height())
    target = reduced_size(stored, max_side) if max_side else None
    if target is not None:
        reader.setScaledSize(target)
    elif _too_large(reader, stored):
        return Decoded(str(path), size=size, error=f"too large ({size[0]} x {size[1]}) to show whole")
    image = reader.read()
    if image.isNull():
        if _too_large(reader, target or stored):
            return Decoded(str(path), size=size, error=f"too large ({size[0]} x {size[1]}) to show whole")
        return Decoded(str(path), size=size, error=f"cannot decode the image ({reader.errorString()})")
    return Decoded(str(path), _display_format(upright(image, ours)), size, reduced=target is not None)


def decode_preview(path: Path | str, data: bytes, size: tuple[int, int]) -> Decoded:
    """A stored preview (JPEG bytes, upright) of the photo at ``path`` whose
    upright full size is ``size``, as a reduced decode. Never raises."""
    image = QImage.fromData(data)
    if image.isNull():
        return Decoded(str(path), size=size, error="the stored preview cannot be decoded")
    return Decoded(str(path), _display_format(image), size, reduced=True)


def cache_key(path: Path | str) -> tuple:
    """Path, modification time and size: a changed file is decoded again."""
    try:
        st = Path(path).stat()
        return (str(path), st.st_mtime_ns, st.st_size)
    except OSError:
        return (str(path), None, None)


def neighbour_photos(session, item_id: int) -> list[tuple[Path, int]]:
    """(photo path, EXIF orientation) of the items after and before
    ``item_id`` in the session's item order (what to prefetch)."""
    rows = session.items()
    i = next((n for n, st in enumerate(rows) if st.id == item_id), None)
    if i is None:
        return []
    near = [rows[j].item for j in (i + 1, i - 1) if 0 <= j < len(rows) and rows[j].kind == "photo"]
    return [(p, it.orientation or 1) for p, it in ((session.image_path(it), it) for it in near) if p is not None]


class _Relay(QObject):
    """Carries results from worker threads to the GUI thread (queued)."""

    done = Signal(object, int, str)  # Decoded, ticket, stage


class ImageLoader(QObject):
    """Decodes the current photo (reduced, then full) and prefetches others.

    ``decoded`` is emitted for the current request only, in order: the
    reduced image (or the whole one when small, or an error), then the full
    image of a large photo. Stale results are dropped (but cached).
    """

    decoded = Signal(object)  # Decoded

    def __init__(self, parent: QObject | None = None, reduced_side: int = REDUCED_SIDE, cache_size: int = CACHE_SIZE):
        super().__init__(parent)
        self.reduced_side, self.cache_size = reduced_side, cache_size
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(1)
        self._prefetch_pool = QThreadPool(self)
        self._prefetch_pool.setMaxThreadCount(1)
        self._relay = _Relay()
        self._relay.done.connect(self._on_done)
        self._ticket = 0
        self._cache: OrderedDict[tuple, Decoded] = OrderedDict()
        self._prefetching: set[tuple] = set()
        self._orientation: dict[str, int] = {}  # path -> EXIF orientation of its item

    def load(
        self, path: Path | str, preview: tuple[bytes, tuple[int, int]] | None = None, orientation: int = 1
    ) -> Decoded | None:
        """Start showing ``path``. Returns the cached reduced (or whole small)
        decode to show at once, or None: it will come by ``decoded``.
        ``preview``: (stored preview JPEG, upright full size) to decode first
        instead of a reduced decode of the photo itself; ``orientation``: the
        item's EXIF orientation (applied when Qt does not, see ``decode``)."""
        self.cancel()
        self._orientation[str(path)] = orientation
        hit = self.cached(path)
        if hit is not None:
            if hit.reduced:
                self._start(self._pool, path, None, "full")
            return hit
        self._start(self._pool, path, self.reduced_side, "first", preview=preview)
        return None

    def cancel(self) -> None:
        """Forget the current request (queued decodes are dropped)."""
        self._ticket += 1
        self._pool.clear()

    def cached(self, path: Path | str) -> Decoded | None:
        """The cached decode of ``path`` (most recently used), or None."""
        key = cache_key(path)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
        return hit

    def prefetch(self, paths: Iterable[Path | str]) -> None:
        """Decode reduced images of ``paths`` (each a path or (path, EXIF
        orientation)) into the cache, one at a time on a background thread;
        those cached or already queued are skipped."""
        for path in paths:
            if isinstance(path, tuple):
                path, self._orientation[str(path)] = path
            key = cache_key(path)
            if key[1] is None or key in self._cache or key in self._prefetching:
                continue
            self._prefetching.add(key)
            self._start(self._prefetch_pool, path, self.reduced_side, "prefetch", key)

    def wait(self, msecs: int = -1) -> bool:
        """Wait for running decodes (tests, benchmarks, shutdown)."""
        return self._pool.waitForDone(msecs) and self._prefetch_pool.waitForDone(msecs)

    def clear_cache(self) -> None:
        """Drop every cached decode."""
        self._cache.clear()

    def _start(
        self,
        pool: QThreadPool,
        path,
        side: int | None,
        stage: str,
        key: tuple = (),
        preview: tuple[bytes, tuple[int, int]] | None = None,
    ) -> None:
        ticket, relay = (-1 if stage == "prefetch" else self._ticket), self._relay
        key = key or cache_key(path)
        orientation = self._orientation.get(str(path), 1)

        def job() -> None:
            """On the pool: decode the preview (the photo if it is bad) or the photo at ``side``;
            an exception becomes an error Decoded; emit (result, key) through the relay."""
            try:
                result = decode_preview(path, *preview) if preview else decode(path, side, orientation)
                if result.image is None and preview:  # a bad preview: decode the photo
                    result = decode(path, side, orientation)
            except Exception as exc:  # noqa: BLE001 - a decoder must never take the app down
                result = Decoded(str(path), error=f"{type(exc).__name__}: {exc}")
            relay.done.emit((result, key), ticket, stage)

        pool.start(job)

    def _on_done(self, payload: tuple, ticket: int, stage: str) -> None:
        result, key = payload
        if stage in ("first", "prefetch") and result.image is not None:
            self._cache[key] = result
            self._cache.move_to_end(key)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        if stage == "prefetch":
            self._prefetching.discard(key)
            return
        if ticket != self._ticket:
            return
        self.decoded.emit(result)
        if stage == "first" and result.reduced:
            self._start(self._pool, result.path, None, "full")


class PhotoItem(QGraphicsItem):
    """The photo in the scene at upright pixel size, whatever image it holds."""

    def __init__(self, parent: QGraphicsItem | None = None):
        super().__init__(parent)
        self._w = self._h = 0.0
        self.reduced: QImage | None = None
        self.full: QImage | None = None
        self.paints = 0  # photo paints done (benchmarks)

    def set_size(self, width: float, height: float) -> None:
        """Scene size of the photo (upright full pixels)."""
        if (width, height) != (self._w, self._h):
            self.prepareGeometryChange()
            self._w, self._h = float(width), float(height)

    def show_decoded(self, decoded: Decoded) -> None:
        """Show a decode: a reduced one until the full one arrives."""
        if decoded.size:
            self.set_size(*decoded.size)
        if decoded.reduced:
            self.reduced = decoded.image
        else:
            self.full = decoded.image
        self.update()

    def clear(self) -> None:
        """Show no image."""
        self.reduced = self.full = None
        self.update()

    @property
    def has_image(self) -> bool:
        """Some image is shown."""
        return self.reduced is not None or self.full is not None

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt)
        """(0, 0) to the photo's upright full-pixel size (scene units)."""
        return QRectF(0, 0, self._w, self._h)

    def _pick(self, scale: float) -> QImage | None:
        """The reduced image while it has as many pixels as the screen shows."""
        if self.full is None or (self.reduced is not None and scale * self._w <= self.reduced.width() * 1.1):
            return self.reduced or self.full
        return self.full

    def paint(self, painter: QPainter, option, widget=None) -> None:
        """Draw the reduced image while it suffices at this zoom, else the full one (smoothed
        unless enlarged 3x or more); a dark placeholder while there is none."""
        if not self._w or not self._h:
            return
        scale = option.levelOfDetailFromTransform(painter.worldTransform())
        image = self._pick(scale)
        if image is None:  # loading, or no photo: show where it goes
            painter.fillRect(self.boundingRect(), QColor(PLACEHOLDER_COLOR))
            return
        # Smooth when shrinking or mildly enlarging; crisp pixels when peeping.
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, scale * self._w / image.width() < 3.0)
        painter.drawImage(self.boundingRect(), image)
        self.paints += 1


class TextPaper(QGraphicsTextItem):
    """A text item (kind 'text') shown as plain black text on white paper."""

    def paint(self, painter, option, widget=None) -> None:
        """Fill the bounding rect white, then paint the text as QGraphicsTextItem does."""
        painter.fillRect(self.boundingRect(), QColor("#FFFFFF"))
        super().paint(painter, option, widget)
