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

``Shape``, ``Overlay`` and the Rect helpers are in model.py, the shapes of
each layer are built in shapes.py; this module joins them into an Overlay
(``build_overlay``), and every name of theirs it used to hold is importable
from here as before.
"""

from __future__ import annotations

from reviewer.core.bounds import drawable_points
from reviewer.core.cards.gt_agreement import CONSENSUS_NAME
from reviewer.qt.canvas.model import Overlay, Shape
from reviewer.qt.canvas.shapes import (
    NO_PILE_COLOR,
    annotator_shapes,
    difference_shapes,
    finding_shapes,
    ground_truth_shapes,
    predicted_shapes,
    run_legend,
)

__all__ = [
    "build_overlay",
    "paintable",
]


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


def build_overlay(session, width: float | None = None, height: float | None = None, annotators=None) -> Overlay:
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
        run, {s.card_id: s.rect for s in cards if s.card_id is not None}, predicted, session.selected_findings
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
