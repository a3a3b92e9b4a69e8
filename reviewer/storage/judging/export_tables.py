"""The judging workflows' tables of the analysts' export (decision record
"workflow-registries"; their registration names them): the judges'
verdicts, disputes, adjudications and agreement, the Failter table, the
rubric gate and disputes. Their descriptions are in
reviewer.storage.judging.export_docs."""

from __future__ import annotations

import json

from reviewer.core.bounds import is_number
from reviewer.core.judging.agreement_intervals import with_intervals
from reviewer.core.judging.agreement_table import agreement_rows
from reviewer.core.judging.dispute_common import format_value
from reviewer.storage.export_schema import AGREEMENT_COLUMNS
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.failter_report import failter_objects, failter_rows
from reviewer.storage.judging.report import build_judge_report, has_verdicts
from reviewer.storage.judging.rubric_report import rubric_tables
from reviewer.storage.project.db import Project

JUDGE_VERDICT_COLUMNS = {
    "verdict_id": int,
    "subject": str,
    "run_id": int,
    "other_run_id": int,
    "judge": str,
    "judge_model": str,
    "prompt_version": str,
    "method": str,
    "scale": str,
    "dimension": str,
    "value": float,
    "value_text": str,
    "rationale": str,
    "answer_order": str,
    "repetition": int,
    "flags": str,
    "issues_found": str,
    "source": str,
    "raw": str,
}
DISPUTE_COLUMNS = {
    "dispute_id": int,
    "kind": str,
    "subject": str,
    "dimension": str,
    "verdict_ids": str,
    "severity": float,
    "detail": str,
}
ADJUDICATION_COLUMNS = {
    "subject": str,
    "dimension": str,
    "value": str,
    "rationale": str,
    "reviewer": str,
    "decided_at": str,
    "sided_with": str,
    "dispute_id": int,
}
#: The Failter table's columns (failter_report.JSON_KEYS, in order).
FAILTER_COLUMNS: dict[str, type] = {
    "model": str,
    "prompt": str,
    "eval_method": str,
    "trials": int,
    "errors": int,
    "model_errors": int,
    "judge_errors": int,
    "avg_score": float,
    "rules_score": float,
    "gt_score": float,
    "avg_time_s": float,
    "avg_tokens": float,
    "avg_cost": float,
}


def failter_rows_of(project: Project, prices: dict[str, dict[str, float]] | None) -> list[tuple]:
    """The Failter table of the report (default weights), one tuple per row in FAILTER_COLUMNS order."""
    objects = failter_objects(failter_rows(project, prices=prices))
    return [tuple(o[c] for c in FAILTER_COLUMNS) for o in objects]


def failter_table(
    project: Project, prices: dict[str, dict[str, float]] | None
) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The ``failter`` table (FAILTER_COLUMNS); ``prices``: per-token prices per model for the cost."""
    return [("failter", FAILTER_COLUMNS, None, failter_rows_of(project, prices))]


def rubric(project: Project) -> list[tuple[str, dict, None, list[tuple]]]:
    """The ``rubric_gate`` and ``rubric_disputes`` tables of the judge
    report's rubric section (empty without verdicts)."""
    return rubric_tables(
        build_judge_report(project, judging.disputes(project)).rubric if has_verdicts(project) else None
    )


def judge_tables(project: Project) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The verdicts (one row per dimension; a verdict without scores gives one
    row with dimension null; every row carries the verdict's flags, e.g.
    {"safety_flag": true}, and issues_found as JSON, its source and raw
    answer), disputes (as stored: export_project refreshes
    them first), adjudications and agreement tables (the judges' agreement;
    the annotators' rows follow, from their own registration). Cheap when
    the project has no verdicts (four empty tables)."""
    vs = judging.verdicts(project) if has_verdicts(project) else []
    adjudications = judging.adjudications(project)
    verdict_rows = []
    for v in vs:
        head = (
            v.id,
            v.subject,
            v.run_id,
            v.other_run_id,
            v.judge,
            v.judge_model,
            v.prompt_version,
            v.method.value,
            v.scale.value,
        )
        tail = (
            v.rationale,
            v.answer_order,
            v.repetition,
            json.dumps(v.flags, ensure_ascii=False),
            json.dumps(v.issues_found, ensure_ascii=False),
            v.source,
            v.raw,
        )
        for dim, value in v.scores.items() if v.scores else [(None, None)]:
            number = float(value) if is_number(value) else None
            text = value if isinstance(value, str) else None
            verdict_rows.append(head + (dim, number, text) + tail)
    dispute_rows = [
        (d.id, d.kind.value, d.subject, d.dimension, json.dumps(d.verdict_ids), d.severity, d.detail)
        for d in judging.disputes(project)
    ]
    adjudication_rows = [
        (
            a.subject,
            a.dimension,
            None if a.value is None else format_value(a.value),
            a.rationale,
            a.reviewer,
            a.decided_at.isoformat() if a.decided_at else None,
            a.sided_with,
            a.dispute_id,
        )
        for a in adjudications
    ]
    agreement = [r.as_tuple() for r in with_intervals(agreement_rows(vs, adjudications))] if vs else []
    return [
        ("verdicts", JUDGE_VERDICT_COLUMNS, None, verdict_rows),
        ("disputes", DISPUTE_COLUMNS, "dispute_id", dispute_rows),
        ("adjudications", ADJUDICATION_COLUMNS, None, adjudication_rows),
        ("agreement", AGREEMENT_COLUMNS, None, agreement),
    ]
