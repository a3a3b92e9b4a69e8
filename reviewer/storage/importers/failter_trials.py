"""The trials of a Failter experiment (for the Failter importer,
reviewer.storage.importers.failter, whose module doc describes the layout):
finding the trial outputs of an experiment folder with their .eval files
(the model and prompt read from the folder names or the front matter), and
storing them as runs, failed answer attempts and verdicts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.core.bounded_yaml import MAX_YAML_BYTES
from reviewer.core.judging.verdicts import Scale, Verdict, normalise
from reviewer.storage.files.confine import inside, source_root
from reviewer.storage.importers.base import ImportReport
from reviewer.storage.importers.failter_files import (
    EXCLUDED,
    IGNORED_SUFFIXES,
    JUDGES,
    OUTPUT_ROOTS,
    Judgement,
    front_matter,
    infer_score_scale,
    parse_eval,
    read_text,
    sanitize,
    trial_facts,
)
from reviewer.storage.importers.pairwise import answer_run, free_prompt, store_verdict
from reviewer.storage.judging import calls
from reviewer.storage.project.db import Project


@dataclass
class Trial:
    output: Path
    model: str
    prompt: str
    body: str
    eval_path: Path | None
    judgements: list[Judgement] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    error: str | None = None


def store_trials(
    project: Project,
    exp: Path,
    trials: list[Trial],
    item_of,
    templates: dict[str, str],
    report: ImportReport,
    actor: str | None,
) -> None:
    """Store the trials of the folder ``exp`` as runs of the item
    ``item_of(trial)`` (None: skipped) and their judgements as verdicts."""
    undeclared = [j.score for t in trials for j in t.judgements if j.score is not None and j.scale is None]
    score_scale = infer_score_scale(undeclared)
    if undeclared:
        report.notes.append(
            f"{exp.name}: {len(undeclared)} score(s) without a declared scale read as "
            f"{score_scale.value} (values {min(undeclared):g}..{max(undeclared):g})"
        )
    prompt_ids: dict[str, int] = {}
    unevaluated = undecided = 0
    for trial in trials:
        item_id = item_of(trial)
        if item_id is None:
            continue
        rel = f"{exp.name}/{trial.output.relative_to(exp).as_posix()}"
        if trial.prompt not in prompt_ids:
            prompt_ids[trial.prompt] = free_prompt(
                project, trial.prompt, templates.get(trial.prompt, ""), report, actor
            )
        labels = {"item": _item_name(project, item_id), "prompt": trial.prompt, "model": trial.model, "repetition": 1}
        if trial.error is not None:  # a failed trial: an error in the report, with its message
            report.count(
                "failed trials",
                calls.record_imported_failure(project, f"import {rel}", trial.error, labels, trial_facts(trial.meta)),
            )
            continue
        run_id = answer_run(
            project, item_id, prompt_ids[trial.prompt], trial.model, trial.body, rel, report, rel, actor
        )
        if run_id is None:
            continue
        if trial.meta:
            calls.record_imported_answer(project, run_id, f"import {rel}", trial_facts(trial.meta), labels)
        if trial.eval_path is None:
            unevaluated += 1
        eval_rel = f"{exp.name}/{trial.eval_path.relative_to(exp).as_posix()}" if trial.eval_path else ""
        for j in trial.judgements:
            scale = j.scale or (Scale.GRADE if j.grade else score_scale)
            value = None if j.problem else normalise(j.grade if j.grade else j.score, scale)
            problem = j.problem or ("" if value is not None else f"score {j.score:g} is not on scale {scale.value}")
            undecided += bool(problem)
            store_verdict(
                project,
                Verdict(
                    subject=f"run:{run_id}",
                    run_id=run_id,
                    judge=JUDGES[j.method],
                    judge_model=j.judge_model,
                    prompt_version=trial.prompt,
                    method=j.method,
                    scale=scale,
                    scores={"score": value},
                    issues_found=j.issues_found,
                    rationale=f"undecided: {problem}" if problem else j.rationale,
                    raw=j.raw,
                    source=eval_rel + (f"#{j.block}" if j.block else ""),
                ),
                report,
                actor,
            )
    if unevaluated:
        report.notes.append(f"{exp.name}: {unevaluated} trial output(s) without an .eval (runs imported, no verdict)")
    if undecided:
        report.notes.append(
            f"{exp.name}: {undecided} judgement(s) without a readable score stored as undecided "
            "verdicts (raw reply kept; the report counts them as errors)"
        )


def _item_name(project: Project, item_id: int) -> str:
    row = project.db.execute("SELECT name FROM items WHERE id = ?", [item_id]).fetchone()
    return row[0] if row else ""


def read_trials(exp: Path, inputs: dict[str, Path], templates: dict[str, str], report: ImportReport) -> list[Trial]:
    """Every trial output file of experiment ``exp``, problems added to ``report``."""
    roots = [exp / r for r in OUTPUT_ROOTS if (exp / r).is_dir()] or [exp]
    known = {sanitize(name): name for name in templates}
    own = source_root(exp)
    trials: list[Trial] = []
    evals: set[Path] = set()
    used: set[Path] = set()
    for root in roots:
        for top, dirs, files in os.walk(root):
            here = Path(top)
            if here == exp:
                dirs[:] = [d for d in dirs if d not in EXCLUDED and not d.startswith(".")]
            dirs.sort()
            for name in sorted(files):
                path = here / name
                if name.endswith(".eval"):
                    evals.add(path)
                if name.endswith(IGNORED_SUFFIXES) or name not in inputs:
                    continue
                if not inside(own, path):
                    report.skip(
                        f"{exp.name}/{path.relative_to(exp).as_posix()}",
                        "a link to a file outside the folder imported: not read",
                    )
                    continue
                used.update(
                    p for p in (path.with_name(name + ".eval"), path.with_name(path.stem + ".eval")) if p.is_file()
                )
                trial = read_trial(exp, root, path, known, report)
                if trial is not None:
                    trials.append(trial)
    for path in sorted(evals - used):
        report.skip(f"{exp.name}/{path.relative_to(exp).as_posix()}", "no trial output beside it")
    return trials


def read_trial(exp: Path, root: Path, path: Path, known: dict[str, str], report: ImportReport) -> Trial | None:
    """The trial that ``path`` (under output root ``root``) holds, or None with a problem added to ``report``."""
    rel = f"{exp.name}/{path.relative_to(exp).as_posix()}"
    parts = path.relative_to(root).parts
    try:
        meta, body = front_matter(read_text(path))
    except ValueError as exc:
        report.skip(rel, str(exc))
        return None
    model = prompt = None
    if len(parts) >= 3:
        model, prompt = "/".join(parts[:-2]), parts[-2]
    elif len(parts) == 2:
        folder = parts[0]
        hit = next((s for s in sorted(known, key=len, reverse=True) if folder.endswith("_" + s)), None)
        if hit:
            model, prompt = folder[: -len(hit) - 1], known[hit]
        elif "_" in folder:
            model, prompt = folder.split("_", 1)
    if meta:
        if meta.get("filtered-by-model"):
            model = str(meta["filtered-by-model"])
        if meta.get("filtered-by-template"):
            prompt = Path(str(meta["filtered-by-template"])).stem
    if not model or not prompt:
        report.skip(rel, "cannot tell model and prompt: expected <model>/<prompt>/<doc> or <model>_<prompt>/<doc>")
        return None
    if meta and meta.get("error"):
        return Trial(
            output=path,
            model=model,
            prompt=prompt,
            body="",
            eval_path=None,
            meta=meta,
            error=str(meta["error"]).strip() or "error",
        )
    eval_path = next(
        (
            p
            for p in (path.with_name(path.name + ".eval"), path.with_name(path.stem + ".eval"))
            if p.is_file() and inside(source_root(exp), p)
        ),
        None,
    )
    trial = Trial(output=path, model=model, prompt=prompt, body=body, eval_path=eval_path, meta=meta or {})
    if eval_path is not None:
        eval_rel = f"{exp.name}/{eval_path.relative_to(exp).as_posix()}"
        try:
            trial.judgements, notes = parse_eval(read_text(eval_path, MAX_YAML_BYTES))
        except (ValueError, OSError) as exc:
            report.skip(eval_rel, f"malformed .eval: {exc}")
            return trial
        for note in notes:
            report.notes.append(f"{eval_rel}: {note}")
    return trial
