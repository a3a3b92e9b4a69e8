"""The queue of disputes: most severe first, filtered by kind, judge,
dimension and status and by the window's search (subject, item, kind,
dimension, judges, detail; reviewer.qt.search), with the progress (adjudicated / total, and per
reviewer). Selecting a row makes it the session's current dispute.

The rows are a cache of what the session says, rebuilt on its signals; the
filters are view settings, not domain state.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QItemSelectionModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from reviewer.core.judging.verdicts import Dispute
from reviewer.core.text import natural_key
from reviewer.qt.judging.common import DONE_COLOUR, KIND_SHORT
from reviewer.qt.panels import IdRole, plain_tooltip
from reviewer.qt.search import matches, terms
from reviewer.qt.session import Session

ALL = "(all)"
#: Item-data role: True when the row's dispute is adjudicated.
DoneRole = Qt.ItemDataRole.UserRole + 3
DetailRole = Qt.ItemDataRole.UserRole + 4
_ROOT = QModelIndex()
_Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole
_TOOLTIP = Qt.ItemDataRole.ToolTipRole
_FOREGROUND = Qt.ItemDataRole.ForegroundRole
_ALIGNMENT = Qt.ItemDataRole.TextAlignmentRole
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class _QueueModel(QAbstractTableModel):
    """The queue's rows, (dispute, adjudicated, shown subject) each; a cell
    (text, colour, alignment, tooltip) is made when the view asks for it,
    so filling the queue costs one reset, not an item object per cell."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.rows: list[tuple[Dispute, bool, str]] = []
        self._done_brush = QBrush(QColor(DONE_COLOUR))

    def set_rows(self, rows: list[tuple[Dispute, bool, str]]) -> None:
        """Show ``rows`` (one model reset)."""
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt API
        """Rows shown (none under a row: a table)."""
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802 - Qt API
        """The COLUMNS."""
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation, role: int = _DISPLAY):  # noqa: N802 - Qt API
        """The column's name (horizontal), the row's number (vertical, hidden)."""
        if role != _DISPLAY:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section] if 0 <= section < len(COLUMNS) else None
        return str(section + 1)

    def flags(self, index: _Index):
        """Selectable and enabled, never edited."""
        return Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled if index.isValid() else Qt.ItemFlag.NoItemFlags

    def data(self, index: _Index, role: int = _DISPLAY):
        """A cell's text, the done column's colour, the severity's alignment,
        the dispute's detail as a plain-text tooltip, and its id, done flag
        and detail (IdRole, DoneRole, DetailRole); None otherwise."""
        if not index.isValid():
            return None
        d, done, subject = self.rows[index.row()]
        column = index.column()
        if role == _DISPLAY:
            if column == 0:
                return "\u2713" if done else ""
            if column == 1:
                return KIND_SHORT.get(d.kind.value, d.kind.value)
            if column == 2:
                return subject
            if column == 3:
                return d.dimension
            return f"{d.severity:.2f}"
        if role == IdRole:
            return d.id
        if role == DoneRole:
            return done
        if role == DetailRole:
            return d.detail
        if role == _TOOLTIP:
            return plain_tooltip(d.detail) if d.detail else None
        if role == _FOREGROUND and done and column == 0:
            return self._done_brush
        if role == _ALIGNMENT and column == 4:
            return _RIGHT
        return None


#: Rows whose cells the columns are fitted to (Qt's default, 1,000, asks the model for 40,000 cells' data).
FIT_ROWS = 100
STATUSES = ("(all)", "to do", "adjudicated")
COLUMNS = ("done", "kind", "subject", "dimension", "sev.")


class DisputeQueue(QWidget):
    """Filter combos, the dispute table and the progress line."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self._rebuilding = False
        self._judges_of: dict[int, frozenset[str]] = {}
        self.kind_combo, self.judge_combo = QComboBox(), QComboBox()
        self.dimension_combo, self.status_combo = QComboBox(), QComboBox()
        self.status_combo.addItems(STATUSES)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        for n, (label, combo) in enumerate(
            (
                ("Kind", self.kind_combo),
                ("Judge", self.judge_combo),
                ("Dimension", self.dimension_combo),
                ("Status", self.status_combo),
            )
        ):
            caption = QLabel(label)
            caption.setTextFormat(Qt.TextFormat.PlainText)
            grid.addWidget(caption, n // 2, (n % 2) * 2)
            grid.addWidget(combo, n // 2, (n % 2) * 2 + 1)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)
            combo.currentIndexChanged.connect(self._refill)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        self.model = _QueueModel(self)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setTabKeyNavigation(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        self.view.setWordWrap(False)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setResizeContentsPrecision(FIT_ROWS)
        self.progress = QLabel()
        self.progress.setTextFormat(Qt.TextFormat.PlainText)
        self.progress.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(grid)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.progress)
        self.view.selectionModel().currentRowChanged.connect(self._row_changed)
        session.projectChanged.connect(self.rebuild)
        session.disputesChanged.connect(self.rebuild)
        session.adjudicationsChanged.connect(self._refill)
        session.searchChanged.connect(self._refill)
        session.disputeChanged.connect(self._follow)
        self.rebuild()

    # -- filling -------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Fill the filter combos from the disputes, then the table (the
        raters' names come with the session's verdicts, made once per refresh)."""
        s = self.session
        disputes = s.disputes()
        self._judges_of = s.judging.dispute_raters()  # made with the disputes, not here
        self._rebuilding = True
        for combo, values in (
            (self.kind_combo, {KIND_SHORT.get(d.kind.value, d.kind.value) for d in disputes}),
            (self.judge_combo, {j for js in self._judges_of.values() for j in js}),
            (self.dimension_combo, {d.dimension for d in disputes}),
        ):
            keep = combo.currentText()
            combo.clear()
            combo.addItems([ALL] + sorted(values, key=natural_key))
            combo.setCurrentIndex(max(0, combo.findText(keep)))
        self._rebuilding = False
        self._refill()

    def _filter(self):
        """The filters as they are now: a test of (dispute, adjudicated, item name)."""
        kind, judge = self.kind_combo.currentText(), self.judge_combo.currentText()
        dim, status = self.dimension_combo.currentText(), self.status_combo.currentText()
        words = terms(self.session.search)
        judges_of = self._judges_of

        def keep(d: Dispute, done: bool, item: str | None) -> bool:
            if words and not matches(
                words,
                [
                    d.subject,
                    item,
                    d.kind.value,
                    KIND_SHORT.get(d.kind.value),
                    d.dimension,
                    d.detail,
                    *judges_of.get(d.id, ()),
                ],
            ):
                return False
            return (
                (kind in ("", ALL) or KIND_SHORT.get(d.kind.value, d.kind.value) == kind)
                and (judge in ("", ALL) or judge in judges_of.get(d.id, ()))
                and (dim in ("", ALL) or d.dimension == dim)
                and (status == ALL or (status == "adjudicated") == done)
            )

        return keep

    def _refill(self) -> None:
        if self._rebuilding:
            return
        s = self.session
        disputes = s.disputes()
        decided = {(a.subject, a.dimension): a for a in s.adjudications()}
        items = s.judging.dispute_items()  # made with the disputes, not here
        keep = self._filter()
        rows: list[tuple[Dispute, bool, str]] = []
        for d in disputes:
            done = (d.subject, d.dimension) in decided
            item = items.get(d.id) if d.id is not None else None
            if keep(d, done, item):
                rows.append((d, done, f"{item} · {d.subject}" if item else d.subject))
        self._rebuilding = True
        self.model.set_rows(rows)
        self._rebuilding = False
        self._update_progress(disputes, decided)
        self._follow()

    def _update_progress(self, disputes: list[Dispute], decided: dict) -> None:
        done = [d for d in disputes if (d.subject, d.dimension) in decided]
        per: dict[str, int] = {}  # disputes settled per reviewer
        for d in done:
            name = decided[(d.subject, d.dimension)].reviewer
            per[name] = per.get(name, 0) + 1
        people = " · ".join(f"{name} {n}" for name, n in sorted(per.items(), key=lambda kv: (-kv[1], kv[0])))
        shown = self.model.rowCount()
        self.progress.setText(
            f"adjudicated {len(done)} / {len(disputes)} disputes"
            + (f" ({people})" if people else "")
            + (f" · {shown} shown" if shown != len(disputes) else "")
        )

    # -- selection -----------------------------------------------------------------------
    def ordered_ids(self) -> list[int]:
        """The ids of the disputes shown, in queue order."""
        return [d.id for d, _done, _subject in self.model.rows if d.id is not None]  # stored: every one has an id

    def undecided_ids(self) -> list[int]:
        """The ids of the shown disputes not adjudicated yet, in queue order."""
        return [d.id for d, done, _subject in self.model.rows if not done and d.id is not None]

    def _follow(self) -> None:
        """Select the session's current dispute (or the first shown)."""
        ids = self.ordered_ids()
        current = self.session.current_dispute_id
        if current not in ids:
            if current is None and ids:
                self.session.set_dispute(ids[0])
            return
        row = ids.index(current)
        if self.view.currentIndex().row() != row:
            self._rebuilding = True
            self.view.selectionModel().setCurrentIndex(
                self.model.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
            )
            self._rebuilding = False
        self.view.scrollTo(self.model.index(row, 0))

    def _row_changed(self, current, _previous) -> None:
        if self._rebuilding or not current.isValid():
            return
        self.session.set_dispute(self.model.rows[current.row()][0].id)
