"""Piles and cards beside the photo (docs/window.md, "Piles and cards"):
the current item's ground truth as a tree, each pile with its cards (a card
without a box says so) and under each card the current run's findings on it
(code, status; SPATIAL with the pile the run put it in), then the run's
findings on no card. Ground truth without boxes (piles and texts only) is
thus visible even though nothing of it can be drawn on the photo.

Selecting a finding selects it (the canvas shows it where it can); selecting
a card selects the card. B or Enter on a card without a box starts drawing
its box (the card tool, that card selected: the next rectangle drawn is its
box). The tree is a cache of what the session says, rebuilt on its signals;
every text in it is plain."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from reviewer.core.models import Code
from reviewer.qt.palette import CODE_COLORS
from reviewer.qt.session import Session
from reviewer.qt.text import cell

#: Item-data role of a row: ('pile', label) / ('card', id) / ('finding', id).
RowRole = Qt.ItemDataRole.UserRole + 1
NO_BOX = "no box"
NO_PILE = "(no pile)"
ON_NO_CARD = "the run, on no card"
HINT = "B or Enter on a card without a box: draw its box on the photo"


def finding_line(f, model_pile: str | None) -> str:
    """One finding as a row: final code (SPATIAL with the pile the run put the card in), status."""
    code = f.final_code or f.code
    text = code.value
    if code == Code.SPATIAL:
        text += f" → {cell(model_pile or '?')}"
    elif f.model_card and code in (Code.OCR, Code.PARTIAL, Code.HALLUC):
        text += f" “{cell(f.model_card)}”"
    elif not f.gt_card_id and (f.gt_card or f.detail):
        text += f": {cell(f.gt_card or f.detail)}"
    return f"{text} · {f.status.value}"


class PilesList(QWidget):
    """The ground truth's piles, cards and findings (module doc)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.installEventFilter(self)
        hint = QLabel(HINT)
        hint.setTextFormat(Qt.TextFormat.PlainText)
        hint.setWordWrap(True)
        hint.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.title)
        box.addWidget(self.tree, 1)
        box.addWidget(hint)
        self._syncing = False
        self.tree.currentItemChanged.connect(self._picked)
        s = session
        for signal in (s.projectChanged, s.itemChanged, s.runChanged, s.findingsChanged):
            signal.connect(self.refresh)
        s.groundTruthChanged.connect(lambda item_id: self.refresh() if item_id == s.item_id else None)
        s.findingSelectionChanged.connect(self.follow)
        self.refresh()

    # -- session -> tree ---------------------------------------------------------------------------
    def refresh(self) -> None:
        """Rebuild the tree from the current item's ground truth and run."""
        s = self.session
        gt = s.ground_truth()
        run = s.run() if s.item() is not None else None
        findings = run.findings if run is not None else []
        model_pile: dict[int | None, str | None] = (
            {o.gt_card_id: o.model_pile for o in run.facts.outcomes} if run is not None else {}
        )
        self._syncing = True
        try:
            self.tree.clear()
            labels = [p.label for p in gt.piles]
            extra = [None] if any(c.pile not in labels for c in gt.cards) else []
            for label in [*labels, *extra]:
                cards = [c for c in gt.cards if (c.pile == label if label is not None else c.pile not in labels)]
                pile = QTreeWidgetItem([f"{cell(label) if label is not None else NO_PILE} · {len(cards)} cards"])
                pile.setData(0, RowRole, ("pile", label))
                self.tree.addTopLevelItem(pile)
                for card in cards:
                    text = cell(card.text) if card.text.strip() else "(to transcribe)"
                    row = QTreeWidgetItem([text + (f"  · {NO_BOX}" if card.bbox is None else "")])
                    row.setData(0, RowRole, ("card", card.id))
                    pile.addChild(row)
                    for f in findings:
                        if f.gt_card_id == card.id:
                            row.addChild(self._finding_row(f, model_pile.get(f.gt_card_id)))
            rest = [f for f in findings if f.gt_card_id not in {c.id for c in gt.cards}]
            if rest:
                top = QTreeWidgetItem([f"{ON_NO_CARD} · {len(rest)}"])
                top.setData(0, RowRole, ("pile", ON_NO_CARD))
                self.tree.addTopLevelItem(top)
                for f in rest:
                    top.addChild(self._finding_row(f, None))
            self.tree.expandAll()
        finally:
            self._syncing = False
        unplaced = sum(1 for c in gt.cards if c.bbox is None)
        self.title.setText(
            f"{len(gt.piles)} piles · {len(gt.cards)} cards ({unplaced} without a box) · {len(findings)} findings"
            if gt.cards or gt.piles
            else "no ground truth yet: draw cards on the photo (C)"
        )
        self.follow()

    def _finding_row(self, f, model_pile: str | None) -> QTreeWidgetItem:
        row = QTreeWidgetItem([finding_line(f, model_pile)])
        row.setData(0, RowRole, ("finding", f.id))
        code = f.final_code or f.code
        if isinstance(code, Code) and f.status.value != "rejected":
            row.setForeground(0, QBrush(QColor(CODE_COLORS[code]).darker(130)))
        return row

    def rows(self) -> list[tuple[int, str, object]]:
        """Every row as (depth, text, (kind, id)), depth first (tests, screenshots)."""
        out: list[tuple[int, str, object]] = []

        def walk(item: QTreeWidgetItem | None, depth: int) -> None:
            if item is None:
                return
            out.append((depth, item.text(0), item.data(0, RowRole)))
            for k in range(item.childCount()):
                walk(item.child(k), depth + 1)

        for k in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(k), 0)
        return out

    def row_of(self, kind: str, key) -> QTreeWidgetItem | None:
        """The row of ('card' | 'finding' | 'pile', id or label), or None."""
        found = self.tree.findItems("*", Qt.MatchFlag.MatchWildcard | Qt.MatchFlag.MatchRecursive)
        return next((r for r in found if r.data(0, RowRole) == (kind, key)), None)

    def follow(self) -> None:
        """Make the selected finding's row current (the first, if several)."""
        chosen = self.session.selected_findings
        row = self.row_of("finding", chosen[0]) if chosen else None
        if row is None or row is self.tree.currentItem():
            return
        self._syncing = True
        try:
            self.tree.setCurrentItem(row)
            self.tree.scrollToItem(row)
        finally:
            self._syncing = False

    # -- tree -> session -----------------------------------------------------------------------
    def _picked(self, current: QTreeWidgetItem | None, _previous=None) -> None:
        if self._syncing or current is None:
            return
        kind, key = current.data(0, RowRole)
        if kind == "finding":
            self.session.select_findings([key])
        elif kind == "card":
            self.session.select_cards([key])

    def draw_box(self) -> bool:
        """Start drawing the box of the current row's card (a card without a box): it is
        selected and the card tool is on. False (and a status line) otherwise."""
        row = self.tree.currentItem()
        kind, key = row.data(0, RowRole) if row is not None else (None, None)
        if kind == "finding":
            run = self.session.run()
            key = next((f.gt_card_id for f in (run.findings if run is not None else []) if f.id == key), None)
            kind = "card" if key is not None else None
        card = next((c for c in self.session.ground_truth().cards if kind == "card" and c.id == key), None)
        if card is None or card.id is None:
            self.session.message.emit("choose a card (or a finding on one) to draw its box")
            return False
        if card.bbox is not None:
            self.session.message.emit(f"“{cell(card.text)}” has a box: V, then drag it or its handles")
            return False
        self.session.select_cards([card.id])
        self.session.set_tool("card")
        self.session.message.emit(f"draw the box of “{cell(card.text)}” on the photo")
        return True

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt)
        """B, Enter or Return in the tree: ``draw_box``."""
        if (
            watched is self.tree
            and event.type() == event.Type.KeyPress
            and event.key() in (Qt.Key.Key_B, Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and not event.modifiers()
        ):
            self.draw_box()
            return True
        return False


__all__ = ["PilesList", "RowRole", "finding_line"]
