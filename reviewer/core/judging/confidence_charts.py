"""The reliability diagram of a judge's confidences, as PNG bytes or SVG
text, drawn with matplotlib in the way of :mod:`reviewer.core.judging.charts`
(the object API with the Agg and SVG canvases, never pyplot; the same
colours, text cleaning and title wrapping).

Two panels share the confidence axis (0 to 1, one column per equal-width
bin): above, each non-empty bin's accuracy as a bar, its mean confidence as
a marker, and the diagonal of a perfectly calibrated judge; below, how many
verdicts fall in each bin, each count printed over its bar. Every bin's edges are
drawn, empty bins included. The legend and a line with n, ECE, adaptive ECE,
Brier and the mean confidence of right and wrong verdicts are at the foot. Core writes no files.
"""

from __future__ import annotations

import matplotlib
from matplotlib.figure import Figure

from reviewer.core.judging.charts import (
    EXPECTED_COLOUR,
    JUDGE_COLOUR,
    RC_PARAMS,
    png_bytes,
    set_title,
    svg_text,
)
from reviewer.core.judging.confidence import Calibration

__all__ = ["reliability_png", "reliability_svg"]

_GREY = "#555555"


def _title(judge: str, dimension: str, source: str) -> str:
    """The default title; set_title cleans it (cleaning twice would double
    the escape of '$')."""
    parts = [judge] + [p for p in (dimension, source) if p]
    return "Reliability: " + " / ".join(parts)


def _reliability(cal: Calibration, judge: str, dimension: str, source: str, title: str | None) -> Figure:
    fig = Figure(figsize=(5.6, 5.8), dpi=100)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1.2]})
    bins = [b for b in cal.bins if b.count]
    width = cal.bins[0].high - cal.bins[0].low if cal.bins else 1.0
    centres = [(b.low + b.high) / 2 for b in bins]
    top.plot([0, 1], [0, 1], linestyle="--", color=_GREY, linewidth=1, label="perfect calibration")
    top.bar(
        centres,
        [b.accuracy for b in bins],
        width=width,
        color=JUDGE_COLOUR,
        edgecolor="#ffffff",
        linewidth=0.8,
        alpha=0.9,
        label="accuracy (share right)",
    )
    top.scatter(
        [b.mean_confidence for b in bins],
        [b.mean_confidence for b in bins],
        marker="D",
        s=18,
        color=EXPECTED_COLOUR,
        zorder=3,
        label="mean confidence",
    )
    top.set_xlim(0, 1)
    top.set_ylim(0, 1.02)
    top.set_ylabel("accuracy")
    top.yaxis.grid(True, color="#dddddd", linewidth=0.6)
    top.set_axisbelow(True)
    for ax in (top, bottom):  # every bin's edges, empty bins included
        for b in cal.bins:
            ax.axvline(b.low, color="#e4e4e4", linewidth=0.6, zorder=0)
        ax.axvline(1.0, color="#e4e4e4", linewidth=0.6, zorder=0)
    fig.legend(
        *top.get_legend_handles_labels(),
        loc="lower center",
        ncol=3,
        fontsize=8,
        frameon=False,
        bbox_to_anchor=(0.5, 0.06),
    )
    right = "-" if cal.mean_confidence_right is None else f"{cal.mean_confidence_right:.2f}"
    wrong = "-" if cal.mean_confidence_wrong is None else f"{cal.mean_confidence_wrong:.2f}"
    fig.text(
        0.5,
        0.01,
        f"n = {cal.n}; {len(cal.bins)} bins; ECE {cal.ece:.3f}; adaptive ECE "
        f"{cal.adaptive_ece:.3f}; Brier {cal.brier:.3f}\nmean confidence of right verdicts {right}, "
        f"of wrong verdicts {wrong}",
        ha="center",
        va="bottom",
        fontsize=8,
        linespacing=1.4,
    )
    bars = bottom.bar(centres, [b.count for b in bins], width=width, color=_GREY, edgecolor="#ffffff", linewidth=0.8)
    bottom.bar_label(bars, labels=[str(b.count) for b in bins], fontsize=7, padding=1)
    peak = max([1, *(b.count for b in bins)])
    bottom.set_ylim(0, peak * 1.3)
    bottom.set_ylabel("verdicts")
    bottom.set_xlabel("confidence")
    ticks = [k / 5 for k in range(6)]
    bottom.set_xticks(ticks, [f"{t:.1f}" for t in ticks])
    set_title(top, fig, title or _title(str(judge), str(dimension), str(source)))
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def _figure(cal: Calibration, judge: str, dimension: str, source: str, title: str | None) -> Figure:
    with matplotlib.rc_context(RC_PARAMS):
        return _reliability(cal, judge, dimension, source, title)


def reliability_png(
    cal: Calibration,
    *,
    judge: str = "judge",
    dimension: str = "",
    source: str = "",
    title: str | None = None,
) -> bytes:
    """The reliability diagram of ``cal`` as PNG bytes (1120 x 1160 pixels).

    Args:
        cal: from :func:`reviewer.core.judging.confidence.calibration` (its
            ``bins`` are drawn, so any bin count works).
        judge, dimension, source: shown in the default title
            "Reliability: judge / dimension / source" (untrusted text,
            cleaned); ``source`` is the confidence's source (logprob,
            stated, imported).
        title: replaces the default title (wrapped, never cut).

    Returns:
        PNG bytes; core writes no files.
    """
    return png_bytes(_figure(cal, judge, dimension, source, title))


def reliability_svg(
    cal: Calibration,
    *,
    judge: str = "judge",
    dimension: str = "",
    source: str = "",
    title: str | None = None,
) -> str:
    """The diagram of :func:`reliability_png` as a complete SVG document
    (texts kept as text, escaped by matplotlib)."""
    return svg_text(_figure(cal, judge, dimension, source, title))
