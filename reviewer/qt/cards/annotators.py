"""Whose ground truth the canvas shows, and the current item's ground-truth
differences one key away (docs/window.md).

* ``AnnotatorView`` (a QObject beside the Session, view state only): the
  canvas shows the consensus (the default, the ground truth scoring uses and
  the editing tools change), one annotator's ground truth, or every
  annotator's at once, each annotator in its own colour and line style
  (reviewer.qt.palette ``ANNOTATOR_COLORS``, by the annotator's place among the project's
  annotators, so a name keeps its colour from item to item). It also keeps
  which of the current item's differences (reviewer.core.cards.gt_agreement:
  missing card, text, pile, box IoU < 0.5) is highlighted; D / Shift+D
  step through them, the canvas pans to it and the status bar says what it
  is (kind, detail, dispute id and whether it is adjudicated).
* ``AnnotatorBar``: the toolbar combo (consensus, each annotator, all) and
  the legend naming each annotator shown with its colour; in any view but
  the consensus it says that editing acts on the consensus.
* ``annotator_actions``: the menu entries and keys (E / Shift+E cycle the
  view, D / Shift+D the differences) for reviewer.qt.actions.

Everything is read through the Session (Session.reads, no SQL here);
nothing is edited here: a ground-truth dispute is settled in adjudication
mode (reviewer.qt.judging.gt_sides).
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QMainWindow, QWidget

from reviewer.core.annotators import GT_KINDS, KIND
from reviewer.core.cards.gt_agreement import CONSENSUS_NAME, Difference
from reviewer.core.models import GroundTruth
from reviewer.qt.palette import color_of, style_of
from reviewer.qt.text import cell, line

#: The view of the consensus and of every annotator at once (combo entries).
CONSENSUS_VIEW = CONSENSUS_NAME
ALL_VIEW = "all annotators"


class AnnotatorView(QObject):
    """See module doc. ``mode``: CONSENSUS_VIEW, ALL_VIEW or an annotator's
    name; ``difference_index``: the highlighted difference of the current
    item (None: none)."""

    changed = Signal()  # what the canvas shows changed (view, item's annotators, highlighted difference)

    def __init__(self, session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.mode = CONSENSUS_VIEW
        self.difference_index: int | None = None
        self._cache: dict = {}
        session.projectChanged.connect(self._project_changed)
        session.disputesChanged.connect(self._forget)  # an import may bring annotators
        session.itemChanged.connect(self._item_changed)
        session.groundTruthChanged.connect(self._ground_truth_changed)
        session.toolChanged.connect(self._tool_changed)

    # -- reading --------------------------------------------------------------------------
    def _read(self, key: str, compute):
        item_id = self.session.item_id
        if not self.session.has_project() or item_id is None:
            return compute(None)
        if (key, item_id) not in self._cache:
            self._cache[(key, item_id)] = compute(item_id)
        return self._cache[(key, item_id)]

    def project_names(self) -> list[str]:
        """Every named annotator of the project, by name (their colour order)."""
        if not self.session.has_project():
            return []
        if ("names", None) not in self._cache:
            self._cache[("names", None)] = self.session.reads.annotators()
        return self._cache[("names", None)]

    def ground_truths(self) -> dict[str, GroundTruth]:
        """{annotator: ground truth} of the current item's named annotators."""
        return self._read("gt", lambda i: {} if i is None else self.session.reads.item_ground_truths(i))

    def names(self) -> list[str]:
        """The current item's named annotators, by name."""
        return list(self.ground_truths())

    def color(self, name: str) -> str:
        """The colour of annotator ``name`` (by its place in the project)."""
        return color_of(self.project_names(), name)

    def style(self, name: str) -> Qt.PenStyle:
        """The line style of annotator ``name`` (by its place in the project)."""
        return style_of(self.project_names(), name)

    def choices(self) -> list[str]:
        """The views to choose from: the consensus, each annotator of the
        project, and all of them (when there are any)."""
        names = self.project_names()
        return [CONSENSUS_VIEW, *names, ALL_VIEW] if names else [CONSENSUS_VIEW]

    def shown(self) -> list[str]:
        """The annotators drawn now (none in the consensus view)."""
        if self.mode == ALL_VIEW:
            return self.names()
        return [self.mode] if self.mode in self.ground_truths() else []

    def layers(self) -> list[tuple[str, str, Qt.PenStyle, GroundTruth]]:
        """(annotator, colour, line style, ground truth) of each annotator drawn now."""
        gts = self.ground_truths()
        return [(n, self.color(n), self.style(n), gts[n]) for n in self.shown()]

    def legend(self) -> list[tuple[str, str]]:
        """(text, colour) lines naming each annotator drawn, and what editing
        does (colour '': a note, no swatch)."""
        if self.mode == CONSENSUS_VIEW:
            return []
        out = [(n, self.color(n)) for n in self.shown()]
        if not out:
            out.append(
                (
                    f"{self.mode}: no ground truth of this item"
                    if self.mode != ALL_VIEW
                    else "no annotator's ground truth of this item",
                    "#BBBBBB",
                )
            )
        return out + [("editing acts on the consensus (not shown)", "")]

    def differences(self) -> list[Difference]:
        """Every difference of the current item's annotators (each a
        ground-truth dispute), most severe first."""
        found = self._read("diff", lambda i: [] if i is None else self.session.reads.item_comparisons(i))
        return sorted((d for c in found for d in c.differences), key=lambda d: -d.severity)

    def difference(self) -> Difference | None:
        """The highlighted difference, or None."""
        diffs = self.differences()
        i = self.difference_index
        return diffs[i] if i is not None and 0 <= i < len(diffs) else None

    # -- changing the view ---------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        """Show ``mode`` (see class doc); other views drop the card selection
        (the selection is of consensus cards, and they are not shown)."""
        if mode not in self.choices():
            self.session.message.emit(f"no annotator '{cell(mode)}' in this project")
            return
        if mode == self.mode:
            return
        self.mode = mode
        if mode != CONSENSUS_VIEW:
            self.session.select_cards([])
            who = "every annotator's ground truth" if mode == ALL_VIEW else f"{cell(mode)}'s ground truth"
            self.session.message.emit(
                f"showing {who} · the editing tools change the consensus, which is not shown (E cycles back to it)"
            )
        else:
            self.session.message.emit("showing the consensus (the ground truth scoring uses)")
        self.changed.emit()

    def cycle(self, step: int = 1) -> None:
        """E / Shift+E: the next / previous view (consensus, each annotator, all)."""
        choices = self.choices()
        if len(choices) == 1:
            self.session.message.emit(
                "this project has ground truth of no named annotator (reviewer import P FILE --annotator NAME)"
            )
            return
        pos = choices.index(self.mode) if self.mode in choices else 0
        self.set_mode(choices[(pos + step) % len(choices)])

    def step_difference(self, step: int = 1) -> None:
        """D / Shift+D: highlight the next / previous difference of the
        current item (cycling) and say what it is on the status bar."""
        diffs = self.differences()
        if not diffs:
            self.difference_index = None
            self.changed.emit()
            self.session.message.emit(self._none_here())
            return
        i = self.difference_index
        self.difference_index = (0 if step > 0 else len(diffs) - 1) if i is None else (i + step) % len(diffs)
        self.changed.emit()
        self.session.message.emit(self.describe(diffs[self.difference_index], self.difference_index, len(diffs)))

    def clear_difference(self) -> None:
        """Highlight no difference."""
        if self.difference_index is not None:
            self.difference_index = None
            self.changed.emit()

    def describe(self, d: Difference, index: int, total: int) -> str:
        """The status-bar line of difference ``d`` (``index`` of ``total``):
        kind, detail, its dispute and whether it is adjudicated."""
        kind = KIND[d.aspect].value
        text = f"difference {index + 1} of {total} · {kind} · {line(d.detail)}"
        dispute = next(
            (x for x in self.session.disputes() if (x.subject, x.dimension) == (d.subject, d.dimension)), None
        )
        if dispute is not None:
            text += f" · dispute {dispute.id}"
        adj = next(
            (a for a in self.session.adjudications() if (a.subject, a.dimension) == (d.subject, d.dimension)), None
        )
        if adj is not None:
            text += f" · adjudicated: sided with {cell(adj.sided_with or '?')}"
        elif dispute is not None:
            text += " · F3 settles it"
        return text

    def _none_here(self) -> str:
        item = self.session.item()
        name = cell(item.name) if item else "this item"
        if len(self.names()) < 2:
            text = f"{name} has no two annotators to compare"
        else:
            text = f"the annotators agree on {name}"
        elsewhere = sum(
            d.kind in GT_KINDS and d.subject != f"gt:{item.name if item else ''}" for d in self.session.disputes()
        )
        return text + (f" · {elsewhere} ground-truth dispute(s) on other items (F3)" if elsewhere else "")

    # -- session signals ------------------------------------------------------------------------
    def _forget(self, keep_names: bool = False) -> None:
        names = self._cache.get(("names", None))
        self._cache.clear()
        if keep_names and names is not None:  # the project's annotators (a scan of every card) stay
            self._cache[("names", None)] = names
        diffs = self.differences()
        if self.difference_index is not None and self.difference_index >= len(diffs):
            self.difference_index = None
        self.changed.emit()

    def _project_changed(self) -> None:
        self.mode, self.difference_index = CONSENSUS_VIEW, None
        self._forget()

    def _item_changed(self) -> None:
        self.difference_index = None
        self._forget(keep_names=True)

    def _ground_truth_changed(self, item_id: int) -> None:
        if item_id == self.session.item_id:
            self._forget()
        else:  # another item's ground truth may bring an annotator: read the project's names again
            self._cache.pop(("names", None), None)

    def _tool_changed(self, tool: str) -> None:
        if tool != "select" and self.mode != CONSENSUS_VIEW:
            self.session.message.emit(
                f"the {tool} tool draws on the consensus, not on "
                f"{'the annotators' if self.mode == ALL_VIEW else cell(self.mode)}'s "
                "ground truth shown"
            )


class AnnotatorBar(QWidget):
    """The toolbar's annotator switch: a combo of the views and the legend
    of the annotators drawn, a colour swatch and the plain name of each
    (see module doc). Holds no state: it shows the AnnotatorView and sets
    its mode."""

    def __init__(self, view: AnnotatorView, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = view
        self.combo = QComboBox()
        self.combo.setToolTip("Whose ground truth the photo shows (E / Shift+E); editing acts on the consensus")
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.legend = QWidget()
        self._legend_layout = QHBoxLayout(self.legend)
        self._legend_layout.setContentsMargins(6, 0, 0, 0)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(_plain("Ground truth:"))
        layout.addWidget(self.combo)
        layout.addWidget(self.legend)
        self._filling = False
        #: The toolbar's action of this widget (QToolBar.addWidget), shown only when the project has annotators.
        self.action: QAction | None = None
        self.combo.currentIndexChanged.connect(self._picked)
        view.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        """Show the views to choose from, the current one, and the legend."""
        self._filling = True
        try:
            choices = self.view.choices()
            if [self.combo.itemData(i) for i in range(self.combo.count())] != choices:
                self.combo.clear()
                for c in choices:
                    self.combo.addItem(cell(c), c)
            self.combo.setCurrentIndex(choices.index(self.view.mode) if self.view.mode in choices else 0)
        finally:
            self._filling = False
        if self.action is not None:
            self.action.setVisible(len(choices) > 1)
        while self._legend_layout.count():
            item = self._legend_layout.takeAt(0)
            old = item.widget() if item is not None else None
            if old is not None:  # a spacer has no widget
                old.setParent(None)
                old.deleteLater()
        for text, colour in self.view.legend():
            if colour:
                swatch = QLabel()
                swatch.setFixedSize(14, 14)
                swatch.setStyleSheet(f"QLabel {{ background: {colour}; border: 1px solid #333; }}")
                self._legend_layout.addWidget(swatch)
            label = _plain(text)
            if not colour:
                font = label.font()
                font.setItalic(True)
                label.setFont(font)
            self._legend_layout.addWidget(label)

    def legend_lines(self) -> list[str]:
        """The legend's texts as shown (tests)."""
        return [w.text() for w in self.legend.findChildren(QLabel) if w.text()]

    def _picked(self, index: int) -> None:
        if not self._filling and index >= 0:
            self.view.set_mode(self.combo.itemData(index))


def add_annotator_bar(window: QMainWindow, view: AnnotatorView) -> AnnotatorBar:
    """Put the annotator switch of ``view`` in a toolbar 'Annotators' of
    ``window`` (any QMainWindow: only its addToolBar is used; the toolbar
    shows only when the project has annotators) and return it."""
    toolbar = window.addToolBar("Annotators")
    toolbar.setObjectName("Annotators")
    bar = AnnotatorBar(view)
    bar.action = toolbar.addWidget(bar)
    bar.refresh()
    return bar


def _plain(text: str) -> QLabel:
    label = QLabel(cell(text))
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def annotator_actions(view: AnnotatorView) -> list[tuple]:
    """Action specs (name, menu, text, keys, slot) of the annotator switch
    and the differences, for reviewer.qt.actions.build_actions."""
    menu = "&Ground truth"
    return [
        (
            "gt_next_view",
            menu,
            "Show the next annotator's ground truth (consensus, each, all)",
            ["E"],
            partial(view.cycle, 1),
        ),
        ("gt_previous_view", menu, "Show the previous annotator's ground truth", ["Shift+E"], partial(view.cycle, -1)),
        ("gt_consensus", menu, "Show the &consensus", [], partial(view.set_mode, CONSENSUS_VIEW)),
        ("gt_all", menu, "Show &all annotators at once", [], partial(view.set_mode, ALL_VIEW)),
        (
            "gt_next_difference",
            menu,
            "Next &difference between annotators on this item",
            ["D"],
            partial(view.step_difference, 1),
        ),
        (
            "gt_previous_difference",
            menu,
            "Previous difference between annotators",
            ["Shift+D"],
            partial(view.step_difference, -1),
        ),
    ]


#: The annotator actions that belong to card review (disabled in adjudication mode).
ANNOTATOR_ACTIONS = (
    "gt_next_view",
    "gt_previous_view",
    "gt_consensus",
    "gt_all",
    "gt_next_difference",
    "gt_previous_difference",
)

#: (keys, action) of the annotator switch, for the '?' sheet.
ANNOTATOR_SHORTCUTS: list[tuple[str, str]] = [
    ("E / Shift+E", "ground truth shown: consensus, each annotator, all annotators (editing acts on the consensus)"),
    ("D / Shift+D", "next / previous difference between annotators on this item (the photo pans to it)"),
]
