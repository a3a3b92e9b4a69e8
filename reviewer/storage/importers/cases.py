"""Importer: test-case datasets (docs/test-cases.md; test-case-evaluation-framework.md,
"Test Case Format"), as in ../shared/data/cicada-test-cases.

A source is one dataset file (``<dataset>.json``: a JSON list of cases, or
an object with ``cases`` and optionally ``systemPrompt``) or a folder of
them (its top level). Each case becomes a text item named by its id, its
text the query, with its context, expected behaviour and metadata; the
dataset (the file's stem) becomes the prompt its answers belong to, its
text the dataset's system prompt. Answers come as JSONL runs
(``{"item": "<case id>", "model", "repetition", "output"}``, the prompt the
dataset by default) or from ``reviewer run`` (one request per case,
reviewer.core.cases.asking).

A case without an id or query, with a duplicate id or an unknown category
is skipped with one line naming the file and the case; the other cases are
imported. Importing again adds nothing; an edited case of the same dataset
is updated (its answers are scored again).
"""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.core.cases.asking import system_prompt_of
from reviewer.core.cases.model import cases_of, parse_dataset
from reviewer.storage.cases import cases as case_store
from reviewer.storage.importers.base import ImportOptions, ImportReport, load_json
from reviewer.storage.project.db import Project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo.item_metadata import add_item_metadata

#: Dataset files larger than this are not read to detect the format.
MAX_DETECT_BYTES = 20_000_000


def _case_metadata(metadata: dict, dataset: str) -> dict:
    """The item metadata of a case: its dataset and the case's metadata
    values that are text, numbers or booleans (category, difficulty, ...)."""
    out: dict = {"dataset": dataset}
    for key, value in (metadata or {}).items():
        if isinstance(value, (str, int, float, bool)) and value == value:
            out[str(key)] = value
    return out


def _dataset_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source] if source.suffix.lower() == ".json" else []
    return sorted(p for p in source.glob("*.json") if p.is_file())


def _holds_cases(path: Path) -> bool:
    try:
        if path.stat().st_size > MAX_DETECT_BYTES:
            return False
        return cases_of(json.loads(path.read_text(encoding="utf-8"))) is not None
    except (OSError, ValueError, RecursionError):
        return False


def detect(source: Path) -> bool:
    """A .json file of test cases, or a folder with at least one at its top level."""
    return any(_holds_cases(p) for p in _dataset_files(source))


def import_cases(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import the datasets of ``source`` (see module doc). Idempotent."""
    report = ImportReport(format="test-cases")
    categories = case_store.project_metrics(project).categories
    seen: dict[str, str] = {}
    with project.batched(auto=True):
        for path in _dataset_files(source):
            try:
                data = load_json(path)
            except (OSError, ValueError) as exc:
                report.skip(path.name, str(exc) if str(exc).startswith("nested") else f"not JSON: {exc}")
                continue
            if cases_of(data) is None:
                if source.is_file():
                    report.skip(path.name, "no test cases (a JSON list of objects with query and expectedBehavior)")
                else:
                    report.notes.append(f"{path.name} holds no test cases: left alone")
                continue
            found, problems = parse_dataset(data, path.stem, path.name, categories)
            system_prompt = system_prompt_of(data)
            if found and system_prompt:
                report.count(
                    "system prompts", case_store.set_system_prompt(project, path.stem, system_prompt, options.actor)
                )
            for where, why in problems:
                report.skip(where, why)
            for case in found:
                where = f"{path.name} case '{case.id}'"
                if case.id in seen:
                    report.skip(where, f"duplicate id '{case.id}' (also in {seen[case.id]})")
                    continue
                seen[case.id] = path.name
                status = case_store.upsert_case(project, case, source=path.name, actor=options.actor)
                item = repo_items.item_by_name(project, case.id)
                if item is not None and item.id is not None and not status.startswith("conflict"):
                    add_item_metadata(project, item.id, _case_metadata(case.metadata, path.stem))
                if status.startswith("conflict"):
                    report.skip(where, status.removeprefix("conflict: "))
                elif status == "updated":
                    report.count("cases updated", True)
                else:
                    report.count("cases", status == "added")
        case_store.score_cases(project, only_stale=True)
    return report
