"""`reviewer report --format json` for a project without test cases: its
sections in one JSON object (docs/commands.md, "report --format json").

Shape (every key always present; a section the project has no data for is
null):

    {"project": "<file name>",
     "cards": {"verdicts": {"auto": [PromptVerdict...], "reviewed": [...]},
               "code_counts": [{"prompt": p, "codes": {code: findings}}...],
               "free_prompts": [...]},
     "judges": {"weights": [rules, gt], "verdicts": [VerdictRow...],
                "agreement": [AgreementRow...], "disputes": {kind: count},
                "warnings": [...]},
     "spans": {table: [row...]} (the export's span tables, rows as objects),
     "failter": [{model, prompt, eval_method, trials, errors, model_errors,
                  judge_errors, avg_score, rules_score, gt_score, avg_time_s,
                  avg_tokens, avg_cost}...] (the Failter table, one object per
                  model and prompt: failter_report.JSON_KEYS),
     "ground_truth_agreement": [AgreementRow...]}

A project with test cases keeps the seed's report shape
(case_report.case_report_json).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any, Mapping, Optional

from reviewer.storage.db import Project
from reviewer.storage.failter_report import failter_objects, failter_rows
from reviewer.storage.gt_annotators import gt_agreement_rows
from reviewer.storage.judge_report import DEFAULT_WEIGHTS, build_judge_report, has_verdicts
from reviewer.storage.scores import summarize
from reviewer.storage.spans import export_tables, has_span_data


def _cards(project: Project) -> Optional[dict[str, Any]]:
    """The card verdicts (automatic and reviewed) and final codes per
    prompt, or None when no run is scored against cards."""
    summary = summarize(project)
    if not summary.auto and not summary.code_counts:
        return None
    return {
        "verdicts": {"auto": [v.model_dump(mode="json") for v in summary.auto],
                     "reviewed": [v.model_dump(mode="json") for v in summary.reviewed]},
        "code_counts": [{"prompt": p, "codes": dict(c)} for p, c in summary.code_counts if c],
        "free_prompts": summary.free_prompts,
    }


def _judges(project: Project, weights: tuple[float, float]) -> Optional[dict[str, Any]]:
    """The judge tables (verdict table, agreement, disputes by kind,
    inflation warnings), or None without verdicts."""
    if not has_verdicts(project):
        return None
    jr = build_judge_report(project, weights)
    return {"weights": list(jr.weights), "verdicts": [asdict(r) for r in jr.verdict_rows],
            "agreement": [r.as_dict() for r in jr.agreement], "disputes": jr.disputes_by_kind,
            "warnings": list(jr.warnings)}


def _spans(project: Project) -> Optional[dict[str, list[dict]]]:
    """The span summaries (the export's span tables, each row an object),
    or None without span data."""
    if not has_span_data(project):
        return None
    return {name: [dict(zip(columns, row)) for row in rows] for name, columns, _pk, rows in export_tables(project)}


def project_report(project: Project, weights: tuple[float, float] = DEFAULT_WEIGHTS,
                   prices: Optional[Mapping[str, Mapping[str, float]]] = None) -> dict[str, Any]:
    """The sections of ``project`` as the module docstring shows them;
    ``prices`` ({model: {input, output}} per token) fill the Failter
    table's avg_cost. Scores nothing: the caller scores stale runs first."""
    gt = gt_agreement_rows(project)
    return {"project": project.path.name, "cards": _cards(project), "judges": _judges(project, weights),
            "spans": _spans(project), "failter": failter_objects(failter_rows(project, weights, prices)) or None,
            "ground_truth_agreement": [r.as_dict() for r in gt] or None}


def project_report_json(project: Project, weights: tuple[float, float] = DEFAULT_WEIGHTS,
                        prices: Optional[Mapping[str, Mapping[str, float]]] = None) -> str:
    """``project_report`` as indented JSON text."""
    return json.dumps(project_report(project, weights, prices), indent=2, default=str)
