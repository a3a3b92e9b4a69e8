"""Calibration charts as SVG text and PNG bytes, drawn with matplotlib.

Two charts, each built once as a matplotlib Figure (the object API with the
Agg and SVG canvases, never pyplot: no GUI backend, no global figure state)
and saved either as SVG or as PNG, so both outputs show the same:

* :func:`distribution_svg` / :func:`distribution_png`: a judge's share of
  each score 1-5 beside the expected share (judge-calibration-plan.md).
* :func:`confusion_svg` / :func:`confusion_png`: a confusion matrix heatmap,
  judge values (rows) against reference values (columns), counts in cells.

Colours do not depend on the app palette and are safe for colour vision
deficiency (Okabe-Ito): judge #0072b2 (blue), expected #e69f00 (orange);
the heatmap runs from white to #0072b2 and every cell also prints its count.
Texts stay text in the SVG (svg.fonttype none), escaped by matplotlib;
judge names are untrusted, so control characters are dropped; long names are
cut in legends and axis labels, while titles are wrapped to the figure's width,
never cut. No SQL, Qt or HTTP; core writes no files.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure

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
JUDGE_COLOUR = "#0072b2"
#: The expected distribution's bars (Okabe-Ito orange).
EXPECTED_COLOUR = "#e69f00"
_HEAT = LinearSegmentedColormap.from_list("judge", ["#ffffff", JUDGE_COLOUR])
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
#: The matplotlib settings every chart is drawn with (fixed fonts and hash salt: reproducible SVG).
RC_PARAMS: dict[Any, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "reviewer",
    "font.family": "DejaVu Sans",
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def _clean(text: Any, limit: int = 80) -> str:
    """Text safe for a chart: control characters dropped, ``$`` kept literal
    (no mathtext), cut to ``limit`` characters."""
    s = _XML_BAD.sub("", str(text)).replace("$", r"\$")
    return s if len(s) <= limit else s[: limit - 1] + "…"


#: Longest title kept (characters); titles are wrapped to the figure's width, not cut.
TITLE_LIMIT = 300
#: Average width of a bold DejaVu Sans character, in ems (a little generous).
_BOLD_EM = 0.68


def set_title(ax, fig: Figure, text: str, fontsize: float = 11, **kwargs: Any) -> None:
    """Put the whole title on ``ax``, wrapped into lines that fit the figure's
    width (long judge and dimension names break at spaces and hyphens, else
    anywhere), so a saved chart never cuts it off; tight_layout then makes
    room for every line."""
    chars = max(16, int(fig.get_figwidth() * 72 * 0.94 / (fontsize * _BOLD_EM)))
    ax.set_title(
        "\n".join(wrap_title(_clean(text, TITLE_LIMIT), chars)) or " ", fontsize=fontsize, fontweight="bold", **kwargs
    )


def wrap_title(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters: words are kept
    whole where they fit; a longer word (a judge or dimension name) starts a
    line and is broken after its last '/', '_' or '-' that fits, else at the
    width; a lone separator such as '/' stays on its line (up to 2 over). No
    character is dropped but the spaces at line breaks."""
    lines: list[str] = []
    line = ""
    for word in re.findall(r"\S+\s*", text):
        if len(line) + len(word.rstrip()) <= width + (2 if len(word.strip()) == 1 else 0):
            line += word
            continue
        if line.strip():
            lines.append(line.rstrip())
        while len(word.rstrip()) > width:
            cut = max(word.rfind(c, 0, width) for c in "/_-") + 1
            cut = cut if cut > 0 else width
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _label(x: Any) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return _clean(x, 12)


def _distribution(
    judge: str,
    shares: Mapping[int, float],
    expected: Mapping[int, float],
    dimension: str,
    n: int | None,
    title: str | None,
) -> Figure:
    fig = Figure(figsize=(5.6, 3.8), dpi=100)
    ax = fig.add_subplot()
    xs = list(range(len(SCORES)))
    width = 0.38
    judge_label = _clean(judge, 40) + (f" (n = {n})" if n is not None else "")
    bars = ax.bar(
        [x - width / 2 for x in xs], [shares.get(s, 0.0) for s in SCORES], width, color=JUDGE_COLOUR, label=judge_label
    )
    plan = ax.bar(
        [x + width / 2 for x in xs],
        [expected.get(s, 0.0) for s in SCORES],
        width,
        color=EXPECTED_COLOUR,
        label="expected (plan)",
    )
    for group in (bars, plan):
        ax.bar_label(group, labels=[f"{b.get_height():.0%}" for b in group], fontsize=8, padding=2)
    top = max([0.5, *shares.values(), *expected.values()])
    top = min(1.0, math.ceil(round(top * 10, 6)) / 10)
    ax.set_ylim(0, top * 1.08)
    ticks = [k / 10 for k in range(int(round(top * 10)) + 1)]
    ax.set_yticks(ticks, [f"{t:.0%}" for t in ticks])
    ax.set_xticks(xs, [str(s) for s in SCORES])
    ax.set_xlabel("score")
    ax.yaxis.grid(True, color="#bbbbbb", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    set_title(ax, fig, title or f"Score distribution: {judge}" + (f" / {dimension}" if dimension else ""))
    fig.tight_layout()
    return fig


def _confusion(
    labels: Sequence[Any],
    counts: Sequence[Sequence[int]],
    judge: str,
    reference: str,
    dimension: str,
    title: str | None,
) -> Figure:
    k = max(1, len(labels))
    side = max(3.6, min(7.0, 1.2 + 0.55 * k))
    fig = Figure(figsize=(side + 1.4, side + 0.6), dpi=100)
    ax = fig.add_subplot()
    peak = max([1, *(c for row in counts for c in row)])
    ax.imshow(counts, cmap=_HEAT, vmin=0, vmax=peak)
    names = [_label(x) for x in labels]
    ax.set_xticks(range(len(names)), names)
    ax.set_yticks(range(len(names)), names)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel(_clean(f"{reference} value", 40))
    ax.set_ylabel(_clean(f"{judge} value", 40))
    for i, row in enumerate(counts):
        for j, c in enumerate(row):
            ax.text(
                j, i, str(c), ha="center", va="center", fontsize=10, color="#ffffff" if c / peak > 0.55 else "#000000"
            )
    n = sum(map(sum, counts))
    diag = sum(counts[i][i] for i in range(len(labels)))
    set_title(ax, fig, title or f"{judge} vs {reference}" + (f" / {dimension}" if dimension else ""), pad=28)
    fig.text(0.5, 0.02, f"n = {n}; same value: {diag}" + (f" ({diag / n:.0%})" if n else ""), ha="center", fontsize=9)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return fig


def svg_text(fig: Figure) -> str:
    """``fig`` rendered as SVG text with the charts' fixed settings (RC_PARAMS), reproducible byte for byte."""
    out = io.StringIO()
    with matplotlib.rc_context(RC_PARAMS):
        FigureCanvasSVG(fig)
        fig.savefig(out, format="svg", metadata={"Date": None})
    return out.getvalue()


def png_bytes(fig: Figure) -> bytes:
    """``fig`` rendered as PNG bytes with the charts' fixed settings (RC_PARAMS)."""
    out = io.BytesIO()
    with matplotlib.rc_context(RC_PARAMS):
        FigureCanvasAgg(fig)
        fig.savefig(out, format="png", dpi=200)
    return out.getvalue()


def _built(builder, *args) -> Figure:
    with matplotlib.rc_context(RC_PARAMS):
        return builder(*args)


def distribution_svg(
    judge: str,
    shares: Mapping[int, float],
    expected: Mapping[int, float] = EXPECTED_DISTRIBUTION,
    *,
    dimension: str = "",
    n: int | None = None,
    title: str | None = None,
) -> str:
    """SVG bar chart of a judge's score shares beside the expected shares.

    Args:
        judge: the judge's name (untrusted text; cleaned, escaped).
        shares: {score 1-5: share in [0, 1]} of the judge (missing = 0).
        expected: {score: expected share}, default the calibration plan's.
        dimension: the rubric dimension, shown in the title.
        n: scores behind ``shares``, shown in the legend.
        title: replaces the default title "Score distribution: judge / dim".

    Returns:
        A complete SVG document (UTF-8 text), 560 x 380 points.
    """
    return svg_text(_built(_distribution, judge, shares, expected, dimension, n, title))


def distribution_png(
    judge: str,
    shares: Mapping[int, float],
    expected: Mapping[int, float] = EXPECTED_DISTRIBUTION,
    *,
    dimension: str = "",
    n: int | None = None,
    title: str | None = None,
) -> bytes:
    """The chart of :func:`distribution_svg` as PNG bytes (1120 x 760
    pixels); core writes no files."""
    return png_bytes(_built(_distribution, judge, shares, expected, dimension, n, title))


def confusion_svg(
    labels: Sequence[Any],
    counts: Sequence[Sequence[int]],
    *,
    judge: str = "judge",
    reference: str = "adjudicated",
    dimension: str = "",
    title: str | None = None,
) -> str:
    """SVG heatmap of a confusion matrix.

    Args:
        labels: the values in scale order (rows and columns).
        counts: ``counts[i][j]`` = items the judge rated ``labels[i]`` and
            the reference ``labels[j]`` (len(labels) x len(labels)).
        judge, reference: names of the row and column raters (cleaned).
        dimension: shown in the title.
        title: replaces the default title "judge vs reference / dim".

    Returns:
        A complete SVG document. Raises ValueError when ``counts`` is not
        len(labels) x len(labels).
    """
    _check(labels, counts)
    return svg_text(_built(_confusion, labels, counts, judge, reference, dimension, title))


def confusion_png(
    labels: Sequence[Any],
    counts: Sequence[Sequence[int]],
    *,
    judge: str = "judge",
    reference: str = "adjudicated",
    dimension: str = "",
    title: str | None = None,
) -> bytes:
    """The heatmap of :func:`confusion_svg` as PNG bytes. Raises ValueError
    when ``counts`` is not square over ``labels``."""
    _check(labels, counts)
    return png_bytes(_built(_confusion, labels, counts, judge, reference, dimension, title))


def _check(labels: Sequence[Any], counts: Sequence[Sequence[int]]) -> None:
    if len(counts) != len(labels) or any(len(row) != len(labels) for row in counts):
        raise ValueError(f"counts must be {len(labels)} x {len(labels)}")
