"""The current run's findings: code (with its swatch; 'OCR→SPATIAL' when
reclassified), status, ground-truth card, model card and detail. Above
them a foldable strip about the run (what the canvas used to print over
the photo): run, box convention, pile mapping, findings that have no place
on the photo and cards without a box. The selection is the session's
finding selection, both ways. Review keys are handled by the main window,
not here: it acts on ``current_ids()``."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPalette
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QToolButton, QTreeView, QVBoxLayout, QWidget

from reviewer.core.models import Finding, Status
from reviewer.qt import registry
from reviewer.qt.canvas.overlay import build_overlay
from reviewer.qt.canvas.shapes import run_legend
from reviewer.qt.panels import IdRole, RowsModel, plain_tooltip
from reviewer.qt.panels.legend import CODE_MEANINGS, code_icon, code_label
from reviewer.qt.session import Session
from reviewer.qt.text import CELL_CHARS, block, cell, line

COLUMNS = ["code", "status", "ground truth", "model", "detail"]


#: Widest a card column (ground truth, model) starts, in pixels.
MAX_CARD_COLUMN = 150
#: Model piles listed in the pile-mapping line before it is shortened.
MAX_LISTED_PILES = 4


def pile_mapping_line(mapping: dict[str, str | None], short: bool = False) -> str:
    """'piles (model → ground truth): left → left, right → (none)'. With
    ``short`` and more than MAX_LISTED_PILES model piles, the mapped ones
    and a count of the rest (the full line goes in the tooltip)."""
    if not mapping:
        return ""
    items = list(mapping.items())
    if short and len(items) > MAX_LISTED_PILES:
        mapped = [(m, g) for m, g in items if g is not None]
        rest = len(items) - len(mapped)
        pairs = ", ".join(f"{m} → {g}" for m, g in mapped)
        return f"piles (model → ground truth): {pairs}; {rest} more model pile(s) map to none (hover for all)"
    pairs = ", ".join(f"{model or '(no pile)'} → {gt if gt is not None else '(none)'}" for model, gt in items)
    return f"piles (model → ground truth): {pairs}"


def finding_tooltip(f: Finding) -> str:
    """Everything about a finding, as plain text."""
    code = f.final_code or f.code
    lines = [f"{code_label(f)}: {CODE_MEANINGS[code]}", f"status: {f.status.value} ({f.source.value})"]
    if f.detail:
        lines.append(f"detail: {f.detail}")
    if f.reason:
        lines.append(f"reason: {f.reason}")
    if f.reviewer and f.status != Status.PROPOSED:
        lines.append(f"decided by {f.reviewer}")
    return "\n".join(lines)


class FindingsModel(RowsModel):
    """The findings of the session's current run."""

    HEADERS = COLUMNS

    def __init__(self, session, parent=None):
        super().__init__(session, parent)
        self.grey = QColor("#8A8A8A")
        self._texts: dict[int, list[str]] = {}  # id(finding): display texts

    def load(self) -> list:
        """The current run's findings ([] without a current run)."""
        run = self.session.run()
        self._texts = {}
        return list(run.findings) if run else []

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        """A finding's cell: text, code swatch (column 0), tooltip and id (IdRole); rejected rows
        grey and struck out, a confirmed status bold; None otherwise."""
        if not index.isValid():
            return None
        f, column = self.rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            texts = self._texts.get(id(f))
            if texts is None:  # made once per row and load: data() is called for every paint
                texts = self._texts[id(f)] = [
                    code_label(f),
                    f.status.value,
                    cell(f.gt_card),
                    cell(f.model_card),
                    cell(" ".join(f.detail[: CELL_CHARS * 4].split())),
                ]
            return texts[column]
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return code_icon(f.final_code or f.code)
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(finding_tooltip(f))
        if role == IdRole:
            return f.id
        rejected = f.status == Status.REJECTED
        if role == Qt.ItemDataRole.ForegroundRole and rejected:
            return self.grey
        if role == Qt.ItemDataRole.FontRole and (rejected or (f.status == Status.CONFIRMED and column == 1)):
            font = QFont()
            font.setStrikeOut(rejected)
            font.setBold(not rejected)
            return font
        return None


class _FindingsView(QTreeView):
    """A tree view that leaves letter and digit keys alone: no type-to-search,
    so Y, N, J, K, A and 1-6 reach the main window's review actions."""

    def keyboardSearch(self, search: str) -> None:  # noqa: N802 - Qt API
        """Do nothing (no type-to-search), so review keys reach the main window."""
        pass


class FindingsPanel(QWidget):
    """The findings list (see module doc)."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.model = FindingsModel(session, self)
        self.info_toggle = QToolButton()
        self.info_toggle.setCheckable(True)
        self.info_toggle.setChecked(True)
        self.info_toggle.setAutoRaise(True)
        self.info_toggle.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.info_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.info_toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.info_toggle.setToolTip("the run: click to fold or unfold its details")
        self.details_label = QLabel()
        self.details_label.setTextFormat(Qt.TextFormat.PlainText)
        self.details_label.setWordWrap(True)
        self.piles_label = QLabel()
        self.piles_label.setTextFormat(Qt.TextFormat.PlainText)
        self.piles_label.setWordWrap(True)
        self.empty_label = QLabel()
        self.empty_label.setTextFormat(Qt.TextFormat.PlainText)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.view = _FindingsView()
        self.view.setModel(self.model)
        self.view.setRootIsDecorated(False)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAllColumnsShowFocus(True)
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setIconSize(QSize(36, 14))
        header = self.view.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setMinimumSectionSize(40)

        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.setSpacing(2)
        box.addWidget(self.info_toggle)
        box.addWidget(self.piles_label)
        box.addWidget(self.details_label)
        box.addWidget(self.view, 1)
        box.addWidget(self.empty_label)

        self._syncing = False
        self.info_toggle.toggled.connect(self._fold)
        self.view.selectionModel().selectionChanged.connect(self._picked)
        session.projectChanged.connect(self.refresh)
        session.runChanged.connect(self._run_changed)
        session.findingsChanged.connect(self.refresh)
        session.findingSelectionChanged.connect(self.follow)
        session.conventionChanged.connect(self.refresh)
        session.groundTruthChanged.connect(lambda _item: self.refresh())
        self._run_changed()

    # -- reading ---------------------------------------------------------------------------
    def current_ids(self) -> list[int]:
        """Ids of the selected findings, in list order: what the review keys
        act on (the same ids as session.selected_findings once in sync)."""
        rows = sorted({i.row() for i in self.view.selectionModel().selectedRows()})
        return [self.model.rows[r].id for r in rows if r < len(self.model.rows)]

    # -- session -> view -------------------------------------------------------------------
    def _run_changed(self) -> None:
        self.refresh()
        # code and status fit their usual values (longer codes elide, the tooltip has them);
        # the card columns fit this run, capped, so both show beside each other
        metrics = self.view.fontMetrics()
        bold = QFont(self.view.font())
        bold.setBold(True)
        self.view.setColumnWidth(0, self.view.iconSize().width() + metrics.horizontalAdvance("HALLUC→OCR") + 20)
        self.view.setColumnWidth(1, QFontMetrics(bold).horizontalAdvance("confirmed") + 14)
        for column in (2, 3):
            self.view.resizeColumnToContents(column)
            self.view.setColumnWidth(column, max(70, min(MAX_CARD_COLUMN, self.view.columnWidth(column))))

    def refresh(self) -> None:
        """Re-read the current run's findings; keep the session's selection
        (and the column widths)."""
        run = self.session.run()
        self._syncing = True
        try:
            self.model.reload()
        finally:
            self._syncing = False
        self._show_info(run)
        if run is None:
            empty = "no run selected"
        elif not registry.shown_for(self.session.workflow()).card_tools:  # spans and cases: findings of their own
            empty = "" if run.findings else "no findings in this run"
        elif not run.facts.scored:
            empty = "free-text answer: not scored"
        else:
            empty = "" if run.findings else "no findings: the classifier found no error"
        self.empty_label.setText(empty)
        self.empty_label.setVisible(bool(empty))
        self.follow()

    def _show_info(self, run) -> None:
        """The run strip: run and convention on the fold button; pile mapping and
        the other legend lines under it while unfolded."""
        convention = self.session.convention()
        about = run_legend(run, convention) if run else []
        head = about[:1] + ([(f"boxes {convention.value}", "")] if run and convention else [])
        legend = [text for text, _ in build_overlay(self.session).legend] if run else []
        rest = legend[len(about) :]
        self.info_toggle.setText(line("   ·   ".join(text for text, _ in head)))
        self.info_toggle.setVisible(bool(head))
        mapping = pile_mapping_line(run.facts.pile_mapping, short=True) if run else ""
        self.piles_label.setText(block(mapping, 600))
        self.piles_label.setToolTip((plain_tooltip(pile_mapping_line(run.facts.pile_mapping)) if run else None) or "")
        # at most 12 lines: a run with hundreds of findings must not make the window taller than the screen
        more = [f"… {len(rest) - 12} more"] if len(rest) > 12 else []
        self.details_label.setText(block("\n".join([line(r, CELL_CHARS) for r in rest[:12]] + more), 2400))
        self._fold(self.info_toggle.isChecked())

    def _fold(self, unfolded: bool) -> None:
        self.info_toggle.setArrowType(Qt.ArrowType.DownArrow if unfolded else Qt.ArrowType.RightArrow)
        self.piles_label.setVisible(unfolded and bool(self.piles_label.text()))
        self.details_label.setVisible(unfolded and bool(self.details_label.text()))

    def follow(self) -> None:
        """Select the session's selected findings (no signal back)."""
        wanted = set(self.session.selected_findings)
        if set(self.current_ids()) == wanted:
            return
        selection = QItemSelection()
        first = QModelIndex()
        for row, f in enumerate(self.model.rows):
            if f.id in wanted:
                index = self.model.index(row, 0)
                selection.select(index, self.model.index(row, len(COLUMNS) - 1))
                first = first if first.isValid() else index
        sm = self.view.selectionModel()
        self._syncing = True
        try:
            if first.isValid():
                sm.setCurrentIndex(first, QItemSelectionModel.SelectionFlag.NoUpdate)
                self.view.scrollTo(first)
            sm.select(
                selection, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
        finally:
            self._syncing = False

    # -- view -> session -------------------------------------------------------------------
    def _picked(self, _selected=None, _deselected=None) -> None:
        if self._syncing:
            return
        ids = self.current_ids()
        if ids != self.session.selected_findings:
            self.session.select_findings(ids)
