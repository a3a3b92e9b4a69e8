"""The Failter report (ground-truth-judge-proposal.md §3.2, §4.2; Failter's
reporter.clj), one row per model x prompt over the trials (runs of
repetition 1 and open failed attempts) of the rules-based and ground-truth
judges:

* ``Trials``: answered trials + failed trials; ``Errors``: failed trials
  (a request that still failed after its retries and was never answered
  later). A failed trial scores 0 in ``Avg_Score``, as Failter's
  reporter does (eval.clj: "A failed trial gets a score of 0").
* ``Avg_Score``: per trial ``w_rules x Rules + w_gt x GT`` when both judges
  scored it, else the one score it has (grades as points A=100 ... F=20;
  several verdicts of one method averaged first); trials without a verdict
  are left out of the mean. ``Rules_Score`` / ``GT_Score``: means of each
  judge over the trials it scored. ``Eval_Method`` as the judge verdict
  table.
* ``Avg_Time``: mean latency of the answered trials in seconds;
  ``Avg_Tokens``: mean total tokens; ``Avg_Cost``: with prices
  ({model: {"input": price per token, "output": price per token}}), the
  mean of prompt tokens x input + completion tokens x output ('-' for a
  model without prices or trials without token counts).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Optional

from reviewer.core.bounded_yaml import YAMLError, read_yaml_file
from reviewer.core.cards.report import markdown_table
from reviewer.core.judging.verdicts import Method, path_b_score
from reviewer.storage import calls, judging, repo
from reviewer.storage.db import Project
from reviewer.storage.judge_report import verdict_score

HEADER = ["Model", "Prompt", "Eval_Method", "Trials", "Errors", "Avg_Score", "Rules_Score", "GT_Score",
          "Avg_Time", "Avg_Tokens", "Avg_Cost"]


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
    """One row (module doc); None shows as '-'."""

    model: str
    prompt: str
    eval_method: str
    trials: int
    errors: int
    avg_score: Optional[float]
    rules_score: Optional[float]
    gt_score: Optional[float]
    avg_time_s: Optional[float]
    avg_tokens: Optional[float]
    avg_cost: Optional[float]

    def cells(self) -> list[str]:
        """Text cells in HEADER order."""
        f = lambda x, d=2: "-" if x is None else f"{x:.{d}f}"  # noqa: E731
        return [self.model, self.prompt, self.eval_method, str(self.trials), str(self.errors), f(self.avg_score),
                f(self.rules_score), f(self.gt_score), f(self.avg_time_s), f(self.avg_tokens, 0),
                f(self.avg_cost, 6)]


def _mean(xs: list[float]) -> Optional[float]:
    return sum(xs) / len(xs) if xs else None


def failter_rows(project: Project, weights: tuple[float, float] = (0.5, 0.5),
                 prices: Optional[Mapping[str, Mapping[str, float]]] = None,
                 items: Optional[Iterable[str]] = None, prompts: Optional[Iterable[str]] = None,
                 models: Optional[Iterable[str]] = None) -> list[FailterRow]:
    """The Failter report rows (module doc) over the runs of the given
    items / prompts / models (None: all that have a rules-based or
    ground-truth verdict or a failed attempt)."""
    total = sum(weights) or 1.0
    w_rules, w_gt = weights[0] / total, weights[1] / total
    keep = lambda row: ((items is None or row["item"] in set(items)) and (prompts is None or row["prompt"] in set(prompts))  # noqa: E731
                        and (models is None or row["model"] in set(models)))
    items, prompts, models = (list(x) if x is not None else None for x in (items, prompts, models))
    by_run: dict[int, dict[Method, list[float]]] = {}
    for v in judging.verdicts(project):
        if v.method in (Method.RULES, Method.GROUND_TRUTH) and v.run_id is not None and v.other_run_id is None:
            score = verdict_score(v)
            if score is not None:
                by_run.setdefault(v.run_id, {}).setdefault(v.method, []).append(score)
    failures: Counter = Counter((f["model"], f["prompt"]) for f in calls.failed_answers(project)
                                if f["repetition"] == 1 and keep(f))
    if not by_run and not failures:  # no row to show: the runs are not read (a big card project)
        return []
    runs = [r for r in repo.run_rows(project, with_output=False) if r["repetition"] == 1 and keep(r)]
    facts = calls.run_calls(project, [r["id"] for r in runs]) if runs else {}
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in runs:
        groups.setdefault((r["model"], r["prompt"]), []).append(r)
    for key in failures:
        groups.setdefault(key, [])
    rows = []
    for (model, prompt) in sorted(groups):
        group = groups[(model, prompt)]
        if not any(r["id"] in by_run for r in group) and not failures[(model, prompt)] and \
                not any(r["id"] in facts for r in group):
            continue
        finals, rules, gts, combos = [], [], [], Counter()
        for r in group:
            by = by_run.get(r["id"], {})
            rs, gs = _mean(by.get(Method.RULES, [])), _mean(by.get(Method.GROUND_TRUTH, []))
            if rs is not None:
                rules.append(rs)
            if gs is not None:
                gts.append(gs)
            final = path_b_score(rs, gs, w_rules, w_gt)
            if final is not None:
                finals.append(final)
            if rs is not None and gs is not None:
                combos["rules-based+ground-truth"] += 1
            elif rs is not None or gs is not None:
                combos["rules-based" if rs is not None else "ground-truth"] += 1
        errors = failures[(model, prompt)]
        finals += [0.0] * errors
        if errors:
            combos["failed"] += errors
        names = [m for m in ("rules-based+ground-truth", "rules-based", "ground-truth", "failed") if combos[m]]
        method = names[0] if len(names) == 1 else "mixed: " + ", ".join(f"{m} {combos[m]}" for m in names) \
            if names else "-"
        answered = [facts[r["id"]] for r in group if r["id"] in facts]
        times = [f["latency_ms"] / 1000 for f in answered if f["latency_ms"] is not None]
        tokens = [f["total_tokens"] for f in answered if f["total_tokens"] is not None]
        cost = None
        price = (prices or {}).get(model)
        if price is not None:
            costs = [f["prompt_tokens"] * price["input"] + f["completion_tokens"] * price["output"]
                     for f in answered if f["prompt_tokens"] is not None and f["completion_tokens"] is not None]
            cost = _mean(costs)
        rows.append(FailterRow(model, prompt, method, len(group) + errors, errors, _mean(finals), _mean(rules),
                               _mean(gts), _mean(times), _mean([float(t) for t in tokens]), cost))
    return rows


def failter_markdown(rows: list[FailterRow], weights: tuple[float, float], priced: bool) -> str:
    """The Failter report as Markdown (a title, the weights, the table)."""
    total = sum(weights) or 1.0
    note = (f"Avg_Score per trial: {weights[0] / total:g} x Rules_Score + {weights[1] / total:g} x GT_Score when both "
            "judges scored it, else the one score; grades in points (A=100 ... F=20); a failed trial scores 0. "
            "Avg_Time in seconds per answered trial" + ("; Avg_Cost from --prices." if priced else "."))
    if not rows:
        return "## Failter report\n\nNo trials.\n"
    return "## Failter report\n\n" + note + "\n\n" + markdown_table(HEADER, [r.cells() for r in rows]) + "\n"


def failed_markdown(project: Project) -> str:
    """The open failed attempts (requests that failed after their retries
    and were not answered since) as a Markdown section, '' when none."""
    rows = calls.failed_calls(project, open_only=True)
    if not rows:
        return ""
    table = [[r["kind"], r["model"] or "", r["item"] or r["subject"] or "", r["prompt"] or r["judge"] or "",
              str(r["repetition"] or ""), str(r["attempts"]), (r["error"] or "")[:160], r["called_at"]]
             for r in rows]
    return ("## Failed attempts\n\n" + markdown_table(
        ["kind", "model", "item / subject", "prompt / judge", "repetition", "attempts", "error", "at"], table) + "\n")


def failter_json(rows: list[FailterRow]) -> str:
    """The rows as JSON (the keys of HEADER, lower case)."""
    return json.dumps([dict(zip([h.lower() for h in HEADER],
                                [r.model, r.prompt, r.eval_method, r.trials, r.errors, r.avg_score, r.rules_score,
                                 r.gt_score, r.avg_time_s, r.avg_tokens, r.avg_cost])) for r in rows], indent=2)
