"""reviewer.core.cards.boxes: convention detection, requested convention, to_pixels, iou."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from reviewer.core.cards.boxes import detect_convention, iou, requested_convention, scale_of, to_pixels
from reviewer.core.models import BBox, BoxConvention

UNIT, GRID, PIX = BoxConvention.UNIT, BoxConvention.GRID1000, BoxConvention.PIXELS


def box(x0: float, y0: float, x1: float, y1: float) -> BBox:
    return BBox(x_min=x0, y_min=y0, x_max=x1, y_max=y1)


# --- detect_convention -------------------------------------------------------


def test_no_boxes_gives_none() -> None:
    assert detect_convention([], 1600, 1200) is None
    assert detect_convention(iter(()), None, None) is None


@pytest.mark.parametrize("size", [(None, None), (1600, 1200), (4508, 3381), (635, 493)])
def test_unit_boxes(size) -> None:
    boxes = [box(0.05, 0.1, 0.25, 0.4), box(0.3, 0.55, 0.5, 0.95)]
    # The ambiguous default is not used: 0-1 is unambiguous.
    assert detect_convention(boxes, *size, ambiguous=PIX) == UNIT


def test_unit_boundary_exactly_one_is_unit_and_just_above_is_not() -> None:
    assert detect_convention([box(0.0, 0.0, 1.0, 1.0)], 800, 600) == UNIT
    assert detect_convention([box(0.0, 0.0, 1.5, 1.0)], 800, 600, ambiguous=PIX) == PIX


def test_qwen_grid_on_large_photo() -> None:
    # Qwen-VL answers on a 0-1000 grid whatever the prompt asked; on a
    # 4508x3381 photo every coordinate is <= 1000 although cards cover it all.
    boxes = [
        box(62, 95, 231, 440),
        box(268, 102, 455, 452),
        box(517, 88, 702, 431),
        box(760, 110, 951, 466),
        box(70, 540, 240, 910),
        box(790, 520, 980, 905),
    ]
    assert detect_convention(boxes, 4508, 3381, ambiguous=PIX) == GRID
    assert detect_convention(boxes, 4508, 3381, ambiguous=GRID) == GRID


def test_pixels_above_1000() -> None:
    boxes = [box(310, 402, 1180, 1620), box(2210, 380, 3050, 1598)]
    assert detect_convention(boxes, 4508, 3381, ambiguous=GRID) == PIX
    # Without the image size the > 1000 rule still holds.
    assert detect_convention(boxes, ambiguous=GRID) == PIX


def test_just_above_1000_is_pixels_exactly_1000_is_not() -> None:
    assert detect_convention([box(0, 0, 1000.5, 10)], 1600, 1200) == PIX
    assert detect_convention([box(0, 0, 1000, 10)], None, None, ambiguous=GRID) == GRID
    assert detect_convention([box(0, 0, 1000, 10)], None, None, ambiguous=PIX) == PIX


def test_boxes_overflowing_a_small_image_are_grid() -> None:
    # 635x493 image: y 700 is beyond the image in pixels, so the grid it is.
    boxes = [box(40, 60, 200, 300), box(300, 520, 580, 700)]
    assert detect_convention(boxes, 635, 493, ambiguous=PIX) == GRID


@pytest.mark.parametrize("default", [GRID, PIX])
def test_ambiguous_small_image_uses_default(default) -> None:
    # 800x600 image, boxes fit both the image in pixels and the grid.
    boxes = [box(40, 60, 200, 300), box(300, 320, 480, 560)]
    assert detect_convention(boxes, 800, 600, ambiguous=default) == default
    # Unknown image size: same.
    assert detect_convention(boxes, None, None, ambiguous=default) == default


def test_default_ambiguous_is_grid() -> None:
    assert detect_convention([box(40, 60, 200, 300)], 800, 600) == GRID


# --- requested_convention ----------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Return each card's bounding box (x_min, y_min, x_max, y_max as 0-1 normalized).", UNIT),
        ("Give coordinates normalised to the image size.", UNIT),
        ("Coordinates are fractions of the width and height.", UNIT),
        ("Use values from 0 to 1 for every coordinate.", UNIT),
        ("Use values 0.0 to 1.0.", UNIT),
        ("Boxes in 0–1 coordinates.", UNIT),
        ("Give boxes on a 0-1000 grid relative to the image.", GRID),
        ("Coordinates from 0 to 1000.", GRID),
        ("Coordinates normalized to 0-1000.", GRID),  # the grid wins over 'normalized'
        ("Give every box in pixels of the original photo.", PIX),
        ("Use pixel coordinates (x_min, y_min, x_max, y_max).", PIX),
        ("Read every card and list its text.", None),
        ("Detect every card and give its bounding box.", None),
        ("There are 10 cards; give 1 box per card.", None),
        ("", None),
    ],
)
def test_requested_convention(text: str, expected) -> None:
    assert requested_convention(text) == expected


# --- to_pixels / scale_of ----------------------------------------------------


def test_to_pixels_known_values() -> None:
    assert to_pixels(box(0.25, 0.5, 0.75, 1.0), UNIT, 1600, 1200) == box(400, 600, 1200, 1200)
    assert to_pixels(box(250, 500, 750, 1000), GRID, 4508, 3381) == box(1127, 1690.5, 3381, 3381)
    assert to_pixels(box(10, 20, 30, 40), PIX, 4508, 3381) == box(10, 20, 30, 40)
    assert scale_of(GRID, 2000, 500) == (2.0, 0.5)
    assert scale_of(UNIT, 2000, 500) == (2000.0, 500.0)
    assert scale_of(PIX, 2000, 500) == (1.0, 1.0)


sizes = st.tuples(st.integers(1, 8000), st.integers(1, 8000))


@st.composite
def pixel_boxes(draw, w: int, h: int) -> BBox:
    xs = sorted(draw(st.lists(st.floats(0, w), min_size=2, max_size=2)))
    ys = sorted(draw(st.lists(st.floats(0, h), min_size=2, max_size=2)))
    return box(xs[0], ys[0], xs[1], ys[1])


@settings(max_examples=150, deadline=None)
@given(st.data(), sizes)
def test_to_pixels_round_trip(data, size) -> None:
    w, h = size
    px = data.draw(pixel_boxes(w, h))
    for conv, (sx, sy) in ((UNIT, (w, h)), (GRID, (w / 1000, h / 1000)), (PIX, (1, 1))):
        given_box = box(px.x_min / sx, px.y_min / sy, px.x_max / sx, px.y_max / sy)
        back = to_pixels(given_box, conv, w, h)
        for a, b in zip(
            (back.x_min, back.y_min, back.x_max, back.y_max),
            (px.x_min, px.y_min, px.x_max, px.y_max),
        ):
            assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
    # A grid box of the whole image covers the whole image in pixels.
    assert to_pixels(box(0, 0, 1000, 1000), GRID, w, h) == box(0, 0, w, h)


# --- iou -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (box(0, 0, 10, 10), box(0, 0, 10, 10), 1.0),
        (box(0, 0, 10, 10), box(20, 20, 30, 30), 0.0),
        (box(0, 0, 10, 10), box(10, 0, 20, 10), 0.0),  # touching edges
        (box(0, 0, 2, 1), box(1, 0, 3, 1), 1 / 3),  # half overlap
        (box(0, 0, 10, 10), box(0, 0, 5, 5), 0.25),  # contained
        (box(0, 0, 10, 10), box(5, 5, 15, 15), 25 / 175),
        (box(0, 0, 0, 0), box(0, 0, 0, 0), 0.0),  # no area, no division by zero
        (box(0, 0, 10, 10), box(3, 3, 3, 8), 0.0),  # degenerate line
    ],
)
def test_iou_known_values(a: BBox, b: BBox, expected: float) -> None:
    assert iou(a, b) == pytest.approx(expected)
    assert iou(b, a) == pytest.approx(expected)


coord = st.floats(-1e4, 1e4, allow_nan=False)


@st.composite
def any_boxes(draw) -> BBox:
    x0, x1 = sorted((draw(coord), draw(coord)))
    y0, y1 = sorted((draw(coord), draw(coord)))
    return box(x0, y0, x1, y1)


@settings(max_examples=150, deadline=None)
@given(any_boxes(), any_boxes())
def test_iou_bounds_and_symmetry(a: BBox, b: BBox) -> None:
    v = iou(a, b)
    assert 0.0 <= v <= 1.0 + 1e-12
    assert v == pytest.approx(iou(b, a))


@settings(max_examples=100, deadline=None)
@given(any_boxes())
def test_iou_with_itself_is_one_when_it_has_area(a: BBox) -> None:
    assume((a.x_max - a.x_min) * (a.y_max - a.y_min) > 1e-6)
    assert iou(a, a) == pytest.approx(1.0)
