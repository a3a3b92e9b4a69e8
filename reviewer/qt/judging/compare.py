"""Each judge's verdict of the subject side by side: a column per verdict
(judge, method, answer order, every dimension's value, flags, issues found,
rationale), the values of the current dimension that differ from the others
marked (a '≠' and a light orange background), the highlighted judge framed
in blue with a '▶'.

Judge text is untrusted: every text is a Qt.PlainText label or a read-only
QPlainTextEdit.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.judging.verdicts import Scale, Verdict
from reviewer.qt.judging.common import (
    DIFFER_BACKGROUND,
    DIFFER_MARK,
    JUDGE_COLOUR,
    differing,
    gives,
    said,
    show_value,
)

CARD_WIDTH = 205


def _label(text: str = "", wrap: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class VerdictCard(QFrame):
    """One verdict as a column."""

    def __init__(
        self, verdict: Verdict, name: str, in_dispute: bool, dims: Sequence[str], parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.verdict, self.name = verdict, name
        self.setObjectName("verdictCard")
        self.setMinimumWidth(CARD_WIDTH)
        self.title = _label(name, wrap=True)
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.1)
        self.title.setFont(font)
        order = {"ab": "order ab", "ba": "order ba (saw output 2 first)"}.get(verdict.answer_order or "", "no order")
        meta = [verdict.method.value, order, f"rep {verdict.repetition}"]
        lines = [" · ".join(meta)]
        if verdict.judge_model and verdict.judge_model != verdict.judge:
            lines.append(f"model {verdict.judge_model}")
        if in_dispute:
            lines.append("in this dispute")
        self.meta = _label("\n".join(lines), wrap=True)
        grid = QGridLayout()
        grid.setHorizontalSpacing(8)
        self.dim_labels: dict[str, QLabel] = {}
        self.value_labels: dict[str, QLabel] = {}
        for row, dim in enumerate(dims):
            name_label = _label(dim)
            value_label = _label(show_value(said(verdict, dim), verdict.scale) if gives(verdict, dim) else "—")
            value_label.setObjectName("value")
            value_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            value_label.setMinimumWidth(64)
            grid.addWidget(name_label, row, 0)
            grid.addWidget(value_label, row, 1)
            self.dim_labels[dim], self.value_labels[dim] = name_label, value_label
        grid.setColumnStretch(0, 1)
        flags = ", ".join(f"{k}" if v is True else f"{k}={v}" for k, v in verdict.flags.items() if v)
        self.flags = _label(f"flags: {flags}" if flags else "flags: none", wrap=True)
        self.issues = _label(
            "issues: " + ("; ".join(verdict.issues_found) if verdict.issues_found else "none"), wrap=True
        )
        self.rationale = QPlainTextEdit()
        self.rationale.setReadOnly(True)
        self.rationale.setPlainText(
            verdict.rationale or (f"(no rationale; raw answer)\n{verdict.raw}" if verdict.raw else "(no rationale)")
        )
        self.rationale.setMinimumHeight(90)
        self.rationale.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(4)
        for w in (self.title, self.meta):
            layout.addWidget(w)
        layout.addLayout(grid)
        layout.addWidget(self.flags)
        layout.addWidget(self.issues)
        layout.addWidget(self.rationale, 1)
        self.set_highlighted(False)

    def set_highlighted(self, on: bool) -> None:
        """Frame the card when it is the judge Enter would accept."""
        self.highlighted = on
        border = f"3px solid {JUDGE_COLOUR}" if on else "1px solid palette(mid)"
        self.setStyleSheet(f"QFrame#verdictCard {{ border: {border}; border-radius: 4px; }}")
        self.title.setText(("▶ " if on else "") + self.name)
        self.title.setToolTip("▶: the judge Enter would accept (Left / Right frame another)" if on else "")

    def mark(self, dimension: str, differs: bool) -> None:
        """Show which dimension is current and whether its value differs."""
        for dim, label in self.value_labels.items():
            current = dim == dimension
            font = self.dim_labels[dim].font()
            font.setBold(current)
            self.dim_labels[dim].setFont(font)
            value = show_value(said(self.verdict, dim), self.verdict.scale) if gives(self.verdict, dim) else "—"
            if current and differs:
                label.setText(f"{DIFFER_MARK} {value}")
                label.setToolTip(
                    f"{DIFFER_MARK}: {self.name}'s {dim} ({value}) differs from the other judges' values; "
                    "a disagreement to settle, not a broken rubric rule (the ? sheet lists every badge)"
                )
                label.setStyleSheet(
                    f"QLabel#value {{ background: {DIFFER_BACKGROUND}; color: black; "
                    "font-weight: bold; border: 1px solid #E69F00; padding: 1px 4px; }"
                )
            else:
                label.setText(value)
                label.setToolTip("")
                label.setStyleSheet("QLabel#value { font-weight: bold; padding: 1px 4px; }" if current else "")


class VerdictColumns(QScrollArea):
    """The verdict cards of one subject in a horizontal row (scrolls when
    they do not fit)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.cards: list[VerdictCard] = []
        self._inner = QWidget()
        self._row = QHBoxLayout(self._inner)
        self._row.setContentsMargins(0, 0, 0, 0)
        self.setWidget(self._inner)
        self.empty = _label("No verdicts for this subject.")
        self._row.addWidget(self.empty)

    def set_verdicts(
        self, verdicts: Sequence[Verdict], names: Sequence[str], in_dispute: Sequence[bool], dims: Sequence[str]
    ) -> None:
        """Replace the cards (``names``: display name per verdict)."""
        for card in self.cards:
            self._row.removeWidget(card)
            card.hide()
            card.setParent(None)
            card.deleteLater()
        self.cards = [VerdictCard(v, n, d, dims) for v, n, d in zip(verdicts, names, in_dispute)]
        for card in self.cards:
            self._row.addWidget(card, 1)
        self.empty.setVisible(not self.cards)

    def set_state(self, dimension: str | None, highlighted: int | None) -> None:
        """Mark ``dimension``'s differing values and frame card ``highlighted``."""
        scoring = [n for n, c in enumerate(self.cards) if dimension and gives(c.verdict, dimension)]
        flags = differing([said(self.cards[n].verdict, dimension) for n in scoring if dimension])
        marks = [False] * len(self.cards)
        for n, flag in zip(scoring, flags):
            marks[n] = flag
        for n, (card, differs) in enumerate(zip(self.cards, marks)):
            card.mark(dimension or "", differs)
            card.set_highlighted(n == highlighted)
        if highlighted is not None and 0 <= highlighted < len(self.cards):
            self.ensureWidgetVisible(self.cards[highlighted])

    def differing_cards(self) -> list[int]:
        """Indexes of the cards whose current value is marked as differing."""
        return [
            n
            for n, c in enumerate(self.cards)
            if any(label.text().startswith(DIFFER_MARK) for label in c.value_labels.values())
        ]


def scale_text(scale: Scale | None, values: Sequence[object] = ()) -> str:
    """The scale's name for the decision line ('1-5', 'winner', ...);
    'yes/no' for a boolean dimension (a flag such as safety_flag, whose
    ``values`` are true or false), '?' when nothing tells."""
    if scale is not None:
        return scale.value
    if values and all(isinstance(v, bool) or str(v).lower() in ("true", "false") for v in values):
        return "yes/no"
    return "?"
