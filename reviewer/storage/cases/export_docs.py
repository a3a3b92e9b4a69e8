"""What the analysts' export says about the test-case tables: case results and
scores (decision record "workflow-registries"): {table: (description,
{column: description})}, written as ``_tables`` and ``_columns``, and the
foreign keys of those tables. docs/export-schema.md says the same in prose."""

#: {table: (description, {column: description})}
TABLES: dict[str, tuple[str, dict[str, str]]] = {
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
}

#: {table: [(column, other table, other column)]}
FOREIGN_KEYS: dict[str, list[tuple[str, str, str]]] = {
    "case_results": [("run_id", "runs", "run_id")],
    "case_scores": [("run_id", "runs", "run_id")],
}
