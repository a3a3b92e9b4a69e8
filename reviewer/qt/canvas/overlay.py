"""The overlay model of the canvas: plain data built from the session.

Everything the canvas draws over the photo is a ``Shape`` with a rectangle
in upright image pixels (scene coordinates), a colour, a pen style and a
label. ``build_overlay`` reads the session's public methods only; painting
(painting.py) and hit-testing (hittest.py) read the model, never the session.

Layers, bottom to top: pile regions, predicted boxes of the current run,
findings of the current run, ground-truth cards, other annotators' ground
truth and their highlighted differences. The legend holds what has no place
on the photo: the run, its box convention, the pile mapping (for SPATIAL),
FORMAT findings and findings on cards without a box.

Annotators (docs/window.md): given an annotator view (reviewer.qt.cards.annotators),
the consensus piles and cards (the ones the tools edit and hit-testing
sees) are drawn only in the consensus view; in another view the annotators'
piles and cards are ``others`` (kind 'pile' and 'annotator', no ids, so no
tool can touch them), each annotator in its colour and line style. The
differences of the item's annotators (kind 'difference') are drawn once one
is highlighted: both sides' boxes, the highlighted one ``selected``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

from PySide6.QtCore import Qt

from reviewer.core.bounds import drawable_points
from reviewer.core.cards.boxes import to_pixels
from reviewer.core.cards.gt_agreement import CONSENSUS_NAME
from reviewer.core.models import BBox, Card, Code, Finding, GroundTruth
from reviewer.qt.palette import CODE_COLORS, CODE_STYLES, PILE_COLORS, PREDICTED_COLOR, SELECTED_COLOR
from reviewer.qt.text import CELL_CHARS, cell

Rect = tuple[float, float, float, float]  # x_min, y_min, x_max, y_max in upright image pixels

NO_PILE_COLOR = "#BBBBBB"
REJECTED_COLOR = "#9E9E9E"


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
    style: Qt.PenStyle = Qt.SolidLine
    selected: bool = False
    polygon: tuple[tuple[float, float], ...] = ()
    card_id: Optional[int] = None
    pile_id: Optional[int] = None
    finding_id: Optional[int] = None
    model_index: Optional[int] = None
    code: Optional[str] = None
    rejected: bool = False
    annotator: Optional[str] = None


@dataclass
class Overlay:
    """Everything drawn over one item (see module doc)."""

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

    def card(self, card_id: int) -> Optional[Shape]:
        """The ground-truth card shape with ``card_id``, if it has a box."""
        return next((s for s in self.cards if s.card_id == card_id), None)

    def selected_cards(self) -> list[Shape]:
        """Selected ground-truth cards that have a box."""
        return [s for s in self.cards if s.selected]

    def selected_findings_rect(self) -> Optional[Rect]:
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


def pile_colors(gt: GroundTruth) -> dict[Optional[str], str]:
    """Colour of each pile label, by the pile's index in the ground truth."""
    colors: dict[Optional[str], str] = {p.label: PILE_COLORS[i % len(PILE_COLORS)] for i, p in enumerate(gt.piles)}
    colors.setdefault(None, NO_PILE_COLOR)
    return colors


def _card_label(card: Card) -> str:
    if not card.text.strip():
        return cell(f"{card.pile[:CELL_CHARS]} \u00b7 to transcribe" if card.pile else "to transcribe")
    return cell(f"{card.pile[:CELL_CHARS]} \u00b7 {card.text[:CELL_CHARS]}" if card.pile else card.text)


def ground_truth_shapes(gt: GroundTruth, selected: Iterable[int]) -> tuple[list[Shape], list[Shape], list[int]]:
    """(pile shapes, card shapes, ids of cards without a box)."""
    colors, chosen = pile_colors(gt), set(selected)
    piles = [
        Shape(
            "pile",
            polygon_rect(p.region),
            colors[p.label],
            p.label,
            pile_id=p.id,
            polygon=tuple((float(x), float(y)) for x, y in p.region),
        )
        for p in gt.piles
        if p.region and len(p.region) >= 3
    ]
    cards, unplaced = [], []
    for card in gt.cards:
        if card.bbox is None:
            unplaced.append(card.id)
            continue
        cards.append(
            Shape(
                "card",
                rect_of(card.bbox),
                colors.get(card.pile, NO_PILE_COLOR),
                _card_label(card),
                selected=card.id in chosen,
                card_id=card.id,
            )
        )
    return piles, cards, unplaced


def predicted_shapes(run, convention, width: Optional[float], height: Optional[float]) -> list[Shape]:
    """The current run's model boxes in pixels (empty without boxes or size)."""
    if run is None or convention is None or not width or not height:
        return []
    out = []
    for i, card in enumerate(run.cards):
        if card.bbox is not None:
            rect = rect_of(to_pixels(card.bbox, convention, int(width), int(height)))
            out.append(Shape("predicted", rect, PREDICTED_COLOR, cell(card.text), Qt.DashLine, model_index=i))
    return out


def _finding_label(f: Finding, code: Code, model_pile: Optional[str]) -> str:
    label = code.value
    if code == Code.SPATIAL:
        label += f" \u2192 {cell(model_pile or '?')}"
    elif code in (Code.OCR, Code.PARTIAL, Code.HALLUC) and f.model_card:
        label += f' "{cell(f.model_card)}"'
    if f.status.value == "rejected":
        label += " (rejected)"
    elif f.final_code and f.final_code != f.code:
        label += f" (was {f.code.value})"
    return label


def finding_shapes(
    run, gt_rects: dict[int, Rect], predicted: list[Shape], selected: Iterable[int]
) -> tuple[list[Shape], list[tuple[str, str]]]:
    """Shapes of the current run's findings on the cards they concern, and
    legend lines for those that have no box (FORMAT, cards without a box)."""
    if run is None:
        return [], []
    chosen = set(selected)
    boxes = {s.model_index: s.rect for s in predicted}
    outcome_pile = {o.gt_card_id: o.model_pile for o in run.facts.outcomes}
    shapes, legend = [], []
    for f in run.findings:
        rejected = f.status.value == "rejected"
        code = f.final_code or f.code
        model_pile = outcome_pile.get(f.gt_card_id)
        if model_pile is None and f.model_index is not None and f.model_index < len(run.cards):
            model_pile = run.cards[f.model_index].pile
        label = _finding_label(f, code, model_pile)
        color = REJECTED_COLOR if rejected else CODE_COLORS[code]
        if code == Code.HALLUC and f.model_index in boxes:
            rect = boxes[f.model_index]
        elif f.gt_card_id in gt_rects:
            rect = gt_rects[f.gt_card_id]
        elif f.model_index in boxes:
            rect = boxes[f.model_index]
        else:
            what = cell(f.gt_card or f.model_card or f.detail)
            legend.append(
                (
                    f"{label}: {what}" if what and what not in label else label,
                    SELECTED_COLOR if f.id in chosen else color,
                )
            )
            continue
        shapes.append(
            Shape(
                "finding",
                rect,
                color,
                label,
                CODE_STYLES[code],
                selected=f.id in chosen,
                card_id=f.gt_card_id,
                finding_id=f.id,
                model_index=f.model_index,
                code=code.value,
                rejected=rejected,
            )
        )
    return shapes, legend


def run_legend(run, convention) -> list[tuple[str, str]]:
    """Legend lines about the current run: name, convention, pile mapping."""
    if run is None:
        return []
    r = run.run
    lines = [(f"{cell(r.get('prompt', '?'))} \u00b7 {cell(r.get('model', '?'))} #{r.get('repetition', 1)}", "#FFFFFF")]
    if convention is not None:
        lines.append((f"boxes: {convention.value}", PREDICTED_COLOR))
    mapping = run.facts.pile_mapping
    if mapping:
        lines.append(("model pile \u2192 ground-truth pile", "#FFFFFF"))
        lines += [
            (f"  {cell(m)} \u2192 {cell(g) if g is not None else '(none)'}", "#DDDDDD") for m, g in mapping.items()
        ]
    return lines


def annotator_shapes(layers) -> list[Shape]:
    """The piles and cards of each (annotator, colour, line style, ground
    truth) in ``layers``: piles first, then cards, in the annotator's
    colour and line style, labelled with the card's text (one annotator) or
    the annotator's name and text (several)."""
    piles, cards = [], []
    several = len(layers) > 1
    for name, color, style, gt in layers:
        piles += [
            Shape(
                "pile",
                polygon_rect(p.region),
                color,
                f"{cell(name)}: {p.label}" if several else p.label,
                style,
                polygon=tuple((float(x), float(y)) for x, y in p.region),
                annotator=name,
            )
            for p in gt.piles
            if p.region and len(p.region) >= 3
        ]
        cards += [
            Shape("annotator", rect_of(c.bbox), color, "" if several else _card_label(c), style, annotator=name)
            for c in gt.cards
            if c.bbox is not None
        ]
    return piles + cards


def difference_shapes(view) -> list[Shape]:
    """Both sides of every difference of the view's current item (a side
    without a box or card draws nothing), the highlighted one selected and
    labelled; none while no difference is highlighted."""
    current = view.difference()
    if current is None:
        return []
    out = []
    for d in view.differences():
        chosen = d == current
        for name, card in ((d.annotator_a, d.a_card), (d.annotator_b, d.b_card)):
            if card is None or card.bbox is None:
                continue
            label = f"{cell(name)}: {_card_label(card)}" if chosen else ""
            out.append(
                Shape(
                    "difference",
                    rect_of(card.bbox),
                    view.color(name),
                    label,
                    view.style(name),
                    selected=chosen,
                    annotator=name,
                )
            )
    return out


def paintable(shapes: list[Shape]) -> tuple[list[Shape], int]:
    """The shapes whose rectangle and polygon are pixels (finite, within
    reviewer.core.bounds.MAX_PIXEL), and how many were left out: the canvas
    never paints a non-finite coordinate (Qt's raster engine crashes on NaN)."""
    kept = [
        s
        for s in shapes
        if drawable_points((s.rect[:2], s.rect[2:])) is not None
        and (not s.polygon or drawable_points(s.polygon) is not None)
    ]
    return kept, len(shapes) - len(kept)


def build_overlay(session, width: Optional[float] = None, height: Optional[float] = None, annotators=None) -> Overlay:
    """The overlay of the session's current item and run. ``width`` and
    ``height``: upright image size in pixels (the item's recorded size when
    None). ``annotators``: the annotator view (reviewer.qt.cards.annotators.AnnotatorView;
    None: the consensus only)."""
    item = session.item()
    if item is None:
        return Overlay()
    width = width or item.width or 0
    height = height or item.height or 0
    gt = session.ground_truth()
    piles, cards, unplaced = ground_truth_shapes(gt, session.selected_cards)
    run, convention = session.run(), session.convention()
    predicted = predicted_shapes(run, convention, width, height)
    findings, unplaced_findings = finding_shapes(
        run, {s.card_id: s.rect for s in cards}, predicted, session.selected_findings
    )
    legend = run_legend(run, convention) + unplaced_findings
    if unplaced:
        legend.append((f"{len(unplaced)} ground-truth card(s) without a box", NO_PILE_COLOR))
    blank = sum(1 for c in gt.cards if not c.text.strip())
    if blank:
        legend.append((f"{blank} card{'s' if blank != 1 else ''} to transcribe (T)", NO_PILE_COLOR))
    others, differences, names = [], [], []
    if annotators is not None:
        if annotators.mode != CONSENSUS_NAME:
            piles, cards = [], []
            others = annotator_shapes(annotators.layers())
        differences = difference_shapes(annotators)
        names = annotators.legend()
    dropped = 0
    for layer in (piles, predicted, findings, cards, others, differences):
        layer[:], left_out = paintable(layer)
        dropped += left_out
    if dropped:
        legend.append((f"{dropped} shape(s) with a coordinate that is not a pixel left out", NO_PILE_COLOR))
    return Overlay(
        float(width),
        float(height),
        piles,
        predicted,
        findings,
        cards,
        legend,
        handles=session.tool == "select",
        unplaced=tuple(unplaced),
        others=others,
        differences=differences,
        annotators=names,
    )
