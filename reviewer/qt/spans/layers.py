"""What the span view draws and hit-tests, apart from the widget: the extra
selections (model spans tinted by role, findings as wavy underlines, the
selected finding), the painted layers (golden spans as thick role-coloured
lines with end handles, section stripes), and which golden span or span end
is at a text position. Positions are UTF-16 offsets = QTextDocument
positions (the text has no CR LF)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainter, QPen, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

from reviewer.core.spans.golden import GoldenSpan
from reviewer.qt.spans.style import SECTION_COLORS, STATUS_COLORS, TINT_ALPHA, role_color


@dataclass(frozen=True)
class Mark:
    """A finding placed on the text: [start, end), its id, status, and span index (or None)."""

    start: int
    end: int
    finding_id: int
    status: str
    span_index: int | None


def _cursor(doc, start: int, end: int) -> QTextCursor:
    n = max(0, doc.characterCount() - 1)
    c = QTextCursor(doc)
    c.setPosition(max(0, min(start, n)))
    c.setPosition(max(0, min(end, n)), QTextCursor.MoveMode.KeepAnchor)
    return c


def apply_formats(doc, spans: Sequence[Mapping], marks: Sequence[Mark]) -> None:
    """Format the plain text in place (character formats, never HTML): each
    model span's background tinted by its role's category (the findings are
    painted, paint_marks). One edit block, no undo history, so thousands of
    spans cost one layout. ``marks`` is accepted for symmetry and unused."""
    doc.setUndoRedoEnabled(False)
    whole = QTextCursor(doc)
    whole.beginEditBlock()
    try:
        whole.select(QTextCursor.SelectionType.Document)
        whole.setCharFormat(QTextCharFormat())
        tints: dict[str, QTextCharFormat] = {}
        for s in spans:
            try:  # NaN, infinity or a non-number in untrusted output: not drawn
                start, end = int(s.get("start", 0)), int(s.get("end", 0))
            except (TypeError, ValueError, OverflowError):
                continue
            role = str(s.get("role") or "")
            fmt = tints.get(role)
            if fmt is None:
                fmt = tints[role] = QTextCharFormat()
                fmt.setBackground(role_color(role, TINT_ALPHA))
            _cursor(doc, start, end).mergeCharFormat(fmt)
    finally:
        whole.endEditBlock()


def selections(view: QPlainTextEdit, marks: Sequence[Mark], selected: Iterable[int]) -> list:
    """Extra selections of the selected findings only (strong yellow): the
    spans and findings themselves are character formats (apply_formats)."""
    doc = view.document()
    chosen = set(selected)
    out = []
    for m in marks:
        if m.finding_id in chosen:
            sel = QTextEdit.ExtraSelection()
            sel.cursor = _cursor(doc, m.start, max(m.end, m.start + 1))
            fmt = QTextCharFormat()
            fmt.setBackground(QColor("#ffd54a"))
            sel.format = fmt
            out.append(sel)
    return out


def _first_line(view: QPlainTextEdit, block, offset, y: float) -> int:
    """The index of the first line of ``block``'s layout whose bottom is
    below ``y`` (viewport coordinates); its line count when none is
    (binary search: a block may hold a very long paragraph)."""
    layout = block.layout()
    top = view.blockBoundingGeometry(block).translated(offset).top()
    lo, hi = 0, layout.lineCount()
    while lo < hi:
        mid = (lo + hi) // 2
        line = layout.lineAt(mid)
        if top + line.y() + line.height() < y:
            lo = mid + 1
        else:
            hi = mid
    return lo


def visible_range(view: QPlainTextEdit) -> tuple[int, int]:
    """The document positions [first, last) of the visible lines (of the
    visible blocks, narrowed to the lines on screen in the first and the
    last of them)."""
    block = view.firstVisibleBlock()
    if not block.isValid():
        return 0, 0
    offset, height = view.contentOffset(), view.viewport().height()
    first = block.position()
    layout = block.layout()
    i = _first_line(view, block, offset, 0)
    if 0 < i < layout.lineCount():
        first += layout.lineAt(i).textStart()
    last = first
    while block.isValid():
        geo = view.blockBoundingGeometry(block).translated(offset)
        if geo.top() > height:
            break
        last = block.position() + block.length()
        if geo.bottom() > height:  # runs past the bottom: up to its last line on screen
            layout = block.layout()
            j = _first_line(view, block, offset, height)
            if j < layout.lineCount():
                line = layout.lineAt(j)
                last = block.position() + line.textStart() + line.textLength()
            break
        block = block.next()
    return first, last


def _x(line, pos: int) -> float:
    value = line.cursorToX(pos)
    return float(value[0] if isinstance(value, tuple) else value)


def _rects(view: QPlainTextEdit, start: int, end: int) -> list[QRectF]:
    """Rectangles (viewport coordinates) covering [start, end), one per
    visual line, from the blocks' text layouts."""
    doc = view.document()
    offset = view.contentOffset()
    out = []
    block = doc.findBlock(start)
    while block.isValid() and block.position() <= end:
        layout = block.layout()
        geo = view.blockBoundingGeometry(block).translated(offset)
        base = block.position()
        s, e = max(start, base) - base, min(end, base + block.length() - 1) - base
        first = layout.lineForTextPosition(s)
        for i in range(first.lineNumber() if first.isValid() else 0, layout.lineCount()):
            line = layout.lineAt(i)
            if line.textStart() >= e:
                break
            a, b = max(s, line.textStart()), min(e, line.textStart() + line.textLength())
            if a < b:
                x0, x1 = _x(line, a), _x(line, b)
                r = line.rect()
                out.append(QRectF(geo.left() + x0, geo.top() + r.top(), max(2.0, x1 - x0), r.height()))
        block = block.next()
    return out


def paint_golden(
    painter: QPainter,
    view: QPlainTextEdit,
    golden: Sequence,
    starts: Sequence[int],
    dragging: tuple[int, int, int] | None = None,
) -> None:
    """Each visible golden span as a 3 px line in its role's colour under its
    text, with small end handles (drag them to fix the ends); ``golden`` is
    sorted by start (``starts`` their starts); ``dragging``: (span id, start,
    end) drawn where the drag has it."""
    lo, hi = visible_range(view)
    first = max(0, bisect.bisect_left(starts, lo) - 50)  # spans starting earlier may reach in
    for g in golden[first : bisect.bisect_right(starts, hi)]:
        start, end = (dragging[1], dragging[2]) if dragging and dragging[0] == g.id else (g.start, g.end)
        if end < lo:
            continue
        color = role_color(g.role)
        rects = _rects(view, start, end)
        for r in rects:
            painter.fillRect(QRectF(r.left(), r.bottom() - 3, r.width(), 3), color)
        if rects:
            pen = QPen(color, 2)
            painter.setPen(pen)
            a, b = rects[0], rects[-1]
            painter.drawLine(QPointF(a.left(), a.top() + 2), QPointF(a.left(), a.bottom()))
            painter.drawLine(QPointF(b.right(), b.top() + 2), QPointF(b.right(), b.bottom()))


def paint_sections(painter: QPainter, view: QPlainTextEdit, bounds: Sequence[tuple[str, int, int]]) -> None:
    """A 5 px stripe at the left of each visible line in its section's
    colour, and a thin rule across the text where a section begins."""
    block = view.firstVisibleBlock()
    offset = view.contentOffset()
    height = view.viewport().height()
    while block.isValid():
        geo = view.blockBoundingGeometry(block).translated(offset)
        if geo.top() > height:
            break
        pos = block.position()
        name = next((n for n, s, e in bounds if s <= pos < e), "main")
        painter.fillRect(QRectF(0, geo.top(), 5, geo.height()), QColor(SECTION_COLORS[name]))
        if any(s == pos and n != "main" for n, s, e in bounds):
            painter.setPen(
                QPen(
                    QColor(SECTION_COLORS[name]),
                    1,
                )
            )
            painter.drawLine(QPointF(0, geo.top()), QPointF(view.viewport().width(), geo.top()))
        block = block.next()


def paint_marks(painter: QPainter, view: QPlainTextEdit, marks: Sequence[Mark]) -> None:
    """Each visible finding as a 2 px zigzag under its text in its status's
    colour (red proposed, green confirmed, grey rejected)."""
    lo, hi = visible_range(view)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    for m in marks:
        if m.end < lo or m.start > hi:
            continue
        pen = QPen(QColor(STATUS_COLORS.get(m.status, "#e0301e")), 1.6)
        painter.setPen(pen)
        for r in _rects(view, m.start, max(m.end, m.start + 1)):
            y, x, up = r.bottom() - 4.5, r.left(), True
            points = []
            while x <= r.right():
                points.append(QPointF(x, y + (0 if up else 2.5)))
                x, up = x + 3, not up
            for a, b in zip(points, points[1:]):
                painter.drawLine(a, b)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)


def golden_at(golden: Sequence[GoldenSpan], pos: int) -> GoldenSpan | None:
    """The golden span containing ``pos`` (the shortest when nested), or None."""
    inside = [g for g in golden if g.start <= pos < g.end or (pos == g.end and g.start < pos)]
    return min(inside, key=lambda g: g.end - g.start) if inside else None


def edge_at(golden: Sequence[GoldenSpan], pos: int) -> tuple[GoldenSpan, str] | None:
    """(golden span, 'start' | 'end') whose end is at ``pos`` (within one
    character), for dragging; None when no end is there."""
    best = None
    for g in golden:
        for side, at in (("start", g.start), ("end", g.end)):
            d = abs(at - pos)
            if d <= 1 and (best is None or d < best[0]):
                best = (d, g, side)
    return (best[1], best[2]) if best else None


def span_at(spans: Sequence[Mapping], pos: int) -> int | None:
    """The index of the model span containing ``pos`` (the shortest), or
    None; a span whose offsets are not numbers (NaN, infinity) contains nothing."""
    inside = []
    for i, s in enumerate(spans):
        try:
            start, end = int(s.get("start", 0)), int(s.get("end", 0))
        except (TypeError, ValueError, OverflowError):
            continue
        if start <= pos < end:
            inside.append((end - start, i))
    return min(inside)[1] if inside else None


__all__ = [
    "Mark",
    "apply_formats",
    "paint_marks",
    "edge_at",
    "golden_at",
    "paint_golden",
    "paint_sections",
    "selections",
    "span_at",
    "visible_range",
]
