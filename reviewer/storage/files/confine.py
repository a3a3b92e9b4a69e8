"""Confinement of imported files: a file named inside an imported file is
read only under the source the user named, and whatever an export writes
stays inside its OUT.

Imported files come from other people and tools; the paths they name
(labelme ``imagePath``, COCO ``file_name``, Label Studio ``data.image``,
Failter's ``source-input-path`` / ``source-template-path``) and the item
names they give (COCO ``reviewer_item``, Label Studio
``data.reviewer_item``) are untrusted. The rules (docs/reliability.md):

* The **source root** is the folder given to ``import``, or the folder
  holding the file given (:func:`source_root`); for a bare Failter
  artifacts folder it is the experiment folder holding it: the nearest
  ancestor with ``inputs/`` or a spec (:func:`experiment_root`).
* A named path is used only when it resolves, after following symlinks,
  inside the root (:func:`inside`); a path outside is never read as
  written. Image paths are then looked up by name inside the root (as
  before: beside the file, in ``images/`` ...), front-matter paths by
  their last parts (:func:`find_inside`). When nothing inside is found the
  entry is refused with one line naming the field (:func:`outside`).
* An item name must stay inside any folder it is joined to
  (:func:`plain_name`): a text, not absolute, without a ``..`` part or a
  control character.
* An export turns item names into safe file names (:func:`safe_file_name`)
  and writes only inside its OUT (:func:`within`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any


class Refused(ValueError):
    """A path or name from an imported file that is not used; the message
    is one line naming the field."""


def shown(value: Any, limit: int = 80) -> str:
    """``value`` as one short line: non-printable characters as <U+XXXX>,
    at most ``limit`` characters, its middle cut (a path keeps its file
    name); what a refusal quotes."""
    text = "".join(ch if ch.isprintable() else f"<U+{ord(ch):04X}>" for ch in str(value))
    if len(text) <= limit:
        return text
    head = (limit - 3) // 2
    return text[:head] + "..." + text[len(text) - (limit - 3 - head) :]


def followed(path: Path) -> Path | None:
    """``path`` with symlinks followed, or None when it cannot be (a symlink loop, a NUL byte)."""
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a NUL byte
        return None


def source_root(source: Path) -> Path:
    """The folder an import of ``source`` is confined to: ``source`` when
    it is a folder, else the folder holding it; symlinks followed."""
    source = Path(source)
    folder = source if source.is_dir() else source.parent
    return followed(folder) or folder.absolute()


def inside(root: Path, path: Path) -> bool:
    """True when ``path``, after following symlinks, is ``root`` or lies
    under it (``root`` as :func:`source_root` gives it: resolved)."""
    resolved = followed(path)
    return resolved is not None and (resolved == root or root in resolved.parents)


def confined_file(root: Path, candidates: Iterable[Path], suffixes: set[str] | None = None) -> Path | None:
    """The first of ``candidates`` that is a file (with one of
    ``suffixes``, when given) inside ``root``; None when none is."""
    for path in candidates:
        try:
            if suffixes is not None and path.suffix.lower() not in suffixes:
                continue
            if path.is_file() and inside(root, path):
                return path
        except (OSError, ValueError):
            continue
    return None


def points_outside(root: Path, base: Path, ref: str) -> bool:
    """True when ``ref`` as written (absolute, or relative to ``base``)
    names a place outside ``root``: what the refusal says."""
    text = str(ref).replace("\\", "/")
    if not text:
        return False
    path = Path(text)
    return not inside(root, path if path.is_absolute() else base / path)


def outside(field: str, value: Any, root: Path) -> Refused:
    """The refusal of ``field``'s ``value``, a path that names nothing
    inside ``root`` (one line)."""
    return Refused(
        f"{field} '{shown(value)}' names a file outside {root.name or root} "
        "(only files inside the imported folder are read)"
    )


_PARENT_OR_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def plain_name(value: Any, field: str) -> str:
    """``value`` as an item name when it stays inside any folder it is
    joined to (a text, not empty, not absolute, no '..' part, no control
    character); Refused naming ``field`` otherwise."""
    if not isinstance(value, str):
        raise Refused(f"{field} {shown(repr(value))} is not a text")
    name = value.strip()
    if not name:
        raise Refused(f"{field} is empty")
    if _PARENT_OR_CONTROL.search(name):
        raise Refused(f"{field} '{shown(name)}' holds a control character")
    posix, windows = PurePosixPath(name), PureWindowsPath(name)
    if posix.is_absolute() or windows.is_absolute() or windows.drive or name.startswith(("/", "\\")):
        raise Refused(f"{field} '{shown(name)}' is an absolute path, not a name")
    if ".." in posix.parts or ".." in windows.parts:
        raise Refused(f"{field} '{shown(name)}' climbs out of its folder ('..')")
    return name


# -- Failter: the experiment folder ----------------------------------------------------
#: A spec file is a YAML file with one of these keys at the start of a line.
_SPEC_KEY = re.compile(rb"^(artifacts_dir|inputs_dir)\s*:", re.M)


def _is_spec(path: Path) -> bool:
    if path.suffix.lower() not in (".yml", ".yaml") or not path.is_file():
        return False
    try:
        with path.open("rb") as fh:
            return bool(_SPEC_KEY.search(fh.read(65536)))
    except OSError:
        return False


def experiment_root(folder: Path) -> Path:
    """The experiment folder holding a Failter artifacts folder: the
    nearest of ``folder`` and its ancestors with an ``inputs/`` folder or a
    spec (a .yml / .yaml file with ``inputs_dir:`` or ``artifacts_dir:``
    keys, read as text); ``folder`` itself when none has. Resolved."""
    start = source_root(folder)
    for place in (start, *start.parents):
        try:
            if (place / "inputs").is_dir() or any(_is_spec(p) for p in place.iterdir()):
                return place
        except OSError:
            continue
    return start


def find_inside(root: Path, folder: Path, written: str) -> Path | None:
    """The file a Failter front-matter path names, inside ``root`` only:
    ``written`` as it is when it lies inside; else it (when relative) or
    its last three or two parts under ``folder`` or one of its ancestors up
    to ``root``; None when none of these is a file inside ``root``. A path
    outside is never read as written."""
    path = Path(str(written))
    candidates: list[Path] = []
    if path.is_absolute():
        candidates.append(path)
    tails = [path] if not path.is_absolute() else []
    tails += [Path(*path.parts[-k:]) for k in (3, 2) if len(path.parts) > k]
    start = source_root(folder)
    bases = [start] + [p for p in start.parents if p == root or root in p.parents]
    candidates += [base / tail for base in bases for tail in tails]
    return confined_file(root, candidates)


# -- exports -------------------------------------------------------------------------
_UNSAFE = re.compile(r'[/\\:*?"<>|]')
_RESERVED = {"CON", "PRN", "AUX", "NUL", *(f"COM{k}" for k in range(1, 10)), *(f"LPT{k}" for k in range(1, 10))}


def safe_file_name(name: str, used: set[str] | None = None, limit: int = 200) -> str:
    """``name`` as a file name that is safe on every system: path
    separators, ``: * ? " < > |`` and control or format characters made
    '_', leading dots and trailing dots or spaces dropped, a reserved
    Windows name prefixed with '_', at most ``limit`` UTF-8 bytes; '_' when
    nothing is left. With ``used`` (case-folded names already given, which
    it extends), a repeat gets '-2', '-3', ... A safe name is kept as it is."""
    text = "".join("_" if unicodedata.category(ch).startswith("C") else ch for ch in str(name))
    text = _UNSAFE.sub("_", text).strip().lstrip(".").rstrip(". ")
    if text.split(".")[0].upper() in _RESERVED:
        text = "_" + text
    text = text.encode("utf-8")[:limit].decode("utf-8", errors="ignore").rstrip(". ") or "_"
    if used is None:
        return text
    out, k = text, 2
    while out.casefold() in used:
        suffix = f"-{k}"
        out = text.encode("utf-8")[: limit - len(suffix)].decode("utf-8", errors="ignore") + suffix
        k += 1
    used.add(out.casefold())
    return out


def within(out: Path, name: str) -> Path:
    """``out / name`` when it lies inside the folder ``out`` (after
    following symlinks); Refused otherwise (an export writes only inside
    its OUT)."""
    target = Path(out) / name
    root = followed(Path(out))
    resolved = followed(target)
    if root is None or resolved is None or resolved.parent != root:
        raise Refused(f"'{shown(name)}' would be written outside {out}")
    return target


__all__ = [
    "Refused",
    "confined_file",
    "experiment_root",
    "find_inside",
    "inside",
    "outside",
    "plain_name",
    "points_outside",
    "safe_file_name",
    "shown",
    "source_root",
    "within",
]
