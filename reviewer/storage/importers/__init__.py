"""Importers: bring items, ground truth, prompts and runs into a project.

``import_source`` detects the format of a source (a folder or a file) and
runs the matching importer; every importer is idempotent (importing the same
source twice adds nothing) and reports what it skipped and why.
"""

from __future__ import annotations

from pathlib import Path

from reviewer.storage.formats import IMPORT_FORMATS, format_function, import_formats
from reviewer.storage.importers.base import ImportOptions, ImportReport, too_deep
from reviewer.storage.project.db import Project, ProjectError, open_here
from reviewer.storage.repo.sources import record_source
from reviewer.storage.workflows import record_workflows


def _format(name: str) -> tuple:
    """(detector, importer) of import format ``name``, its module imported at first use."""
    return (
        lambda source: format_function(name, "detect")(source),
        lambda project, source, options: format_function(name, "import")(project, source, options),
    )


#: format name -> (detector, importer), in detection order (the list: reviewer.storage.formats)
FORMATS = {name: _format(name) for name in IMPORT_FORMATS}


def formats() -> dict[str, tuple]:
    """FORMATS with the registered workflows' formats (reviewer.storage.registry), in detection order."""
    return {name: FORMATS.get(name) or _format(name) for name in import_formats()}


def undetected(source: Path) -> str:
    """The one line for a source whose format no detector accepts: the
    reason when it is JSON nested too deep to read, else the formats."""
    deep = too_deep(source)
    if deep:
        return f"cannot tell the format of {source}: it {deep.removeprefix(str(source) + ' ')}"
    return f"cannot tell the format of {source}; give --format ({', '.join(formats())})"


def detect_format(source: Path) -> str | None:
    """The name of the first format whose detector accepts ``source``, or None."""
    for name, (detect, _) in formats().items():
        if detect(source):
            return name
    return None


def import_source(
    project: Project, source: Path, fmt: str | None = None, options: ImportOptions | None = None
) -> ImportReport:
    """Import ``source`` into ``project`` in format ``fmt`` (detected when
    None). Raises ProjectError for a missing source or an unknown format,
    ReadOnlyProject (a ProjectError) for a project opened read-only. Long
    imports commit in short batches (``Project.batched``), so other writers
    get in; an interrupted import is completed by importing again. The
    source is recorded (reviewer.storage.repo.sources), and each new item's
    workflow (reviewer.storage.workflows)."""
    source = Path(source)
    if not source.exists():
        raise ProjectError(f"no such file or folder: {source}")
    if source.is_file() and open_here(source):  # reading it with open() would drop SQLite's locks
        raise ProjectError(f"{source} is a project open here, not a source to import")
    if fmt is None:
        fmt = detect_format(source)
        if fmt is None:
            raise ProjectError(undetected(source))
    known = formats()
    if fmt not in known:
        raise ProjectError(f"unknown format '{fmt}' (known: {', '.join(known)})")
    project.require_writable("import")
    record_source(project, source, fmt)  # first, so no export writes into it even after a killed import
    report = known[fmt][1](project, source, options or ImportOptions())
    record_workflows(project)  # each new item's workflow, from what this import gave it
    return report


__all__ = ["FORMATS", "formats", "ImportOptions", "ImportReport", "detect_format", "import_source", "undetected"]
