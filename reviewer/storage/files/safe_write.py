"""Writing a file without ever destroying one: the one way every export
(``export``, ``export-gt``, ``golden-export``, a Failter spec's
``output_file`` and artifacts) puts a file on disk.

Two steps, both here:

1. **The target is checked** (``check_target``) before anything is asked or
   written. A file that exists is replaced only when reviewer's record of
   the files it wrote (reviewer.storage.files.written) lists it with its current
   sha256 (decision record written-files-recorded-per-user). Refused, with
   a one-line message (``TargetRefused``, a ProjectError), unless ``force``:

   * a reviewer project (recognised through SQLite, never with ``open()``:
     see reviewer.storage.project.recognise);
   * any other file the record does not list with its current hash,
     whatever its shape: a user's file, a file changed since, or one an
     earlier reviewer wrote before the record (the message says so when
     the file has the writer's shape: ``FileFormat.recognise``; pass
     ``--force`` once). An empty file holds nothing and may be replaced.
     Files of a format another program writes too (``FileFormat.by_shape``:
     Failter's own artifacts) are also replaced when they have its shape;
   * a target inside (or equal to) a ``source`` the data was imported from
     (folders or files given by the caller;
     reviewer.storage.repo.sources.import_sources lists a project's), even when
     the record lists it;
   * a symbolic link (``force`` replaces the file it points to, which must
     then be a regular file).

   Refused even with ``force``: anything that exists and is not a regular
   file (a folder, a FIFO, a character or block device, a socket; also as
   the end of a symbolic link, or a link that leads nowhere:
   ``regular_or_absent``), a project this process holds open, and an
   SQLite file with a -wal or -shm beside it (in use, or not cleanly
   closed: replacing it would pair the new file with the old journal).
   Writers replace only regular files.

2. **The file is replaced, never rewritten** (``replacing``,
   ``write_bytes``, ``write_text``, ``write_json``): the content goes to a
   new temporary file in the target's folder (a unique name, so no file of
   the user's is touched), is flushed and fsynced, and is renamed onto the
   target with ``os.replace`` (atomic on POSIX), then the folder is
   fsynced. A failure at any point (a full disk, a kill) leaves the
   previous file exactly as it was and no temporary file behind (a kill
   may leave a ``.NAME.*.tmp``, never a changed target). The file put in
   place is then added to the record with its sha256 (``written.remember``).

Use::

    from reviewer.storage.files import safe_write as sw

    GOLDEN = sw.json_format("golden set", lambda v: isinstance(v, dict) and "prompts" in v)
    sw.write_json(out, data, GOLDEN, sources=sources, force=force, indent=2)

    with sw.replacing(out, EXPORT_FORMAT, force=force) as tmp:   # the writer writes tmp itself
        write_database(tmp)

A new writer defines its FileFormat once (``json_format``, ``magic_format``
or its own ``recognise``), passes the project's import sources (and any
folder it reads) and the command's ``--force``, and lets TargetRefused /
ProjectError reach the command line, which prints them as one line.

Errors: ``TargetRefused`` for a refused target; DiskFull (a ProjectError:
"cannot write OUT: the disk is full (1.2 GB free on FOLDER)") when the disk
is full; ProjectError ("cannot write OUT: <the system's reason>") when
writing fails otherwise.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewer.storage.files import written
from reviewer.storage.files.confine import followed, inside
from reviewer.storage.project.db import DiskFull, ProjectError, disk_full_message, is_disk_full, open_here
from reviewer.storage.project.recognise import look, sidecars

#: Largest existing file read to recognise its format (bytes); a larger
#: one is refused unless ``force``.
MAX_RECOGNISE_BYTES = 256 * 1024 * 1024
#: Bytes per os.write call.
_CHUNK = 1 << 20

# the permission bits of a new file as open() would give them (mkstemp makes 0600)
_UMASK = os.umask(0)
os.umask(_UMASK)


class TargetRefused(ProjectError):
    """An export target was refused (the message says why and how to go on);
    nothing was written."""


@dataclass(frozen=True)
class FileFormat:
    """What an export writes, to recognise a file it may replace.

    ``name``: for messages ('COCO JSON file'); ``recognise(path)``: True when
    the existing, non-empty file at ``path`` holds this format (it reads the
    file; called only for a file that is not SQLite, unless ``sqlite``);
    ``sqlite``: the format is an SQLite database (``recognise`` then reads
    it through SQLite only); ``by_shape``: another program writes this
    format too (Failter's artifacts), so a file recognised by its shape may
    be replaced although the record does not list it."""

    name: str
    recognise: Callable[[Path], bool]
    sqlite: bool = False
    by_shape: bool = False


def read_json_file(path: Path) -> Any:
    """The JSON value of the file at ``path``; ValueError when it is not
    UTF-8 JSON or larger than MAX_RECOGNISE_BYTES, OSError when it cannot
    be read."""
    if path.stat().st_size > MAX_RECOGNISE_BYTES:
        raise ValueError("too large to check")
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(str(exc)) from None


def json_format(name: str, test: Callable[[Any], bool]) -> FileFormat:
    """A FileFormat of JSON files: an existing file is of this format when
    it is UTF-8 JSON whose value passes ``test(value)``."""

    def recognise(path: Path) -> bool:
        try:
            return bool(test(read_json_file(path)))
        except (OSError, ValueError):
            return False

    return FileFormat(name, recognise)


def magic_format(name: str, *starts: bytes) -> FileFormat:
    """A FileFormat recognised by how a file begins: its first bytes (after
    leading whitespace) start with one of ``starts`` (PNG's signature,
    ``<svg`` ...)."""
    longest = max(len(m) for m in starts) + 4096

    def recognise(path: Path) -> bool:
        try:
            with open(path, "rb") as fh:  # not SQLite and not open here: check_target made sure
                head = fh.read(longest).lstrip()
        except OSError:
            return False
        return any(head.startswith(m) for m in starts)

    return FileFormat(name, recognise)


#: PNG and SVG images (charts).
PNG_FORMAT = magic_format("PNG image", b"\x89PNG\r\n\x1a\n")
SVG_FORMAT = magic_format("SVG image", b"<?xml", b"<svg", b"<!DOCTYPE svg")


def check_target(
    target: os.PathLike | str, fmt: FileFormat, *, sources: Iterable[os.PathLike | str] = (), force: bool = False
) -> Path:
    """Check that ``target`` may be replaced by a file of ``fmt`` (module
    doc, step 1) and return it as a Path. Raises TargetRefused."""
    shown = str(target)
    target = regular_or_absent(Path(target), force=force)
    how = "; choose another file (or --force to replace it)"
    if open_here(target):
        raise TargetRefused(f"{shown} is the project itself (open here); choose another file")
    if not force:
        for source in sources:
            root = followed(Path(source))
            if root is not None and inside(root, target):
                raise TargetRefused(f"{shown} is inside {source}, which the project was imported from{how}")
    if not target.exists():
        return target
    if any(side.exists() for side in sidecars(target)):
        raise TargetRefused(f"{shown} is an SQLite database in use (a -wal or -shm is beside it); choose another file")
    found = look(target)  # through SQLite: never drops a lock of this process (recognise)
    if found.kind == "empty":
        return target
    if found.kind == "project":
        if not force:
            raise TargetRefused(f"{shown} is a reviewer project{how}")
        return target
    if force or written.owned(target):  # not open here (above): hashing it drops no lock of ours
        return target
    if found.kind == "unreadable" and found.problem != "file is not a database":
        raise TargetRefused(f"{shown} exists and cannot be checked ({found.problem}){how}")
    is_sqlite = found.kind == "foreign"  # else not SQLite at all: only now may it be read with open()
    shaped = fmt.sqlite == is_sqlite and fmt.recognise(target)
    if shaped and fmt.by_shape:
        return target
    if shaped:
        raise TargetRefused(
            f"{shown} looks like {_article(fmt.name)} but is not in reviewer's record of the files it wrote "
            "(written by an earlier version, or changed since); pass --force to replace it"
        )
    raise TargetRefused(f"{shown} exists and is not {_article(fmt.name)} reviewer wrote{how}")


_NOT_REGULAR = (
    (stat.S_ISDIR, "a folder; give a file name"),
    (stat.S_ISFIFO, "a FIFO (named pipe); reviewer replaces only regular files"),
    (stat.S_ISCHR, "a character device; reviewer replaces only regular files"),
    (stat.S_ISBLK, "a block device; reviewer replaces only regular files"),
    (stat.S_ISSOCK, "a socket; reviewer replaces only regular files"),
)


def regular_or_absent(target: Path, *, force: bool = False) -> Path:
    """The path a writer replaces for ``target``: ``target`` itself when it
    does not exist or is a regular file; with ``force``, the regular file a
    symbolic link points to. Raises TargetRefused for a symbolic link
    without ``force`` (one line: pass --force to write through it), a link
    that leads nowhere (its target is named), and anything that exists and
    is not a regular file, also as a link's end: a folder, a FIFO, a device
    or a socket (even with ``force``). Looks with lstat/stat only: a FIFO
    is never opened."""
    shown = str(target)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise TargetRefused(f"{shown} cannot be checked ({exc.strerror or exc})") from None
    if stat.S_ISLNK(st.st_mode):
        try:
            st = os.stat(target)
        except OSError:
            raise TargetRefused(
                f"{shown} is a dangling symbolic link (to {os.readlink(target)}); choose another file"
            ) from None
        if stat.S_ISREG(st.st_mode) and not force:
            raise TargetRefused(
                f"{shown} is a symbolic link; choose another file (or --force to replace the file it points to)"
            )
        shown = f"{shown} (a symbolic link) leads to"
        target = target.resolve()
    for test, what in _NOT_REGULAR:
        if test(st.st_mode):
            raise TargetRefused(f"{shown} is {what}")
    return target


def _article(name: str) -> str:
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


@contextmanager
def replacing(
    target: os.PathLike | str,
    fmt: FileFormat | None = None,
    *,
    sources: Iterable[os.PathLike | str] = (),
    force: bool = False,
) -> Iterator[Path]:
    """Check ``target`` (when ``fmt`` is given; see check_target), then
    yield the path of a new, empty temporary file in the target's folder
    for the caller to write (and close). When the block ends without an
    error, the file is fsynced and renamed onto ``target``; on an error it
    is removed and the target is left as it was. OSError becomes
    ProjectError ("cannot write OUT: ...")."""
    if fmt is not None:
        check_target(target, fmt, sources=sources, force=force)
    target = regular_or_absent(Path(target), force=force)
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise _write_error(target, exc) from None
    os.close(fd)
    tmp = Path(name)
    try:
        try:  # the replaced file's permissions, or a new file's
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~_UMASK)
            yield tmp
            _fsync_path(tmp)
            size, digest = tmp.stat().st_size, written.sha256_file(tmp)
            os.replace(tmp, target)
        except OSError as exc:
            raise _write_error(target, exc) from None
    finally:
        for left in (tmp, *(Path(f"{tmp}{end}") for end in _SQLITE_SIDES)):
            if left.exists():  # the temporary file, and a journal SQLite left beside it (a full disk)
                left.unlink()
    _fsync_folder(folder)
    written.remember(target, digest, size)


#: What SQLite may leave beside a database it was writing when a write failed.
_SQLITE_SIDES = ("-journal", "-wal", "-shm")


def _write_error(target: Path, exc: OSError) -> ProjectError:
    """The one-line error of a failed write of ``target``: DiskFull naming
    the free space when the disk is full, else the system's reason."""
    if is_disk_full(exc):
        return DiskFull(disk_full_message(target))
    return ProjectError(f"cannot write {target}: {exc.strerror or exc}")


def write_bytes(
    target: os.PathLike | str,
    data: bytes,
    fmt: FileFormat,
    *,
    sources: Iterable[os.PathLike | str] = (),
    force: bool = False,
) -> Path:
    """Replace ``target`` by a file holding ``data`` (module doc): checked,
    written to a temporary file, fsynced, renamed into place. Returns the
    target. Raises TargetRefused or ProjectError."""
    target = Path(target)
    with replacing(target, fmt, sources=sources, force=force) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_TRUNC)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view[:_CHUNK])
                view = view[n:]
        finally:
            os.close(fd)
    return target


def write_text(
    target: os.PathLike | str,
    text: str,
    fmt: FileFormat,
    *,
    sources: Iterable[os.PathLike | str] = (),
    force: bool = False,
) -> Path:
    """write_bytes of ``text`` in UTF-8 (no newline translation)."""
    return write_bytes(target, text.encode("utf-8"), fmt, sources=sources, force=force)


def write_json(
    target: os.PathLike | str,
    value: Any,
    fmt: FileFormat,
    *,
    sources: Iterable[os.PathLike | str] = (),
    force: bool = False,
    indent: int | None = 2,
    ensure_ascii: bool = False,
    newline: bool = True,
) -> Path:
    """write_text of ``json.dumps(value, indent=indent,
    ensure_ascii=ensure_ascii)``, with a newline at the end when
    ``newline``."""
    text = json.dumps(value, indent=indent, ensure_ascii=ensure_ascii) + ("\n" if newline else "")
    return write_text(target, text, fmt, sources=sources, force=force)


def _fsync_path(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_folder(folder: Path) -> None:
    """fsync a folder so a rename in it survives a power cut (best effort:
    not every file system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


__all__ = [
    "FileFormat",
    "MAX_RECOGNISE_BYTES",
    "PNG_FORMAT",
    "SVG_FORMAT",
    "TargetRefused",
    "check_target",
    "inside",
    "json_format",
    "magic_format",
    "read_json_file",
    "regular_or_absent",
    "replacing",
    "write_bytes",
    "write_json",
    "write_text",
]
