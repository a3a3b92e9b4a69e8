"""Importer: promptfoo results (`promptfoo eval -o results.json`), in the
shape of promptfoo 0.123 (``src/types/index.ts``: the output file's
``results`` is an ``EvaluateSummaryV3``, version 3, whose ``results`` are
``EvaluateResult`` objects; docs/formats.md).

* Each test case is a judged-output text item ``promptfoo/<test index>``
  (its text the test's variables, one ``name: value`` line each; its
  description and metadata, its text or number variables, and all its
  variables as ``vars``, the item metadata), each prompt a prompt (its label, its raw text).
* Each test case and provider is a run of the provider's label (or id) with
  the response's output (JSON text when it is not text).
* Each assertion's grading result (``gradingResult.componentResults``, or
  the grading result itself when it has none) is a verdict on pass/fail
  with its reason as rationale and its score kept raw: model-graded
  assertions (:data:`MODEL_GRADED`: ``llm-rubric``, ``factuality``, ...)
  are rubric judges, their rubric (the assertion's value) kept with the
  verdict, their grader (the assertion's provider) the judge model; the
  others (contains, equals, is-json, javascript, ...) are rules-based. A
  judge is named by the assertion's metric, else its type (numbered when a
  test case has several of one type).

A result without a test index or provider is skipped with the reason.
Idempotent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.storage.importers.base import ImportOptions, ImportReport, load_json
from reviewer.storage.importers.pairwise import answer_run, free_prompt, store_verdict, text_item
from reviewer.storage.project.db import Project
from reviewer.storage.repo.item_metadata import add_item_metadata

#: The promptfoo version whose result types this follows.
PROMPTFOO_VERSION = "0.123.0"
#: promptfoo's model-graded assertion types (a grader model decides).
MODEL_GRADED = frozenset(
    {
        "llm-rubric",
        "model-graded-closedqa",
        "model-graded-factuality",
        "factuality",
        "answer-relevance",
        "context-faithfulness",
        "context-recall",
        "context-relevance",
        "conversation-relevance",
        "g-eval",
        "search-rubric",
        "select-best",
        "max-score",
    }
)
#: Dimension of an assertion's verdict.
PASS = "pass"
_MAX_DETECT = 50_000_000


def _results(data: Any) -> list | None:
    """The EvaluateResult list of a results file, or None."""
    if not isinstance(data, dict):
        return None
    summary = data.get("results")
    if isinstance(summary, dict) and isinstance(summary.get("results"), list):
        return summary["results"]
    return None


def detect(source: Path) -> bool:
    """A ``.json`` file holding ``{"results": {"results": [...]}}`` whose
    entries have a ``testIdx`` and a ``provider`` (promptfoo's output file)."""
    if not source.is_file() or source.suffix.lower() != ".json" or source.stat().st_size > _MAX_DETECT:
        return False
    try:
        with source.open("rb") as f:
            head = f.read(65536).decode("utf-8", "replace")
        if '"results"' not in head:
            return False
        rows = _results(load_json(source))
    except (OSError, ValueError):
        return False
    return (
        rows is not None
        and bool(rows)
        and all(isinstance(r, dict) and "testIdx" in r and "provider" in r for r in rows[:5])
    )


def _obj(d: dict, key: str) -> dict:
    """``d[key]`` when it is an object, else {}."""
    v = d.get(key)
    return v if isinstance(v, dict) else {}


def _scalar(v: Any) -> bool:
    return isinstance(v, (str, int, float, bool)) and v == v


def _text(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True)


def _provider(r: dict) -> str | None:
    p = r.get("provider")
    if isinstance(p, str):
        return p
    if isinstance(p, dict):
        name = p.get("label") or p.get("id")
        return name if isinstance(name, str) and name else None
    return None


def _grader(assertion: dict) -> str | None:
    p = assertion.get("provider")
    if isinstance(p, str):
        return p
    if isinstance(p, dict):
        name = p.get("id") or p.get("label")
        return name if isinstance(name, str) else None
    return None


def import_promptfoo(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import a promptfoo results file (module doc)."""
    report = ImportReport(format="promptfoo-results")
    try:
        rows = _results(load_json(source))
    except (OSError, ValueError) as exc:
        report.skip(source.name, f"not JSON: {exc}")
        return report
    if rows is None:
        report.skip(source.name, "no promptfoo results (an object with results.results)")
        return report
    actor = options.actor
    with project.batched(auto=True):
        prompts: dict[Any, int] = {}
        for i, r in enumerate(rows):
            where = f"{source.name} results[{i}]"
            if not isinstance(r, dict) or not isinstance(r.get("testIdx"), int):
                report.skip(where, "no testIdx")
                continue
            model = _provider(r)
            if model is None:
                report.skip(where, "no provider")
                continue
            test = _obj(r, "testCase")
            variables = _obj(r, "vars") or _obj(test, "vars")
            text = "\n".join(f"{k}: {_text(v)}" for k, v in variables.items())
            item_id = text_item(project, f"promptfoo/{r['testIdx']}", text, report, actor)
            meta: dict[str, Any] = {k: v for k, v in variables.items() if _scalar(v)}
            if isinstance(test.get("metadata"), dict):
                meta.update({str(k): v for k, v in test["metadata"].items() if _scalar(v)})
            meta["vars"] = {str(k): v for k, v in variables.items()}  # for export-promptfoo
            description = test.get("description") or r.get("description")
            if isinstance(description, str) and description:
                meta["description"] = description
            add_item_metadata(project, item_id, meta)
            prompt = _obj(r, "prompt")
            key = prompt.get("label") or r.get("promptId") or f"prompt {r.get('promptIdx', 0)}"
            if key not in prompts:
                prompts[key] = free_prompt(project, f"promptfoo:{key}", _text(prompt.get("raw") or ""), report, actor)
            response = _obj(r, "response")
            output = response.get("output")
            run_id = answer_run(
                project,
                item_id,
                prompts[key],
                model,
                "" if output is None else _text(output),
                source.name,
                report,
                where,
                actor,
            )
            if run_id is None:
                continue
            _verdicts(project, run_id, r.get("gradingResult"), source.name, report, actor)
    return report


def _verdicts(
    project: Project, run_id: int, grading: Any, source: str, report: ImportReport, actor: str | None
) -> None:
    if not isinstance(grading, dict):
        return
    parts = grading.get("componentResults") or [grading]
    seen: dict[str, int] = {}
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("pass"), bool):
            continue
        assertion = _obj(part, "assertion")
        kind = str(assertion.get("type") or "assertion")
        name = str(assertion.get("metric") or kind)
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name} #{seen[name]}"
        graded = kind in MODEL_GRADED
        raw = {"pass": part["pass"], "score": part.get("score"), "assertion": assertion}
        store_verdict(
            project,
            Verdict(
                subject=f"run:{run_id}",
                run_id=run_id,
                judge=name,
                judge_model=_grader(assertion) if graded else None,
                method=Method.RUBRIC if graded else Method.RULES,
                scale=Scale.PASS_FAIL,
                scores={PASS: "pass" if part["pass"] else "fail"},
                rationale=str(part.get("reason") or ""),
                raw=json.dumps(raw, ensure_ascii=False, default=str),
                source=source,
            ),
            report,
            actor,
        )
