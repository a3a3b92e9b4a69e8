"""Importer (b): generic JSONL runs, one object per line:

    {"item": str, "prompt": str, "model": str, "repetition": int, "output": str}

Test-case answers may leave "prompt" out: it is the case's dataset
(docs/formats.md). Optional fields: "prompt_text" and "schema" ('piles', 'cards', 'free') for a
prompt the project does not have yet, "timestamp", "metadata" (an object kept
as the item's metadata, reviewer.storage.repo.item_metadata). Unknown items are made as
text items (photos come from a card folder). Bad lines are skipped with
their line number and the reason. A run is item, prompt, model and
repetition: lines that differ only in ``repetition`` are different runs; a
line without one is matched by its output (``repo_runs.add_run``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from reviewer.core.bounds import SqlInt
from reviewer.core.cards.prompts import prompt_from_text
from reviewer.core.models import AnswerSchema, Item
from reviewer.storage.cases.cases import dataset_of, score_cases
from reviewer.storage.importers.base import ImportOptions, ImportReport, jsonl_lines
from reviewer.storage.project.db import Project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.repo.item_metadata import add_item_metadata


class _Line(BaseModel):
    item: str
    prompt: str | None = None
    model: str | None = None
    repetition: SqlInt | None = None
    output: str
    prompt_text: str | None = None
    schema_: AnswerSchema | None = None
    timestamp: str | None = None
    metadata: dict[str, Any] | None = None

    model_config = {
        "populate_by_name": True,
        "extra": "ignore",
        "alias_generator": lambda n: "schema" if n == "schema_" else n,
    }


def _plain(metadata: dict[str, Any]) -> dict[str, Any]:
    """The metadata values JSON holds as they are (NaN and infinities left out)."""
    return {
        k: v
        for k, v in metadata.items()
        if not (isinstance(v, float) and (v != v or v in (float("inf"), -float("inf"))))
    }


def detect(source: Path) -> bool:
    """A file ending in .jsonl (or .ndjson)."""
    return source.is_file() and source.suffix.lower() in {".jsonl", ".ndjson"}


def import_jsonl(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import JSONL runs (see module doc). Idempotent."""
    report = ImportReport(format="jsonl-runs")
    item_ids: dict[str, int] = {}  # items and prompts met on earlier lines: no look-up per line
    prompt_ids: dict[tuple, int] = {}
    numbered: list[tuple[str, repo_runs.NumberedRun]] = []  # waiting to be added as a group
    with project.batched(auto=True):
        for number, _text, line in jsonl_lines(source, _Line, report):
            where = f"line {number}"
            model = line.model or options.model
            if not model:
                report.skip(where, "no model (give it in the line or with --model)")
                continue
            if line.prompt is None:
                line.prompt = dataset_of(project, line.item)
                if line.prompt is None:
                    report.skip(where, f"no prompt (and '{line.item}' is no test case whose dataset it would be)")
                    continue
            item_id = item_ids.get(line.item)
            if item_id is None:
                item = repo_items.item_by_name(project, line.item)
                if item:
                    assert item.id is not None  # read from the database
                    item_id = item.id
                else:
                    item_id, made = repo_items.upsert_item(project, Item(name=line.item, kind="text"), options.actor)
                    if made:
                        report.count("items", True)
                item_ids[line.item] = item_id
            if line.metadata:
                add_item_metadata(project, item_id, _plain(line.metadata))
            schema = options.schemas.get(line.prompt) or line.schema_
            key = (line.prompt, line.prompt_text or "", schema)
            prompt_id = prompt_ids.get(key)
            if prompt_id is None:  # the same prompt again changes nothing: upserted once
                prompt = prompt_from_text(
                    line.prompt, line.prompt_text or "", schema, options.conventions.get(line.prompt)
                )
                prompt_id, created = repo_items.upsert_prompt(
                    project, prompt, override=schema is not None and line.prompt in options.schemas, actor=options.actor
                )
                prompt_ids[key] = prompt_id
                if created:
                    report.count("prompts", True)
            if line.repetition is not None:  # the common case: added in groups (repo_runs.add_numbered_runs)
                numbered.append(
                    (
                        where,
                        repo_runs.NumberedRun(
                            item_id,
                            prompt_id,
                            model,
                            line.repetition,
                            line.output,
                            line.timestamp,
                            f"{source.name}:{number}",
                        ),
                    )
                )
                if len(numbered) >= GROUP:
                    _add_numbered(project, numbered, report, options)
                continue
            _add_numbered(project, numbered, report, options)  # earlier lines first: the next free repetition
            run_id, status = repo_runs.add_run(
                project,
                item_id,
                prompt_id,
                model,
                line.output,
                repetition=line.repetition,
                timestamp=line.timestamp,
                source=f"{source.name}:{number}",
                actor=options.actor,
            )
            _count(report, where, status)
        _add_numbered(project, numbered, report, options)
        score_cases(project, only_stale=True)
    return report


#: Numbered lines added per transaction.
GROUP = 500


def _add_numbered(project: Project, numbered: list, report: ImportReport, options: ImportOptions) -> None:
    """Add the waiting numbered lines (and empty the list)."""
    if not numbered:
        return
    results = repo_runs.add_numbered_runs(project, [run for _, run in numbered], actor=options.actor)
    for (where, _), (_, status) in zip(numbered, results):
        _count(report, where, status)
    numbered.clear()


def _count(report: ImportReport, where: str, status: str) -> None:
    if status.startswith("conflict"):
        report.skip(where, status)
    else:
        report.count("runs", status == "added")
