"""Hit-testing and box geometry of the canvas: pure functions on the
overlay model, in scene coordinates (upright image pixels); they call no Qt.

Handles of a box are numbered clockwise from the top-left corner:
0 top-left, 1 top, 2 top-right, 3 right, 4 bottom-right, 5 bottom,
6 bottom-left, 7 left.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reviewer.qt.canvas.model import Overlay, Rect, Shape

HANDLE_COUNT = 8
#: (x weight, y weight) of each handle along the box: 0 = min edge, 1 = max edge.
_HANDLE_POS = ((0, 0), (0.5, 0), (1, 0), (1, 0.5), (1, 1), (0.5, 1), (0, 1), (0, 0.5))


def normalized(x0: float, y0: float, x1: float, y1: float) -> Rect:
    """The Rect spanned by two corners, in any order."""
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def contains(rect: Rect, x: float, y: float, margin: float = 0.0) -> bool:
    """``(x, y)`` is inside ``rect`` grown by ``margin``."""
    return rect[0] - margin <= x <= rect[2] + margin and rect[1] - margin <= y <= rect[3] + margin


def intersects(a: Rect, b: Rect) -> bool:
    """The two rects overlap (touching counts)."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def handle_points(rect: Rect) -> list[tuple[float, float]]:
    """The 8 handle centres of ``rect`` (see module doc for the order)."""
    x0, y0, x1, y1 = rect
    return [(x0 + (x1 - x0) * wx, y0 + (y1 - y0) * wy) for wx, wy in _HANDLE_POS]


def handle_at(rect: Rect, x: float, y: float, tolerance: float) -> int | None:
    """Index of the handle of ``rect`` within ``tolerance`` of ``(x, y)``
    (the nearest one), or None."""
    best, best_d = None, tolerance
    for i, (hx, hy) in enumerate(handle_points(rect)):
        d = max(abs(hx - x), abs(hy - y))
        if d <= best_d:
            best, best_d = i, d
    return best


def card_at(overlay: Overlay, x: float, y: float, margin: float = 0.0) -> Shape | None:
    """The ground-truth card under ``(x, y)``: the topmost (last drawn)
    whose box contains the point; selected cards win over others so a
    selected card under another one can still be dragged."""
    hits = [s for s in overlay.cards if contains(s.rect, x, y, margin)]
    if not hits:
        return None
    selected = [s for s in hits if s.selected]
    return (selected or hits)[-1]


def selected_handle_at(overlay: Overlay, x: float, y: float, tolerance: float) -> tuple[Shape, int] | None:
    """(card, handle) of a selected card's handle under ``(x, y)``, or None."""
    for shape in reversed(overlay.selected_cards()):
        h = handle_at(shape.rect, x, y, tolerance)
        if h is not None:
            return shape, h
    return None


def cards_in(overlay: Overlay, rect: Rect) -> list[int]:
    """Ids of ground-truth cards whose box meets ``rect`` (rubber band)."""
    return [s.card_id for s in overlay.cards if s.card_id is not None and intersects(s.rect, rect)]


def point_in_polygon(points: Sequence[tuple[float, float]], x: float, y: float) -> bool:
    """Even-odd rule: ``(x, y)`` is inside the polygon ``points``."""
    inside = False
    n = len(points)
    for i in range(n):
        xa, ya = points[i]
        xb, yb = points[(i + 1) % n]
        if (ya > y) != (yb > y) and x < xa + (y - ya) * (xb - xa) / (yb - ya):
            inside = not inside
    return inside


def pile_at(piles: Iterable[Shape], x: float, y: float) -> Shape | None:
    """The pile region containing ``(x, y)``; the smallest when regions
    overlap; None when none does."""
    hits = [p for p in piles if p.polygon and contains(p.rect, x, y) and point_in_polygon(p.polygon, x, y)]
    return min(hits, key=lambda p: (p.rect[2] - p.rect[0]) * (p.rect[3] - p.rect[1])) if hits else None


def center(rect: Rect) -> tuple[float, float]:
    """Centre of ``rect``."""
    return ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)


def moved(rect: Rect, dx: float, dy: float) -> Rect:
    """``rect`` shifted by ``(dx, dy)``."""
    return (rect[0] + dx, rect[1] + dy, rect[2] + dx, rect[3] + dy)


def resized(rect: Rect, handle: int, x: float, y: float) -> Rect:
    """``rect`` with the edges of ``handle`` dragged to ``(x, y)``,
    normalised (dragging past the opposite edge flips the box)."""
    x0, y0, x1, y1 = rect
    wx, wy = _HANDLE_POS[handle]
    if wx == 0:
        x0 = x
    elif wx == 1:
        x1 = x
    if wy == 0:
        y0 = y
    elif wy == 1:
        y1 = y
    return normalized(x0, y0, x1, y1)


def size_ok(rect: Rect, minimum: float) -> bool:
    """Both sides of ``rect`` are at least ``minimum`` long."""
    return rect[2] - rect[0] >= minimum and rect[3] - rect[1] >= minimum
