"""Start the review window: `reviewer open [PROJECT] [--screenshot PNG]
[--mode review|adjudication]`.

Without a project, the bundled sample is imported once into the user's data
folder and opened. Settings (recent projects, window layout, the reviewer's
name) live in QSettings; $REVIEWER_CONFIG_DIR puts them in another folder
(tests). Unexpected exceptions are shown in the status bar and logged to
stderr; they never end the app or raise a crash dialog.
"""

from __future__ import annotations

import getpass
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

from PySide6.QtCore import QBuffer, QCoreApplication, QIODevice, QSettings, QStandardPaths, QTimer
from PySide6.QtWidgets import QApplication

from reviewer.qt.main_window import MainWindow
from reviewer.qt.panels import whole_on_hover
from reviewer.qt.session import Session
from reviewer.qt.session.reads import ProjectError, safe_write

SCREENSHOT_SIZE = (1600, 1000)


def settings() -> QSettings:
    """The app's settings (an INI file under $REVIEWER_CONFIG_DIR when set)."""
    folder = os.environ.get("REVIEWER_CONFIG_DIR")
    if folder:
        return QSettings(str(Path(folder) / "reviewer.ini"), QSettings.Format.IniFormat)
    return QSettings("reviewer", "reviewer")


def scratch_copy(store: QSettings, folder: Path) -> QSettings:
    """A copy of ``store`` in an INI file under ``folder``: the window reads
    the user's settings from it and writes its own (recent list, layout)
    there, so the user's ``store`` is never written (a screenshot run)."""
    copy = QSettings(str(Path(folder) / "reviewer.ini"), QSettings.Format.IniFormat)
    for key in store.allKeys():
        copy.setValue(key, store.value(key))
    return copy


def login_name() -> str:
    """The login name (getpass.getuser()), or 'reviewer' when there is none."""
    try:
        return getpass.getuser() or "reviewer"
    except (KeyError, OSError):  # no user name in the environment or the password database
        return "reviewer"


def reviewer_name(store: QSettings) -> tuple[str, bool]:
    """(the reviewer's name, whether to ask for it): $REVIEWER_NAME (not
    remembered), else the setting, else the login name, to be confirmed in
    the window's inline name bar (a name given there is remembered)."""
    name = os.environ.get("REVIEWER_NAME") or store.value("reviewer_name")
    if name:
        return str(name), False
    return login_name(), True


def sample_project(sample: Path) -> Path:
    """The user's copy of the bundled sample project (made on first use)."""
    base = os.environ.get("REVIEWER_DATA_DIR") or QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.AppDataLocation
    )
    folder = Path(base or Path.home() / ".reviewer")
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "sample.db"


def install_excepthook(window: MainWindow) -> None:
    """Log unexpected exceptions and show them in the status bar."""

    def hook(kind, value, tb):
        """sys.excepthook: print the traceback to stderr and show 'Type: message' in the status bar."""
        traceback.print_exception(kind, value, tb, file=sys.stderr)
        window.show_error(f"{kind.__name__}: {value}")

    sys.excepthook = hook


def select(session: Session, item: str | None, prompt: str | None) -> None:
    """Show the item called ``item`` and its first run of ``prompt`` that
    needs review (else its first run of that prompt)."""
    if item:
        match = session.item_named(item)
        if match is None:
            session.error.emit(f"no item called '{item}'")
            return
        session.set_item(match.id)
    if prompt:
        runs = [r for r in session.runs() if r.run["prompt"] == prompt]
        pending = [r for r in runs if any(f.status.value == "proposed" for f in r.findings)]
        run = next(iter(pending or runs), None)
        if run is None:
            session.error.emit(f"no run of prompt '{prompt}' on this item")
            return
        session.set_run(run.run["id"])


def default_mode(session: Session) -> str:
    """'adjudication' for a project of judge verdicts without photos (e.g.
    PandaLM pairs), else 'review'."""
    items = session.items()
    photos = any(st.kind == "photo" for st in items)
    return "adjudication" if items and not photos and session.disputes() else "review"


def build(
    project: Path | None,
    sample: Path | None = None,
    ask_name: bool = True,
    item: str | None = None,
    prompt: str | None = None,
    mode: str | None = None,
    store: QSettings | None = None,
) -> MainWindow:
    """Make the window and open ``project`` (or the sample), showing ``item``
    and its run of ``prompt`` when given, in ``mode`` ('review' or
    'adjudication'), keeping its settings in ``store`` (default: the
    user's, settings()). The caller owns the QApplication."""
    store = store if store is not None else settings()
    name, unknown = reviewer_name(store)
    session = Session(name)
    window = MainWindow(session, store)
    whole_on_hover(window)
    if unknown and ask_name:
        window.ask_name(name)
    install_excepthook(window)
    if project is None and sample is not None:
        project = sample_project(sample)
        fresh = not project.exists()
        if session.open(project, create=True) and fresh:
            session.import_source(sample, model="illustrative-vlm")
    elif project is not None:
        window.open_path(Path(project))
    select(session, item, prompt)
    window.set_mode(mode or default_mode(session))
    return window


def waiting_for(window: MainWindow) -> bool:
    """The window still has something to show that is on its way: a photo
    decoding on the canvas in card review. Nothing is awaited after an
    error (a bad or newer project), without a project or item, or in
    adjudication mode (drawn at once)."""
    if window.errors or window.mode != "review":
        return False
    s = window.session
    return s.project is not None and s.item() is not None and not window.canvas.is_ready()


def _wait_until_ready(window: MainWindow, app: QCoreApplication, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        app.processEvents()
        if not waiting_for(window):
            break
        time.sleep(0.02)
    for _ in range(10):
        app.processEvents()


def _save_screenshot(window: MainWindow, path: Path, force: bool = False) -> str | None:
    """Write the window as PNG (JPEG for a .jpg / .jpeg name) to ``path``,
    replacing the file whole and never a project or a file that is not such
    an image, nor, unless ``force``, one not in reviewer's record of the
    files it wrote (reviewer.storage.files.safe_write). Returns None, or why not."""
    jpeg = path.suffix.lower() in (".jpg", ".jpeg")
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not window.grab().save(buffer, "JPG" if jpeg else "PNG"):
        return "the window could not be drawn"
    fmt = safe_write.magic_format("JPEG image", b"\xff\xd8\xff") if jpeg else safe_write.PNG_FORMAT
    try:
        safe_write.write_bytes(path, bytes(buffer.data().data()), fmt, force=force)
    except ProjectError as exc:
        return str(exc)
    return None


def run(
    project: Path | None,
    screenshot: Path | None = None,
    sample: Path | None = None,
    item: str | None = None,
    prompt: str | None = None,
    mode: str | None = None,
    force: bool = False,
) -> int:
    """Run the app in ``mode``; with ``screenshot``, render the loaded
    window at 1600x1000 to that PNG (``force``: even over a PNG not in
    reviewer's record of the files it wrote) and exit, leaving the user's settings
    untouched (the window keeps its own in a scratch copy). Returns the
    exit status."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("reviewer")
    if screenshot is not None:
        with tempfile.TemporaryDirectory(prefix="reviewer-screenshot-") as folder:
            return _screenshot(app, project, Path(screenshot), sample, item, prompt, mode, Path(folder), force)
    window = build(project, sample, item=item, prompt=prompt, mode=mode)
    window.show()
    QTimer.singleShot(0, window.canvas.fit)
    return app.exec()


def _screenshot(
    app: QCoreApplication,
    project: Path | None,
    screenshot: Path,
    sample: Path | None,
    item: str | None,
    prompt: str | None,
    mode: str | None,
    scratch: Path,
    force: bool = False,
) -> int:
    """run()'s screenshot mode, its settings kept under ``scratch``."""
    store = scratch_copy(settings(), scratch)
    window = build(project, sample, ask_name=False, item=item, prompt=prompt, mode=mode, store=store)
    window.resize(*SCREENSHOT_SIZE)
    window.show()
    _wait_until_ready(window, app)
    window.canvas.fit()
    app.processEvents()
    if window.errors:  # nothing worth a picture: say why instead
        window.close()
        for text in window.errors:
            print(f"Error: {text}", file=sys.stderr)
        return 1
    problem = _save_screenshot(window, screenshot, force)
    window.close()
    print(
        f"saved {screenshot}" if problem is None else f"Error: could not save {screenshot}: {problem}",
        file=sys.stdout if problem is None else sys.stderr,
    )
    return 0 if problem is None else 1
