"""Calls to model and judge endpoints (docs/runner.md): what was asked, what came
back and what failed, beside the runs and verdicts they made.

A *call* row holds the facts of one answer or verdict (``status`` 'ok') or
of a *failed attempt* (``status`` 'failed': the request still failed after
its retries; ``error`` says why). ``kind`` is 'answer' (a model answering
a prompt about an item: a run) or 'judge' (a judge's verdict). Facts are
given as a dict with the column names: server_model, finish_reason,
truncated, prompt_tokens, completion_tokens, total_tokens, latency_ms,
attempts, params (dict: temperature, max_tokens, seed), and optionally
retry_errors (the errors of the attempts retried, oldest first), total_ms
(the call with its retries) and cost (a cost the source reported, as
Failter's ``estimated-cost``). The endpoint is
stored as given (the caller strips user:password); no key is ever passed
here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from reviewer.core.judging.verdicts import Verdict
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project, inserted_id, now
from reviewer.storage.repo import runs as repo_runs

FACT_KEYS = (
    "server_model",
    "finish_reason",
    "truncated",
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "latency_ms",
    "attempts",
)
_LABEL_KEYS = ("item", "prompt", "model", "repetition", "judge", "subject", "answer_order")


def _insert_call(
    project: Project,
    kind: str,
    status: str,
    endpoint: str,
    facts: dict,
    labels: dict,
    run_id: int | None = None,
    verdict_id: int | None = None,
    error: str | None = None,
) -> int:
    row = {k: facts.get(k) for k in FACT_KEYS}
    row["truncated"] = int(bool(row["truncated"]))
    row["attempts"] = int(row["attempts"] or 1)
    row["retry_errors"] = json.dumps([str(e) for e in facts.get("retry_errors") or []])
    row["total_ms"] = facts.get("total_ms")
    row["cost"] = facts.get("cost")
    row.update({k: labels.get(k) for k in _LABEL_KEYS})
    row.update(
        kind=kind,
        status=status,
        run_id=run_id,
        verdict_id=verdict_id,
        endpoint=endpoint,
        params=json.dumps(facts.get("params") or {}, sort_keys=True),
        error=error,
        called_at=now(),
    )
    cols = ", ".join(row)
    cur = project.db.execute(f"INSERT INTO calls ({cols}) VALUES ({', '.join(':' + k for k in row)})", row)
    return inserted_id(cur)


def stored_repetitions(project: Project, model: str) -> set[tuple[int, int, int]]:
    """(item id, prompt id, repetition) of every run of ``model``: what a
    resumed run must not ask again."""
    return {
        tuple(r) for r in project.db.execute("SELECT item_id, prompt_id, repetition FROM runs WHERE model = ?", [model])
    }


def record_answer(
    project: Project,
    item_id: int,
    prompt_id: int,
    model: str,
    repetition: int,
    output: str,
    endpoint: str,
    facts: dict,
    labels: dict,
    actor: str | None = None,
) -> tuple[int | None, str]:
    """Store a model's answer as run (item, prompt, model, repetition) with
    its call facts, in one transaction. Returns repo_runs.add_run's (run id or
    None, status); the call row is written only for a new run."""
    with project.transaction():
        run_id, status = repo_runs.add_run(
            project,
            item_id,
            prompt_id,
            model,
            output,
            repetition=repetition,
            timestamp=now(),
            source=f"endpoint {endpoint}",
            actor=actor,
        )
        if status == "added":
            _insert_call(project, "answer", "ok", endpoint, facts, labels, run_id=run_id)
    return run_id, status


def record_verdict(
    project: Project, verdict: Verdict, endpoint: str, facts: dict, actor: str | None = None
) -> tuple[int, bool]:
    """Store a judge's verdict (the same table imported verdicts use) with
    its call facts, in one transaction. Returns (verdict id, created)."""
    labels = {
        "judge": verdict.judge,
        "subject": verdict.subject,
        "answer_order": verdict.answer_order,
        "repetition": verdict.repetition,
        "model": verdict.judge_model,
    }
    with project.transaction():
        verdict_id, created = judging.add_verdict(project, verdict, actor)
        if created:
            _insert_call(project, "judge", "ok", endpoint, facts, labels, verdict_id=verdict_id)
    return verdict_id, created


def record_failure(
    project: Project,
    kind: str,
    endpoint: str,
    error: str,
    labels: dict,
    attempts: int = 1,
    latency_ms: float | None = None,
    retry_errors: list | None = None,
    total_ms: float | None = None,
) -> int:
    """Record a failed attempt (the request failed after its retries);
    ``labels``: item, prompt, model, repetition (answers) or judge, subject,
    answer_order (verdicts); ``retry_errors``: the errors of the attempts
    before the last. Returns the call id."""
    with project.transaction():
        return _insert_call(
            project,
            kind,
            "failed",
            endpoint,
            {"attempts": attempts, "latency_ms": latency_ms, "retry_errors": retry_errors, "total_ms": total_ms},
            labels,
            error=error,
        )


def record_imported_answer(project: Project, run_id: int, source: str, facts: dict, labels: dict) -> bool:
    """The call facts of an imported answer (a Failter trial's front matter:
    time, tokens, retries), unless the run has an answer call already.
    ``source`` stands in the endpoint column. Returns True when written."""
    with project.transaction():
        if project.db.execute(
            "SELECT 1 FROM calls WHERE run_id = ? AND kind = 'answer' AND status = 'ok'", [run_id]
        ).fetchone():
            return False
        _insert_call(project, "answer", "ok", source, facts, labels, run_id=run_id)
    return True


def record_imported_failure(project: Project, source: str, error: str, labels: dict, facts: dict) -> bool:
    """An imported failed trial (Failter's front matter ``error``) as a
    failed answer attempt, unless the same one (labels and ``source``) is
    there. Returns True when written."""
    with project.transaction():
        if project.db.execute(
            "SELECT 1 FROM calls WHERE kind = 'answer' AND status = 'failed' AND endpoint = ? AND item = ? "
            "AND prompt = ? AND model = ? AND coalesce(repetition, 1) = ?",
            [source, labels.get("item"), labels.get("prompt"), labels.get("model"), labels.get("repetition") or 1],
        ).fetchone():
            return False
        _insert_call(project, "answer", "failed", source, facts, labels, error=error)
    return True


def failed_calls(project: Project, open_only: bool = True) -> list[dict]:
    """Failed attempts, oldest first, as dicts of the calls columns plus
    ``resolved`` (a later call of the same thing succeeded); ``retry_errors``
    is the list of the retried attempts' whole messages, oldest first (the
    column holds it as JSON). ``open_only``: only those not resolved."""
    cur = project.db.execute("SELECT * FROM calls WHERE status = 'failed' ORDER BY id")
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, r)) for r in cur.fetchall()]
    for row in rows:
        row["retry_errors"] = _messages(row.get("retry_errors"))
        if row["kind"] == "answer":
            hit = project.db.execute(
                "SELECT 1 FROM runs r JOIN items i ON i.id = r.item_id JOIN prompts p ON p.id = r.prompt_id "
                "WHERE i.name = ? AND p.name = ? AND r.model = ? AND r.repetition = ?",
                [row["item"], row["prompt"], row["model"], row["repetition"]],
            ).fetchone()
        else:
            hit = project.db.execute(
                "SELECT 1 FROM verdicts WHERE subject = ? AND judge = ? "
                "AND coalesce(answer_order, '') = coalesce(?, '') AND repetition = ?",
                [row["subject"], row["judge"], row["answer_order"], row["repetition"] or 1],
            ).fetchone()
        row["resolved"] = hit is not None
    return [r for r in rows if not (open_only and r["resolved"])]


def run_calls(project: Project, run_ids: Iterable[int] | None = None) -> dict[int, dict]:
    """{run id: its answer's call facts (latency_ms, tokens, finish_reason,
    truncated, server_model, params as a dict, attempts, retry_errors,
    total_ms, cost)} for runs that came from an endpoint or whose source
    recorded them (Failter's front matter)."""
    sql = (
        "SELECT run_id, latency_ms, prompt_tokens, completion_tokens, total_tokens, finish_reason, truncated, "
        "server_model, params, attempts, retry_errors, total_ms, cost FROM calls "
        "WHERE kind = 'answer' AND status = 'ok'"
    )
    params: list[Any] = []
    if run_ids is not None:
        ids = list(run_ids)
        sql += f" AND run_id IN ({','.join('?' * len(ids))})"
        params = ids
    out = {}
    for r in project.db.execute(sql, params):
        out[r[0]] = {
            "latency_ms": r[1],
            "prompt_tokens": r[2],
            "completion_tokens": r[3],
            "total_tokens": r[4],
            "finish_reason": r[5],
            "truncated": bool(r[6]),
            "server_model": r[7],
            "params": json.loads(r[8] or "{}"),
            "attempts": r[9],
            "retry_errors": json.loads(r[10] or "[]"),
            "total_ms": r[11],
            "cost": r[12],
        }
    return out


def _messages(stored: object) -> list[str]:
    """The retry errors stored as a JSON list: its messages, whole ([] for
    anything else, such as a hand-edited project's text)."""
    try:
        value = json.loads(stored) if isinstance(stored, str) else stored
    except ValueError:
        return []
    return [str(m) for m in value] if isinstance(value, list) else []


def failed_answers(project: Project) -> list[dict]:
    """Open failed attempts of answers (no run came later), for reports
    that count failed trials (Failter: Errors, scored 0)."""
    return [r for r in failed_calls(project, open_only=True) if r["kind"] == "answer"]


def failed_judgements(project: Project) -> list[dict]:
    """Open failed attempts of judges (no verdict came later), for reports
    that count a trial whose judging failed as an error (Failter)."""
    return [r for r in failed_calls(project, open_only=True) if r["kind"] == "judge"]
