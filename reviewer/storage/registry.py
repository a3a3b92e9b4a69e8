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

import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: (name, module, detector function, importer function): an import format,
#: its module named in full (reviewer.storage.formats imports it when first asked).
ImportFormat = tuple[str, str, str, str]
#: An export table: (name, {column: type}, primary key or None, rows as tuples).
ExportTable = tuple[str, dict, str | None, Iterable[tuple]]

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


#: Where a section without a rank goes in the report: after the built-in
#: ones (ranks 100 to 600), in registration order.
DEFAULT_SECTION_RANK = 1000

#: A section's function: one of ``module`` named, or the function itself.
SectionFunction = str | Callable[..., Any] | None


@dataclass
class ReportContext:
    """What one report asks, given to the functions of a section that takes
    it (ReportSection.context) beside the project: ``fmt`` ('md', 'csv' or
    'json'); ``options`` (reviewer.storage.report.ReportOptions: weights,
    charts_dir, compare, basis, force); ``prices`` ({model: {"input",
    "output"}} per token, or None); ``inputs``: what sections of several
    workflows share, composed by reviewer.storage.report and computed the
    first time asked (:meth:`input`); ``notes``: lines for the user, a
    section adds its own."""

    project: Any
    fmt: str
    options: Any
    prices: Mapping[str, Mapping[str, float]] | None = None
    inputs: Mapping[str, Callable[[], Any]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    memo: dict[str, Any] = field(default_factory=dict)

    def once(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()``, computed the first time ``key`` is asked in this report
        (what two sections, or two formats of one, share: the judge report)."""
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def input(self, name: str) -> Any:
        """The shared input ``name`` of ``inputs``, computed once."""
        return self.once(f"input:{name}", self.inputs[name])


@dataclass(frozen=True)
class ReportSection:
    """A workflow's report section in each format. ``markdown`` gives the
    section's Markdown (a '## ' heading first, no blank line before it) or
    '' without data; ``csv`` its CSV tables, each with a first column
    ``table`` naming it, or ''; ``json`` an object for the JSON report, or
    None without data; a format the section has no part in is None.

    Each is a function, or the name of one in ``module`` (named in full;
    reviewer.storage.report imports it when reporting), called as
    function(project), or function(project, context) with a ReportContext
    when ``context``. ``rank``: where the section goes in Markdown and CSV,
    lower first (sections are separated by one blank line); ``json_rank``
    its place among the JSON's keys, when not ``rank``. ``key``: its key in
    the JSON object, always present (null without data); without one, the
    section is under ``workflows``, by the workflow's value.

    The rule of the card section, shown when nothing else is: a
    ``fallback`` section is shown when ``has_data`` holds of the project,
    or when no other section that ``hides_fallback`` has data (its
    ``has_data``, or by default its CSV not being empty). ``alone_in_json``:
    when this is the only section with data, the JSON report is its object
    alone (the test cases' list, decision record
    "case-report-keeps-the-seed-shape")."""

    markdown: SectionFunction = None
    csv: SectionFunction = None
    json: SectionFunction = None
    module: str = ""
    context: bool = False
    rank: int = DEFAULT_SECTION_RANK
    json_rank: int | None = None
    key: str = ""
    has_data: SectionFunction = None
    fallback: bool = False
    hides_fallback: bool = True
    alone_in_json: bool = False

    def function(self, part: SectionFunction) -> Callable[..., Any] | None:
        """The function ``part`` (one of this section's fields) names, imported
        from ``module`` when a name; None when it is None."""
        if part is None or callable(part):
            return part
        return getattr(importlib.import_module(self.module), part)

    def call(self, part: SectionFunction, project: Any, context: ReportContext) -> Any:
        """``part`` of this section called on ``project`` (and ``context`` when
        the section takes it); None when the section has no such part."""
        function = self.function(part)
        if function is None:
            return None
        return function(project, context) if self.context else function(project)


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
    foreign keys; ``report_sections``: more report sections, when it has
    several (the judging workflows: the judges, the Failter table, the
    failed calls).

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
    fact_sql: str | None = None
    fact: str = ""
    formats: tuple[ImportFormat, ...] = ()
    format_ranks: Mapping[str, int] = field(default_factory=dict)
    scorer_options: bool = False
    scorer: Callable[..., int] | None = None
    report: ReportSection | None = None
    report_sections: tuple[ReportSection, ...] = ()
    export: Callable[[Any], list[ExportTable]] | None = None
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


def report_sections() -> list[tuple[str, ReportSection]]:
    """(workflow, section) of every registered workflow's report sections
    (``report``, then ``report_sections``), in rank order (registration
    order within a rank)."""
    found = [
        (parts.workflow, section)
        for parts in REGISTERED.values()
        for section in ((parts.report,) if parts.report else ()) + parts.report_sections
    ]
    return sorted(found, key=lambda pair: pair[1].rank)


__all__ = [
    "DEFAULT_FORMAT_RANK",
    "DEFAULT_SECTION_RANK",
    "ExportPart",
    "ExportTable",
    "ImportFormat",
    "REGISTERED",
    "ReportContext",
    "ReportSection",
    "SectionFunction",
    "StorageWorkflow",
    "register",
    "registered",
    "report_sections",
]
