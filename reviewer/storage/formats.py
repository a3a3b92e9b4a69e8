"""The import formats: the one list of them, in detection order (the first
format whose detector accepts a source is used), gathered from the
workflows' registrations (reviewer.storage.registry: each registers its
formats with their places in detection order) and the formats no workflow
owns. Each names its module and its detector and importer functions, so
the names are known without importing the importers (the command line's
help text and a fast start-up need the names only);
reviewer.storage.importers imports a format's module when it is first
asked (decision record "one-list-of-formats").
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from reviewer.storage import registry

#: The formats no workflow owns (runs of any prompt, a batch file's answers), with their ranks.
SHARED_FORMATS: dict[str, tuple[str, str, str, int]] = {
    "batch-output": ("reviewer.storage.importers.batch_output", "detect", "import_batch_output", 170),
    "jsonl-runs": ("reviewer.storage.importers.jsonl_runs", "detect", "import_jsonl", 190),
}


def import_formats() -> dict[str, tuple[str, str, str]]:
    """Every import format, in detection order: the registered workflows'
    formats and SHARED_FORMATS by rank (a format without one just before
    the card folder; equal ranks in registration order), {name: (module
    named in full, detector, importer)}."""
    ranked = [
        (parts.format_ranks.get(name, registry.DEFAULT_FORMAT_RANK), name, (module, detect, load))
        for parts in registry.registered()
        for name, module, detect, load in parts.formats
    ]
    ranked += [(rank, name, (module, detect, load)) for name, (module, detect, load, rank) in SHARED_FORMATS.items()]
    return {name: entry for _rank, name, entry in sorted(ranked, key=lambda r: r[0])}


#: The built-in formats (those registered when reviewer.storage is imported), in detection order.
IMPORT_FORMATS: dict[str, tuple[str, str, str]] = import_formats()

#: The format names, in detection order.
FORMAT_NAMES = tuple(IMPORT_FORMATS)


def format_function(name: str, role: str) -> Callable:
    """The ``role`` function ('detect' or 'import') of import format
    ``name`` (a registered workflow's too), its module imported at the first
    call. KeyError for an unknown name."""
    module, detector, importer = import_formats()[name]
    return getattr(import_module(module), detector if role == "detect" else importer)


__all__ = ["FORMAT_NAMES", "IMPORT_FORMATS", "SHARED_FORMATS", "format_function", "import_formats"]
