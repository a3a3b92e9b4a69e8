"""Importer: inspect_ai evaluation logs (docs/formats.md), read through
inspect_ai's own reader, ``inspect_ai.log.read_eval_log`` (the optional
extra ``pip install 'reviewer[inspect]'``).

A source is one log (``.eval``, or a ``.json`` log: an object with
``version``, ``status`` and ``eval``) or a folder of them (its top level).

* Each sample is a judged-output text item named ``<task>/<sample id>``,
  its text the input (a chat input's messages joined), its target a
  reference answer, its metadata (and the task's name) the item metadata.
* Each (eval id, epoch) output of a sample is a run of the log's model: the
  run's source is ``inspect <eval id> epoch <n>``
  (reviewer.storage.judging.epochs), its subject the run's own, so the
  epochs of a sample are compared (epochs-disagree disputes), a second log of the
  same task adds runs beside the first, and importing a log again adds
  nothing; a new run gets the next free repetition.
* Each scorer's score is a verdict of the judge named as the scorer, its
  explanation the rationale, its answer and value kept raw, the grader
  model (the scorer's ``model`` option, or the model of the grading
  message) its judge model. Values keep their scale: the letters C, P, I
  (correct, partial, incorrect) on the ordered scale C/I/P (I < P < C,
  stored as points C 100, P 50, I 0), so match's C/I and a partial-credit
  grader's C/P/I are compared on one scale; a scorer that mixes letters
  and numbers on 0-100 (letters as those points); numbers in 0-1 on 0-100
  (x 100), other numbers up to 100 as they are; a dict gives one dimension
  per key. A scalar value's
  dimension is ``score``, so scorers of one sample are compared. A value
  inspect could not decide (NaN, 'N') is an undecided verdict.

Model-graded scorers (a grader model) are rubric judges; the others
(match, includes, exact) are rules-based. Samples without an id or an
output are skipped with the reason.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from reviewer.core.judging.verdicts import CIP_POINTS, Method, Scale, Verdict
from reviewer.storage.importers.base import ImportOptions, ImportReport
from reviewer.storage.importers.pairwise import free_prompt, store_reference, store_verdict, text_item
from reviewer.storage.judging.epochs import epoch_source
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.repo.item_metadata import add_item_metadata

INSTALL = "inspect logs need inspect_ai: pip install 'reviewer[inspect]'"
#: Dimension of a scalar score.
SCORE = "score"


def _is_json_log(path: Path) -> bool:
    if path.suffix.lower() != ".json" or not path.is_file() or path.stat().st_size > 200_000_000:
        return False
    try:
        with path.open("rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return False
    return head.lstrip().startswith("{") and '"eval"' in head and '"version"' in head and '"status"' in head


def _logs(source: Path) -> list[Path]:
    if source.is_file():
        return [source] if source.suffix.lower() == ".eval" or _is_json_log(source) else []
    return sorted(p for p in source.iterdir() if p.is_file() and (p.suffix.lower() == ".eval" or _is_json_log(p)))


def detect(source: Path) -> bool:
    """A ``.eval`` file, a ``.json`` inspect log, or a folder holding them."""
    try:
        return bool(_logs(source))
    except OSError:
        return False


def _reader():
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ProjectError(INSTALL) from None
    return read_eval_log


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # chat messages
        parts = []
        for m in value:
            text = getattr(m, "text", None)
            parts.append(text if isinstance(text, str) else str(getattr(m, "content", m)))
        return "\n\n".join(parts)
    return "" if value is None else str(value)


def _grader(log: Any, scorer: str, score: Any) -> str | None:
    for s in getattr(log.eval, "scorers", None) or []:
        if s.name == scorer:
            model = (s.options or {}).get("model")
            if isinstance(model, dict) and isinstance(model.get("model"), str):
                return model["model"]
            if isinstance(model, str):
                return model
    grading = (score.metadata or {}).get("grading") if isinstance(score.metadata, dict) else None
    if isinstance(grading, list):
        for m in reversed(grading):
            if isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("model"), str):
                return m["model"]
    return None


def _scales(log: Any) -> dict[tuple[str, str], Scale]:
    """{(scorer, dimension): scale} over every sample of the log (module doc)."""
    seen: dict[tuple[str, str], set] = {}
    for sample in log.samples or []:
        for name, score in (sample.scores or {}).items():
            values = score.value if isinstance(score.value, dict) else {SCORE: score.value}
            for dim, v in values.items():
                seen.setdefault((name, str(dim)), set()).add(v if isinstance(v, str) else "number")
    out = {}
    for key, kinds in seen.items():
        letters = {k for k in kinds if isinstance(k, str) and k != "number"}
        out[key] = Scale.CIP if letters <= {"C", "P", "I", "N"} and "number" not in kinds else Scale.PERCENT
    return out


def _value(v: Any, scale: Scale, unit: bool) -> Any:
    """The normalised value (None: undecided) of a score value on ``scale``;
    ``unit``: numbers of this scorer lie in 0-1."""
    if isinstance(v, bool):
        v = 1.0 if v else 0.0
    if isinstance(v, str):
        letter = v.strip().upper()
        return CIP_POINTS.get(letter)
    if isinstance(v, (int, float)) and math.isfinite(v):
        x = float(v) * (100.0 if unit else 1.0)
        return x if 0.0 <= x <= 100.0 else None
    return None


def _run(project: Project, item_id: int, prompt_id: int, model: str, output: str, key: str, actor) -> tuple[int, bool]:
    row = project.db.execute(
        "SELECT id FROM runs WHERE item_id = ? AND prompt_id = ? AND model = ? AND source = ?",
        [item_id, prompt_id, model, key],
    ).fetchone()
    if row:
        return int(row[0]), False
    last = project.db.execute(
        "SELECT max(repetition) FROM runs WHERE item_id = ? AND prompt_id = ? AND model = ?",
        [item_id, prompt_id, model],
    ).fetchone()[0]
    run_id, status = repo_runs.add_run(
        project, item_id, prompt_id, model, output, repetition=int(last or 0) + 1, source=key, actor=actor
    )
    if run_id is None:
        raise ValueError(status)
    return run_id, True


def import_inspect(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import the inspect logs of ``source`` (module doc). Raises
    ProjectError naming what to install when inspect_ai is missing.
    Idempotent."""
    read_eval_log = _reader()
    report = ImportReport(format="inspect-log")
    actor = options.actor
    for path in _logs(source):
        try:
            log = read_eval_log(str(path))
        except Exception as exc:  # noqa: BLE001 - inspect_ai's reader raises many kinds on a bad file
            report.skip(path.name, f"not an inspect log inspect_ai can read: {exc}".splitlines()[0])
            continue
        _import_log(project, path, log, report, actor)
    return report


def _import_log(project: Project, path: Path, log: Any, report: ImportReport, actor: str | None) -> None:
    task, model, eval_id = log.eval.task, log.eval.model, log.eval.eval_id
    scales = _scales(log)
    unit: dict[tuple[str, str], bool] = {}
    for sample in log.samples or []:
        for name, score in (sample.scores or {}).items():
            values = score.value if isinstance(score.value, dict) else {SCORE: score.value}
            for dim, v in values.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                    unit[(name, str(dim))] = unit.get((name, str(dim)), True) and 0.0 <= float(v) <= 1.0
    with project.batched(auto=True):
        prompt_id = free_prompt(project, f"inspect:{task}", "", report, actor)
        for i, sample in enumerate(log.samples or []):
            where = f"{path.name} sample {sample.id!r} epoch {sample.epoch}"
            if sample.id is None:
                report.skip(f"{path.name} sample [{i}]", "no id")
                continue
            item_id = text_item(project, f"{task}/{sample.id}", _text(sample.input), report, actor)
            meta = {"task": task}
            meta.update({str(k): v for k, v in (sample.metadata or {}).items() if _jsonable(v)})
            add_item_metadata(project, item_id, meta)
            target = sample.target if isinstance(sample.target, str) else "\n".join(sample.target or [])
            store_reference(project, item_id, target, f"inspect target ({task})", report)
            output = sample.output.completion if sample.output is not None else None
            if output is None:
                report.skip(where, "no output")
                continue
            key = epoch_source(eval_id, sample.epoch)
            try:
                run_id, made = _run(project, item_id, prompt_id, model, output, key, actor)
            except ValueError as exc:
                report.skip(where, str(exc))
                continue
            report.count("runs", made)
            for name, score in (sample.scores or {}).items():
                values = score.value if isinstance(score.value, dict) else {SCORE: score.value}
                grader = _grader(log, name, score)
                by_scale: dict[Scale, dict[str, Any]] = {}
                for dim, v in values.items():
                    scale = scales[(name, str(dim))]
                    by_scale.setdefault(scale, {})[str(dim)] = _value(v, scale, unit.get((name, str(dim)), False))
                for scale, scores in by_scale.items():
                    store_verdict(
                        project,
                        Verdict(
                            subject=f"run:{run_id}",
                            run_id=run_id,
                            judge=name,
                            judge_model=grader,
                            method=Method.RUBRIC if grader else Method.RULES,
                            scale=scale,
                            scores=scores,
                            rationale=score.explanation or "",
                            raw=json.dumps({"value": _plain(score.value), "answer": score.answer}, default=str),
                            source=f"{path.name} {key}",
                        ),
                        report,
                        actor,
                    )


def _plain(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def _jsonable(v: Any) -> bool:
    try:
        json.dumps(v, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True
