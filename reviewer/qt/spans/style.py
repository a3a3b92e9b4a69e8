"""Colours of the span view: one per taxonomy category (docs/spans.md), the
three sections, and the finding states; and the legend strip. Labels are our
own constants, shown as plain text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from reviewer.core.spans.golden import category_of
from reviewer.core.spans.snapshots import CATEGORIES

#: Category -> colour (distinct hues, readable as a light background tint).
CATEGORY_COLORS: dict[str, str] = {
    "shot": "#1f77b4",
    "subject": "#d62728",
    "action": "#ff7f0e",
    "environment": "#2ca02c",
    "lighting": "#e6b800",
    "camera": "#9467bd",
    "style": "#e377c2",
    "technical": "#17becf",
    "audio": "#8c564b",
    "unknown": "#7f7f7f",
}
#: Section -> colour of its stripe at the left of the text.
SECTION_COLORS: dict[str, str] = {"main": "#4c9be8", "technicalSpecs": "#17becf", "alternatives": "#b07cc6"}
#: Finding status -> colour of its wavy underline.
STATUS_COLORS: dict[str, str] = {"proposed": "#e0301e", "confirmed": "#1a7f37", "rejected": "#9a9a9a"}
#: Background tint alpha of a labelled span (0-255).
TINT_ALPHA = 70


def role_color(role: str, alpha: int = 255) -> QColor:
    """The colour of a role's category (grey for an unknown category)."""
    c = QColor(CATEGORY_COLORS[category_of(role)])
    c.setAlpha(alpha)
    return c


class SpanLegend(QWidget):
    """One chip per category, the section stripes and what the marks mean
    (plain text labels only)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 2, 4, 2)
        column.setSpacing(2)
        top, bottom = QHBoxLayout(), QHBoxLayout()
        for row in (top, bottom):
            row.setSpacing(4)
            column.addLayout(row)
        for cat in CATEGORIES:
            top.addWidget(self._chip(cat, CATEGORY_COLORS[cat]))
        top.addStretch(1)
        for sec, color in SECTION_COLORS.items():
            bottom.addWidget(self._chip(sec, color, stripe=True))
        note = QLabel(
            "tint: model span · thick line: golden span · wavy: judge finding (red proposed, "
            "green confirmed, grey rejected)"
        )
        note.setTextFormat(Qt.PlainText)
        note.setWordWrap(True)
        bottom.addStretch(1)
        column.addWidget(note)  # its own line: a narrow pane wraps it without stretching the chips

    @staticmethod
    def _chip(text: str, color: str, stripe: bool = False) -> QLabel:
        label = QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)
        tint = QColor(color)
        tint.setAlpha(255 if stripe else TINT_ALPHA + 40)
        border = f"border-left: 5px solid {color};" if stripe else f"border-bottom: 3px solid {color};"
        label.setStyleSheet(
            f"QLabel {{ {border} padding: 0 3px; background: rgba({tint.red()},{tint.green()},"
            f"{tint.blue()},{30 if stripe else tint.alpha()}); }}"
        )
        label.setMinimumWidth(label.sizeHint().width())  # a chip is never cut
        return label


__all__ = ["CATEGORY_COLORS", "SECTION_COLORS", "STATUS_COLORS", "SpanLegend", "TINT_ALPHA", "role_color"]
