"""The adjudication mode of the main window: the dispute queue on the left;
on the right tabs: the dispute (reviewer.qt.judging.screen) with the
decision bar under it, agreement and calibration, and the validation view
(reviewer.qt.judging.validation). F4 switches to the label-first page
(reviewer.qt.judging.label_first, keys in reviewer.qt.judging.label_keys)
and back; each page's keys are enabled only while it is shown.

Its keys are QShortcuts with Qt.WidgetWithChildrenShortcut on this widget,
so they work only while it is shown and has the focus; the main window
disables the card-review actions (J/K/Y/N/1-6/A...) in this mode so the two
never fight. A letter that is no key starts the inline rationale.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QDockWidget, QSplitter, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from reviewer.qt.judging.bar import DecisionBar
from reviewer.qt.judging.calibration import CalibrationPanel
from reviewer.qt.judging.controller import AdjudicationController
from reviewer.qt.judging.label_first import LabelFirstPage
from reviewer.qt.judging.label_keys import LabelFirstController
from reviewer.qt.judging.queue import DisputeQueue
from reviewer.qt.judging.screen import DisputeScreen
from reviewer.qt.judging.validation import ValidationPanel
from reviewer.qt.session import Session

#: (keys, action) of the adjudication mode, for the '?' sheet.
ADJUDICATION_SHORTCUTS: list[tuple[str, str]] = [
    ("F2 / F3", "card review mode / adjudication mode"),
    ("1 / 2 / T", "adjudication: output 1 wins, output 2 wins, tie (pairwise)"),
    ("1-5", "adjudication: set a 1-5 score"),
    ("A B C D F", "adjudication: set a grade (A-F scale)"),
    ("P / F", "adjudication: pass / fail"),
    ("0-9, Enter", "adjudication: type a 0-100 value"),
    ("Enter", "adjudication: accept the framed judge's value"),
    ("Left / Right, [ / ]", "adjudication: frame the previous / next judge"),
    ("Tab / Shift+Tab", "adjudication: next / previous dimension"),
    ("R (or typing)", "adjudication: rationale, inline (Tab: last or next decision)"),
    ("J / K", "adjudication: next / previous dispute"),
    ("F4", "adjudication: the dispute queue / the label-first queue"),
    ("1-5, A-F, P / F, A / B / T, 0-9", "label first: the label (a pair: the output shown first / second, tie)"),
    ("Enter", "label first: commit the first label (then the judges are shown)"),
    ("K / C", "label first: keep the first label / change it (a value key, then Enter)"),
    ("S, Up / Down", "label first: skip to the next subject / walk the list"),
    ("F5", "label first: recompute the label budget and the order"),
    ("Shift+D", "adjudication: the validation view's dangerous cells (Enter opens a subject)"),
]


class AdjudicationView(QWidget):
    """See module doc."""

    #: shadows QWidget.screen() (the dispute screen, not the monitor); the main window and tests use the name
    screen: DisputeScreen  # type: ignore[assignment]

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.queue = DisputeQueue(session)
        self.screen = DisputeScreen(session)
        self.bar = DecisionBar()
        self.calibration = CalibrationPanel(session)
        dispute_page = QWidget()
        box = QVBoxLayout(dispute_page)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(0)
        box.addWidget(self.screen, 1)
        box.addWidget(self.bar)
        self.tabs = QTabWidget()
        self.tabs.addTab(dispute_page, "Dispute")
        self.tabs.addTab(self.calibration, "Agreement && calibration")
        self.validation = ValidationPanel(session)
        self.validation.disputeOpened.connect(self.enter)
        self.tabs.addTab(self.validation, "Validation")
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.queue)
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([500, 1100])
        self.label_page = LabelFirstPage(session)
        self.pages = QStackedWidget()
        self.disputes_page = splitter
        self.pages.addWidget(splitter)
        self.pages.addWidget(self.label_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.pages)
        self.controller = AdjudicationController(session, self.queue, self.screen, self.bar, self.focus_queue, self)
        self.labelling = LabelFirstController(session, self.label_page, self)
        self.shortcuts: dict[str, QShortcut] = {}
        self.label_shortcuts: dict[str, QShortcut] = {}
        self._bind()
        self._bind_labels()
        self._set_enabled()
        self.queue.view.installEventFilter(self)

    def _bind(self) -> None:
        c = self.controller
        keys = {
            "next_dispute": (["J"], partial(c.step, 1)),
            "previous_dispute": (["K"], partial(c.step, -1)),
            "next_dimension": (["Tab"], partial(c.move_dimension, 1)),
            "previous_dimension": (["Shift+Tab", "Backtab"], partial(c.move_dimension, -1)),
            "previous_judge": (["Left", "["], partial(c.move_judge, -1)),
            "next_judge": (["Right", "]"], partial(c.move_judge, 1)),
            "accept": (["Return", "Enter"], c.accept),
            "rationale": (["R"], c.begin_rationale),
            "escape": (["Esc"], c.escape),
            "dangerous": (["Shift+D"], self.show_dangerous),
        }
        for n in range(10):
            keys[f"digit_{n}"] = ([str(n)], partial(c.digit, n))
        for letter in "TABCDFP":
            keys[f"letter_{letter}"] = ([letter], partial(c.letter, letter))
        for name, (sequences, slot) in keys.items():
            for k, seq in enumerate(sequences):
                shortcut = QShortcut(QKeySequence(seq), self)
                shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                shortcut.setAutoRepeat(False)
                shortcut.activated.connect(lambda f=slot: f())
                self.shortcuts[name if k == 0 else f"{name}_{k}"] = shortcut

    def _bind_labels(self) -> None:
        c = self.labelling
        keys = {
            "commit": (["Return", "Enter"], c.commit),
            "skip": (["S"], c.skip),
            "down": (["Down"], partial(c.step, 1)),
            "up": (["Up"], partial(c.step, -1)),
            "escape": (["Esc"], c.escape),
            "recompute": (["F5"], c.replan),
        }
        for ch in "0123456789ABCDFPTKC":
            keys[f"key_{ch}"] = ([ch], partial(c.key, ch))
        for name, (sequences, slot) in keys.items():
            for k, seq in enumerate(sequences):
                shortcut = QShortcut(QKeySequence(seq), self.label_page)
                shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
                shortcut.setAutoRepeat(False)
                shortcut.activated.connect(lambda f=slot: f())
                self.label_shortcuts[name if k == 0 else f"{name}_{k}"] = shortcut
        toggle = QShortcut(QKeySequence("F4"), self)
        toggle.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        toggle.activated.connect(self.toggle_labels)
        self.shortcuts["label_first"] = toggle

    # -- the two pages ---------------------------------------------------------------------
    def labelling_shown(self) -> bool:
        """The label-first page is shown (not the dispute queue)."""
        return self.pages.currentWidget() is self.label_page

    def _set_enabled(self) -> None:
        on = self.labelling_shown()
        for name, shortcut in self.shortcuts.items():
            shortcut.setEnabled(name == "label_first" or not on)
        for shortcut in self.label_shortcuts.values():
            shortcut.setEnabled(on)

    def show_labels(self, on: bool) -> None:
        """Show the label-first page (True) or the dispute queue (False)."""
        if on == self.labelling_shown():
            self.focus_queue()
            return
        self.bar.close_editors()
        self.pages.setCurrentWidget(self.label_page if on else self.disputes_page)
        self._set_enabled()
        if on:
            # the status bar may still name a judge from the dispute queue, a dock opened by hand a model
            for dock in self.window().findChildren(QDockWidget):
                dock.hide()
            self.session.message.emit("Label first: the judges are shown only after your first label")
            self.labelling.enter()
        self.focus_queue()

    def toggle_labels(self) -> None:
        """F4: switch between the dispute queue and the label-first page."""
        self.show_labels(not self.labelling_shown())

    # -- focus and typing -------------------------------------------------------------------
    def focus_queue(self) -> None:
        """Give the focus back to the queue (keys work from there)."""
        view = self.label_page.list if self.labelling_shown() else self.queue.view
        view.setFocus(Qt.FocusReason.OtherFocusReason)

    def show_dangerous(self) -> None:
        """Shift+D: the validation view, its dangerous cells under the keyboard."""
        self.tabs.setCurrentWidget(self.validation)
        self.validation.show_dangerous()

    def enter(self, *_) -> None:
        """Called when the window switches to this mode."""
        self.tabs.setCurrentIndex(0)
        if self.labelling_shown():
            self.session.message.emit("Label first: the judges are shown only after your first label")
            self.labelling.enter()
        self.focus_queue()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        """Consume a key press on the queue view that types a letter (it starts the rationale,
        see ``_typed``); pass every other event to the default filter."""
        if event.type() == QEvent.Type.KeyPress and self._typed(event):
            return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """A printable non-digit key without Ctrl/Alt/Meta starts the rationale with it;
        other keys go to QWidget."""
        if not self._typed(event):
            super().keyPressEvent(event)

    def _typed(self, event) -> bool:
        """A printable letter that is no key starts the rationale with it."""
        text = event.text()
        if (
            not self.labelling_shown()
            and text
            and text.isprintable()
            and text.strip()
            and not text.isdigit()
            and not event.modifiers()
            & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.MetaModifier)
        ):
            self.controller.begin_rationale(text)
            return True
        return False
