"""A marked crop of a photo: the part around some boxes with each box
outlined (the judging screen shows the photo of a ground-truth difference
this way, the sides' boxes marked)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap

from reviewer.qt.canvas.prepared import qrect


def marked_crop(pixmap: QPixmap, image_width: float, boxes: Sequence[tuple], margin: float = 1.0) -> QPixmap:
    """A copy of ``pixmap`` (the photo, maybe reduced from ``image_width``
    upright pixels) cut to the boxes with ``margin`` times their size around
    them, each box (rect in upright pixels, colour, line style) outlined
    with lines about 1/150 of the cut's width; the whole photo when there
    is no box."""
    if pixmap.isNull():
        return pixmap
    k = pixmap.width() / image_width if image_width else 1.0
    crop = QRectF(pixmap.rect())
    if boxes:
        x0, y0 = min(b[0][0] for b in boxes), min(b[0][1] for b in boxes)
        x1, y1 = max(b[0][2] for b in boxes), max(b[0][3] for b in boxes)
        m = margin * max(x1 - x0, y1 - y0)
        crop = QRectF((x0 - m) * k, (y0 - m) * k, (x1 - x0 + 2 * m) * k, (y1 - y0 + 2 * m) * k)
    area = crop.toAlignedRect().intersected(pixmap.rect())
    out = pixmap.copy(area)
    width = max(2.0, area.width() / 150)
    painter = QPainter(out)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    for rect, color, style in boxes:
        r = qrect(rect)
        r = QRectF(r.x() * k - area.x(), r.y() * k - area.y(), r.width() * k, r.height() * k)
        for pen in (QPen(QColor(0, 0, 0, 150), width * 1.8), QPen(QColor(color), width, style)):
            painter.setPen(pen)
            painter.drawRect(r)
    painter.end()
    return out
