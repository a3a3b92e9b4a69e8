"""The items list's thumbnails: read lazily (when a row is first painted)
on a thread pool with QImageReader (scaled while decoding, EXIF orientation
applied: by Qt for JPEG and TIFF, from the item's stored orientation for PNG
and WebP); a placeholder shows meanwhile and a warning icon when the file is
missing or unreadable. One read per photo path, however many items show it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from PySide6.QtCore import QObject, QRunnable, QSize, Qt, QThreadPool, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QImageIOHandler, QImageReader, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QStyle

from reviewer.qt.canvas.images import upright
from reviewer.qt.session.reads import SWAPS


class _Bridge(QObject):
    """Carries a decoded thumbnail from a worker thread to the GUI thread."""

    done = Signal(str, QImage)  # path, image (null when unreadable)


def read_thumbnail(path: str, size: QSize, orientation: int = 1) -> QImage:
    """The photo at ``path`` scaled to fit ``size`` while it is decoded,
    upright: EXIF orientation applied by Qt (JPEG, TIFF) or from
    ``orientation`` (the item's stored one, for PNG and WebP); a null image
    when the file is missing or unreadable. Any thread."""
    reader = QImageReader(path)
    reader.setAutoTransform(True)
    raw = reader.size()
    if not raw.isValid():
        return QImage()
    box = QSize(size)
    ours = orientation if reader.transformation() == QImageIOHandler.Transformation.TransformationNone else 1
    if reader.transformation() & QImageIOHandler.Transformation.TransformationRotate90 or ours in SWAPS:
        box.transpose()  # scaled before rotating: fit the sideways box
    reader.setScaledSize(raw.scaled(box, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    return upright(image, ours) if not image.isNull() else image


class _ThumbJob(QRunnable):
    def __init__(self, path: str, size: QSize, bridge: _Bridge, orientation: int = 1):
        super().__init__()
        self.path, self.size, self.bridge, self.orientation = path, size, bridge, orientation

    def run(self) -> None:
        """On a pool thread: the thumbnail (``read_thumbnail``) through the
        bridge (nothing if the panel is gone)."""
        image = read_thumbnail(self.path, self.size, self.orientation)
        with contextlib.suppress(RuntimeError):  # the panel went away meanwhile
            self.bridge.done.emit(self.path, image)


class Thumbnails(QObject):
    """Thumbnails of ``size`` by photo path (module doc); ``ready`` gives
    the ids of the items waiting for a thumbnail that just arrived."""

    ready = Signal(object)  # set of item ids

    def __init__(self, size: QSize, parent: QObject | None = None):
        super().__init__(parent)
        self.size = size
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(2)
        self._bridge = _Bridge()  # no parent: lives while jobs hold it
        self._bridge.done.connect(self._done)
        self._icons: dict[str, QIcon] = {}
        self._pending: set[str] = set()
        self._waiting: dict[str, set[int]] = {}  # photo path: ids of the items waiting for its thumbnail
        self.placeholder = self._placeholder()
        self._broken: QIcon | None = None
        self._text: QIcon | None = None

    def _placeholder(self) -> QIcon:
        pix = QPixmap(self.size)
        pix.fill(QColor("#d8d8d8"))
        p = QPainter(pix)
        p.setPen(QColor("#9a9a9a"))
        p.drawRect(0, 0, self.size.width() - 1, self.size.height() - 1)
        p.end()
        return QIcon(pix)

    def icon(self, path: Path | str, item_id: int, orientation: int = 1) -> QIcon:
        """The thumbnail of ``path`` when read, else the placeholder (and the
        read is started; ``ready`` names ``item_id`` when it is in)."""
        key = str(path)
        icon = self._icons.get(key)
        if icon is not None:
            return icon
        self._waiting.setdefault(key, set()).add(item_id)
        if key not in self._pending:
            self._pending.add(key)
            self.pool.start(_ThumbJob(key, self.size, self._bridge, orientation))
        return self.placeholder

    def read_now(self, path: Path | str, orientation: int = 1) -> None:
        """Read the thumbnail of ``path`` on this thread (its result arrives as from the pool)."""
        _ThumbJob(str(path), self.size, self._bridge, orientation).run()

    def reading(self) -> bool:
        """Some thumbnail is still being read."""
        return bool(self._pending)

    def cached(self, path: Path | str) -> bool:
        """The thumbnail of ``path`` was read (or found unreadable)."""
        return str(path) in self._icons

    def is_broken(self, path: Path | str) -> bool:
        """``path`` was found missing or unreadable."""
        return self._broken is not None and self._icons.get(str(path)) is self._broken

    def text_icon(self) -> QIcon:
        """The icon of a text item."""
        if self._text is None:
            self._text = self._standard(QStyle.StandardPixmap.SP_FileIcon)
        return self._text

    def forget(self, path: Path | str | None = None) -> None:
        """Drop the cached thumbnail of ``path`` (None: all, another project was opened)."""
        if path is None:
            self._icons.clear()
            self._waiting.clear()
        else:
            self._icons.pop(str(path), None)

    def _standard(self, which: QStyle.StandardPixmap) -> QIcon:
        """A style icon centred at 32 px on a thumbnail-sized cell (so the
        names line up with those beside real thumbnails)."""
        cell = QPixmap(self.size)
        cell.fill(Qt.GlobalColor.transparent)
        p = QPainter(cell)
        small = QApplication.style().standardIcon(which).pixmap(32, 32)
        p.drawPixmap((self.size.width() - 32) // 2, (self.size.height() - 32) // 2, small)
        p.end()
        return QIcon(cell)

    def _done(self, path: str, image: QImage) -> None:
        self._pending.discard(path)
        if image.isNull():
            if self._broken is None:
                self._broken = self._standard(QStyle.StandardPixmap.SP_MessageBoxWarning)
            self._icons[path] = self._broken
        else:
            canvas = QPixmap(self.size)  # centred on a fixed cell so rows line up
            canvas.fill(Qt.GlobalColor.transparent)
            p = QPainter(canvas)
            p.drawImage((self.size.width() - image.width()) // 2, (self.size.height() - image.height()) // 2, image)
            p.end()
            self._icons[path] = QIcon(canvas)
        waiting = self._waiting.pop(path, set())
        if waiting:
            self.ready.emit(waiting)
