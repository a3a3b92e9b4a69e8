"""File dialogs and path completion that never open a file to tell its type.

Qt's file system model (behind QFileDialog and a path completer) asks its
icon provider for every file's icon and type as a folder fills, and the
default provider finds them by reading the file's first bytes (MIME
sniffing). Opening and closing the project file (or its -wal / -shm) that
way drops every SQLite lock the process holds on it, and another program
then deletes the -wal under the window's connections (see
reviewer.storage.project.recognise). So the window's dialogs are Qt's own (a native
dialog may sniff the same way in-process) with ``NameOnlyIconProvider``,
which tells a file's type from its name alone, and the import bar's
completer uses ``file_system_model``.
"""

from __future__ import annotations

from PySide6.QtCore import QFileInfo, QMimeDatabase
from PySide6.QtGui import QAbstractFileIconProvider, QIcon
from PySide6.QtWidgets import QDialog, QFileDialog, QFileSystemModel, QWidget


class NameOnlyIconProvider(QAbstractFileIconProvider):
    """Icons and type names of files from their names, never their content."""

    def __init__(self):
        super().__init__()
        self._mimes = QMimeDatabase()

    def icon(self, what) -> QIcon:  # Qt's name
        """A folder or file icon (a QFileInfo), or the icon of an IconType."""
        if isinstance(what, QFileInfo):
            kind = (
                QAbstractFileIconProvider.IconType.Folder if what.isDir() else QAbstractFileIconProvider.IconType.File
            )
            return super().icon(kind)
        return super().icon(what)

    def type(self, info: QFileInfo) -> str:  # Qt's name
        """'Folder', or the MIME comment of the file's name (extension only)."""
        if info.isDir():
            return "Folder"
        return self._mimes.mimeTypeForFile(info.fileName(), QMimeDatabase.MatchMode.MatchExtension).comment()


_PROVIDER: NameOnlyIconProvider | None = None


def provider() -> NameOnlyIconProvider:
    """The one NameOnlyIconProvider (it must outlive every model using it)."""
    global _PROVIDER
    if _PROVIDER is None:
        _PROVIDER = NameOnlyIconProvider()
    return _PROVIDER


def file_system_model(parent: QWidget | None = None) -> QFileSystemModel:
    """A QFileSystemModel that never reads a file (NameOnlyIconProvider)."""
    model = QFileSystemModel(parent)
    model.setIconProvider(provider())
    return model


def dialog(
    parent: QWidget | None,
    caption: str,
    directory: str = "",
    filter: str = "",
    mode: QFileDialog.FileMode = QFileDialog.FileMode.ExistingFile,
    accept: QFileDialog.AcceptMode = QFileDialog.AcceptMode.AcceptOpen,
    confirm_overwrite: bool = True,
) -> QFileDialog:
    """Qt's own file dialog (never the native one) with NameOnlyIconProvider."""
    d = QFileDialog(parent, caption, directory, filter)
    d.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    d.setIconProvider(provider())
    d.setFileMode(mode)
    d.setAcceptMode(accept)
    d.setOption(QFileDialog.Option.DontConfirmOverwrite, not confirm_overwrite)
    return d


def _chosen(d: QFileDialog) -> str:
    return d.selectedFiles()[0] if d.exec() == QDialog.DialogCode.Accepted and d.selectedFiles() else ""


def open_file_name(parent: QWidget | None, caption: str, directory: str = "", filter: str = "") -> str:
    """An existing file picked by the user, or '' (as QFileDialog.getOpenFileName)."""
    return _chosen(dialog(parent, caption, directory, filter))


def save_file_name(
    parent: QWidget | None, caption: str, directory: str = "", filter: str = "", confirm_overwrite: bool = True
) -> str:
    """A file name to write, or '' (as QFileDialog.getSaveFileName)."""
    return _chosen(
        dialog(
            parent,
            caption,
            directory,
            filter,
            QFileDialog.FileMode.AnyFile,
            QFileDialog.AcceptMode.AcceptSave,
            confirm_overwrite,
        )
    )


def existing_directory(parent: QWidget | None, caption: str, directory: str = "") -> str:
    """An existing folder, or '' (as QFileDialog.getExistingDirectory)."""
    d = dialog(parent, caption, directory, mode=QFileDialog.FileMode.Directory)
    d.setOption(QFileDialog.Option.ShowDirsOnly, True)
    return _chosen(d)
