"""The data of the canvas's overlay model: ``Shape`` (one thing drawn over
the photo), ``Overlay`` (everything drawn over one item), the ``Rect`` they
use (upright image pixels, scene coordinates) and the helpers between Rects,
BBoxes and polygons. overlay.py builds an Overlay from the session and says
what each layer holds; shapes.py builds the shapes of each layer."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from PySide6.QtCore import Qt

from reviewer.core.models import BBox

Rect = tuple[float, float, float, float]  # x_min, y_min, x_max, y_max in upright image pixels


@dataclass(frozen=True, slots=True)
class Shape:
    """One thing drawn on the canvas.

    ``kind``: 'pile', 'card' (ground truth), 'predicted' (a model box),
    'finding', 'annotator' (a card of another annotator), 'difference' (a
    side of a difference between annotators) or 'preview' (what a tool is
    drawing). ``polygon``: the region of a pile (pixels), empty for boxes.
    ``annotator``: whose shape it is (annotator views only).
    """

    kind: str
    rect: Rect
    color: str
    label: str = ""
    style: Qt.PenStyle = Qt.PenStyle.SolidLine
    selected: bool = False
    polygon: tuple[tuple[float, float], ...] = ()
    card_id: int | None = None
    pile_id: int | None = None
    finding_id: int | None = None
    model_index: int | None = None
    code: str | None = None
    rejected: bool = False
    annotator: str | None = None


@dataclass
class Overlay:
    """Everything drawn over one item (see reviewer.qt.canvas.overlay)."""

    width: float = 0.0
    height: float = 0.0
    piles: list[Shape] = field(default_factory=list)
    predicted: list[Shape] = field(default_factory=list)
    findings: list[Shape] = field(default_factory=list)
    cards: list[Shape] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)  # (text, colour)
    handles: bool = False  # draw resize handles on selected cards
    unplaced: tuple[int, ...] = ()  # ground-truth cards without a box
    others: list[Shape] = field(default_factory=list)  # other annotators' piles and cards (not editable)
    differences: list[Shape] = field(default_factory=list)  # the annotators' differences, one selected
    annotators: list[tuple[str, str]] = field(default_factory=list)  # (annotator legend line, colour)

    def shapes(self) -> list[Shape]:
        """Every shape, bottom to top."""
        return [*self.piles, *self.predicted, *self.findings, *self.cards, *self.others, *self.differences]

    def colors_of(self, kind: str = "annotator") -> dict[str, set[str]]:
        """{annotator: colours of its shapes of ``kind``} among ``others``
        ('annotator' cards, 'pile' regions) and ``differences``."""
        out: dict[str, set[str]] = {}
        for s in [*self.others, *self.differences]:
            if s.kind == kind and s.annotator is not None:
                out.setdefault(s.annotator, set()).add(s.color)
        return out

    def codes(self) -> set[str]:
        """Finding codes drawn on the photo."""
        return {s.code for s in self.findings if s.code}

    def card(self, card_id: int) -> Shape | None:
        """The ground-truth card shape with ``card_id``, if it has a box."""
        return next((s for s in self.cards if s.card_id == card_id), None)

    def selected_cards(self) -> list[Shape]:
        """Selected ground-truth cards that have a box."""
        return [s for s in self.cards if s.selected]

    def selected_findings_rect(self) -> Rect | None:
        """The Rect around the selected findings drawn on the photo (None when none is)."""
        rects = [s.rect for s in self.findings if s.selected]
        if not rects:
            return None
        return (min(r[0] for r in rects), min(r[1] for r in rects), max(r[2] for r in rects), max(r[3] for r in rects))


def rect_of(box: BBox) -> Rect:
    """A BBox as a normalised Rect."""
    return (min(box.x_min, box.x_max), min(box.y_min, box.y_max), max(box.x_min, box.x_max), max(box.y_min, box.y_max))


def bbox_of(rect: Rect) -> BBox:
    """A Rect as a BBox (pixels), rounded to 0.1 px."""
    x0, y0, x1, y1 = rect
    return BBox(
        x_min=round(min(x0, x1), 1),
        y_min=round(min(y0, y1), 1),
        x_max=round(max(x0, x1), 1),
        y_max=round(max(y0, y1), 1),
    )


def polygon_rect(points: Iterable[tuple[float, float]]) -> Rect:
    """Bounding Rect of a polygon."""
    pts = list(points)
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))
