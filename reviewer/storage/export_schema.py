"""What the analysts' export says about itself: the keys that link its
tables and a description of every table and column.

``FOREIGN_KEYS`` links findings, judge verdicts, case results and scores and
the span tables to runs (span tables through ``span_runs``, the runs each
snapshot's results became) and runs and ground truth to items, so
``datasette serve`` shows a finding's run as a link. ``TABLES`` describes
every table and column; the export writes it as the ``_tables`` and
``_columns`` tables and as a Datasette metadata file beside the database
(``<out>.metadata.json``: ``datasette serve OUT.db -m OUT.db.metadata.json``).
docs/export-schema.md says the same in prose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Optional

from reviewer.storage import registry, safe_write
from reviewer.storage.db import Project

#: {table: [(column, other table, other column)]}
FOREIGN_KEYS: dict[str, list[tuple[str, str, str]]] = {
    "runs": [("item", "items", "item")],
    "findings": [("run_id", "runs", "run_id")],
    "verdicts": [("run_id", "runs", "run_id"), ("other_run_id", "runs", "run_id")],
    "adjudications": [("dispute_id", "disputes", "dispute_id")],
    "case_results": [("run_id", "runs", "run_id")],
    "case_scores": [("run_id", "runs", "run_id")],
    "span_runs": [("snapshot", "span_summary", "snapshot"), ("run_id", "runs", "run_id")],
    "span_category_scores": [("snapshot", "span_summary", "snapshot")],
    "span_fp_reasons": [("snapshot", "span_summary", "snapshot")],
    "span_taxonomy_confusions": [("snapshot", "span_summary", "snapshot")],
    "span_sections": [("snapshot", "span_summary", "snapshot")],
    "span_confidence": [("snapshot", "span_summary", "snapshot")],
    "span_latency": [("snapshot", "span_summary", "snapshot")],
    "span_missed_severity": [("snapshot", "span_summary", "snapshot")],
    "span_missed_categories": [("snapshot", "span_summary", "snapshot")],
    "span_worst_performers": [("snapshot", "span_summary", "snapshot")],
    "golden_spans": [("item", "items", "item")],
    "gt_piles": [("item", "items", "item")],
    "gt_cards": [("item", "items", "item")],
}

SPAN_RUN_COLUMNS = {"snapshot": str, "prompt_key": str, "run_id": int}

#: {table: (description, {column: description})}
TABLES: dict[str, tuple[str, dict[str, str]]] = {
    "items": (
        "One row per photo or text the runs are about.",
        {
            "item": "Item name (unique).",
            "kind": "image or text.",
            "path": "The file as imported.",
            "width": "Width in upright pixels (images).",
            "height": "Height in upright pixels (images).",
            "orientation": "EXIF orientation of the stored photo (1-8).",
            "sha256": "SHA-256 of the file.",
            "workflow": "cards, spans, case, judged output or pairwise: the item's workflow, which picks its perspective in the window.",
        },
    ),
    "runs": (
        "One row per model answer (run), with its metrics and what the runner recorded.",
        {
            "run_id": "Run id (the project's).",
            "item": "The item the model was asked about (items.item).",
            "prompt": "Prompt name.",
            "schema": "Answer schema the prompt asks for: piles, cards or free.",
            "model": "Model name.",
            "repetition": "Repetition number of the same item, prompt and model.",
            "timestamp": "When the answer was made or imported (ISO 8601).",
            "config_version": "Scoring config version the run was scored with.",
            "json_valid": "1 when an answer matching the schema was found as written, else 0.",
            "repaired": "1 when the cards were salvaged from broken JSON.",
            "box_convention": "Box convention of the answer: 0-1, 0-1000, pixels, or null.",
            "cards_visible": "Ground-truth cards with text (cards to transcribe are left out).",
            "cards_reported": "Cards in the model's answer.",
            "cards_correct": "Cards read correctly (final codes).",
            "text_accuracy": "cards_correct / cards_visible (0-1).",
            "spatial_accuracy": "Cards in the right pile / cards_visible (null without piles).",
            "hallucinations": "HALLUC findings (final codes).",
            "auto_cards_correct": "cards_correct before review (proposed codes).",
            "auto_text_accuracy": "text_accuracy before review.",
            "auto_spatial_accuracy": "spatial_accuracy before review.",
            "auto_hallucinations": "hallucinations before review.",
            "findings": "Findings of the run.",
            "reviewed": "1 when every finding is decided.",
            "parse_error": "Why no answer could be parsed (null when one was).",
            "latency_ms": "Milliseconds the endpoint took to answer (null for imported runs).",
            "prompt_tokens": "Tokens in (as the endpoint reported them).",
            "completion_tokens": "Tokens out (as the endpoint reported them).",
            "total_tokens": "Tokens in and out.",
            "finish_reason": "Why the endpoint stopped (stop, length, ...).",
            "truncated": "1 when the answer was cut off by the token limit.",
            "cost": "prompt_tokens x input price + completion_tokens x output price, with export --prices; "
            "null when the model is not priced.",
        },
    ),
    "findings": (
        "One row per error the scorer found (or a person added) in a run.",
        {
            "finding_id": "Finding id.",
            "run_id": "The run (runs.run_id).",
            "code": "Error code as proposed: OCR, PARTIAL, MISS, HALLUC, SPATIAL, FORMAT.",
            "final_code": "Code after review (null when rejected).",
            "status": "proposed, confirmed or rejected.",
            "source": "auto, judge or human.",
            "gt_card": "Text of the ground-truth card.",
            "model_card": "Text of the model card.",
            "detail": "Which rule decided it and on what evidence.",
            "reason": "The reviewer's reason.",
            "reviewer": "Who decided.",
            "decided_at": "When it was decided (ISO 8601).",
        },
    ),
    "prompt_verdicts": (
        "T-P1 verdicts per prompt and model, per item and over all items.",
        {
            "prompt": "Prompt name.",
            "model": "Model (runs of different models are never pooled).",
            "item": "Item name, or * for all items.",
            "basis": "auto (proposed codes) or reviewed (final codes).",
            "runs": "Runs pooled.",
            "cards_visible": "Ground-truth cards summed over the runs.",
            "cards_correct": "Correct cards summed over the runs.",
            "text_accuracy": "cards_correct / cards_visible.",
            "spatial_accuracy": "Cards in the right pile / cards_visible.",
            "hallucination_runs": "Runs with a hallucination.",
            "json_valid_runs": "Runs with valid JSON.",
            "verdict": "pass, ambiguous, fail or unscored.",
            "spatial_ok": "1 when spatial accuracy meets the threshold, 0 when not, null without piles.",
            "json_ok": "1 when valid JSON in enough runs; 0 when not, also with fewer runs than the rule needs.",
            "reasons": "Why, in words ('; ' between reasons).",
        },
    ),
    "scoring_config": (
        "Every threshold the scorer used.",
        {
            "version": "Scoring config version.",
            "name": "Setting name.",
            "value": "Setting value as text.",
        },
    ),
    "verdicts": (
        "One row per dimension of a judge's or a person's verdict.",
        {
            "verdict_id": "Verdict id.",
            "subject": "run:<run_id> or pair:<run_id>:<other_run_id>.",
            "run_id": "The run judged (runs.run_id).",
            "other_run_id": "The second run of a pairwise verdict.",
            "judge": "Judge name.",
            "judge_model": "Model behind the judge.",
            "prompt_version": "Version of the judge's prompt; for judges run by reviewer the rubric version, "
            "'<template folder>@<hash of the template text and dimension list>'.",
            "method": "rules-based, ground-truth, rubric, pairwise or human.",
            "scale": "1-5, A-F, 0-100, pass/fail or winner.",
            "dimension": "Scored dimension (null without scores).",
            "value": "Numeric value (1-5, grade points, 0-100).",
            "value_text": "Text value (pass/fail, winner 1, 2 or tie).",
            "rationale": "The judge's rationale.",
            "answer_order": "ab, ba or null (winners are in the original order).",
            "repetition": "Repetition number.",
            "flags": 'The verdict\'s flags as JSON, e.g. {"safety_flag": true}.',
            "issues_found": "The issues the judge listed, as a JSON list.",
            "source": "Where the verdict came from (the imported file, or the judge run).",
            "raw": "The judge's reply as it came, for verdicts read from a reply.",
        },
    ),
    "verdict_confidences": (
        "A judge's confidence per verdict, dimension and source (join verdicts on verdict_id and dimension).",
        {
            "verdict_id": "Verdict id (verdicts.verdict_id).",
            "dimension": "Dimension of the verdict.",
            "source": "logprob (exp of the value token's logprob from the endpoint), stated (the judge's reply "
            "said it) or imported (the imported file gave it).",
            "confidence": "The judge's probability that its value is right, 0-1.",
        },
    ),
    "disputes": (
        "Disagreements among judges and people (refreshed by the export).",
        {
            "dispute_id": "Dispute id.",
            "kind": "Kind of dispute.",
            "subject": "What is disputed.",
            "dimension": "Dimension.",
            "verdict_ids": "The verdicts involved (JSON list).",
            "severity": "0-1.",
            "detail": "What disagrees.",
        },
    ),
    "adjudications": (
        "A reviewer's settlement of a disputed subject and dimension.",
        {
            "subject": "What was settled.",
            "dimension": "Dimension.",
            "value": "Value as text ('4', 'tie').",
            "rationale": "Why.",
            "reviewer": "Who.",
            "decided_at": "When (ISO 8601).",
            "sided_with": "The judge sided with, if any.",
            "dispute_id": "The dispute settled (disputes.dispute_id).",
        },
    ),
    "human_labels": (
        "People's labels: the first label (made before any judge verdict was shown) and the "
        "final value (kept or changed after), per subject, dimension, reviewer and queue.",
        {
            "subject": "What was labelled.",
            "dimension": "Dimension.",
            "reviewer": "Who labelled.",
            "queue": "Where: 'label-first' (the fair sample) or 'dispute' (made while settling a dispute, "
            "with the judges in view; not a fair sample).",
            "judge": "The judge whose verdicts were shown after the first label.",
            "rubric_version": "The rubric version the label was made under (the judge's prompt_version).",
            "answer_order": "How a pair was shown: 'ab' or 'ba' (seeded per subject); null for one output.",
            "split": "The subject's split (train, dev, test by a seeded hash of its id), set once.",
            "first_value": "First label as text ('4', 'pass', '1' = the pair's first run won).",
            "first_at": "When the first label was committed (ISO 8601).",
            "final_value": "Final value as text (null until kept or changed).",
            "final_at": "When the final value was set (ISO 8601).",
        },
    ),
    "failter": (
        "The Failter table, as `reviewer report` gives it: one row per model and prompt (docs/failter.md).",
        {
            "model": "The model that filtered the texts.",
            "prompt": "The prompt (Failter's template).",
            "eval_method": "Which judges scored the trials; the scales when the scores came on several.",
            "trials": "Every trial: answered or failed, judged or not.",
            "errors": "Trials that failed at the model, plus answered trials whose judge failed.",
            "model_errors": "Trials whose request to the model still failed after its retries.",
            "judge_errors": "Answered trials whose judge failed or gave no readable score.",
            "avg_score": "Mean score per trial in points 0-100 (one map per scale; every error counts 0).",
            "rules_score": "Mean of the rules-based judge's scores, in points 0-100 (errors left out).",
            "gt_score": "Mean of the ground-truth judge's scores, in points 0-100 (errors left out).",
            "avg_time_s": "Seconds per answered trial (its last attempt).",
            "avg_tokens": "Total tokens per answered trial.",
            "avg_cost": "Cost per answered trial, from --prices or as recorded.",
        },
    ),
    "rubric_gate": (
        "The judge gate of the rubric rules, as `reviewer report` gives it: one row per judge (docs/tarot-rubric.md).",
        {
            "rater": "The judge (or person) whose verdicts the gate read.",
            "should_block": "Readings the expectations say the gate should block.",
            "blocked": "Of those, the readings the gate blocked.",
            "missed": "Of those, the readings the gate did not block (or could not decide).",
            "should_pass": "Readings the expectations say the gate should let through.",
            "wrongly_blocked": "Of those, the readings the gate blocked.",
            "undecided": "Readings the gate could not decide (no safety flag or scores).",
        },
    ),
    "rubric_disputes": (
        "The judge-vs-metrics disputes of the rubric rules, as `reviewer report` gives them: one row per reading "
        "and dimension whose verdicts broke a rule (docs/tarot-rubric.md).",
        {
            "reading": "The reading (its item; with the model when an item has several judged runs).",
            "dimension": "The dimension (or flag) a rule checks.",
            "dispute": "The dispute's id (disputes.id).",
            "detail": "Which judges broke which rules, with the metrics' values.",
        },
    ),
    "agreement": (
        "Agreement statistics among judges, people and annotators.",
        {
            "raters": "Who is compared.",
            "dimension": "Dimension.",
            "statistic": "Statistic name.",
            "value": "Value (null when undefined).",
            "n": "Cases compared.",
            "note": "Note.",
            "ci_low": "Lower end of the 95 % interval (null when undefined or too few subjects).",
            "ci_high": "Upper end of the 95 % interval (null when undefined or too few subjects).",
            "ci_method": "How the interval was made: Wilson or Clopper-Pearson (a share of independent subjects), BCa or percentile bootstrap over subjects (pairs for a pooled [ab+ba] figure); empty with a note 'too few' when there is none.",
            "prevalence": "Class prevalence among the compared values, as 'class share; ...'.",
        },
    ),
    "case_results": (
        "Test cases: one row per run, metric and basis.",
        {
            "run_id": "The run (runs.run_id).",
            "case_id": "Test case id.",
            "model": "Model.",
            "metric": "Metric name.",
            "score": "Score.",
            "errors": "Errors (JSON list).",
            "warnings": "Warnings (JSON list).",
            "basis": "auto or reviewed.",
        },
    ),
    "case_scores": (
        "Test cases: the case score per run and basis.",
        {
            "run_id": "The run (runs.run_id).",
            "case_id": "Test case id.",
            "model": "Model.",
            "category": "Case category.",
            "basis": "auto or reviewed.",
            "score": "Case score.",
            "passed": "1 when the case passed.",
        },
    ),
    "span_summary": (
        "Span labeling: one row per imported snapshot.",
        {
            "snapshot": "Snapshot name (the file stem).",
            "prompts": "Prompts in the snapshot.",
            "judged": "Prompts judged.",
            "errors": "Results with errors.",
            "avg_score": "Average score.",
            "avg_span_count": "Average spans per prompt.",
            "recommended_min_confidence": "Recommended minimum confidence.",
        },
    ),
    "span_runs": (
        "Span labeling: the run each snapshot's result became.",
        {
            "snapshot": "Snapshot name (span_summary.snapshot).",
            "prompt_key": "The prompt's key in the snapshot.",
            "run_id": "The run (runs.run_id).",
        },
    ),
    "span_category_scores": (
        "Span labeling: coverage and precision per category.",
        {
            "snapshot": "Snapshot name.",
            "category": "Category.",
            "coverage": "Coverage.",
            "precision": "Precision.",
        },
    ),
    "span_fp_reasons": (
        "Span labeling: false positives by reason.",
        {
            "snapshot": "Snapshot name.",
            "reason": "Reason.",
            "count": "How many.",
        },
    ),
    "span_taxonomy_confusions": (
        "Span labeling: the top 10 role confusions.",
        {
            "snapshot": "Snapshot name.",
            "assigned_role": "Role given.",
            "expected_role": "Role expected.",
            "count": "How many.",
        },
    ),
    "span_sections": (
        "Span labeling: errors by section.",
        {
            "snapshot": "Snapshot name.",
            "section": "Section.",
            "false_positives": "False positives.",
            "missed": "Missed elements.",
        },
    ),
    "span_confidence": (
        "Span labeling: error rates by confidence bucket.",
        {
            "snapshot": "Snapshot name.",
            "bucket": "Confidence bucket.",
            "total": "Spans.",
            "errors": "Errors.",
            "error_rate": "errors / total.",
        },
    ),
    "span_latency": (
        "Span labeling: latency per snapshot, model and stage.",
        {
            "snapshot": "Snapshot name.",
            "model": "Model (provider) of the results.",
            "stage": "total, labeler, tier1 or tier2.",
            "source": "results (computed from the results) or file (the snapshot's own latencyStats).",
            "results": "Results with a latency.",
            "avg_ms": "Mean latency (ms).",
            "p50_ms": "Median (ms).",
            "p95_ms": "95th percentile (ms).",
            "p99_ms": "99th percentile (ms).",
        },
    ),
    "span_missed_severity": (
        "Span labeling: missed elements by severity.",
        {
            "snapshot": "Snapshot name.",
            "severity": "Severity of the missed element.",
            "count": "How many.",
            "examples": "Examples, joined by '; '.",
        },
    ),
    "span_missed_categories": (
        "Span labeling: missed elements by category, most first.",
        {
            "snapshot": "Snapshot name.",
            "category": "Category.",
            "count": "How many.",
        },
    ),
    "span_worst_performers": (
        "Span labeling: the results with the lowest scores.",
        {
            "snapshot": "Snapshot name.",
            "rank": "1 for the lowest score.",
            "prompt": "Prompt id.",
            "input": "The labelled input (its start).",
            "score": "The judge's score.",
            "notes": "The judge's notes.",
        },
    ),
    "golden_spans": (
        "Hand-labelled spans of an item's text.",
        {
            "golden_span_id": "Golden span id.",
            "item": "Item (items.item).",
            "text_sha256": "SHA-256 of the labelled text.",
            "start": "Start offset (UTF-16).",
            "end": "End offset (UTF-16).",
            "role": "Role.",
            "text": "The span's text.",
            "created_by": "Who labelled it.",
            "created_at": "When (ISO 8601).",
        },
    ),
    "span_f1": (
        "Span F1 of span runs against golden spans.",
        {
            "snapshot": "Snapshot name, or model:<model> for runs outside a snapshot.",
            "match": "exact or relaxed.",
            "category": "all, a category or a role.",
            "golden": "Golden spans.",
            "predicted": "Predicted spans.",
            "matched": "Matched spans.",
            "precision": "Precision.",
            "recall": "Recall.",
            "f1": "F1.",
        },
    ),
    "gt_piles": (
        "Ground-truth piles of every annotator and the consensus.",
        {
            "item": "Item (items.item).",
            "annotator": "Annotator (consensus: the ground truth scoring uses).",
            "pile": "Pile label.",
            "region": "Pile region: JSON list of [x, y] pixels, or null.",
        },
    ),
    "gt_cards": (
        "Ground-truth cards of every annotator and the consensus.",
        {
            "item": "Item (items.item).",
            "annotator": "Annotator.",
            "pile": "Pile label.",
            "text": "Card text (empty: a card to transcribe, left out of scoring).",
            "x_min": "Box left (upright pixels; null without a box).",
            "y_min": "Box top.",
            "x_max": "Box right.",
            "y_max": "Box bottom.",
        },
    ),
    "_tables": (
        "What every table of this export holds.",
        {
            "table": "Table or view name.",
            "description": "What it holds.",
        },
    ),
    "_columns": (
        "What every column of this export holds.",
        {
            "table": "Table or view name (_tables.table).",
            "column": "Column name.",
            "type": "SQLite type.",
            "description": "What it holds.",
        },
    ),
}

VIEW_DOCS: dict[str, tuple[str, dict[str, str]]] = {
    "code_counts": (
        "Findings per prompt and final code (rejected left out).",
        {
            "prompt": "Prompt name.",
            "code": "Final code.",
            "findings": "Findings.",
            "runs": "Runs with them.",
        },
    ),
    "auto_code_counts": (
        "Automatic findings per prompt and proposed code.",
        {
            "prompt": "Prompt name.",
            "code": "Proposed code.",
            "findings": "Findings.",
            "runs": "Runs with them.",
        },
    ),
}


def span_run_rows(project: Project) -> list[tuple]:
    """The export's span_runs rows (SPAN_RUN_COLUMNS): (snapshot name,
    prompt key, run id or None) of every result a snapshot holds."""
    return [
        tuple(r)
        for r in project.db.execute(
            "SELECT s.name, l.prompt_key, l.run_id FROM span_snapshot_runs l "
            "JOIN span_snapshots s ON s.id = l.snapshot_id ORDER BY s.name, l.prompt_key"
        )
    ]


_TYPES = {int: "INTEGER", float: "FLOAT", str: "TEXT"}


def doc_tables(
    tables: Iterable[tuple[str, dict, Optional[str], object]], views: Iterable[str]
) -> list[tuple[str, dict, Optional[str], list[tuple]]]:
    """The ``_tables`` and ``_columns`` tables describing ``tables`` (as
    export.collect_tables gives them: name, {column: type}, pk, rows) and
    ``views``, themselves included. A table or column missing from
    ``TABLES`` gets an empty description (tests/storage/test_analyst_export.py
    fails on it, the export does not)."""
    table_rows, column_rows = [], []
    described = [(name, columns) for name, columns, _pk, _rows in tables]
    described += [(name, {c: str for c in VIEW_DOCS[name][1]}) for name in views]
    described += [
        ("_tables", {"table": str, "description": str}),
        ("_columns", {"table": str, "column": str, "type": str, "description": str}),
    ]
    registered = {name: doc for parts in registry.registered() for name, doc in parts.export_docs.items()}
    for name, columns in described:
        about, cols = TABLES.get(name) or VIEW_DOCS.get(name) or registered.get(name) or ("", {})
        table_rows.append((name, about))
        for column, kind in columns.items():
            column_rows.append((name, column, _TYPES.get(kind, "TEXT"), cols.get(column, "")))
    return [
        ("_tables", {"table": str, "description": str}, "table", table_rows),
        ("_columns", {"table": str, "column": str, "type": str, "description": str}, None, column_rows),
    ]


def datasette_metadata(doc: list[tuple[str, dict, Optional[str], list[tuple]]], title: str) -> dict:
    """Datasette metadata (``-m``) of an export from its ``doc_tables``:
    every table's description and column descriptions."""
    tables: dict[str, dict] = {}
    for name, about in doc[0][3]:
        tables[name] = {"description": about, "columns": {}}
    for name, column, _kind, about in doc[1][3]:
        tables[name]["columns"][column] = about
    return {"title": title, "databases": {Path(title).stem: {"tables": tables}}}


#: What write_metadata writes, to check a file it would replace (reviewer.storage.safe_write).
METADATA_FORMAT = safe_write.json_format(
    "Datasette metadata file", lambda v: isinstance(v, dict) and isinstance(v.get("databases"), dict)
)


def metadata_path(out: Path) -> Path:
    """Where the Datasette metadata of the export ``out`` goes: ``<out>.metadata.json`` beside it."""
    return Path(out).with_name(Path(out).name + ".metadata.json")


def write_metadata(
    out: Path,
    doc: list[tuple[str, dict, Optional[str], list[tuple]]],
    sources: Iterable[Path] = (),
    force: bool = False,
) -> Path:
    """Write ``datasette_metadata`` beside the export ``out`` as
    ``<out>.metadata.json`` through reviewer.storage.safe_write (checked:
    not a project, a file that is not Datasette metadata or a file inside a
    ``source``, unless ``force``; replaced whole); returns its path. Raises
    TargetRefused, or ProjectError when it cannot be written."""
    path = metadata_path(out)
    safe_write.write_json(
        path,
        datasette_metadata(doc, Path(out).name),
        METADATA_FORMAT,
        sources=sources,
        force=force,
        indent=2,
        ensure_ascii=True,
        newline=False,
    )
    return path
