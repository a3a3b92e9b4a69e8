"""The shapes of each layer of the overlay model (overlay.py says what the
layers are), built from plain domain objects: the ground truth's piles and
cards, the current run's model boxes and findings with the legend lines of
what has no place on the photo, and the annotators' piles, cards and
differences (annotator views)."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt

from reviewer.core.cards.boxes import to_pixels
from reviewer.core.models import Card, Code, Finding, GroundTruth
from reviewer.qt.canvas.model import Rect, Shape, polygon_rect, rect_of
from reviewer.qt.palette import CODE_COLORS, CODE_STYLES, PILE_COLORS, PREDICTED_COLOR, SELECTED_COLOR
from reviewer.qt.text import CELL_CHARS, cell

NO_PILE_COLOR = "#BBBBBB"
REJECTED_COLOR = "#9E9E9E"


def pile_colors(gt: GroundTruth) -> dict[str | None, str]:
    """Colour of each pile label, by the pile's index in the ground truth."""
    colors: dict[str | None, str] = {p.label: PILE_COLORS[i % len(PILE_COLORS)] for i, p in enumerate(gt.piles)}
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
            assert card.id is not None  # the project's ground truth has card ids
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


def predicted_shapes(run, convention, width: float | None, height: float | None) -> list[Shape]:
    """The current run's model boxes in pixels (empty without boxes or size)."""
    if run is None or convention is None or not width or not height:
        return []
    out = []
    for i, card in enumerate(run.cards):
        if card.bbox is not None:
            rect = rect_of(to_pixels(card.bbox, convention, int(width), int(height)))
            out.append(Shape("predicted", rect, PREDICTED_COLOR, cell(card.text), Qt.PenStyle.DashLine, model_index=i))
    return out


def _finding_label(f: Finding, code: Code, model_pile: str | None) -> str:
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
