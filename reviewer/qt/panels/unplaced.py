"""Ground-truth cards of the current item that have no box yet (imported
as text only). Picking one selects it and switches the canvas to the card
tool, so the next box drawn on the photo is its box."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtGui import QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QLabel, QListView, QVBoxLayout, QWidget

from reviewer.qt.panels import IdRole
from reviewer.qt.session import Session
from reviewer.qt.text import cell

HINT = "draw its box on the photo"


def title(item, cards: int, unplaced: int) -> str:
    """The panel's line for ``item`` (None: no item) with ``cards``
    ground-truth cards, ``unplaced`` of them without a box: a message that
    fits the state (a text item, no ground truth yet, all placed)."""
    if item is None:
        return "no item"
    if item.kind != "photo":
        return "a text item: no cards to place"
    if unplaced:
        return f"{unplaced} card{'s' if unplaced != 1 else ''} without a box"
    if not cards:
        return "no ground truth yet: draw cards on the photo (C)"
    return "every ground-truth card has a box"


class UnplacedPanel(QWidget):
    """The cards without a box (see module doc)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.model = QStandardItemModel(self)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.title.setWordWrap(True)
        self.view = QListView()
        self.view.setModel(self.model)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setWordWrap(True)
        self.hint = QLabel(HINT)
        self.hint.setTextFormat(Qt.TextFormat.PlainText)
        self.hint.setStyleSheet(
            "QLabel { background: #FFF4C2; color: #3D3000; padding: 3px; "
            "border: 1px solid #E0C870; border-radius: 3px; }"
        )
        self.hint.hide()
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.title)
        box.addWidget(self.view, 1)
        box.addWidget(self.hint)

        self._syncing = False
        self.view.selectionModel().currentChanged.connect(self._picked)
        self.view.clicked.connect(self._clicked)
        session.projectChanged.connect(self.refresh)
        session.itemChanged.connect(self.refresh)
        session.groundTruthChanged.connect(self._gt_changed)
        session.cardSelectionChanged.connect(self.follow)
        self.refresh()

    def card_ids(self) -> list[int]:
        """Ids of the cards listed (those without a box), in order."""
        return [self.model.item(r).data(IdRole) for r in range(self.model.rowCount())]

    def _gt_changed(self, item_id: int) -> None:
        if item_id == self.session.item_id:
            self.refresh()

    def refresh(self) -> None:
        """Re-read the current item's ground truth."""
        every = self.session.ground_truth().cards
        cards = [c for c in every if c.bbox is None]
        self._syncing = True
        try:
            self.model.clear()
            for card in cards:
                row = QStandardItem(f"{cell(card.text)}  ·  {cell(card.pile)}" if card.pile else cell(card.text))
                row.setData(card.id, IdRole)
                row.setData(card.text, Qt.ItemDataRole.UserRole)
                self.model.appendRow(row)
        finally:
            self._syncing = False
        self.title.setText(title(self.session.item(), len(every), len(cards)))
        self.title.setForegroundRole(QPalette.ColorRole.WindowText if cards else QPalette.ColorRole.PlaceholderText)
        self.view.setVisible(bool(cards))
        self.follow()

    def follow(self) -> None:
        """Select the listed card the session has selected, if any."""
        selected = set(self.session.selected_cards)
        target = next(
            (self.model.index(r, 0) for r, cid in enumerate(self.card_ids()) if cid in selected), QModelIndex()
        )
        self._syncing = True
        try:
            sm = self.view.selectionModel()
            if target.isValid():
                sm.setCurrentIndex(target, QItemSelectionModel.SelectionFlag.ClearAndSelect)
            else:
                sm.clear()
        finally:
            self._syncing = False
        self.hint.setVisible(target.isValid())
        if target.isValid():
            self.hint.setText(f"{HINT}: “{cell(target.data(Qt.ItemDataRole.UserRole))}” (card tool)")

    def _clicked(self, index: QModelIndex) -> None:
        # clicking the already-current row again re-arms the card tool
        if index.isValid() and self.session.tool != "card":
            self._picked(index, QModelIndex())

    def _picked(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        card_id = current.data(IdRole)
        self.session.select_cards([card_id])
        self.session.set_tool("card")
