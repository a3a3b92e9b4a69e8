"""Importer: generic JSONL judge verdicts, one score per line:

    {"run": 12 | {"item": str, "prompt": str, "model": str, "repetition": int?},
     "judge": str, "dimension": str, "value": number | str | null,
     "scale": "1-5" | "A-F" | "0-100" | "pass/fail" | "winner",
     "rationale": str?}

Optional: "method" (rules-based, ground-truth, rubric, pairwise, human;
default rubric, or pairwise when "other_run" is given, or human for the
judge named 'gold': hand labels), "judge_model",
"answer_order" ('ab' | 'ba'), "other_run" (the second run of a pair, same
forms as "run"), "prompt_version", "source", "confidence" (the judge's
confidence in this value, 0-1 or a percentage; kept with source
'imported', an unreadable one noted and left out).

With ``ImportOptions.human`` (``reviewer import --human``) every verdict of
the file is a person's (method human), whatever its lines say.

Lines with the same run, other run, judge and answer order make ONE verdict
with one score per dimension (a later line for a dimension already given
replaces it, noted). The verdict's subject is ``run:<id>`` or
``pair:<run>:<other_run>``. Values are stored normalised
(``core.judging.verdicts.normalise``); a value not on its scale is stored as None and
noted, and the original lines stay in ``Verdict.raw``. Skipped, with the
line number and the reason: lines that are not JSON or miss a field, an
unknown scale or method, a bad answer order, a run that is not in the project
(or a {item, prompt, model} matching several runs: give "repetition"), and
lines whose method or scale differ from the first line of their verdict.
Runs are never made here: import them first (jsonl-runs, card-folder, ...).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from reviewer.core.bounds import SqlInt
from reviewer.core.judging.dispute_common import GOLD
from reviewer.core.judging.rubrics import with_version
from reviewer.core.judging.verdict_confidence import read_confidence
from reviewer.core.judging.verdicts import Method, Scale, Verdict, normalise
from reviewer.storage.importers.base import ImportOptions, ImportReport, jsonl_lines
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project


class RunRef(BaseModel):
    """A run named by item, prompt, model and (optionally) repetition."""

    item: str
    prompt: str
    model: str
    repetition: SqlInt | None = None


class _Line(BaseModel):
    run: SqlInt | RunRef
    judge: str
    dimension: str
    value: Any = None
    scale: str
    rationale: str | None = None
    method: str | None = None
    judge_model: str | None = None
    answer_order: str | None = None
    other_run: SqlInt | RunRef | None = None
    prompt_version: str | None = None
    source: str | None = None
    confidence: Any = None

    model_config = {"extra": "ignore"}


def detect(source: Path) -> bool:
    """A .jsonl/.ndjson file whose first non-empty line is a JSON object with
    "judge" and "dimension" keys."""
    if not (source.is_file() and source.suffix.lower() in {".jsonl", ".ndjson"}):
        return False
    try:
        with source.open(encoding="utf-8", errors="replace") as fh:
            for text in fh:
                if text.strip():
                    first = json.loads(text)
                    return isinstance(first, dict) and "judge" in first and "dimension" in first
    except (OSError, json.JSONDecodeError, RecursionError):
        return False
    return False


def resolve_run(project: Project, ref: int | RunRef) -> tuple[int | None, str]:
    """The id of the run ``ref`` names, or (None, why not): an id must exist;
    an {item, prompt, model} without repetition must match exactly one run."""
    if isinstance(ref, int):
        row = project.db.execute("SELECT id FROM runs WHERE id = ?", [ref]).fetchone()
        return (row[0], "") if row else (None, f"unknown run {ref}")
    sql = (
        "SELECT r.id FROM runs r JOIN items i ON i.id = r.item_id JOIN prompts p ON p.id = r.prompt_id "
        "WHERE i.name = ? AND p.name = ? AND r.model = ?"
    )
    params: list[Any] = [ref.item, ref.prompt, ref.model]
    if ref.repetition is not None:
        sql += " AND r.repetition = ?"
        params.append(ref.repetition)
    ids = [r[0] for r in project.db.execute(sql + " ORDER BY r.repetition", params)]
    named = f"{ref.item} / {ref.prompt} / {ref.model}" + (f" #{ref.repetition}" if ref.repetition else "")
    if not ids:
        return None, f"unknown run {named}"
    if len(ids) > 1:
        return None, f"run {named} is ambiguous ({len(ids)} repetitions; give 'repetition')"
    return ids[0], ""


def import_jsonl_verdicts(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import JSONL verdict lines (see module doc), grouping the lines of one
    (run, other run, judge, answer order) into one verdict. Idempotent."""
    report = ImportReport(format="jsonl-verdicts")
    groups: dict[tuple, dict] = {}
    with project.batched(auto=True):
        for number, text, line in jsonl_lines(source, _Line, report):
            where = f"line {number}"
            problem = _check(line)
            if problem:
                report.skip(where, problem)
                continue
            run_id, why = resolve_run(project, line.run)
            other_id: int | None = None
            if run_id is not None and line.other_run is not None:
                other_id, why = resolve_run(project, line.other_run)
            if run_id is None or (line.other_run is not None and other_id is None):
                report.skip(where, why)
                continue
            scale = Scale(line.scale)
            method = _method(line, other_id, options.human)
            key = (run_id, other_id, line.judge, line.answer_order)
            group = groups.get(key)
            if group is None:
                group = groups[key] = dict(
                    method=method, scale=scale, line=line, scores={}, rationales=[], raw=[], numbers=[]
                )
            elif (group["method"], group["scale"]) != (method, scale):
                report.skip(
                    where,
                    f"method/scale {method.value}/{scale.value} differ from line "
                    f"{group['numbers'][0]} of the same verdict "
                    f"({group['method'].value}/{group['scale'].value})",
                )
                continue
            value = normalise(line.value, scale)
            if value is None and line.value is not None:
                report.notes.append(f"{where}: value {line.value!r} is not on scale {scale.value}; stored as None")
            if line.dimension in group["scores"]:
                report.notes.append(f"{where}: dimension '{line.dimension}' given again; the later value is kept")
            group["scores"][line.dimension] = value
            if line.confidence is not None:
                confidence = read_confidence(line.confidence)
                if confidence is None:
                    report.notes.append(f"{where}: confidence {line.confidence!r} is not within 0-1; left out")
                else:
                    group.setdefault("confidence", {})[line.dimension] = confidence
            if line.rationale:
                group["rationales"].append((line.dimension, line.rationale))
            group["raw"].append(text.strip())
            group["numbers"].append(number)
        for (run_id, other_id, judge, order), group in groups.items():
            _store(project, source, run_id, other_id, judge, order, group, report, options.actor)
    return report


def _method(line: _Line, other_id: int | None, human: bool) -> Method:
    """A line's method: human for a file of hand labels (``human``) and,
    unless the line says otherwise, for the judge 'gold'; else as given;
    else pairwise for a pair, rubric for one run."""
    if human:
        return Method.HUMAN
    if line.method:
        return Method(line.method)
    if line.judge == GOLD:
        return Method.HUMAN
    return Method.PAIRWISE if other_id else Method.RUBRIC


def _check(line: _Line) -> str:
    """Why a parsed line cannot be used, or ''."""
    if line.scale not in {s.value for s in Scale}:
        return f"unknown scale '{line.scale}' (known: {', '.join(s.value for s in Scale)})"
    if line.method is not None and line.method not in {m.value for m in Method}:
        return f"unknown method '{line.method}' (known: {', '.join(m.value for m in Method)})"
    if line.answer_order not in (None, "ab", "ba"):
        return f"answer_order must be 'ab' or 'ba', not '{line.answer_order}'"
    if not line.judge.strip() or not line.dimension.strip():
        return "judge and dimension must not be empty"
    return ""


def _store(
    project: Project,
    source: Path,
    run_id: int,
    other_id: int | None,
    judge: str,
    order: str | None,
    group: dict,
    report: ImportReport,
    actor: str | None,
) -> None:
    first: _Line = group["line"]
    rationales = group["rationales"]
    rationale = rationales[0][1] if len(rationales) == 1 else "\n".join(f"{dim}: {text}" for dim, text in rationales)
    numbers = group["numbers"]
    verdict = Verdict(
        subject=f"pair:{run_id}:{other_id}" if other_id is not None else f"run:{run_id}",
        run_id=run_id,
        other_run_id=other_id,
        judge=judge,
        judge_model=first.judge_model,
        prompt_version=first.prompt_version,
        method=group["method"],
        scale=group["scale"],
        scores=group["scores"],
        rationale=rationale,
        raw="\n".join(group["raw"]),
        answer_order=order,
        confidences={"imported": group["confidence"]} if group.get("confidence") else {},
        source=first.source or f"{source.name}:{numbers[0]}" + (f"-{numbers[-1]}" if len(numbers) > 1 else ""),
    )
    _, created = judging.add_verdict(project, with_version(verdict), actor)
    report.count("verdicts", created)
