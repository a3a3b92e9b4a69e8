"""The window's actions, menus and keyboard shortcuts (see the '?' sheet).

Review keys work window-wide; while an inline editor has focus it takes
typed keys first, so typing a card text never triggers a review action.

Two modes (F2 card review, F3 or Ctrl+Shift+A adjudication): the actions in
``REVIEW_ONLY`` (canvas tools, zoom, J/K/Y/N/R/1-6/A...) are enabled only in
card review, so they never fight the adjudication view's own keys.

Two settings are checkable actions remembered in QSettings: moving on to
the next run when a run is reviewed (``review/auto_advance``, on by
default) and blind adjudication (``adjudication/blind``, off).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenuBar, QWidget

from reviewer.core.commands import DeleteCards, move_to_next_pile
from reviewer.core.models import CODE_ORDER, Status
from reviewer.qt.bars import ImportBar
from reviewer.qt.cards import pre_annotate, transcribe
from reviewer.qt.cards.annotators import ANNOTATOR_ACTIONS, AnnotatorView, annotator_actions
from reviewer.qt.host import ToolbarHost, TranscribeHost
from reviewer.qt.panels import plain_tooltip
from reviewer.qt.panels.shortcuts import ShortcutsDialog, close_sheets
from reviewer.qt.review import ReviewController


class ActionsHost(ToolbarHost, TranscribeHost, Protocol):
    """The window as build_actions uses it: the Session, the review
    controller, the canvas, the annotator view, the bars Escape closes, the
    '?' sheet, the settings and the window's own slots (open, import,
    search, mode, settings)."""

    @property
    def settings(self) -> QSettings: ...
    @property
    def review(self) -> ReviewController: ...
    @property
    def annotators(self) -> AnnotatorView: ...
    @property
    def import_bar(self) -> ImportBar: ...
    @property
    def shortcuts(self) -> ShortcutsDialog: ...

    def open_dialog(self) -> None:
        """Ctrl+O: open or create a project."""
        ...

    def import_dialog(self) -> None:
        """Ctrl+I: the import bar."""
        ...

    def focus_search(self) -> None:
        """Ctrl+F: the keyboard to the search box."""
        ...

    def set_mode(self, mode: str) -> None:
        """'review' or 'adjudication'."""
        ...

    def apply_setting(self, name: str, on: bool) -> None:
        """Apply and remember a checkable setting."""
        ...

    def close(self) -> bool:
        """Close the window (Ctrl+Q)."""
        ...

    def menuBar(self) -> QMenuBar:  # noqa: N802 (Qt's name)
        """The window's menu bar."""
        ...

    def addAction(self, action: QAction) -> None:  # noqa: N802 (Qt's name)
        """Make ``action``'s keys work window-wide."""
        ...

    def window(self) -> QWidget:
        """The top-level widget: the actions' parent, the '?' sheets' owner."""
        ...


#: Actions of the card perspective only: drawing, zoom, labels, transcription, annotators (reviewer.qt.perspectives).
CARD_ACTIONS = (
    "delete",
    "next_pile",
    "prev_pile",
    "select",
    "pile",
    "card",
    "fit",
    "zoom_in",
    "zoom_out",
    "actual",
    "labels",
    "use_boxes",
    "accept_cards",
    "next_transcribe",
    "prev_transcribe",
    *ANNOTATOR_ACTIONS,
)
#: Actions that walk and decide findings (the perspectives with findings: cards, spans, case).
FINDING_ACTIONS = (
    "next",
    "previous",
    "next_run",
    "confirm",
    "reject",
    "reason",
    "confirm_code",
    "reject_code",
    "confirm_run",
    "reject_run",
    "add",
)
#: Actions of the review mode only (disabled in adjudication mode).
REVIEW_ONLY = (*CARD_ACTIONS, *FINDING_ACTIONS, "escape", *(f"code_{n}" for n in range(1, 7)))
#: Actions that change the project (disabled when it is read-only).
EDITS = (
    "import",
    "delete",
    "next_pile",
    "prev_pile",
    "pile",
    "card",
    "confirm",
    "reject",
    "reason",
    "confirm_code",
    "reject_code",
    "confirm_run",
    "reject_run",
    "add",
    "use_boxes",
    "accept_cards",
    "next_transcribe",
    "prev_transcribe",
    *(f"code_{n}" for n in range(1, 7)),
)
#: Checkable settings: action name -> (QSettings key, default).
SETTINGS = {"auto_advance": ("review/auto_advance", True), "blind": ("adjudication/blind", False)}


def setting(settings: QSettings, name: str) -> bool:
    """The value of checkable setting ``name`` (see SETTINGS); INI files give 'true'/'false' back."""
    key, default = SETTINGS[name]
    value = settings.value(key, default)
    return value if isinstance(value, bool) else str(value).lower() in ("true", "1")


#: The modes: action name -> mode.
MODES = {"mode_review": "review", "mode_adjudication": "adjudication"}


def set_mode_actions(actions: dict[str, QAction], mode: str, read_only: bool = False) -> None:
    """Enable the card-review actions only in 'review' mode, the actions
    that change the project (EDITS) only when it is not ``read_only``, and
    check the action of ``mode``."""
    for name in set(REVIEW_ONLY) | set(EDITS):
        if name in actions:
            actions[name].setEnabled(
                (mode == "review" or name not in REVIEW_ONLY) and not (read_only and name in EDITS)
            )
    for name, m in MODES.items():
        actions[name].setChecked(m == mode)


def _escape(window: ActionsHost) -> None:
    """Escape, innermost first: close the '?' sheet; the reason bar; cancel
    the canvas's inline editor or the drawing under way; else leave add mode
    and go back to the select tool."""
    if close_sheets(window.window()) or window.review.close_reason():
        return
    if window.import_bar.isVisible():
        window.import_bar.close_bar()
        return
    editor = window.canvas.inline_editor()
    if editor is not None:  # a card text or pile label being typed: cancel it, keep the tool
        editor.finish(None)
        return
    if window.canvas.tool().cancel():  # a polygon being drawn, a drag
        return
    window.review.cancel()
    window.session.set_tool("select")


#: What the status bar says for each model-card label mode (key L).
LABEL_MESSAGES = {
    "on": "model-card labels: on",
    "hover": "model-card labels: on hover (point at a model box)",
    "off": "model-card labels: off",
}


def _cycle_labels(window: ActionsHost) -> None:
    """L: model-card labels on -> on hover -> off -> on."""
    window.session.message.emit(LABEL_MESSAGES[window.canvas.labels.cycle()])


#: What the status bar says for each finding-tag mode (Shift+L).
TAG_MESSAGES = {
    "near": "finding tags: the selected finding and its neighbours (the others on hover)",
    "all": "finding tags: all that fit beside their cards",
}


def _cycle_tags(window: ActionsHost) -> None:
    """Shift+L: finding and card tags near the selection -> all -> near."""
    window.session.message.emit(TAG_MESSAGES[window.canvas.labels.cycle_tags()])


def _delete(window: ActionsHost) -> None:
    ids = list(window.session.selected_cards)
    if ids:
        window.session.execute(DeleteCards(ids))
        window.session.select_cards([])


def _cycle_pile(window: ActionsHost, step: int) -> None:
    """G / Shift+G: the selected cards to the next / previous pile."""
    s = window.session
    command = move_to_next_pile(s.ground_truth(), s.selected_cards, step)
    if command is None:
        s.message.emit("select cards on an item with piles first")
        return
    s.execute(command)


def build_actions(window: ActionsHost) -> dict[str, QAction]:
    """Make every action of ``window`` (reviewer.qt.host.ActionsHost), put
    them in menus and return them by name."""
    s, review, canvas, parent = window.session, window.review, window.canvas, window.window()
    spec: list[tuple[str, str, str, list[str], Callable[[], Any] | None]] = [
        # name, menu, text, keys, slot
        ("open", "&File", "&Open or create project…", ["Ctrl+O"], window.open_dialog),
        ("import", "&File", "&Import files or folder…", ["Ctrl+I"], window.import_dialog),
        ("quit", "&File", "&Quit", ["Ctrl+Q"], window.close),
        ("undo", "&Edit", "&Undo", ["Ctrl+Z"], s.undo),
        ("redo", "&Edit", "&Redo", ["Ctrl+Shift+Z", "Ctrl+Y"], s.redo),
        ("search", "&Edit", "&Search items, runs and disputes", ["Ctrl+F"], window.focus_search),
        ("delete", "&Edit", "&Delete selected cards", ["Delete", "Backspace"], partial(_delete, window)),
        ("next_pile", "&Edit", "Move selected cards to the &next pile", ["G"], partial(_cycle_pile, window, 1)),
        (
            "prev_pile",
            "&Edit",
            "Move selected cards to the previous pile",
            ["Shift+G"],
            partial(_cycle_pile, window, -1),
        ),
        ("select", "&Tools", "&Select / move", ["V"], partial(s.set_tool, "select")),
        ("pile", "&Tools", "Draw &pile", ["P"], partial(s.set_tool, "pile")),
        ("card", "&Tools", "Draw &card", ["C"], partial(s.set_tool, "card")),
        ("escape", "&Tools", "Cancel", ["Esc"], partial(_escape, window)),
        ("fit", "&View", "&Fit photo", ["F"], canvas.fit),
        ("zoom_in", "&View", "Zoom &in", ["+", "="], partial(canvas.zoom_by, 1.25)),
        ("zoom_out", "&View", "Zoom &out", ["-"], partial(canvas.zoom_by, 0.8)),
        ("actual", "&View", "&Actual size (1:1)", ["Ctrl+1"], canvas.actual_size),
        ("labels", "&View", "Model-card &labels: on / on hover / off", ["L"], partial(_cycle_labels, window)),
        ("tags", "&View", "Finding &tags: near the selection / all", ["Shift+L"], partial(_cycle_tags, window)),
        ("mode_review", "&View", "&Review mode", ["F2"], partial(window.set_mode, "review")),
        (
            "mode_adjudication",
            "&View",
            "A&djudication mode",
            ["F3", "Ctrl+Shift+A"],
            partial(window.set_mode, "adjudication"),
        ),
        ("blind", "&View", "&Blind adjudication (hide model names)", ["Ctrl+B"], None),
        ("shortcuts", "&Help", "&Keyboard shortcuts", ["?", "F1"], window.shortcuts.show),
        ("next", "&Review", "&Next finding", ["J"], partial(review.step, 1)),
        ("previous", "&Review", "&Previous finding", ["K"], partial(review.step, -1)),
        ("next_run", "&Review", "Next run needing review", ["Shift+J"], review.next_run_needing_review),
        ("confirm", "&Review", "&Confirm", ["Y"], review.confirm),
        ("reject", "&Review", "&Reject", ["N"], review.reject),
        ("reason", "&Review", "Type a reason for the &rejection", ["R"], review.begin_reason),
        (
            "confirm_code",
            "&Review",
            "Confirm every undecided finding of this code",
            ["Shift+Y"],
            partial(review.decide_group, Status.CONFIRMED, True),
        ),
        (
            "reject_code",
            "&Review",
            "Reject every undecided finding of this code",
            ["Shift+N"],
            partial(review.decide_group, Status.REJECTED, True),
        ),
        (
            "confirm_run",
            "&Review",
            "Confirm every undecided finding of the run",
            ["Ctrl+Shift+Y"],
            partial(review.decide_group, Status.CONFIRMED, False),
        ),
        (
            "reject_run",
            "&Review",
            "Reject every undecided finding of the run",
            ["Ctrl+Shift+N"],
            partial(review.decide_group, Status.REJECTED, False),
        ),
        ("auto_advance", "&Review", "&Move on to the next run when a run is reviewed", [], None),
        ("add", "&Review", "&Add finding", ["A"], review.begin_add),
        ("next_transcribe", "&Review", "Next card to &transcribe", ["T"], partial(transcribe.step, window, 1)),
        (
            "prev_transcribe",
            "&Review",
            "Previous card to transcribe",
            ["Shift+T"],
            partial(transcribe.step, window, -1),
        ),
    ]
    for n, code in enumerate(CODE_ORDER, 1):
        spec.append((f"code_{n}", "&Review", f"Reclassify as {code.value}", [str(n)], partial(review.reclassify, n)))
    spec += [
        (
            "use_boxes",
            "&Ground truth",
            "&Use this run's boxes (proposed: confirm each)",
            [],
            partial(pre_annotate.use_boxes, s),
        ),
        (
            "accept_cards",
            "&Ground truth",
            "&Accept this run's cards as draft ground truth",
            [],
            partial(pre_annotate.accept_cards, s),
        ),
        *annotator_actions(window.annotators),
    ]
    menus = {}
    actions: dict[str, QAction] = {}
    for name, menu, text, keys, slot in spec:
        action = QAction(text, parent)
        action.setShortcuts([QKeySequence(k) for k in keys])
        if slot is not None:
            action.triggered.connect(lambda _=False, f=slot: f())
        if menu not in menus:
            menus[menu] = window.menuBar().addMenu(menu)
        menus[menu].addAction(action)
        window.addAction(action)
        actions[name] = action
    actions["undo"].setEnabled(False)
    actions["redo"].setEnabled(False)
    for name in ("undo", "redo"):
        actions[name].setIconText(name.title())

    def refresh_undo() -> None:
        """Enable Undo/Redo by the stack and name the command each would act
        on in the menu and the tooltip ('&' escaped); the toolbar buttons
        keep their short text, so the toolbar never moves."""
        for name, what in (("undo", s.stack.undo_text()), ("redo", s.stack.redo_text())):
            action = actions[name]
            action.setEnabled(s.stack.can_undo if name == "undo" else s.stack.can_redo)
            # '&' in a card text would be read as a mnemonic
            action.setText(f"&{name.title()} {what.replace('&', '&&')}".rstrip())
            action.setIconText(name.title())
            action.setToolTip(plain_tooltip(f"{name.title()} {what}".rstrip()) or "")

    s.undoChanged.connect(refresh_undo)
    for name in SETTINGS:
        actions[name].setCheckable(True)
        actions[name].setChecked(setting(window.settings, name))
        actions[name].toggled.connect(partial(window.apply_setting, name))
        window.apply_setting(name, actions[name].isChecked())
    tools = window.addToolBar("Tools")
    tools.setObjectName("Tools")
    for name in ("select", "pile", "card", "undo", "redo", "fit"):
        tools.addAction(actions[name])
    for name in ("select", "pile", "card"):
        actions[name].setCheckable(True)
    actions["select"].setChecked(True)

    def check_tool(tool: str) -> None:
        for n in ("select", "pile", "card"):
            actions[n].setChecked(n == tool)

    s.toolChanged.connect(check_tool)
    modes = window.addToolBar("Mode")
    modes.setObjectName("Mode")
    group = QActionGroup(parent)
    for name in MODES:
        actions[name].setCheckable(True)
        group.addAction(actions[name])
        modes.addAction(actions[name])
    set_mode_actions(actions, "review")
    return actions
