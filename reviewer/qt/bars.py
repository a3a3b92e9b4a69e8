"""Inline bars at the top of the window (no blocking dialogs):

* ``NameBar``: on the first start, the reviewer's name (recorded on every
  decision), pre-filled with the login name; the window works meanwhile
  and the keyboard stays where it is.
* ``ImportBar`` (Ctrl+I): a file or folder to import and, optionally, the
  model name of its runs; the path is typed (with completion) or picked
  with the File… / Folder… buttons.

Enter commits, Escape or × closes. The bars hold only what is being typed.

``MessageField`` is the status bar's own field for messages: a long one is
elided (the whole text on hover), never running into the permanent text.

``SearchBox`` is the window's search (Ctrl+F): it sets ``Session.search``
as it is typed; Escape clears it and Enter hands the keyboard back.
"""

from __future__ import annotations

from PySide6.QtCore import QDir, QEvent, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QCompleter,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QWidget,
)

from reviewer.qt import file_dialogs


class MessageField(QLabel):
    """The status bar's message field (see module doc): plain text on one
    line, elided at the right with a gap before the next field."""

    GAP_PX = 12

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setContentsMargins(0, 0, self.GAP_PX, 0)
        self.setMinimumWidth(40)

    def paintEvent(self, _event) -> None:  # noqa: N802 (Qt)
        """Draw the text elided to the field's width (less the gap)."""
        painter = QPainter(self)
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)


def _plain(text: str) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class _Bar(QFrame):
    """A closable strip: a row of widgets, × at the end, Escape closes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(6, 3, 6, 3)
        self.close_button = QToolButton()
        self.close_button.setText("×")
        self.close_button.setToolTip("close (Esc)")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.close_bar)
        self.hide()

    def _finish_row(self) -> None:
        self.row.addWidget(self.close_button)

    def close_bar(self) -> None:
        """Hide the bar."""
        self.hide()

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Escape closes the bar; other keys as in QFrame."""
        if event.key() == Qt.Key.Key_Escape:
            self.close_bar()
            return
        super().keyPressEvent(event)


class NameBar(_Bar):
    """The reviewer's name, asked inline (see module doc). ``named(name)``
    on Enter or Save with a non-empty name."""

    named = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("NameBar")
        self.label = _plain("Your name, recorded on every decision:")
        self.edit = QLineEdit()
        self.edit.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # review keys never type into it by accident
        self.edit.setMaximumWidth(260)
        self.save = QPushButton("Save")
        self.save.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.row.addWidget(self.label)
        self.row.addWidget(self.edit)
        self.row.addWidget(self.save)
        self.row.addWidget(_plain("(you can go on working meanwhile)"), 1)
        self._finish_row()
        self.edit.returnPressed.connect(self._commit)
        self.save.clicked.connect(self._commit)

    def ask(self, name: str) -> None:
        """Show the bar with ``name`` filled in (the keyboard stays where it is)."""
        self.edit.setText(name)
        self.show()

    def _commit(self) -> None:
        name = self.edit.text().strip()
        if name:
            self.close_bar()
            self.named.emit(name)


class ImportBar(_Bar):
    """What to import, inline (see module doc). ``requested(path, model)``
    on Enter or Import; ``model`` is '' when not given."""

    requested = Signal(str, str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("ImportBar")
        self.path = QLineEdit()
        self.path.setPlaceholderText("a file or a folder (paths complete as you type)")
        self.file_button = QPushButton("File…")
        self.folder_button = QPushButton("Folder…")
        self.model = QLineEdit()
        self.model.setPlaceholderText("optional")
        self.model.setToolTip("the model that wrote the runs; empty: as the files say, else 'unknown'")
        self.model.setMaximumWidth(220)
        self.go = QPushButton("Import")
        self.row.addWidget(_plain("Import"))
        self.row.addWidget(self.path, 1)
        self.row.addWidget(self.file_button)
        self.row.addWidget(self.folder_button)
        self.row.addWidget(_plain("model name:"))
        self.row.addWidget(self.model)
        self.row.addWidget(self.go)
        self._finish_row()
        for edit in (self.path, self.model):
            edit.returnPressed.connect(self._commit)
        self.go.clicked.connect(self._commit)
        self.file_button.clicked.connect(self._pick_file)
        self.folder_button.clicked.connect(self._pick_folder)

    def ask(self) -> None:
        """Show the bar and put the keyboard in the path."""
        if self.path.completer() is None:  # the file system is watched only once asked
            fs = file_dialogs.file_system_model(self)  # never reads a file to tell its type: SQLite's locks stay
            fs.setRootPath(QDir.rootPath())
            completer = QCompleter(fs, self)
            completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
            self.path.setCompleter(completer)
        self.show()
        self.path.setFocus()
        self.path.selectAll()

    def _pick_file(self) -> None:
        path = file_dialogs.open_file_name(
            self, "Import a file", self.path.text(), "runs and verdicts (*.jsonl *.ndjson *.json);;All files (*)"
        )
        self._picked(path)

    def _pick_folder(self) -> None:
        self._picked(file_dialogs.existing_directory(self, "Import a folder", self.path.text()))

    def _picked(self, path: str) -> None:
        if path:
            self.path.setText(path)
            self.model.setFocus()

    def _commit(self) -> None:
        path = self.path.text().strip()
        if path:
            self.close_bar()
            self.requested.emit(path, self.model.text().strip())


class SearchBox(QLineEdit):
    """The window's search (see module doc). ``done`` fires when the
    keyboard should go back to the work (Enter, Escape)."""

    done = Signal()

    def __init__(self, session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.setObjectName("Search")
        self.setPlaceholderText("Search items, runs, disputes (Ctrl+F)")
        self.setClearButtonEnabled(True)
        self.setMinimumWidth(min(360, self.fontMetrics().horizontalAdvance("Search items, runs") + 48))  # never 'S…'
        self.setToolTip("matches item names, prompts, models, card texts and dispute subjects; Esc clears")
        self.textChanged.connect(session.set_search)
        self.returnPressed.connect(self.done.emit)

    def event(self, event) -> bool:
        """Keep Escape for the box (it clears the search) before the window's Esc action."""
        if event.type() == QEvent.Type.ShortcutOverride and event.key() == Qt.Key.Key_Escape:
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Escape clears the search and hands the keyboard back; other keys edit."""
        if event.key() == Qt.Key.Key_Escape:
            self.clear()
            self.done.emit()
            return
        super().keyPressEvent(event)
