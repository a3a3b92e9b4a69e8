"""Importer: Failter experiment folders with ground-truth judging
(ground-truth-judge-proposal.md; github.com/pragsmike/failter).

Layout of an experiment folder (or of each experiment subfolder of the
folder given)::

    <experiment>/
      inputs/<doc>.md              the documents: one text item each,
                                   named '<experiment>/<doc>.md'
      ground-truth/<doc>.md        optional, for a SUBSET of the inputs (same
                                   file names; ground_truth/ also read): the
                                   item's reference (source 'ground-truth')
      templates/<prompt>.md        optional prompt texts (prompts/ also read)
      trial outputs, each with its .eval beside it, in either layout
        (a) <root>/<model>/<prompt>/<doc>.md    the model may span folders
                                                (openai/gpt-4o-mini/<prompt>/...)
        (b) <root>/<model>_<prompt>/<doc>.md    Failter's exp_paths: names with
                                                '/', ':', '.' and spaces made '-'
        where <root> is results/, else outputs/, else the experiment folder
        (inputs/, ground-truth/, templates/, prompts/ excluded)
      .eval: '<doc>.md.eval' (Failter's) or '<doc>.eval' beside the output
      .thoughts, report.md, report.csv, model-names.txt: ignored

A trial output is a file named like an input. A leading YAML front matter
written by Failter (keys 'filtered-by-model', 'filtered-by-template', ...)
names the model and prompt (it wins over the folder names) and is not part
of the run's output; one with 'error' is a failed trial: stored as a failed
answer attempt (storage.judging.calls) with its message, retries and time, which
the Failter report counts in Trials and Errors. The front matter's
execution-time-ms, total-trial-time-ms, token-usage, retry-attempts,
errors-on-retry and estimated-cost become the run's call facts. In layout
(b) the folder name is split before a known template name, else at the first
'_'. Each output is a run (item = input doc, prompt = prompt name, model).

An .eval is read as a live judge's reply is (reviewer.core.judging.replies):
YAML, a JSON object, or plain 'key: value' lines when it is not valid YAML
(Failter's eval.clj writes 'score:', 'rationale:', 'evaluation-method:',
'judge-model:'; only the known keys start a line, so a rationale may run
over several lines). Keys may use '-' or '_'. Forms:

    single   grade: A-F | score: N, rationale, evaluation-method: rules-based |
             ground-truth (missing: rules-based, noted), judge-model, scale?
    dual     rules_based_eval: {grade|score, rationale, judge-model?}
             ground_truth_eval: {grade|score, rationale, judge-model?}
             (Path B: only rules_based_eval where there is no ground truth)

**A bare artifacts folder** (Failter v2's ``artifacts_dir``, without an
``inputs/`` beside it): ``<artifacts>/<model>_<template>/<input file>``,
each output with Failter's front matter naming its sources
(runner.clj: ``source-input-path``, ``source-template-path``), as
``failter run spec.yml`` writes it. The folder is recognised by those keys
in the outputs of its subfolders. Each output's input is read from
``source-input-path``, inside the experiment folder holding the artifacts
folder only (the nearest ancestor with ``inputs/`` or a spec file;
reviewer.storage.confine): as written when it lies inside, else
(a relative path, a folder moved since, or a path outside, which is never
read as written) the path or its last two or three parts under the
artifacts folder or one of its ancestors up to the experiment folder.
The item is named '<experiment>/<input file>' (experiment: the folder
holding the inputs folder, as ``reviewer run spec.yml`` names it); the
ground truth is ``ground_truth/`` or ``ground-truth/`` beside the
inputs folder (Failter: '/inputs/' made '/ground_truth/'); the prompt's
text is the template at ``source-template-path`` (found the same way; when
it is not, the prompt's text is left empty, with a note). An output whose
input cannot be found is skipped with the path it named.

Each judgement becomes a verdict on subject ``run:<run id>``: judge
'rules-judge' (method rules-based) or 'gt-judge' (method ground-truth),
judge_model = the declared judge model, prompt_version = the prompt name,
dimension 'score'. A grade is scale A-F stored as points (GRADE_POINTS:
A=100 ... F=20). A score's scale is the declared ``scale`` ('1-5', '0-100')
when given; otherwise it is decided once per experiment from the values:
all undeclared scores within 1..5 -> '1-5' (the rubric's grade-as-number
form), any outside (0, or above 5) -> '0-100' (Failter's numeric-100
strategy, where 0 marks a failed parse). The decision is noted in the report.
A judgement without a readable score (nothing readable, no grade or score,
a grade not A-F, a score off its scale, ``error:`` as reviewer writes a
failed judgement, a dual block that is not a mapping) is an undecided
verdict (score None, the reason in its rationale), as a live judge's
unreadable reply is; in the dual form a bad block does not spoil the good
one. An unknown evaluation-method is skipped with the reason. The raw text
of the judgement is kept in Verdict.raw.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import yaml

from reviewer.core.bounded_yaml import MAX_YAML_BYTES, YAMLLimitError, load_yaml
from reviewer.core.judging import replies
from reviewer.core.judging.verdicts import Method, Scale, Verdict, normalise
from reviewer.storage.judging import calls
from reviewer.storage.db import Project, open_here
from reviewer.storage.importers.base import ImportOptions, ImportReport
from reviewer.storage.confine import experiment_root, find_inside, inside, source_root
from reviewer.storage.importers.pairwise import (
    answer_run,
    free_prompt,
    store_reference,
    store_verdict,
    text_item,
)

GT_DIRS = ("ground-truth", "ground_truth")
TEMPLATE_DIRS = ("templates", "prompts")
OUTPUT_ROOTS = ("results", "outputs")
_EXCLUDED = {"inputs", *GT_DIRS, *TEMPLATE_DIRS}
_IGNORED_SUFFIXES = (".eval", ".thoughts")
JUDGES = {Method.RULES: "rules-judge", Method.GROUND_TRUTH: "gt-judge"}
_DUAL = {"rules-based-eval": Method.RULES, "ground-truth-eval": Method.GROUND_TRUTH}
_METHODS = {
    "rules-based": Method.RULES,
    "rules": Method.RULES,
    "ground-truth": Method.GROUND_TRUTH,
    "gt": Method.GROUND_TRUTH,
}
_FAILTER_KEYS = {
    "filtered-by-model",
    "filtered-by-template",
    "model-name",
    "source-input-path",
    "source-template-path",
    "execution-time-ms",
    "total-trial-time-ms",
    "token-usage",
    "error",
}


@dataclass
class Judgement:
    """One judgement read from an .eval file, before its score's scale is
    settled: ``grade`` (a letter) or ``score`` (a number) with the declared
    ``scale`` if any; ``block``: '' for the single form, else the dual key;
    ``problem``: why no score could be read (an undecided verdict)."""

    method: Method
    grade: Optional[str] = None
    score: Optional[float] = None
    scale: Optional[Scale] = None
    rationale: str = ""
    judge_model: Optional[str] = None
    issues_found: list[str] = field(default_factory=list)
    raw: str = ""
    block: str = ""
    problem: str = ""


# -- .eval parsing (pure; the reader is reviewer.core.judging.replies, as for live judging) --------
_key = replies.key


def _check_yaml_bounds(text: str) -> None:
    """Raise ValueError('refused: ...') when ``text`` (fences dropped)
    breaks the YAML bounds (core.bounded_yaml: over 1 MB, an alias bomb,
    too deep); other YAML errors are left to the reply reader."""
    try:
        load_yaml("\n".join(line for line in text.splitlines() if not line.strip().startswith("```")))
    except YAMLLimitError as exc:
        raise ValueError(f"refused: {exc}") from None
    except yaml.YAMLError:
        pass


def _judgement(block: dict[str, Any], method: Method, default_model: Optional[str], raw: str, name: str) -> Judgement:
    block = {_key(k): v for k, v in block.items()}
    j = Judgement(
        method=method,
        raw=raw,
        block=name,
        rationale=replies.rationale_of(block),
        judge_model=str(block.get("judge-model") or default_model or "").strip() or None,
    )
    issues = block.get("issues-found")
    if isinstance(issues, list):
        j.issues_found = [str(i) for i in issues]
    score = replies.read_score(block)
    j.grade, j.score, j.scale, j.problem = score.grade, score.value, score.scale, score.problem
    if not j.rationale and block.get("error"):
        j.rationale = str(block["error"]).strip()
    if isinstance(block.get("raw-reply"), str) and block["raw-reply"].strip():
        j.raw = block["raw-reply"]  # the judge's own reply, as reviewer writes an unreadable one
    return j


def parse_eval(text: str) -> tuple[list[Judgement], list[str]]:
    """The judgements of an .eval text and notes on how it was read (see
    module doc for the forms). A judgement without a readable score comes
    back with ``problem`` set (stored as an undecided verdict); a text with
    nothing readable is one such rules-based judgement. Raises ValueError
    for an unknown evaluation-method and for a text the YAML bounds refuse."""
    _check_yaml_bounds(text)
    data = replies.reply_fields(text)
    if not data:
        return [Judgement(method=Method.RULES, raw=text.strip(), problem="no grade or score in the judge's reply")], [
            "nothing readable: an undecided rules-based verdict"
        ]
    default_model = data.get("judge-model")
    dual = [k for k in _DUAL if k in data]
    found: list[Judgement] = []
    notes: list[str] = []
    if dual:
        for key in dual:
            block = data[key]
            name = key.replace("-", "_")
            raw = yaml.safe_dump({name: block}, sort_keys=False, allow_unicode=True).strip()
            if not isinstance(block, dict):
                found.append(
                    Judgement(
                        method=_DUAL[key],
                        raw=raw,
                        block=name,
                        problem=f"{name} is not a mapping",
                        judge_model=str(default_model).strip() if default_model else None,
                    )
                )
                continue
            found.append(_judgement(block, _DUAL[key], default_model, raw, name))
        return found, notes
    method_text = data.get("evaluation-method")
    method: Optional[Method]
    if method_text is None:
        method = Method.RULES
        notes.append("no evaluation-method: read as rules-based")
    else:
        method = _METHODS.get(_key(method_text))
        if method is None:
            raise ValueError(f"unknown evaluation-method {method_text!r} (rules-based or ground-truth)")
    return [_judgement(data, method, default_model, text.strip(), "")], notes


def infer_score_scale(scores: list[float]) -> Scale:
    """The scale of an experiment's undeclared numeric scores: 1-5 when all
    lie within 1..5, else 0-100."""
    return Scale.ORDINAL5 if scores and all(1 <= s <= 5 for s in scores) else Scale.PERCENT


def sanitize(name: str) -> str:
    """A model or template name as Failter puts it in a folder name
    (exp_paths.clj: '.prompt'/'.md' dropped, runs of '/', ':', '.' and
    white space made '-')."""
    return re.sub(r"[/:.\s]+", "-", re.sub(r"\.md$", "", re.sub(r"\.prompt$", "", name)))


def front_matter(text: str) -> tuple[Optional[dict], str]:
    """(Failter's metadata, body) of a trial output: the leading '---' YAML
    block when it holds Failter's keys, else (None, text). Raises
    ValueError when the block is refused by the YAML bounds
    (core.bounded_yaml: over 1 MB, an alias bomb)."""
    if not text.startswith("---"):
        return None, text
    m = re.match(r"^---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", text, re.DOTALL)
    if not m:
        return None, text
    try:
        meta = load_yaml(m[1])
    except YAMLLimitError as exc:
        raise ValueError(f"front matter refused: {exc}") from None
    except yaml.YAMLError:
        return None, text
    if not isinstance(meta, dict) or not {_key(k) for k in meta} & _FAILTER_KEYS:
        return None, text
    return {_key(k): v for k, v in meta.items()}, text[m.end() :]


# -- folders ---------------------------------------------------------------------------
def _is_experiment(folder: Path) -> bool:
    inputs = folder / "inputs"
    if not (folder.is_dir() and inputs.is_dir() and any(p.is_file() for p in inputs.iterdir())):
        return False
    if any((folder / d).is_dir() for d in (*GT_DIRS, "templates", *OUTPUT_ROOTS)):
        return True
    for top, dirs, files in os.walk(folder):
        if Path(top).relative_to(folder).parts[:1] == ("inputs",) or len(Path(top).relative_to(folder).parts) > 4:
            dirs[:] = []
            continue
        if any(f.endswith(".eval") for f in files):
            return True
    return False


def _experiments(source: Path) -> list[Path]:
    if _is_experiment(source):
        return [source]
    if not source.is_dir():
        return []
    return [p for p in sorted(source.iterdir()) if _is_experiment(p)]


def _head_meta(path: Path, limit: int = 65536) -> Optional[dict]:
    """Failter's front matter of a file, reading at most ``limit`` bytes."""
    try:
        with path.open("rb") as f:
            head = f.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None
    try:
        return front_matter(head)[0]
    except ValueError:
        return None


def _outputs(folder: Path) -> list[Path]:
    """The trial outputs of an artifacts folder: files of its subfolders
    (not .eval, .thoughts or hidden), sorted."""
    out = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        out += sorted(
            f
            for f in sub.iterdir()
            if f.is_file()
            and not f.name.startswith(".")
            and not f.name.endswith(_IGNORED_SUFFIXES)
            and not open_here(f)
        )
    return out


def _is_artifacts(folder: Path) -> bool:
    """A bare Failter v2 artifacts folder (module doc): no inputs/, and an
    output of one of its first subfolders has front matter with
    filtered-by-model and source-input-path."""
    if not folder.is_dir() or (folder / "inputs").is_dir():
        return False
    subs = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))[:50]
    for sub in subs:
        files = sorted(
            f for f in sub.iterdir() if f.is_file() and not f.name.endswith(_IGNORED_SUFFIXES) and not open_here(f)
        )[:3]  # a project open here is read only through SQLite
        for f in files:
            meta = _head_meta(f)
            if meta and meta.get("filtered-by-model") and meta.get("source-input-path"):
                return True
    return False


def _artifact_folders(source: Path) -> list[Path]:
    if _is_artifacts(source):
        return [source]
    if not source.is_dir():
        return []
    return [p for p in sorted(source.iterdir()) if p.is_dir() and _is_artifacts(p)]


def detect(source: Path) -> bool:
    """A Failter experiment folder (inputs/ with files, and ground-truth/,
    templates/, results/, outputs/ or .eval files), or a folder of them; or
    a bare Failter v2 artifacts folder (or a folder holding one)."""
    return bool(_experiments(source)) or bool(_artifact_folders(source))


def find_source(folder: Path, written: str, root: Optional[Path] = None) -> Optional[Path]:
    """The file a Failter front matter path names (module doc), inside the
    experiment folder ``root`` only (default: the one holding ``folder``,
    reviewer.storage.confine.experiment_root): ``written`` as it
    is when it lies inside, else it or its last three or two parts under
    ``folder`` or one of its ancestors up to ``root``; None when not found.
    A path outside ``root`` is never read as written."""
    return find_inside(root or experiment_root(folder), folder, written)


def _first_dir(folder: Path, names: tuple[str, ...]) -> Optional[Path]:
    return next((folder / n for n in names if (folder / n).is_dir()), None)


def _read(path: Path, limit: Optional[int] = None) -> str:
    """The text of ``path``; with ``limit``, ValueError for a file over
    ``limit`` bytes (read no further)."""
    if limit is None:
        return path.read_text(encoding="utf-8", errors="replace")
    with path.open("rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"larger than {limit:,} bytes")
    return data.decode("utf-8", errors="replace")


@dataclass
class _Trial:
    output: Path
    model: str
    prompt: str
    body: str
    eval_path: Optional[Path]
    judgements: list[Judgement] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    error: Optional[str] = None


def _count(value: Any) -> Optional[float]:
    """A front-matter number (time, tokens, cost): finite and >= 0, else None."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) and 0 <= number < 1e15 else None


def trial_facts(meta: dict) -> dict:
    """The call facts (storage.judging.calls) of Failter's front matter: execution-
    time-ms (latency), total-trial-time-ms, token-usage (prompt_tokens,
    completion_tokens, total_tokens), retry-attempts (attempts - 1),
    errors-on-retry, estimated-cost. Values that are not finite, >= 0
    numbers are left out."""
    usage = meta.get("token-usage")
    if not isinstance(usage, dict):
        usage = {}
    usage = {_key(k).replace("-", "_"): v for k, v in usage.items()}
    tokens = {
        k: (None if (n := _count(usage.get(k))) is None else int(n))
        for k in ("prompt_tokens", "completion_tokens", "total_tokens")
    }
    if (
        tokens["total_tokens"] is None
        and tokens["prompt_tokens"] is not None
        and tokens["completion_tokens"] is not None
    ):
        tokens["total_tokens"] = tokens["prompt_tokens"] + tokens["completion_tokens"]
    retries = _count(meta.get("retry-attempts"))
    errors = meta.get("errors-on-retry")
    return {
        "latency_ms": _count(meta.get("execution-time-ms")),
        "total_ms": _count(meta.get("total-trial-time-ms")),
        **tokens,
        "attempts": int(retries) + 1 if retries is not None and retries < 1000 else 1,
        "retry_errors": [str(e) for e in errors] if isinstance(errors, list) else [],
        "cost": _count(meta.get("estimated-cost")),
    }


def import_failter(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import a Failter experiment folder, or each experiment subfolder of
    ``source`` (see module doc). Idempotent."""
    report = ImportReport(format="failter")
    experiments = _experiments(source)
    with project.batched(auto=True):
        for experiment in experiments:
            _import_experiment(project, experiment, report, options.actor)
        for folder in [] if experiments else _artifact_folders(source):
            _import_artifacts(project, folder, report, options.actor)
    return report


def _import_artifacts(project: Project, folder: Path, report: ImportReport, actor: Optional[str]) -> None:
    """A bare Failter v2 artifacts folder (module doc)."""
    trials: list[_Trial] = []
    items: dict[Path, int] = {}  # trial output -> item id
    templates: dict[str, str] = {}
    inputs_seen: dict[Path, int] = {}
    root = experiment_root(folder)
    where = f"the experiment folder {root.name or root}"
    missing_templates: set[str] = set()
    for path in _outputs(folder):
        rel = f"{folder.name}/{path.relative_to(folder).as_posix()}"
        if not inside(root, path):
            report.skip(rel, "a link to a file outside the folder imported: not read")
            continue
        meta = _head_meta(path)
        if not meta or not meta.get("source-input-path"):
            report.skip(rel, "no Failter front matter naming its input (source-input-path)")
            continue
        trial = _trial(folder, folder, path, {}, report)
        if trial is None:
            continue
        source = find_source(folder, str(meta["source-input-path"]), root)
        if source is None:
            report.skip(rel, f"its input (source-input-path) {meta['source-input-path']} was not found inside {where}")
            continue
        source = source.resolve()
        if source not in inputs_seen:
            name = f"{source.parent.parent.name}/{source.name}"
            inputs_seen[source] = text_item(project, name, _read(source), report, actor)
            gt_dir = _first_dir(source.parent.parent, GT_DIRS)
            if gt_dir is not None and (gt_dir / source.name).is_file() and inside(root, gt_dir / source.name):
                store_reference(project, inputs_seen[source], _read(gt_dir / source.name), "ground-truth", report)
        items[path] = inputs_seen[source]
        written = meta.get("source-template-path")
        template = find_source(folder, str(written), root) if written else None
        if template is not None and trial.prompt not in templates:
            templates[trial.prompt] = _read(template)
        elif written and template is None and str(written) not in missing_templates:
            missing_templates.add(str(written))
            report.notes.append(
                f"{rel}: its template (source-template-path) {written} was not found inside "
                f"{where}; the prompt's text is left empty"
            )
        trials.append(trial)
    _store_trials(project, folder, trials, lambda t: items.get(t.output), templates, report, actor)


def _own_files(folder: Path, exp: Path, report: ImportReport) -> list[Path]:
    """The files of ``folder`` (not hidden, not a project open here: that
    is read only through SQLite), sorted, that lie inside the experiment
    folder ``exp`` after following symlinks; a link leading out is skipped,
    never read (reviewer.storage.confine)."""
    root, out = source_root(exp), []
    for p in sorted(folder.iterdir()):
        if not p.is_file() or p.name.startswith(".") or open_here(p):
            continue
        if inside(root, p):
            out.append(p)
        else:
            report.skip(
                f"{exp.name}/{p.relative_to(exp).as_posix()}", "a link to a file outside the folder imported: not read"
            )
    return out


def _import_experiment(project: Project, exp: Path, report: ImportReport, actor: Optional[str]) -> None:
    inputs = {p.name: p for p in _own_files(exp / "inputs", exp, report)}
    item_ids = {
        name: text_item(project, f"{exp.name}/{name}", _read(path), report, actor) for name, path in inputs.items()
    }
    gt_dir = _first_dir(exp, GT_DIRS)
    if gt_dir is not None:
        for path in _own_files(gt_dir, exp, report):
            if path.name not in item_ids:
                report.skip(f"{exp.name}/{gt_dir.name}/{path.name}", "no input with that name")
                continue
            store_reference(project, item_ids[path.name], _read(path), "ground-truth", report)
    templates: dict[str, str] = {}  # prompt name -> text
    tdir = _first_dir(exp, TEMPLATE_DIRS)
    if tdir is not None:
        for path in _own_files(tdir, exp, report):
            templates[path.stem] = _read(path)
    trials = _trials(exp, inputs, templates, report)
    _store_trials(project, exp, trials, lambda t: item_ids[t.output.name], templates, report, actor)


def _store_trials(
    project: Project,
    exp: Path,
    trials: list[_Trial],
    item_of,
    templates: dict[str, str],
    report: ImportReport,
    actor: Optional[str],
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


def _trials(exp: Path, inputs: dict[str, Path], templates: dict[str, str], report: ImportReport) -> list[_Trial]:
    roots = [exp / r for r in OUTPUT_ROOTS if (exp / r).is_dir()] or [exp]
    known = {sanitize(name): name for name in templates}
    own = source_root(exp)
    trials: list[_Trial] = []
    evals: set[Path] = set()
    used: set[Path] = set()
    for root in roots:
        for top, dirs, files in os.walk(root):
            here = Path(top)
            if here == exp:
                dirs[:] = [d for d in dirs if d not in _EXCLUDED and not d.startswith(".")]
            dirs.sort()
            for name in sorted(files):
                path = here / name
                if name.endswith(".eval"):
                    evals.add(path)
                if name.endswith(_IGNORED_SUFFIXES) or name not in inputs:
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
                trial = _trial(exp, root, path, known, report)
                if trial is not None:
                    trials.append(trial)
    for path in sorted(evals - used):
        report.skip(f"{exp.name}/{path.relative_to(exp).as_posix()}", "no trial output beside it")
    return trials


def _trial(exp: Path, root: Path, path: Path, known: dict[str, str], report: ImportReport) -> Optional[_Trial]:
    rel = f"{exp.name}/{path.relative_to(exp).as_posix()}"
    parts = path.relative_to(root).parts
    try:
        meta, body = front_matter(_read(path))
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
        return _Trial(
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
    trial = _Trial(output=path, model=model, prompt=prompt, body=body, eval_path=eval_path, meta=meta or {})
    if eval_path is not None:
        eval_rel = f"{exp.name}/{eval_path.relative_to(exp).as_posix()}"
        try:
            trial.judgements, notes = parse_eval(_read(eval_path, MAX_YAML_BYTES))
        except (ValueError, OSError) as exc:
            report.skip(eval_rel, f"malformed .eval: {exc}")
            return trial
        for note in notes:
            report.notes.append(f"{eval_rel}: {note}")
    return trial
