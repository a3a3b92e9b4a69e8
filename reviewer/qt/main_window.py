"""The main window: wires the canvas, the panels, the actions and the
session together. It holds no domain logic of its own.

The workflows' centre widgets and score panels come from their
registrations (reviewer.qt.registry, decision record
"workflow-registries"), made in registration order: ``centers`` and
``score_panels`` hold them by key; ``canvas`` and ``span_pane`` are the
cards' and the spans' centres, typed, for the actions and keys that drive
them.

Two modes share the window (``set_mode``): review (the current item in its
workflow's perspective, reviewer.qt.perspectives: its centre widget, docks,
tools and score panel) and adjudication (reviewer.qt.judging, in place of
the centre, docks hidden). Switching saves and restores the perspective's
dock layout and enables the review actions only in review.

Over both modes: the inline name bar (first start) and import bar (Ctrl+I),
and the search box (Ctrl+F) in the toolbar. The status bar shows the
compact legend, the messages beside it (in their own label, never over the
legend) and the progress."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer
from PySide6.QtGui import QStatusTipEvent
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMenu,
    QSizePolicy,
    QStackedWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from reviewer.qt import file_dialogs, layout, registry
from reviewer.qt.actions import SETTINGS, build_actions, set_mode_actions
from reviewer.qt.bars import ImportBar, MessageField, NameBar, SearchBox
from reviewer.qt.canvas.view import CanvasView
from reviewer.qt.cards.annotators import ANNOTATOR_SHORTCUTS, AnnotatorView, add_annotator_bar
from reviewer.qt.cards.piles_list import PilesList
from reviewer.qt.cards.proposed_boxes import ProposedBoxes
from reviewer.qt.docks import add_docks
from reviewer.qt.judging import ADJUDICATION_SHORTCUTS, AdjudicationView
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.panels.findings import FindingsPanel
from reviewer.qt.panels.items import ItemsPanel
from reviewer.qt.panels.legend import LegendPanel
from reviewer.qt.panels.output import OutputPanel
from reviewer.qt.panels.runs import RunsPanel
from reviewer.qt.panels.shortcuts import SHORTCUTS, ShortcutsDialog, shortcuts_for
from reviewer.qt.panels.unplaced import UnplacedPanel
from reviewer.qt.perspectives import Perspectives
from reviewer.qt.reason_bar import ReasonBar
from reviewer.qt.recent import RecentProjects
from reviewer.qt.review import ReviewController
from reviewer.qt.runner.controller import RunnerController
from reviewer.qt.session import Session
from reviewer.qt.spans.pane import SpanPane
from reviewer.qt.text import line

_W = TypeVar("_W", bound=QWidget)


class MainWindow(QMainWindow):
    """The review window over a Session (see reviewer.qt.session)."""

    def __init__(self, session: Session, settings: QSettings):
        super().__init__()
        self.session, self.settings = session, settings
        self.errors: list[str] = []
        self._give_up_waiting = False
        self.setWindowTitle("reviewer")
        self.setAcceptDrops(True)
        self.setObjectName("MainWindow")

        # the workflows' centres, by key (reviewer.qt.registry): the photo, the labelled text
        # (docs/spans.md), a test case beside its answer (docs/test-cases.md), a judged output, ...
        self.centers: dict[str, QWidget] = {}
        for parts in registry.registered():
            if parts.center is not None and parts.center_key not in self.centers:
                self.centers[parts.center_key] = parts.center(session)
        self.reason_bar = ReasonBar()
        center = QWidget()
        box = QVBoxLayout(center)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        self.center_stack = QStackedWidget()
        for widget in self.centers.values():
            self.center_stack.addWidget(widget)
        box.addWidget(self.center_stack, 1)
        box.addWidget(self.reason_bar)
        self.adjudication = AdjudicationView(session)
        self.modes = QStackedWidget()
        self.modes.addWidget(center)
        self._review_page = center  # the centre stack over the reason bar
        self.modes.addWidget(self.adjudication)
        layout.only_the_shown_page_sizes(self.center_stack)
        layout.only_the_shown_page_sizes(self.modes)
        # the hidden adjudication page must not make the canvas wide: docks get the room
        self.modes.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.modes.setMinimumWidth(420)
        self.name_bar, self.import_bar = NameBar(), ImportBar()
        outer = QWidget()
        column = QVBoxLayout(outer)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        for widget in (self.name_bar, self.import_bar):
            column.addWidget(widget)
        column.addWidget(self.modes, 1)
        self.setCentralWidget(outer)
        self.mode = "review"
        self.review = ReviewController(session, self.reason_bar, self)
        self.review.span_target = self._span_target

        self.items_panel = ItemsPanel(session)
        self.unplaced_panel = UnplacedPanel(session)
        self.piles_list = PilesList(session)  # piles, cards and findings, boxes or not
        self.runs_panel = RunsPanel(session)
        self.output_panel = OutputPanel(session)
        self.findings_panel = FindingsPanel(session)
        self.legend_panel = LegendPanel(session)
        # the workflows' score panels, by dock key (reviewer.qt.registry: their score_docks)
        self.score_panels: dict[str, QWidget] = {
            d.key: d.make(session) for parts in registry.registered() for d in parts.score_docks
        }
        self.docks = add_docks(
            self,
            {
                "items": self.items_panel,
                "piles": self.piles_list,
                "unplaced": self.unplaced_panel,
                "legend": self.legend_panel,
                "findings": self.findings_panel,
                "output": self.output_panel,
                "runs": self.runs_panel,
                **self.score_panels,
            },
        )
        self.shortcuts = ShortcutsDialog(
            self, SHORTCUTS + ANNOTATOR_SHORTCUTS + ADJUDICATION_SHORTCUTS, source=self._shortcut_rows
        )
        self.actions_by_name = build_actions(self)
        self.recent_menu = self._menu("&File").addMenu("Open &recent")
        self.recent_projects = RecentProjects(self.settings, self.recent_menu, self.open_path)
        view_menu = self._menu("&View")
        view_menu.addSeparator()
        for dock in self.docks.values():
            view_menu.addAction(dock.toggleViewAction())
        self.annotator_bar = add_annotator_bar(self, self.annotators)
        self.search_box = SearchBox(session)
        self.search_box.setMaximumWidth(360)
        search_bar = self.addToolBar("Search")
        search_bar.setObjectName("Search")
        search_bar.addWidget(self.search_box)
        self.search_box.done.connect(self._back_to_work)
        self.compact_legend = LegendPanel(session, compact=True)
        self.compact_legend.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.message_label = MessageField()  # messages in their own field, elided before the permanent text
        self.message_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._message_timer = QTimer(self)
        self._message_timer.setSingleShot(True)
        self._message_timer.timeout.connect(self.message_label.clear)
        self.progress_label = QLabel()
        self.progress_label.setTextFormat(Qt.TextFormat.PlainText)
        self.waiting_label = QLabel()  # edits queued while another program writes the project
        self.waiting_label.setTextFormat(Qt.TextFormat.PlainText)
        self.waiting_label.setStyleSheet("QLabel { background: #FFE8B0; color: #5A3B00; padding: 1px 6px; }")
        self.waiting_label.hide()
        self.read_only_label = QLabel()  # a project opened read-only: nothing can be changed
        self.read_only_label.setTextFormat(Qt.TextFormat.PlainText)
        self.read_only_label.setStyleSheet("QLabel { background: #DDE6F5; color: #16325C; padding: 1px 6px; }")
        self.read_only_label.hide()
        self.statusBar().addWidget(self.compact_legend)
        self.statusBar().addWidget(self.message_label, 1)
        self.statusBar().addPermanentWidget(self.waiting_label)
        self.statusBar().addPermanentWidget(self.read_only_label)
        self.statusBar().addPermanentWidget(self.progress_label)
        self.proposed_boxes = ProposedBoxes(self)  # proposed boxes: Tab, Enter, arrows, Delete on the photo

        session.message.connect(lambda text: self.show_message(text, 8000))
        session.error.connect(self.show_error)
        session.history.pendingChanged.connect(self._show_waiting)
        for signal in (session.projectChanged, session.findingsChanged, session.reviewerChanged):
            signal.connect(self._update_progress)
        session.projectChanged.connect(self._update_title)
        self.name_bar.named.connect(self._named)
        self.import_bar.requested.connect(self._import_requested)
        self.runner = RunnerController(
            self
        )  # the Run menu: models and judges in a worker thread (docs/runner.md#in-the-window)
        self._first_start = self.settings.value("state") is None
        layout.first_size(self)
        layout.restore(self, self.settings)
        self.perspectives = Perspectives(self)  # one per workflow (docs/window.md#perspectives)
        self.perspectives.show(session.workflow(), force=True)
        session.itemChanged.connect(self._pick_perspective)
        session.factsChanged.connect(
            self._pick_perspective
        )  # a big project's Failter verdicts, read off the GUI thread
        session.projectChanged.connect(lambda: self.perspectives.show(session.workflow(), force=True))

    # -- the workflows' parts -----------------------------------------------------------
    def center(self, key: str, kind: type[_W]) -> _W:
        """The centre widget ``key`` of ``centers`` ('canvas', 'spans', 'case',
        'judged' or a registered workflow's), as a ``kind``; KeyError when no
        registration made it, TypeError when it is not a ``kind``."""
        widget = self.centers[key]
        if not isinstance(widget, kind):
            raise TypeError(f"the centre {key!r} is a {type(widget).__name__}, not a {kind.__name__}")
        return widget

    @property
    def canvas(self) -> CanvasView:
        """The card perspective's centre: the photo with its cards."""
        return self.center("canvas", CanvasView)

    @property
    def span_pane(self) -> SpanPane:
        """The span perspective's centre: the labelled text (docs/spans.md)."""
        return self.center("spans", SpanPane)

    @property
    def annotators(self) -> AnnotatorView:
        """Whose ground truth the canvas shows (the annotator switch, docs/window.md)."""
        view = self.canvas.annotators
        if not isinstance(view, AnnotatorView):
            raise TypeError("the canvas has no annotator view")
        return view

    def _span_target(self) -> tuple[int, str] | None:
        """The span at the text cursor (A on a span item), else None."""
        pane = self.span_pane
        return pane.span_target() if pane.applies() else None

    def _menu(self, title: str) -> QMenu:
        """The menu bar's menu titled ``title`` ('&File'); LookupError without one."""
        for action in self.menuBar().actions():
            menu = action.menu()
            if action.text() == title and isinstance(menu, QMenu):
                return menu
        raise LookupError(f"the menu bar has no menu {title!r}")

    def _shortcut_rows(self) -> list[tuple[str, str]]:
        """The '?' sheet: the keys of the shown perspective, then the adjudication mode's."""
        perspective = self.perspectives.perspective().workflow.value
        return shortcuts_for(perspective, SHORTCUTS, ANNOTATOR_SHORTCUTS) + ADJUDICATION_SHORTCUTS

    def _pick_perspective(self) -> None:
        """The current item's perspective (reviewer.qt.perspectives)."""
        self.perspectives.show(self.session.workflow())

    # -- modes ----------------------------------------------------------------------------
    def set_mode(self, mode: str) -> None:
        """'review' (the canvas and the docks) or 'adjudication' (the
        disputes; the docks are hidden and come back as they were)."""
        if mode not in ("review", "adjudication"):
            raise ValueError(f"unknown mode {mode!r}")
        if mode != self.mode:
            if mode == "adjudication":
                self.perspectives.save()
                for dock in self.docks.values():
                    dock.hide()
                self.perspectives.hide_stale_tab_bars()
            self.modes.setCurrentWidget(self.adjudication if mode == "adjudication" else self._review_page)
            for widget in (self.compact_legend, self.progress_label, self.findChild(QToolBar, "Tools")):
                if widget is not None:
                    widget.setVisible(mode == "review")
            self.mode = mode
            annotators = self.findChild(QToolBar, "Annotators")
            if annotators is not None:
                annotators.setVisible(mode == "review" and self.perspectives.perspective().card_tools)
            if mode == "review":
                self.perspectives.restore_docks()
        set_mode_actions(self.actions_by_name, mode, bool(self.session.read_only))
        if mode == "adjudication":
            self.adjudication.enter()
        else:
            self.canvas.setFocus()

    # -- settings -------------------------------------------------------------------------
    def apply_setting(self, name: str, on: bool) -> None:
        """Apply and remember a checkable setting (actions.SETTINGS)."""
        self.settings.setValue(SETTINGS[name][0], on)
        if name == "auto_advance":
            self.review.auto_advance = on
        elif name == "blind":
            self.adjudication.screen.set_blind(on)

    def ask_name(self, name: str) -> None:
        """Ask the reviewer's name inline, ``name`` filled in (first start)."""
        self.name_bar.ask(name)

    def _named(self, name: str) -> None:
        self.settings.setValue("reviewer_name", name)
        self.session.set_reviewer(name)

    def focus_search(self) -> None:
        """Ctrl+F: put the keyboard in the search box."""
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()

    def _back_to_work(self) -> None:
        if self.mode == "adjudication":
            self.adjudication.focus_queue()
        else:
            self.canvas.setFocus()

    # -- status -----------------------------------------------------------------------
    def show_message(self, text: str, ms: int = 8000) -> None:
        """A line in the status bar beside the legend, for ``ms`` milliseconds."""
        self.message_label.setText(line(text))
        self.message_label.setToolTip(plain_tooltip(text) or "")
        self._message_timer.start(ms)

    def show_error(self, text: str) -> None:
        """Show a problem in the status bar (no modal crash dialog), and on
        the canvas while no project is open (a project that cannot be
        opened); it is also kept in ``errors`` (the screenshot mode prints
        them)."""
        self.errors.append(text)
        self.show_message(f"Error: {text}", 15000)
        if self.session.project is None:
            self.canvas.show_notice(f"Error: {line(text, 600)}")

    def event(self, event: QEvent) -> bool:
        """Menu status tips go to the message label (QStatusBar would paint them over the legend)."""
        if event.type() == QEvent.Type.StatusTip and isinstance(event, QStatusTipEvent):
            if event.tip():
                self.show_message(event.tip(), 4000)
            return True
        return super().event(event)

    def _show_waiting(self, pending: int, text: str) -> None:
        self.waiting_label.setText(text)
        self.waiting_label.setToolTip(
            "saved in order as soon as the project is free; Ctrl+Z works on them" if pending else ""
        )
        self.waiting_label.setVisible(bool(pending))

    def _update_progress(self) -> None:
        p = self.session.progress()
        self.progress_label.setText(
            f"{self.session.reviewer} · findings decided {p['decided']}/{p['findings']} · "
            f"runs reviewed {p['runs_reviewed']}/{p['runs'] - p['runs_no_findings']}"
            + (f" · no findings {p['runs_no_findings']}" if p["runs_no_findings"] else "")
        )

    def _update_title(self) -> None:
        """Title, the read-only mark and the edit actions follow the project."""
        p = self.session.project
        why = self.session.read_only
        self.setWindowTitle(f"reviewer — {line(p.path.name)}{' (read-only)' if why else ''}" if p else "reviewer")
        self.read_only_label.setText(f"read-only ({why}): nothing can be changed" if why else "")
        self.read_only_label.setVisible(bool(why))
        set_mode_actions(self.actions_by_name, self.mode, bool(why))
        if why:
            self.session.set_tool("select")
        if p:
            self.recent_projects.remember(p.path)

    def open_dialog(self) -> None:
        """Ctrl+O: choose a project file to open (or create)."""
        path = file_dialogs.save_file_name(
            self, "Open or create a project", "", "reviewer projects (*.db);;All files (*)", confirm_overwrite=False
        )
        if path:
            self.session.open(Path(path), create=not Path(path).exists())

    def import_dialog(self) -> None:
        """Ctrl+I: the inline import bar (a file or folder, and the model name)."""
        self.import_bar.ask()

    def _import_requested(self, path: str, model: str) -> None:
        source = Path(path).expanduser()
        if not source.exists():
            self.show_error(f"there is no file or folder {source}")
            self.import_bar.ask()
            return
        self.import_path(source, model or None)
        self._back_to_work()

    def import_path(self, path: Path, model: str | None = None) -> None:
        """Import a file or folder into the open project (a new project
        beside it when none is open); ``model`` names its runs."""
        if self.session.project is None:
            self.session.open(
                path.with_suffix(".db") if path.is_file() else path.parent / f"{path.name}.db", create=True
            )
        self.session.import_source(path, model=model)

    def open_path(self, path: Path) -> None:
        """Open a project file, or import a folder/JSONL into the open project."""
        if path.is_dir() or path.suffix.lower() in {".jsonl", ".ndjson"}:
            self.import_path(path)
        else:
            self.session.open(path)

    # -- drag and drop --------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Accept a drag that carries URLs (project files, folders, JSONL)."""
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Open each dropped local file or folder with ``open_path``; other URLs are ignored."""
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_path(Path(url.toLocalFile()))

    # -- layout -----------------------------------------------------------------------------
    def showEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """On the first start (no saved layout) size the docks once the window is laid out."""
        super().showEvent(event)
        QTimer.singleShot(0, self.perspectives.hide_stale_tab_bars)
        if self._first_start:
            self._first_start = False
            QTimer.singleShot(0, self.perspectives.restore_docks)  # default sizes need the laid-out window

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Keep a card text being typed, save geometry and dock layout (in
        review mode) and close the session, then close. Edits still waiting
        for the project are written first (up to a few seconds); if they
        cannot be, the window stays open once and says so (closing again
        gives them up)."""
        editor = self.canvas.inline_editor()
        if editor is not None:  # a card text being typed is kept, as on leaving the editor
            editor.finish(editor.text())
        if not self.session.settle() and not self._give_up_waiting:
            self._give_up_waiting = True
            self.show_error(f"{self.session.history.waiting_text()}; close again to give them up")
            event.ignore()
            return
        self.set_mode("review")  # the saved layouts are the review ones
        self.perspectives.save()
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("state", self.saveState())
        self.session.close()
        super().closeEvent(event)
