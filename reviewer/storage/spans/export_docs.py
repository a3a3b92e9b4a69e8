"""What the analysts' export says about the span tables: each snapshot's
summary and debugging sections, the runs its results became, the golden
spans (decision record "workflow-registries"): {table: (description,
{column: description})}, written as ``_tables`` and ``_columns``, and the
foreign keys of those tables. docs/export-schema.md says the same in prose."""

#: {table: (description, {column: description})}
TABLES: dict[str, tuple[str, dict[str, str]]] = {
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
}

#: {table: [(column, other table, other column)]}
FOREIGN_KEYS: dict[str, list[tuple[str, str, str]]] = {
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
}
