"""Importers: span-labeling golden sets and golden-set results.

* **span-golden-set**: a golden-set file (prompt-builder's
  server/src/llm/span-labeling/evaluation/golden-set/*.json:
  ``{metadata, prompts: [{id, text, groundTruth: {spans: [{text, start, end,
  role}]}}]}``) or a folder of them. Each prompt becomes a text item named by
  its id with its golden spans (offsets in UTF-16 code units, as written);
  the set is kept under its file stem for export in its own format
  (``reviewer golden-export``). Spans already hand-edited are not replaced.
* **span-golden-results**: golden-set-results-latest.json
  (``{provider, report, perPrompt: [{promptId, predicted, groundTruth,
  error}]}``): each prompt's predicted spans become a span run of model
  ``provider`` on the golden-set item (import the golden set first); the
  file's own report is compared with the span F1 recomputed from the runs.

Idempotent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewer.core.models import AnswerSchema, Prompt
from reviewer.core.spans import golden as g
from reviewer.storage.importers.base import ImportOptions, ImportReport, read_json
from reviewer.storage.importers.span_snapshots import PROMPT_TEXT
from reviewer.storage.project.db import Project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.spans import spans as span_store

_LIMIT = 64 * 1024 * 1024


def _is_golden(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("prompts"), list)
        and bool(data["prompts"])
        and all(isinstance(p, dict) and "groundTruth" in p for p in data["prompts"])
    )


def _golden_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source] if source.suffix.lower() == ".json" and _is_golden(read_json(source, _LIMIT)) else []
    if source.is_dir():
        return [f for f in sorted(source.glob("*.json")) if _is_golden(read_json(f, _LIMIT))]
    return []


def detect_golden_set(source: Path) -> bool:
    """A golden-set .json file, or a folder whose .json files include one."""
    return bool(_golden_files(source))


def import_golden_set(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import one golden-set file or every golden-set file of a folder (see module doc)."""
    report = ImportReport(format="span-golden-set")
    files = _golden_files(source)
    if not files:
        report.skip(source.name, "not a golden-set file (needs prompts with groundTruth)")
        return report
    for f in files:
        metadata, prompts, problems = g.parse_golden_set(read_json(f, _LIMIT))
        for problem in problems:
            report.skip(f"{f.name}: {problem}", "left out")
        counts = span_store.import_golden_prompts(project, f.stem, metadata, prompts, options.actor)
        report.count("golden sets", True)
        for _ in range(counts["items"]):
            report.count("items", True)
        for _ in range(counts["golden spans"]):
            report.count("golden spans", True)
        if counts["skipped"]:
            report.skip(f.name, f"{counts['skipped']} prompt ids are taken by other items")
        mismatched = [
            f"{p.id} [{s.start}:{s.end}]"
            for p in prompts
            for s in p.spans
            if g.utf16_slice(p.text, s.start, s.end) != s.text
        ]
        if mismatched:
            report.notes.append(
                f"{f.name}: {len(mismatched)} golden spans whose text is not the text at their "
                f"offsets (kept as written): {', '.join(mismatched[:5])}"
            )
    return report


def _is_results(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("perPrompt"), list) and isinstance(data.get("report"), dict)


def detect_golden_results(source: Path) -> bool:
    """A .json file with ``perPrompt`` and ``report`` (golden-set results)."""
    return source.is_file() and source.suffix.lower() == ".json" and _is_results(read_json(source, _LIMIT))


def import_golden_results(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import golden-set results as span runs (see module doc)."""
    report = ImportReport(format="span-golden-results")
    data = read_json(source, _LIMIT)
    if not _is_results(data):
        report.skip(source.name, "not golden-set results (needs perPrompt and report)")
        return report
    model = str(data.get("provider") or options.model or "unknown")
    timestamp = data.get("timestamp")
    if not isinstance(timestamp, str):
        timestamp = None
    prompt_id, created = repo_items.upsert_prompt(
        project, Prompt(name=span_store.SPAN_PROMPT, text=PROMPT_TEXT, schema=AnswerSchema.FREE), actor=options.actor
    )
    report.count("prompts", created)
    for entry in data["perPrompt"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("promptId"), str):
            report.skip("a result", "no promptId")
            continue
        name = entry["promptId"]
        if entry.get("error"):
            report.skip(name, f"the labeling failed: {entry['error']}")
            continue
        item = repo_items.item_by_name(project, name)
        if item is None or item.kind != "text":
            report.skip(name, "no text item of that name: import the golden set first")
            continue
        predicted = [s for s in entry.get("predicted") or [] if isinstance(s, dict)]
        output = json.dumps({"text": item.text or "", "spans": predicted}, ensure_ascii=False, indent=1)
        assert item.id is not None  # read from the database
        run_id, status = repo_runs.add_run(
            project,
            item.id,
            prompt_id,
            model,
            output,
            timestamp=timestamp,
            source=f"{source.name}#{name}",
            actor=options.actor,
        )
        if run_id is None:
            report.skip(name, status)
            continue
        report.count("runs", status == "added")
    _compare_report(project, data, model, report)
    return report


def _compare_report(project: Project, data: dict, model: str, report: ImportReport) -> None:
    stated = (data.get("report") or {}).get("summary") or {}
    f1 = span_store.f1_by_group(project).get(f"model:{model}")
    if not f1 or not stated:
        return
    mine = f1["relaxed"]["all"]
    pairs = (("relaxedF1", mine.f1), ("precision", mine.precision), ("recall", mine.recall))
    diffs = [
        f"{k}: file {stated[k]}, recomputed {v}"
        for k, v in pairs
        if isinstance(stated.get(k), (int, float)) and abs(stated[k] - v) > 1e-9
    ]
    report.notes.append(
        "relaxed span F1 recomputed from the runs: " + ("equal to the file's report" if not diffs else "; ".join(diffs))
    )


__all__ = ["detect_golden_results", "detect_golden_set", "import_golden_results", "import_golden_set"]
