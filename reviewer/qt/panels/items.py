"""The items list: every photo (or text) with a thumbnail, its name and its
review status, filtered by the window's search (reviewer.qt.search: name,
card texts, runs) and by what still needs doing.

Thumbnails are read when a row is first painted (reviewer.qt.panels.thumbnails).
An item whose photo has an image note (truncated, too large) says so in its
tooltip.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSize,
    QSortFilterProxyModel,
    Qt,
    QThreadPool,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QListView,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.workflows import distinct_titles, first_words
from reviewer.qt import registry
from reviewer.qt.panels import IdRole, plain_tooltip
from reviewer.qt.panels.thumbnails import Thumbnails
from reviewer.qt.search import matching_items
from reviewer.qt.session import ItemStatus, Session
from reviewer.qt.text import cell, plural

THUMB = QSize(72, 54)
#: Filter modes of the combo: (label, predicate on ItemStatus).
FILTERS = [
    ("all", lambda s: True),
    ("needs ground truth", lambda s: s.cards == 0 or s.to_transcribe > 0),
    ("needs review", lambda s: s.reviewed + s.no_findings < s.runs),
]


def _runs(status: ItemStatus) -> str:
    """'3/5 runs reviewed' (runs with findings, every one decided), '· 2 without
    findings' beside; '4 runs, no findings'; 'no runs'."""
    if not status.runs:
        return "no runs"
    with_findings = status.runs - status.no_findings
    if not with_findings:
        return f"{plural(status.runs, 'run')}, no findings"
    none = f" · {status.no_findings} without findings" if status.no_findings else ""
    return f"{status.reviewed}/{with_findings} runs reviewed{none}"


def status_line(status: ItemStatus) -> str:
    """The item's second line, in its workflow's words: its registration's
    (reviewer.qt.registry, ``status_line``: 'GT 12 golden spans · 1/3 runs
    reviewed', 'test case · 2 runs, no findings', 'ground-truth file · ...'
    (a judged output's Failter file), 'GT gold label · ...' (a pairwise
    benchmark's label), 'GT 3 human verdicts · ...'), else its ground-truth
    cards: 'GT 10 cards · 3/6 runs reviewed', 'GT 9 cards · 9 cards to
    transcribe · no runs', or 'no ground truth · 6 runs' (a pairwise item's
    judge references are no ground truth)."""
    parts = registry.of(status.workflow)
    own = parts.status_line(status, _runs(status)) if parts is not None and parts.status_line else None
    if own is not None:
        return own
    if status.cards == 0:
        return f"no ground truth · {plural(status.runs, 'run')}" if status.runs else "no ground truth"
    blank = status.to_transcribe
    todo = f" · {plural(blank, 'card')} to transcribe" if blank else ""
    return f"GT {plural(status.cards, 'card')}{todo} · {_runs(status)}"


def titles(rows: list[ItemStatus], texts: dict[int, str | None]) -> dict[int, str]:
    """{item id: title} of the text items among ``rows`` (``texts``: their
    texts by id): their id, then the words that tell them from their siblings
    (core.workflows.distinct_titles), computed once per reload so the list
    answers each row in O(1)."""
    shown = [st for st in rows if st.kind == "text"]
    named = distinct_titles([(st.name, texts.get(st.id)) for st in shown])
    return {st.id: title for st, title in zip(shown, named)}


def item_title(status: ItemStatus) -> str:
    """How an item is listed when alone: a text item by its text's first
    words (its id on hover), a photo by its name. In the list, text items
    are titled together (``titles``)."""
    item = status.item
    if item.kind == "text":
        return first_words(item.text, item.name)
    return item.name


class ItemsModel(QAbstractListModel):
    """Rows of session.items(); thumbnails are requested when first shown."""

    def __init__(self, session: Session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.rows: list[ItemStatus] = []
        self.row_by_id: dict[int, int] = {}
        self.titles: dict[int, str] = {}  # text items' titles, by item id (``titles``)
        #: whether a row passes the list's filter (ItemsFilter.passes), read through PassRole
        self.passes: Callable[[ItemStatus], bool] | None = None
        #: the photos' thumbnails, read on a pool (reviewer.qt.panels.thumbnails)
        self.thumbs = Thumbnails(THUMB, self)
        self.thumbs.ready.connect(self._thumb_ready)

    def reload(self) -> None:
        """Read session.items() again (a model reset)."""
        self.beginResetModel()
        self.rows = self.session.items()
        self.row_by_id = {st.id: k for k, st in enumerate(self.rows)}
        self.titles = titles(self.rows, self.session.item_texts()) if any(st.kind == "text" for st in self.rows) else {}
        self.endResetModel()

    def row_of(self, item_id: int | None) -> int | None:
        """The row of item ``item_id``, None when it has none (or for None)."""
        return None if item_id is None else self.row_by_id.get(item_id)

    def changed(self, item_ids) -> None:
        """The statuses of ``item_ids`` changed in place (the session keeps
        them): dataChanged on their rows only."""
        for item_id in item_ids:
            row = self.row_by_id.get(item_id)
            if row is not None:
                index = self.index(row)
                self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole])

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: N802
        """Number of items (0 under a valid parent: the list is flat)."""
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        """Name and status line, thumbnail (requested on first use) or placeholder, a tooltip for an
        unreadable photo, the item id (IdRole) and its ItemStatus (UserRole); None otherwise."""
        if not index.isValid():
            return None
        status = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            note = "⚠ " if status.item.image_note else ""
            title = self.titles.get(status.id) or item_title(status)
            return f"{note}{cell(title)}\n{status_line(status)}"
        if role == Qt.ItemDataRole.ToolTipRole:
            path = self.session.image_path(status.item)
            if path is not None and self.thumbs.is_broken(path):
                return plain_tooltip(f"cannot read the photo (missing or damaged):\n{path}")
            image_note = status.item.image_note
            name = status.name if status.kind != "text" else f"id: {status.name}"
            return plain_tooltip(f"{name}\n⚠ {image_note}" if image_note else name)
        if role == Qt.ItemDataRole.DecorationRole:
            return self._icon(status)
        if role == IdRole:
            return status.id
        if role == Qt.ItemDataRole.UserRole:
            return status
        if role == PassRole:
            return "1" if self.passes is not None and self.passes(status) else "0"
        return None

    def _icon(self, status: ItemStatus) -> QIcon:
        path = self.session.image_path(status.item)
        if path is None:
            return self.thumbs.text_icon()
        return self.thumbs.icon(path, status.id, status.item.orientation or 1)

    def _thumb_ready(self, item_ids: set[int]) -> None:
        for item_id in item_ids:
            row = self.row_by_id.get(item_id)
            if row is not None:
                index = self.index(row)
                self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])

    def forget_thumbnails(self) -> None:
        """Drop cached thumbnails (another project was opened)."""
        self.thumbs.forget()


#: The role the filter reads: "1" when the row passes the search and the mode.
PassRole = Qt.ItemDataRole.UserRole + 7


class ItemsFilter(QSortFilterProxyModel):
    """Filters rows by the search (the ids of matching items, None for all)
    and by a FILTERS mode. With neither, Qt's own filter keeps every row
    without asking the model (no pass over the rows in Python); else it
    keeps the rows whose PassRole is "1" (``passes``)."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.ids: set[int] | None = None
        self.mode = 0
        self.setFilterRole(PassRole)

    def set_filter(self, ids: set[int] | None, mode: int) -> None:
        """Keep rows whose item id is in ``ids`` (all when None) and that pass FILTERS[``mode``]."""
        self.beginFilterChange()
        self.prepare(ids, mode)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def prepare(self, ids: set[int] | None, mode: int) -> None:
        """Take ``ids`` and ``mode`` for the next filter pass (a model reset
        or ``set_filter``) without filtering now."""
        self.ids, self.mode = ids, mode
        pattern = "" if ids is None and mode == 0 else "1"
        if self.filterRegularExpression().pattern() != pattern:
            self.setFilterFixedString(pattern)

    def passes(self, status: ItemStatus) -> bool:
        """The item matches the search and its status passes the mode."""
        return (self.ids is None or status.id in self.ids) and FILTERS[self.mode][1](status)


class ItemsPanel(QWidget):
    """The items list (see module doc). Selecting a row makes it the
    session's current item; the list follows session.itemChanged."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.model = ItemsModel(session, self)
        self.proxy = ItemsFilter(self)
        self.model.passes = self.proxy.passes
        self.proxy.setSourceModel(self.model)

        self.filter_combo = QComboBox()
        self.filter_combo.addItems([label for label, _ in FILTERS])
        self.filter_combo.setToolTip("show all items, or only those that still need work")
        self.view = QListView()
        self.view.setModel(self.proxy)
        self.view.setIconSize(THUMB)
        self.view.setUniformItemSizes(True)
        self.view.setSpacing(2)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)

        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.filter_combo)
        box.addWidget(self.view, 1)

        self._syncing = False
        self.filter_combo.currentIndexChanged.connect(self._filter)
        session.searchChanged.connect(self._searched)
        self._before_search: int | None = None  # the item shown when a search hid it
        self.view.selectionModel().currentChanged.connect(self._picked)
        session.projectChanged.connect(self._project)
        session.groundTruthChanged.connect(lambda item_id: self._changed({item_id}))
        session.findingsChanged.connect(lambda: self._changed(self.session.changed_items))
        session.summaryChanged.connect(self._summarised)
        session.itemChanged.connect(self.follow)
        self._project()

    @property
    def thumbnail_pool(self) -> QThreadPool:
        """The pool reading thumbnails (tests wait on it)."""
        return self.model.thumbs.pool

    def _project(self) -> None:
        self.model.forget_thumbnails()
        self.refresh()

    def _summarised(self) -> None:
        """The summary is in (a big project's review counts come with it):
        the rows drawn again in place, filtered again when a filter is on."""
        n = len(self.model.rows)
        if n:
            self.model.dataChanged.emit(
                self.model.index(0), self.model.index(n - 1), [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.UserRole]
            )
        if self.session.search or self.filter_combo.currentIndex() != 0:
            self._filter()

    def _changed(self, item_ids) -> None:
        """Rows of ``item_ids`` changed (None: any): update them in place, and
        filter again only when a filter is on (it may keep other rows now)."""
        if item_ids is None or len(self.model.rows) != len(self.session.items()):
            self.refresh()
            return
        self.model.changed(item_ids)
        if self.session.search or self.filter_combo.currentIndex() != 0:
            self._filter()

    def refresh(self) -> None:
        """Re-read the items from the session, keeping the current one; the
        filter is set before the model is reset, which applies it (one pass
        over the rows, none when nothing is filtered)."""
        self._syncing = True
        try:
            self.proxy.prepare(matching_items(self.session, self.session.search), self.filter_combo.currentIndex())
            self.model.reload()
        finally:
            self._syncing = False
        self.follow()

    def _filter(self, *_args) -> None:
        self._syncing = True
        try:
            self.proxy.set_filter(matching_items(self.session, self.session.search), self.filter_combo.currentIndex())
        finally:
            self._syncing = False
        self.follow()

    def _searched(self, *_args) -> None:
        """The search filters the photo too: when it hides the item shown,
        the first item it keeps is shown (none when it keeps none); clearing
        the search brings back the item shown before, if nothing was picked
        meanwhile."""
        self._filter()
        s = self.session
        if not s.search:
            if s.item_id is None and self._before_search is not None:
                s.set_item(self._before_search)
            self._before_search = None
            return
        row = self.model.row_of(s.item_id)
        if s.item_id is None or (row is not None and self.proxy.mapFromSource(self.model.index(row)).isValid()):
            return
        if self._before_search is None:
            self._before_search = s.item_id
        first = self.proxy.index(0, 0)
        s.set_item(first.data(IdRole) if first.isValid() else None)

    def follow(self) -> None:
        """Select the session's current item (if it passes the filter)."""
        self._syncing = True
        try:
            row = self.model.row_of(self.session.item_id)
            target = self.proxy.mapFromSource(self.model.index(row)) if row is not None else QModelIndex()
            if target.isValid():
                self.view.setCurrentIndex(target)
                self.view.scrollTo(target)
            else:
                self.view.selectionModel().clear()
        finally:
            self._syncing = False

    def _picked(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        item_id = current.data(IdRole)
        if item_id != self.session.item_id:
            self.session.set_item(item_id)
