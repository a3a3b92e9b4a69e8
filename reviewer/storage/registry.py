"""The storage layer's registry of workflows (decision record
"workflow-registries"): what a workflow adds to the project database, kept
in one registration made from its own package. The composition modules
loop over it: reviewer.storage.workflows (how its items are recognised),
reviewer.storage.formats (its import formats), reviewer.storage.scoring
(its scorer), reviewer.storage.report (its report sections, Markdown, CSV
and JSON) and reviewer.storage.export (its export tables and their
``_columns`` descriptions).

The five built-in workflows register here from their own packages
(``registration`` in reviewer.storage.cards, .spans, .cases, .judging and
.annotators, imported once by reviewer.storage's ``__init__``); a workflow
beyond them (reviewer.core.workflows.register) registers the same way and
is then imported, scored, reported and exported with no edit to those
modules. A registration names its functions' modules and reaches them only
when called, so registering is cheap and imports nothing of storage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional

#: (name, module, detector function, importer function): an import format,
#: its module named in full (reviewer.storage.formats imports it when first asked).
ImportFormat = tuple[str, str, str, str]
#: An export table: (name, {column: type}, primary key or None, rows as tuples).
ExportTable = tuple[str, dict, Optional[str], Iterable[tuple]]

#: Where a registered format without a rank goes in detection order: just
#: before the card folder (rank 110), which takes any folder of photos.
DEFAULT_FORMAT_RANK = 105


@dataclass(frozen=True)
class ExportPart:
    """Some tables of the analysts' export: ``function`` of ``module``
    (named in full; reviewer.storage.export imports it when exporting)
    gives them as ExportTable tuples, called as function(project), or
    function(project, prices) with ``prices`` ({model: {"input", "output"}
    per token}, or None). ``rank``: where they go in the export, lower
    first; a table another part gave already gets these rows after its own
    (one table two workflows fill, as the judges' and the annotators'
    agreement)."""

    rank: int
    module: str
    function: str
    prices: bool = False


@dataclass(frozen=True)
class ReportSection:
    """A workflow's report section in each format, each a function of the
    project: ``markdown`` gives the section's Markdown (a '## ' heading
    first) or '' without data; ``csv`` its CSV rows, a first column
    ``table`` naming the table, or ''; ``json`` an object for the JSON
    report, or None without data."""

    markdown: Callable[[Any], str]
    csv: Callable[[Any], str]
    json: Callable[[Any], Any]


@dataclass(frozen=True)
class StorageWorkflow:
    """What workflow ``workflow`` (its stored value) adds to the storage layer.

    ``fact_sql``: an SQL query of the item ids that hold the workflow's
    fact (reviewer.core.workflows.RegisteredWorkflow.fact); ``formats``:
    its import formats, tried before the card folder (which takes any
    folder of photos); ``scorer``: scores the project's runs, called as
    scorer(project, run_ids=list or None, only_stale=bool), returns the
    runs scored; ``report``: its report sections; ``export``: its export
    tables of a project (after every ExportPart); ``export_docs``: {table:
    (description, {column: description})}, the ``_columns`` of those tables;
    ``export_keys``: {table: [(column, other table, other column)]}, their
    foreign keys.

    A built-in workflow's registration also gives ``fact``: the keyword of
    core.workflows.infer that ``fact_sql`` answers (a registered workflow's
    is its RegisteredWorkflow.fact); and ``format_ranks``: {format name:
    rank}, its formats' places in detection order, lower first (a format
    without one gets DEFAULT_FORMAT_RANK). Its scorer is also given the
    keywords ``config``, ``strict``, ``progress`` and ``jobs`` when it
    takes them (``scorer_options``). ``workflow`` may name a part shared by
    the photo workflows rather than a stored workflow ('annotators').
    ``export_parts``: its tables of the export, named by module and function
    (ExportPart), so a part may live in a module above the workflow
    packages (the ground-truth formats' tables)."""

    workflow: str
    fact_sql: Optional[str] = None
    fact: str = ""
    formats: tuple[ImportFormat, ...] = ()
    format_ranks: Mapping[str, int] = field(default_factory=dict)
    scorer_options: bool = False
    scorer: Optional[Callable[..., int]] = None
    report: Optional[ReportSection] = None
    export: Optional[Callable[[Any], list[ExportTable]]] = None
    export_docs: Mapping[str, tuple[str, dict[str, str]]] = field(default_factory=dict)
    export_keys: Mapping[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    export_parts: tuple[ExportPart, ...] = ()


#: The registered workflows' storage parts, by workflow value, in registration order.
REGISTERED: dict[str, StorageWorkflow] = {}


def register(parts: StorageWorkflow) -> StorageWorkflow:
    """Register ``parts`` (replacing an earlier registration of the same
    workflow). ValueError when one of its import formats has the name of
    another workflow's."""
    taken = {f[0] for w in REGISTERED.values() if w.workflow != parts.workflow for f in w.formats}
    clash = [f[0] for f in parts.formats if f[0] in taken]
    if clash:
        raise ValueError(f"import format '{clash[0]}' is registered already")
    REGISTERED[parts.workflow] = parts
    return parts


def unregister(workflow: str) -> None:
    """Forget the storage parts of ``workflow`` (nothing when none)."""
    REGISTERED.pop(workflow, None)


def registered() -> tuple[StorageWorkflow, ...]:
    """The registered storage parts, in registration order."""
    return tuple(REGISTERED.values())


__all__ = [
    "DEFAULT_FORMAT_RANK",
    "ExportPart",
    "ExportTable",
    "ImportFormat",
    "REGISTERED",
    "ReportSection",
    "StorageWorkflow",
    "register",
    "registered",
]
