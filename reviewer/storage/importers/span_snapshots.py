"""Importer: span-labeling judge snapshots (prompt-builder's
scripts/evaluation/snapshots/*.json; span-labeling-evaluation-design.md):

    {"timestamp": str, "judgeModel": str, "extractionModel"?: str,
     "results": [{"promptId", "input", "output", "spans", "meta",
                  "judgeResult": {scores, totalScore, missedElements,
                                  falsePositives, taxonomyErrors,
                                  granularityErrors, categoryScores, notes},
                  "error", "latencyMs", "sections"}],
     "summary": {...}}

Each result becomes a text item named by its promptId (text: the input
prompt), a run of prompt 'span-labeling' whose output is the labeled text with
its spans as JSON ({"text", "spans"}), model: the snapshot's extractionModel,
else the result's meta.version, else --model, else 'unknown'; timestamp: the
snapshot's. The judge result becomes a Verdict on subject ``run:<run id>``:
judge and judge_model = the snapshot's judgeModel, method rubric (an LLM
judge without ground truth), scale from the scores' range (1-5), scores = the
five score keys plus ``totalScore`` (kept as the judge's 0-25 sum, outside the
declared scale), issues_found = the error lists as readable lines
(reviewer.core.spans.snapshots.issue_lines), rationale = notes, raw = the judge JSON.
Span counts per section and the pipeline's meta go to the subject's metrics.

The judge's error lists become findings (one SpanCode each). The snapshot
itself is stored under its file stem (reviewer.storage.spans.spans) with the runs
its results became, so ``reviewer compare`` and the report recompute its
summary from the results; the file's own summary block is only compared
against, and any difference is reported as a note. Results of the compact
format (Gemini snapshots: ``score`` only, no labelled text) make no run but
count in the stored snapshot. Idempotent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewer.core.bounds import is_number
from reviewer.core.judging.verdicts import Method, Scale, Verdict, normalise
from reviewer.core.models import AnswerSchema, Item, Prompt
from reviewer.core.spans import snapshots as spans
from reviewer.core.workflows import SPAN_PROMPT
from reviewer.storage.importers.base import ImportOptions, ImportReport, read_json
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.spans import spans as span_store
from reviewer.storage.spans.judge_findings import store_judge_findings

PROMPT = SPAN_PROMPT
PROMPT_TEXT = (
    "Label the visual control points of a video prompt as spans: text, role "
    "(taxonomy category.attribute), confidence, start and end offsets."
)
#: Files larger than this are not opened to detect the format (bytes).
_DETECT_LIMIT = 64 * 1024 * 1024


def _is_snapshot(data: Any) -> bool:
    if not isinstance(data, dict) or "judgeModel" not in data or not isinstance(data.get("results"), list):
        return False
    return any(isinstance(r, dict) and "promptId" in r for r in data["results"])


def detect(source: Path) -> bool:
    """A .json file holding one object with ``judgeModel`` and a ``results``
    list whose entries have a ``promptId`` (a span-labeling snapshot)."""
    return source.is_file() and source.suffix.lower() == ".json" and _is_snapshot(read_json(source, _DETECT_LIMIT))


def run_output(result: dict) -> str:
    """The run output stored for a result: the labeled text and its spans as
    indented JSON ({"text": output, "spans": [...]}), the same bytes for the
    same result (so re-imports find the run)."""
    return json.dumps(
        {"text": result.get("output") or "", "spans": result.get("spans") or []}, ensure_ascii=False, indent=1
    )


def _text_item(project: Project, name: str, text: str, actor: str | None) -> tuple[int | None, str]:
    """(item id, 'added'|'exists') or (None, reason) when the name is taken by
    a different item."""
    existing = repo_items.item_by_name(project, name)
    if existing is not None:
        if existing.kind != "text" or (existing.text or "") != text:
            return None, f"item name '{name}' is taken by a different item"
        return existing.id, "exists"
    item_id, _ = repo_items.upsert_item(project, Item(name=name, kind="text", text=text), actor)
    return item_id, "added"


def _metrics(result: dict) -> dict:
    by_section: dict[str, int] = {}
    for span in result.get("spans") or []:
        if isinstance(span, dict):
            section = span.get("section") or "main"
            by_section[section] = by_section.get(section, 0) + 1
    metrics: dict[str, Any] = {
        "spanCount": result.get("spanCount", len(result.get("spans") or [])),
        "spansBySection": by_section,
    }
    if result.get("latencyMs") is not None:
        metrics["latencyMs"] = result["latencyMs"]
    meta = result.get("meta")
    if isinstance(meta, dict):
        metrics["pipeline"] = {
            k: meta[k] for k in ("version", "source", "closedVocab", "openVocab", "latency") if k in meta
        }
    return metrics


def _verdict(
    result: dict, run_id: int, judge_name: str, where: str, source: Path, report: ImportReport
) -> Verdict | None:
    judge = result.get("judgeResult")
    if result.get("error") and not isinstance(judge, dict):
        report.skip(f"{where} verdict", f"the evaluation failed: {result['error']}")
        return None
    if not isinstance(judge, dict):
        report.skip(f"{where} verdict", "no judge result")
        return None
    total = judge.get(spans.TOTAL_KEY)
    if isinstance(total, (int, float)) and total <= 0:
        report.skip(f"{where} verdict", f"the judge failed (totalScore {total}): {judge.get('notes') or ''}".strip())
        return None
    scale_value = spans.score_range(judge)
    if scale_value is None:
        report.skip(f"{where} verdict", "the scores are not numbers on 1-5 or 0-100")
        return None
    scale = Scale(scale_value)
    raw_scores = judge.get("scores") or {}
    scores: dict[str, Any] = {}
    for key, value in raw_scores.items():
        scores[key] = normalise(value, scale)
        if scores[key] is None and value is not None:
            report.skip(f"{where} {key}", f"score {value!r} is not on the {scale.value} scale (stored as missing)")
    total_value = total if is_number(total) else None
    if total_value is None:
        total_value = sum(v for v in scores.values() if isinstance(v, float))
    scores[spans.TOTAL_KEY] = float(total_value)
    return Verdict(
        subject=f"run:{run_id}",
        run_id=run_id,
        judge=judge_name,
        judge_model=judge_name,
        method=Method.RUBRIC,
        scale=scale,
        scores=scores,
        issues_found=spans.issue_lines(judge),
        rationale=str(judge.get("notes") or ""),
        raw=json.dumps(judge, ensure_ascii=False),
        source=f"{source.name}#{result.get('promptId')}",
    )


def import_snapshot(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import a span-labeling snapshot (see module doc). Idempotent: the same
    file again adds nothing. Results without a promptId or output are skipped
    with the reason; a failed judge call gives no verdict."""
    report = ImportReport(format="span-snapshot")
    data = read_json(source, _DETECT_LIMIT)
    if not _is_snapshot(data):
        report.skip(source.name, "not a span-labeling snapshot (needs judgeModel and results with promptId)")
        return report
    judge_name = str(data.get("judgeModel") or "unknown-judge")
    timestamp = data.get("timestamp")
    if not isinstance(timestamp, str):
        timestamp = None
    known_metrics = judging.subject_metrics(project)
    snapshot_id, snap_status = span_store.save_snapshot(project, source.stem, source.name, data, options.actor)
    report.count("snapshots", snap_status == "added")
    if snap_status == "replaced":
        report.notes.append(f"snapshot '{source.stem}' was stored before with other content; replaced")
    with project.batched(auto=True):
        prompt_id, created = repo_items.upsert_prompt(
            project, Prompt(name=PROMPT, text=PROMPT_TEXT, schema=AnswerSchema.FREE), actor=options.actor
        )
        report.count("prompts", created)
        for index, result in enumerate(data["results"]):
            where = f"result {index}"
            if not isinstance(result, dict) or not result.get("promptId"):
                report.skip(where, "no promptId")
                continue
            where = f"result {index} ({result['promptId']})"
            if not isinstance(result.get("output"), str) or not result["output"]:
                if "score" in result:
                    report.notes.append(
                        f"{where}: compact result (score only, no labeled text): kept in the snapshot, no run"
                    )
                    continue
                report.skip(where, "no output text (nothing was labeled)")
                continue
            item_id, status = _text_item(
                project, str(result["promptId"]), str(result.get("input") or ""), options.actor
            )
            if item_id is None:
                report.skip(where, status)
                continue
            report.count("items", status == "added")
            meta = result.get("meta")
            if not isinstance(meta, dict):
                meta = {}
            model = data.get("extractionModel") or meta.get("version") or options.model or "unknown"
            run_id, run_status = repo_runs.add_run(
                project,
                item_id,
                prompt_id,
                str(model),
                run_output(result),
                timestamp=timestamp,
                source=f"{source.name}#{result['promptId']}",
                actor=options.actor,
            )
            if run_id is None:
                report.skip(where, run_status)
                continue
            report.count("runs", run_status == "added")
            span_store.link_run(project, snapshot_id, str(result["promptId"]), run_id)
            subject = f"run:{run_id}"
            metrics = _metrics(result)
            if known_metrics.get(subject) != metrics:
                judging.set_subject_metrics(project, subject, metrics, source.name)
                report.count("metrics", True)
            else:
                report.count("metrics", False)
            verdict = _verdict(result, run_id, judge_name, where, source, report)
            if verdict is not None:
                verdict_id, created = judging.add_verdict(project, verdict, options.actor)
                report.count("verdicts", created)
                if created:
                    stored = store_judge_findings(project, run_id, verdict_id, result.get("judgeResult"), options.actor)
                    for _ in range(stored):
                        report.count("findings", True)
    _compare_summary(data, report)
    return report


def _compare_summary(data: dict, report: ImportReport) -> None:
    """Recompute the summary from the results and note where the file's own
    blocks differ (reviewer.core.spans.summary.compare_block)."""
    from reviewer.core.spans.summary import compare_block, compute_summary, load_snapshot

    loaded = load_snapshot(data)
    if not isinstance(data.get("summary"), dict) and not loaded.get("categoryScores"):
        return
    computed = compute_summary(loaded)
    extra = {"categoryScores": loaded["categoryScores"]} if loaded.get("categoryScores") else None
    diffs = compare_block(computed, data.get("summary") or {}, extra)
    equal = [key for key, found in diffs.items() if not found]
    if equal:
        report.notes.append(f"summary block recomputed from the results, equal: {', '.join(equal)}")
    for key, found in diffs.items():
        if found:
            report.notes.append(
                f"summary {key} differs from the results: "
                + "; ".join(found[:5])
                + (f" (+{len(found) - 5} more)" if len(found) > 5 else "")
            )
    report.notes += [f"summary: {w}" for w in computed["warnings"]]
