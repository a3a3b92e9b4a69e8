"""One colour per finding code everywhere (canvas, lists, charts), readable
with colour-vision deficiency: the Okabe-Ito palette, plus a distinct line
style per code so no code is told by colour alone; and pile colours from
Paul Tol's 'bright' scheme; and one colour and line style per annotator
(shared by the canvas and the adjudication screen)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from reviewer.core.models import CaseCode, Code, SpanCode

CODE_COLORS: dict = {
    Code.OCR: "#E69F00",  # orange
    Code.MISS: "#56B4E9",  # sky blue
    Code.SPATIAL: "#009E73",  # bluish green
    Code.HALLUC: "#D55E00",  # vermillion
    Code.FORMAT: "#CC79A7",  # reddish purple
    Code.PARTIAL: "#0072B2",  # blue
    # span-labeling judge errors (a run has codes of one taxonomy only)
    SpanCode.MISSED: "#56B4E9",
    SpanCode.FALSE_POSITIVE: "#D55E00",
    SpanCode.TAXONOMY: "#009E73",
    SpanCode.GRANULARITY: "#E69F00",
    # fired checks of a test case's rule metrics
    CaseCode.ERROR: "#D55E00",
    CaseCode.WARNING: "#E69F00",
}

CODE_STYLES: dict = {
    Code.OCR: Qt.PenStyle.SolidLine,
    Code.MISS: Qt.PenStyle.DashLine,
    Code.SPATIAL: Qt.PenStyle.DashDotLine,
    Code.HALLUC: Qt.PenStyle.DotLine,
    Code.FORMAT: Qt.PenStyle.DashDotDotLine,
    Code.PARTIAL: Qt.PenStyle.SolidLine,
    SpanCode.MISSED: Qt.PenStyle.DashLine,
    SpanCode.FALSE_POSITIVE: Qt.PenStyle.DotLine,
    SpanCode.TAXONOMY: Qt.PenStyle.DashDotLine,
    SpanCode.GRANULARITY: Qt.PenStyle.SolidLine,
    CaseCode.ERROR: Qt.PenStyle.SolidLine,
    CaseCode.WARNING: Qt.PenStyle.DashLine,
}

PILE_COLORS = ["#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB"]
PREDICTED_COLOR = "#FFFFFF"
SELECTED_COLOR = "#FFD400"


def code_color(code) -> QColor:
    """The QColor of a finding code."""
    return QColor(CODE_COLORS[code])


def pile_color(index: int) -> QColor:
    """The colour of the pile at ``index`` (cycling)."""
    return QColor(PILE_COLORS[index % len(PILE_COLORS)])


#: Annotator colours (Paul Tol's 'vibrant', apart from the pile colours' blues and greens).
ANNOTATOR_COLORS = ["#EE7733", "#33BBEE", "#EE3377", "#009988", "#CC3311", "#0077BB", "#BBBBBB"]
#: Annotator line styles, so two annotators' boxes on the same card both show.
ANNOTATOR_STYLES = [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine]


def color_of(names: list[str], name: str) -> str:
    """The colour of annotator ``name`` among the project's annotators ``names`` (by name)."""
    n = names.index(name) if name in names else len(names)
    return ANNOTATOR_COLORS[n % len(ANNOTATOR_COLORS)]


def style_of(names: list[str], name: str) -> Qt.PenStyle:
    """The line style of annotator ``name`` among the project's annotators ``names``."""
    n = names.index(name) if name in names else len(names)
    return ANNOTATOR_STYLES[n % len(ANNOTATOR_STYLES)]
