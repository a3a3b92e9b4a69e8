"""Calibration charts as SVG text and PNG files, without Qt.

Two charts, each laid out once as a list of shapes and then drawn either as
SVG (a string) or as PNG (Pillow ImageDraw), so both outputs show the same:

* :func:`distribution_svg` / :func:`distribution_png`: a judge's share of
  each score 1-5 beside the expected share (judge-calibration-plan.md).
* :func:`confusion_svg` / :func:`confusion_png`: a confusion matrix heatmap,
  judge values (rows) against reference values (columns), counts in cells.

Colours do not depend on the app palette and are safe for colour vision
deficiency (Okabe-Ito): judge #0072B2 (blue), expected #E69F00 (orange);
the heatmap runs from white to #0072B2 and every cell also prints its count.
Titles and labels are text elements; every text (judge names are untrusted)
is escaped with ``xml.sax.saxutils.escape`` after removing characters XML
cannot hold. Pure Python + Pillow: no SQL, Qt or HTTP.
"""

from __future__ import annotations

import io

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence
from xml.sax.saxutils import escape

from reviewer.core.judging.calibration import EXPECTED_DISTRIBUTION, SCORES

__all__ = [
    "EXPECTED_COLOUR",
    "JUDGE_COLOUR",
    "confusion_png",
    "confusion_svg",
    "distribution_png",
    "distribution_svg",
]

#: The judge's bars and the heatmap's full colour (Okabe-Ito blue).
JUDGE_COLOUR = "#0072B2"
#: The expected distribution's bars (Okabe-Ito orange).
EXPECTED_COLOUR = "#E69F00"
_TEXT = "#000000"
_GRID = "#BBBBBB"
_FONT = 13
_TITLE_FONT = 15



# ---------------------------------------------------------------------------
# shapes


@dataclass(frozen=True)
class _Rect:
    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: Optional[str] = None


@dataclass(frozen=True)
class _Line:
    x1: float
    y1: float
    x2: float
    y2: float
    stroke: str = _GRID


@dataclass(frozen=True)
class _Text:
    x: float
    y: float  # baseline
    text: str
    size: int = _FONT
    anchor: str = "middle"  # start | middle | end
    fill: str = _TEXT
    bold: bool = False


@dataclass(frozen=True)
class _Scene:
    width: int
    height: int
    title: str
    shapes: list


_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: Any, limit: int = 80) -> str:
    """Text safe for XML content once escaped: control characters dropped,
    cut to ``limit`` characters."""
    s = _XML_BAD.sub("", str(text))
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _pct(x: float) -> str:
    return f"{x:.0%}"


# ---------------------------------------------------------------------------
# layouts


def _distribution_scene(judge: str, shares: Mapping[int, float], expected: Mapping[int, float],
                        dimension: str, n: Optional[int], title: Optional[str]) -> _Scene:
    width, height = 560, 380
    left, right, top, bottom = 60, 20, 80, 320
    title = title or f"Score distribution: {judge}" + (f" / {dimension}" if dimension else "")
    shapes: list = [_Rect(0, 0, width, height, "#FFFFFF"),
                    _Text(width / 2, 24, _clean(title), _TITLE_FONT, bold=True)]
    # the axis goes to the next 10 % above the highest bar (at least 50 %)
    top_share = max([0.5, *shares.values(), *expected.values()])
    top_share = min(1.0, math.ceil(round(top_share * 10, 6)) / 10)
    scale = (bottom - top) / top_share
    for k in range(0, int(round(top_share * 10)) + 1):
        y = bottom - (k / 10) * scale
        shapes.append(_Line(left, y, width - right, y))
        shapes.append(_Text(left - 6, y + 4, f"{k * 10}%", 11, "end"))
    slot = (width - left - right) / len(SCORES)
    bar = slot * 0.36
    for i, s in enumerate(SCORES):
        x0 = left + i * slot + slot * 0.12
        for j, (value, colour) in enumerate(((shares.get(s, 0.0), JUDGE_COLOUR),
                                             (expected.get(s, 0.0), EXPECTED_COLOUR))):
            h = value * scale
            x = x0 + j * bar
            shapes.append(_Rect(x, bottom - h, bar, h, colour))
            shapes.append(_Text(x + bar / 2, bottom - h - 4, _pct(value), 10))
        shapes.append(_Text(left + i * slot + slot / 2, bottom + 18, str(s)))
    shapes.append(_Line(left, bottom, width - right, bottom, _TEXT))
    shapes.append(_Text((left + width - right) / 2, bottom + 36, "score", 12))
    # legend
    lx = left
    ly = 38
    judge_label = _clean(judge, 40) + (f" (n = {n})" if n is not None else "")
    shapes += [_Rect(lx, ly, 12, 12, JUDGE_COLOUR), _Text(lx + 18, ly + 11, judge_label, 12, "start")]
    lx2 = width - right - 150
    shapes += [_Rect(lx2, ly, 12, 12, EXPECTED_COLOUR), _Text(lx2 + 18, ly + 11, "expected (plan)", 12, "start")]
    return _Scene(width, height, _clean(title), shapes)


def _mix(fraction: float) -> str:
    """White (0) to JUDGE_COLOUR (1)."""
    f = max(0.0, min(1.0, fraction))
    r, g, b = (int(JUDGE_COLOUR[i:i + 2], 16) for i in (1, 3, 5))
    return "#%02X%02X%02X" % (round(255 + (r - 255) * f), round(255 + (g - 255) * f), round(255 + (b - 255) * f))


def _confusion_scene(labels: Sequence[Any], counts: Sequence[Sequence[int]], judge: str, reference: str,
                     dimension: str, title: Optional[str]) -> _Scene:
    k = max(1, len(labels))
    cell = max(36, min(70, 360 // k))
    left, top = 150, 90
    width = left + cell * k + 30
    height = top + cell * k + 60
    title = title or f"{judge} vs {reference}" + (f" / {dimension}" if dimension else "")
    shapes: list = [_Rect(0, 0, width, height, "#FFFFFF"),
                    _Text(width / 2, 24, _clean(title), _TITLE_FONT, bold=True)]
    peak = max([1, *(c for row in counts for c in row)])
    text_labels = [_label(x) for x in labels]
    for j, lab in enumerate(text_labels):
        shapes.append(_Text(left + j * cell + cell / 2, top - 8, lab, 12))
    shapes.append(_Text(left + cell * k / 2, top - 30, _clean(f"{reference} value", 40), 12, bold=True))
    for i, lab in enumerate(text_labels):
        shapes.append(_Text(left - 8, top + i * cell + cell / 2 + 4, lab, 12, "end"))
        for j in range(len(labels)):
            c = counts[i][j]
            frac = c / peak
            shapes.append(_Rect(left + j * cell, top + i * cell, cell, cell, _mix(frac), _GRID))
            shapes.append(_Text(left + j * cell + cell / 2, top + i * cell + cell / 2 + 5, str(c), 12,
                                fill="#FFFFFF" if frac > 0.55 else _TEXT))
    shapes.append(_Text(left - 8, top - 8, _clean(f"{judge} value", 18), 12, "end", bold=True))
    n = sum(map(sum, counts))
    diag = sum(counts[i][i] for i in range(len(labels)))
    shapes.append(_Text(width / 2, top + cell * k + 30,
                        f"n = {n}; same value: {diag}" + (f" ({diag / n:.0%})" if n else ""), 12))
    return _Scene(width, height, _clean(title), shapes)


def _label(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return _clean(x, 12)


# ---------------------------------------------------------------------------
# renderers


def _svg(scene: _Scene) -> str:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}" height="{scene.height}" '
        f'viewBox="0 0 {scene.width} {scene.height}" role="img" font-family="DejaVu Sans, Arial, sans-serif">',
        f"<title>{escape(scene.title)}</title>",
    ]
    for s in scene.shapes:
        if isinstance(s, _Rect):
            stroke = f' stroke="{s.stroke}"' if s.stroke else ""
            out.append(f'<rect x="{s.x:.1f}" y="{s.y:.1f}" width="{s.w:.1f}" height="{s.h:.1f}" '
                       f'fill="{s.fill}"{stroke}/>')
        elif isinstance(s, _Line):
            out.append(f'<line x1="{s.x1:.1f}" y1="{s.y1:.1f}" x2="{s.x2:.1f}" y2="{s.y2:.1f}" '
                       f'stroke="{s.stroke}" stroke-width="1"/>')
        else:
            weight = ' font-weight="bold"' if s.bold else ""
            out.append(f'<text x="{s.x:.1f}" y="{s.y:.1f}" font-size="{s.size}" text-anchor="{s.anchor}" '
                       f'fill="{s.fill}"{weight}>{escape(s.text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _font(size: int, bold: bool):
    from PIL import ImageFont

    for name in (("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"), "Arial.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _png(scene: _Scene, scale: int = 2) -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (scene.width * scale, scene.height * scale), "#FFFFFF")
    draw = ImageDraw.Draw(img)
    fonts: dict[tuple[int, bool], Any] = {}
    for s in scene.shapes:
        if isinstance(s, _Rect):
            if s.w <= 0 or s.h <= 0:
                continue
            box = [s.x * scale, s.y * scale, (s.x + s.w) * scale - 1, (s.y + s.h) * scale - 1]
            draw.rectangle(box, fill=s.fill, outline=s.stroke)
        elif isinstance(s, _Line):
            draw.line([s.x1 * scale, s.y1 * scale, s.x2 * scale, s.y2 * scale], fill=s.stroke, width=scale)
        else:
            key = (s.size * scale, s.bold)
            font = fonts.get(key) or fonts.setdefault(key, _font(*key))
            left, top_, right, bottom = draw.textbbox((0, 0), s.text, font=font)
            w = right - left
            x = s.x * scale - {"start": 0, "middle": w / 2, "end": w}[s.anchor]
            # the scene gives baselines; place the text's bottom near it
            y = s.y * scale - bottom
            draw.text((x, y), s.text, fill=s.fill, font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


# ---------------------------------------------------------------------------
# public API


def distribution_svg(
    judge: str,
    shares: Mapping[int, float],
    expected: Mapping[int, float] = EXPECTED_DISTRIBUTION,
    *,
    dimension: str = "",
    n: Optional[int] = None,
    title: Optional[str] = None,
) -> str:
    """SVG bar chart of a judge's score shares beside the expected shares.

    Args:
        judge: the judge's name (untrusted text; escaped).
        shares: {score 1-5: share in [0, 1]} of the judge (missing = 0).
        expected: {score: expected share}, default the calibration plan's.
        dimension: the rubric dimension, shown in the title.
        n: scores behind ``shares``, shown in the legend.
        title: replaces the default title "Score distribution: judge / dim".

    Returns:
        A complete SVG document (UTF-8 text), 560 x 380 user units.
    """
    return _svg(_distribution_scene(judge, shares, expected, dimension, n, title))


def distribution_png(
    judge: str,
    shares: Mapping[int, float],
    expected: Mapping[int, float] = EXPECTED_DISTRIBUTION,
    *,
    dimension: str = "",
    n: Optional[int] = None,
    title: Optional[str] = None,
) -> bytes:
    """The chart of :func:`distribution_svg` as PNG bytes (1120 x 760
    pixels: twice the SVG size); core writes no files."""
    return _png(_distribution_scene(judge, shares, expected, dimension, n, title))


def confusion_svg(
    labels: Sequence[Any],
    counts: Sequence[Sequence[int]],
    *,
    judge: str = "judge",
    reference: str = "adjudicated",
    dimension: str = "",
    title: Optional[str] = None,
) -> str:
    """SVG heatmap of a confusion matrix.

    Args:
        labels: the values in scale order (rows and columns).
        counts: ``counts[i][j]`` = items the judge rated ``labels[i]`` and
            the reference ``labels[j]`` (len(labels) x len(labels)).
        judge, reference: names of the row and column raters (escaped).
        dimension: shown in the title.
        title: replaces the default title "judge vs reference / dim".

    Returns:
        A complete SVG document. Raises ValueError when ``counts`` is not
        len(labels) x len(labels).
    """
    _check(labels, counts)
    return _svg(_confusion_scene(labels, counts, judge, reference, dimension, title))


def confusion_png(
    labels: Sequence[Any],
    counts: Sequence[Sequence[int]],
    *,
    judge: str = "judge",
    reference: str = "adjudicated",
    dimension: str = "",
    title: Optional[str] = None,
) -> bytes:
    """The heatmap of :func:`confusion_svg` as PNG bytes (twice the SVG
    size); ValueError for a misshapen matrix. Core writes no files."""
    _check(labels, counts)
    return _png(_confusion_scene(labels, counts, judge, reference, dimension, title))


def _check(labels: Sequence[Any], counts: Sequence[Sequence[int]]) -> None:
    if len(counts) != len(labels) or any(len(row) != len(labels) for row in counts):
        raise ValueError(f"counts must be {len(labels)} x {len(labels)}")
