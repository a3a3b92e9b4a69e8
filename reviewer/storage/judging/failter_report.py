"""The Failter report (ground-truth-judge-proposal.md §3.2, §4.2; Failter's
v1 table reporter, reporter.clj and eval.clj at commit c90154c, "Centralized
scoring strategy"), one row per model x prompt over the trials (runs of
repetition 1 and open failed attempts) of the rules-based and ground-truth
judges:

* ``Trials``: every trial: answered ones (judged or not) and failed ones.
* ``Errors``: trials that failed (the model's request still failed after its
  retries and was never answered later: ``model_errors``) plus answered
  trials whose judge failed (its request failed after its retries) or
  replied without a readable score (an undecided verdict): ``judge_errors``.
* ``Avg_Score``: per trial ``w_rules x Rules + w_gt x GT`` when both judges
  judged it, else the one score it has (grades as points A=100 ... F=20;
  several verdicts of one method averaged first). As Failter's table
  reporter counts a failed trial ("A failed trial gets a score of 0",
  eval.clj) and its scorer an unreadable reply (parse-raw-score: 0), a
  failed trial scores 0 and so does a judge's part that failed or could
  not be read. Trials not judged yet are left out of the mean.
  ``Rules_Score`` / ``GT_Score``: means of each judge over the judgements
  that were read. ``Eval_Method`` as the judge verdict table.
* ``Avg_Time``: mean latency of the answered trials in seconds (the last
  attempt, Failter's execution-time-ms); ``Avg_Tokens``: mean total tokens;
  ``Avg_Cost``: with prices ({model: {"input": price per token, "output":
  price per token}}) the mean of prompt tokens x input + completion tokens
  x output, else the mean of the costs the trials recorded (Failter's
  estimated-cost); '-' when neither is known.

:func:`failter_json` is the table as JSON (``report --format json``);
:func:`usage_json` is Failter's own report (USAGE.md: one object per prompt
and model with prompt_id, score, usage, performance, error), which
``reviewer run spec.yml`` prints and writes to ``output_file``.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from reviewer.core.bounded_yaml import YAMLError, read_yaml_file
from reviewer.core.judging.verdicts import POINTS_NOTE, Method, path_b_score
from reviewer.core.tables import csv_row, markdown_table
from reviewer.storage.judging import calls
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.verdict_table import verdict_points
from reviewer.storage.project.db import Project
from reviewer.storage.repo import runs as repo_runs

HEADER = [
    "Model",
    "Prompt",
    "Eval_Method",
    "Trials",
    "Errors",
    "Avg_Score",
    "Rules_Score",
    "GT_Score",
    "Avg_Time",
    "Avg_Tokens",
    "Avg_Cost",
]


def load_prices(path: Path) -> dict[str, dict[str, float]]:
    """Per-token prices from a JSON or YAML file {model: {input, output}}.
    Raises ValueError when the file is not YAML or JSON (or is refused by
    core.bounded_yaml: over 1 MB, an alias bomb) or does not hold that
    shape; OSError when it cannot be read."""
    try:
        data = read_yaml_file(path)
    except (YAMLError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: not a prices file: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected {{model: {{input: price, output: price}}}}")
    out = {}
    for model, p in data.items():
        if not isinstance(p, dict) or not all(isinstance(p.get(k, 0), (int, float)) for k in ("input", "output")):
            raise ValueError(f"{path}: prices of '{model}' must be {{input: number, output: number}}")
        out[str(model)] = {"input": float(p.get("input", 0)), "output": float(p.get("output", 0))}
    return out


@dataclass(frozen=True)
class FailterRow:
    """One row (module doc); None shows as '-'. ``model_errors`` +
    ``judge_errors`` = ``errors``; ``scored``: trials with a score read
    from a judge;
    ``tokens_in`` / ``tokens_out``: sums over the answered trials (None when
    none says); ``total_time_ms``: sum of the trials' whole times with
    retries; ``retry_attempts``: retried attempts over all trials;
    ``messages``: what went wrong, one line per error."""

    model: str
    prompt: str
    eval_method: str
    trials: int
    errors: int
    avg_score: float | None
    rules_score: float | None
    gt_score: float | None
    avg_time_s: float | None
    avg_tokens: float | None
    avg_cost: float | None
    model_errors: int = 0
    judge_errors: int = 0
    scored: int = 0
    tokens_in: int | None = None
    tokens_out: int | None = None
    total_time_ms: float | None = None
    retry_attempts: int = 0
    messages: tuple[str, ...] = ()

    def cells(self) -> list[str]:
        """Text cells in HEADER order."""
        f = lambda x, d=2: "-" if x is None else f"{x:.{d}f}"  # noqa: E731
        return [
            self.model,
            self.prompt,
            self.eval_method,
            str(self.trials),
            str(self.errors),
            f(self.avg_score),
            f(self.rules_score),
            f(self.gt_score),
            f(self.avg_time_s),
            f(self.avg_tokens, 0),
            f(self.avg_cost, 6),
        ]


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


N = TypeVar("N", int, float)


def _sum(xs: list[N]) -> N | None:
    return sum(xs) if xs else None


_JUDGE_METHODS = {"rules-judge": Method.RULES, "gt-judge": Method.GROUND_TRUTH}
#: Longest excerpt of an unreadable judge reply in an error message (characters).
EXCERPT = 80


def _excerpt(raw: str | None) -> str:
    """' (reply: "...")': the start of a judge's raw reply, white space
    collapsed, for an error message; '' without one."""
    text = " ".join((raw or "").split())
    if not text:
        return ""
    return f' (reply: "{text[:EXCERPT]}{"..." if len(text) > EXCERPT else ""}")'


def _judge_method(judge: str | None) -> Method | None:
    """The method of a Failter judge by its name ('rules-judge/<model>', 'gt-judge')."""
    return _JUDGE_METHODS.get((judge or "").split("/", 1)[0])


def failter_rows(
    project: Project,
    weights: tuple[float, float] = (0.5, 0.5),
    prices: Mapping[str, Mapping[str, float]] | None = None,
    items: Iterable[str] | None = None,
    prompts: Iterable[str] | None = None,
    models: Iterable[str] | None = None,
) -> list[FailterRow]:
    """The Failter report rows (module doc) over the runs of the given
    items / prompts / models (None: all that have a rules-based or
    ground-truth verdict, a failed judging or a failed attempt)."""
    total = sum(weights) or 1.0
    w_rules, w_gt = weights[0] / total, weights[1] / total
    items, prompts, models = (set(x) if x is not None else None for x in (items, prompts, models))

    def keep(row: Mapping) -> bool:
        return (
            (items is None or row["item"] in items)
            and (prompts is None or row["prompt"] in prompts)
            and (models is None or row["model"] in models)
        )

    by_run: dict[int, dict[Method, list[float]]] = {}
    scales: dict[int, set[str]] = {}  # run -> the scales its scores came on
    bad: dict[int, dict[Method, str]] = {}  # run -> method -> why its judgement failed or is unreadable
    for v in judging.verdicts(project):
        if v.method in (Method.RULES, Method.GROUND_TRUTH) and v.run_id is not None and v.other_run_id is None:
            score = verdict_points(v)
            if score is not None:
                by_run.setdefault(v.run_id, {}).setdefault(v.method, []).append(score)
                scales.setdefault(v.run_id, set()).add(v.scale.value)
            else:
                why = v.rationale.removeprefix("undecided:").strip() or "no readable score"
                bad.setdefault(v.run_id, {}).setdefault(v.method, f"judge reply not read: {why}{_excerpt(v.raw)}")
    for f in calls.failed_judgements(project):
        method = _judge_method(f["judge"])
        if method is not None and (f["subject"] or "").startswith("run:") and f["subject"][4:].isdigit():
            bad.setdefault(int(f["subject"][4:]), {})[method] = f"judge failed: {f['error']}"
    failures: dict[tuple[str, str], dict[str, dict]] = {}  # (model, prompt) -> item -> its last failed attempt
    for f in calls.failed_answers(project):
        if (f["repetition"] or 1) == 1 and keep(f):
            failures.setdefault((f["model"], f["prompt"]), {})[f["item"]] = f
    if not by_run and not bad and not failures:  # no row to show: the runs are not read (a big card project)
        return []
    runs = [r for r in repo_runs.run_rows(project, with_output=False) if r["repetition"] == 1 and keep(r)]
    facts = calls.run_calls(project, [r["id"] for r in runs]) if runs else {}
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in runs:
        groups.setdefault((r["model"], r["prompt"]), []).append(r)
    for key in failures:
        groups.setdefault(key, [])
    rows = []
    for model, prompt in sorted(groups):
        group = groups[(model, prompt)]
        failed = list(failures.get((model, prompt), {}).values())
        if not any(r["id"] in by_run or r["id"] in bad or r["id"] in facts for r in group) and not failed:
            continue
        rows.append(_row(model, prompt, group, failed, (by_run, scales), bad, facts, (w_rules, w_gt), prices))
    return rows


def _row(
    model: str,
    prompt: str,
    group: list[dict],
    failed: list[dict],
    read_scores: tuple[dict, dict],
    bad: dict,
    facts: dict,
    weights: tuple[float, float],
    prices: Mapping[str, Mapping[str, float]] | None,
) -> FailterRow:
    """One row of :func:`failter_rows` (module doc); ``read_scores``:
    {run: {method: points}} and {run: scales the points came from}."""
    by_run, scales = read_scores
    finals, rules, gts, messages = [], [], [], []
    combos: Counter[str] = Counter()
    judge_errors = read = 0
    for r in group:
        by, wrong = by_run.get(r["id"], {}), bad.get(r["id"], {})
        rs, gs = _mean(by.get(Method.RULES, [])), _mean(by.get(Method.GROUND_TRUTH, []))
        read += rs is not None or gs is not None
        rules += [rs] if rs is not None else []
        gts += [gs] if gs is not None else []
        rules_bad = rs is None and Method.RULES in wrong
        gt_bad = gs is None and Method.GROUND_TRUTH in wrong
        if rules_bad or gt_bad:
            judge_errors += 1
            messages += [
                f"{r['item']}: {wrong[m]}"
                for m in (Method.RULES, Method.GROUND_TRUTH)
                if (rules_bad if m == Method.RULES else gt_bad)
            ]
        final = path_b_score(0.0 if rules_bad else rs, 0.0 if gt_bad else gs, *weights)
        if final is not None:
            finals.append(final)
        has_rules, has_gt = rs is not None or rules_bad, gs is not None or gt_bad
        if has_rules and has_gt:
            combos["rules-based+ground-truth"] += 1
        elif has_rules or has_gt:
            combos["rules-based" if has_rules else "ground-truth"] += 1
    finals += [0.0] * len(failed)
    if failed:
        combos["failed"] += len(failed)
    messages = [_trial_failed(f) for f in failed] + messages
    names = [m for m in ("rules-based+ground-truth", "rules-based", "ground-truth", "failed") if combos[m]]
    method = names[0] if len(names) == 1 else "mixed: " + ", ".join(f"{m} {combos[m]}" for m in names) if names else "-"
    used = sorted({s for r in group for s in scales.get(r["id"], ())})
    if len(used) > 1:  # points from several scales (POINTS_MAP): the row says so
        method += f" (scales {', '.join(used)}, in points)"
    answered = [facts[r["id"]] for r in group if r["id"] in facts]
    times = [f["latency_ms"] / 1000 for f in answered if f["latency_ms"] is not None]
    tokens = [f["total_tokens"] for f in answered if f["total_tokens"] is not None]
    price = (prices or {}).get(model)
    if price is not None:
        cost = _mean(
            [
                f["prompt_tokens"] * price["input"] + f["completion_tokens"] * price["output"]
                for f in answered
                if f["prompt_tokens"] is not None and f["completion_tokens"] is not None
            ]
        )
    else:
        cost = _mean([f["cost"] for f in answered if f.get("cost") is not None])
    whole = [f["total_ms"] for f in answered + failed if f.get("total_ms") is not None]
    return FailterRow(
        model,
        prompt,
        method,
        len(group) + len(failed),
        len(failed) + judge_errors,
        _mean(finals),
        _mean(rules),
        _mean(gts),
        _mean(times),
        _mean([float(t) for t in tokens]),
        cost,
        model_errors=len(failed),
        judge_errors=judge_errors,
        scored=read,
        tokens_in=_sum([f["prompt_tokens"] for f in answered if f["prompt_tokens"] is not None]),
        tokens_out=_sum([f["completion_tokens"] for f in answered if f["completion_tokens"] is not None]),
        total_time_ms=_sum(whole),
        retry_attempts=sum(max(0, (f.get("attempts") or 1) - 1) for f in answered + failed),
        messages=tuple(messages),
    )


#: Which commit of Failter the error counting follows (see the module doc).
FAILTER_COMMIT = "c90154c"


def _trial_failed(failure: dict) -> str:
    """A failed trial as the report's error line gives it: 'Trial failed:
    ...' as Failter's reporter words it, then the errors of its retried
    attempts, each message whole ('errors on retry: A | B')."""
    retried = failure.get("retry_errors") or []
    tail = f" (errors on retry: {' | '.join(retried)})" if retried else ""
    return f"{failure['item']}: Trial failed: {failure['error']}{tail}"


def errors_line(rows: list[FailterRow]) -> str:
    """The one line under the table saying how errors were counted."""
    trials, model, judge = (sum(getattr(r, k) for r in rows) for k in ("trials", "model_errors", "judge_errors"))
    return (
        f"Errors: {model + judge} of {trials} trials: {model} failed at the model (after their retries), {judge} "
        f"whose judge failed or replied without a readable score. Each error counts 0 in Avg_Score, as "
        f"Failter's table reporter scores a failed trial (commit {FAILTER_COMMIT}); Rules_Score and GT_Score "
        "average only the judgements that were read."
    )


def failter_markdown(rows: list[FailterRow], weights: tuple[float, float], priced: bool) -> str:
    """The Failter report as Markdown (a title, the weights, the table and
    the line saying how errors were counted)."""
    total = sum(weights) or 1.0
    note = (
        f"Avg_Score per trial: {weights[0] / total:g} x Rules_Score + {weights[1] / total:g} x GT_Score when both "
        "judges scored it, else the one score; every score in points 0-100 (" + POINTS_NOTE + "). "
        "Avg_Time in seconds per answered trial" + ("; Avg_Cost from --prices." if priced else ".")
    )
    if not rows:
        return "## Failter report\n\nNo trials.\n"
    return (
        "## Failter report\n\n"
        + note
        + "\n\n"
        + markdown_table(HEADER, [r.cells() for r in rows])
        + "\n\n"
        + errors_line(rows)
        + "\n"
    )


def failed_markdown(project: Project) -> str:
    """The open failed attempts (requests that failed after their retries
    and were not answered since) as a Markdown section, '' when none."""
    rows = calls.failed_calls(project, open_only=True)
    if not rows:
        return ""
    table = [
        [
            r["kind"],
            r["model"] or "",
            r["item"] or r["subject"] or "",
            r["prompt"] or r["judge"] or "",
            str(r["repetition"] or ""),
            str(r["attempts"]),
            (r["error"] or "")[:160],
            r["called_at"],
        ]
        for r in rows
    ]
    return (
        "## Failed attempts\n\n"
        + markdown_table(
            ["kind", "model", "item / subject", "prompt / judge", "repetition", "attempts", "error", "at"], table
        )
        + "\n"
    )


#: The keys of a row of :func:`failter_json`, in order.
JSON_KEYS = (
    "model",
    "prompt",
    "eval_method",
    "trials",
    "errors",
    "model_errors",
    "judge_errors",
    "avg_score",
    "rules_score",
    "gt_score",
    "avg_time_s",
    "avg_tokens",
    "avg_cost",
)


def failter_objects(rows: list[FailterRow]) -> list[dict]:
    """The table as one dict per row with the keys of JSON_KEYS, in order
    (None for a missing figure; times in seconds, scores in points 0-100)."""
    return [{k: getattr(r, k) for k in JSON_KEYS} for r in rows]


def failter_csv(rows: list[FailterRow]) -> str:
    """The Failter table as CSV for ``reviewer report --format csv``: a
    first column ``table`` ('failter'), then JSON_KEYS, the same figures as
    the JSON (scores in points 0-100, times in seconds; empty for a missing
    one); '' without rows. Text cells are formula-safe (core.tables.csv_row)."""
    if not rows:
        return ""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["table", *JSON_KEYS])
    for o in failter_objects(rows):
        writer.writerow(csv_row(["failter", *("" if o[k] is None else o[k] for k in JSON_KEYS)]))
    return buf.getvalue()


def failter_json(rows: list[FailterRow]) -> str:
    """``failter_objects`` as an indented JSON array."""
    return json.dumps(failter_objects(rows), indent=2)


def usage_rows(rows: list[FailterRow], prompt_files: Mapping[str, str] | None = None) -> list[dict]:
    """Failter's own report (USAGE.md, "Interpreting the Results"): one
    object per prompt and model, sorted by prompt_id as Failter's reporter
    sorts: ``prompt_id`` (the template's file name, from ``prompt_files``
    {prompt name: file name}, else the prompt name), ``score`` (Avg_Score;
    null when no trial has a score read from a judge: every trial failed,
    or its judging did), ``usage`` {model_used, tokens_in,
    tokens_out} (sums over the answered trials), ``performance``
    {execution_time_ms (mean of the answered trials' last attempts),
    total_trial_time_ms (sum of the trials' whole times with retries),
    retry_attempts (sum)}, ``error`` (null, or one '; '-joined line per
    error: 'Trial failed: ...' as Failter's reporter words it, or the
    judge's failure)."""
    out = []
    for r in rows:
        out.append(
            {
                "prompt_id": (prompt_files or {}).get(r.prompt, r.prompt),
                "score": r.avg_score if r.scored else None,
                "usage": {"model_used": r.model, "tokens_in": r.tokens_in, "tokens_out": r.tokens_out},
                "performance": {
                    "execution_time_ms": None if r.avg_time_s is None else r.avg_time_s * 1000,
                    "total_trial_time_ms": r.total_time_ms,
                    "retry_attempts": r.retry_attempts,
                },
                "error": "; ".join(r.messages) or None,
            }
        )
    return sorted(out, key=lambda o: (o["prompt_id"], o["usage"]["model_used"]))


def usage_json(rows: list[FailterRow], prompt_files: Mapping[str, str] | None = None) -> str:
    """:func:`usage_rows` as JSON text."""
    return json.dumps(usage_rows(rows, prompt_files), indent=2)
