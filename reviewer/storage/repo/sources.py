"""The files and folders a project was imported from (table
``import_sources``), so that no export writes into one of them
(reviewer.storage.files.safe_write: a target inside a source is refused unless
--force)."""

from __future__ import annotations

from pathlib import Path

from reviewer.storage.project.db import Project, now


def record_source(project: Project, source: Path, fmt: str | None) -> None:
    """Remember that ``source`` (made absolute) was imported in format
    ``fmt`` (one short transaction; again: the time is updated)."""
    with project.transaction():
        project.db.execute(
            "INSERT INTO import_sources (path, format, imported_at) VALUES (?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET format = excluded.format, imported_at = excluded.imported_at",
            [str(Path(source).resolve()), fmt, now()],
        )


def import_sources(project: Project) -> list[Path]:
    """Every file or folder the project was imported from, as absolute
    paths, in the order first imported."""
    return [Path(r[0]) for r in project.db.execute("SELECT path FROM import_sources ORDER BY rowid")]
