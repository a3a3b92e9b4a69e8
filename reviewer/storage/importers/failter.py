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
reviewer.storage.files.confine): as written when it lies inside, else
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

import os
from pathlib import Path

from reviewer.storage.files.confine import experiment_root, inside, source_root
from reviewer.storage.importers.base import ImportOptions, ImportReport
from reviewer.storage.importers.failter_files import (
    GT_DIRS,
    IGNORED_SUFFIXES,
    OUTPUT_ROOTS,
    TEMPLATE_DIRS,
    find_source,
    first_dir,
    head_meta,
    read_text,
)
from reviewer.storage.importers.failter_trials import Trial, read_trial, read_trials, store_trials
from reviewer.storage.importers.pairwise import store_reference, text_item
from reviewer.storage.project.db import Project, open_here

#: The Failter files are read by failter_files and the trials stored by
#: failter_trials; callers import their names from there.
__all__ = [
    "detect",
    "import_failter",
]


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


def _outputs(folder: Path) -> list[Path]:
    """The trial outputs of an artifacts folder: files of its subfolders
    (not .eval, .thoughts or hidden), sorted."""
    out = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        out += sorted(
            f
            for f in sub.iterdir()
            if f.is_file() and not f.name.startswith(".") and not f.name.endswith(IGNORED_SUFFIXES) and not open_here(f)
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
            f for f in sub.iterdir() if f.is_file() and not f.name.endswith(IGNORED_SUFFIXES) and not open_here(f)
        )[:3]  # a project open here is read only through SQLite
        for f in files:
            meta = head_meta(f)
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


def _import_artifacts(project: Project, folder: Path, report: ImportReport, actor: str | None) -> None:
    """A bare Failter v2 artifacts folder (module doc)."""
    trials: list[Trial] = []
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
        meta = head_meta(path)
        if not meta or not meta.get("source-input-path"):
            report.skip(rel, "no Failter front matter naming its input (source-input-path)")
            continue
        trial = read_trial(folder, folder, path, {}, report)
        if trial is None:
            continue
        source = find_source(folder, str(meta["source-input-path"]), root)
        if source is None:
            report.skip(rel, f"its input (source-input-path) {meta['source-input-path']} was not found inside {where}")
            continue
        source = source.resolve()
        if source not in inputs_seen:
            name = f"{source.parent.parent.name}/{source.name}"
            inputs_seen[source] = text_item(project, name, read_text(source), report, actor)
            gt_dir = first_dir(source.parent.parent, GT_DIRS)
            if gt_dir is not None and (gt_dir / source.name).is_file() and inside(root, gt_dir / source.name):
                store_reference(project, inputs_seen[source], read_text(gt_dir / source.name), "ground-truth", report)
        items[path] = inputs_seen[source]
        written = meta.get("source-template-path")
        template = find_source(folder, str(written), root) if written else None
        if template is not None and trial.prompt not in templates:
            templates[trial.prompt] = read_text(template)
        elif written and template is None and str(written) not in missing_templates:
            missing_templates.add(str(written))
            report.notes.append(
                f"{rel}: its template (source-template-path) {written} was not found inside "
                f"{where}; the prompt's text is left empty"
            )
        trials.append(trial)
    store_trials(project, folder, trials, lambda t: items.get(t.output), templates, report, actor)


def _own_files(folder: Path, exp: Path, report: ImportReport) -> list[Path]:
    """The files of ``folder`` (not hidden, not a project open here: that
    is read only through SQLite), sorted, that lie inside the experiment
    folder ``exp`` after following symlinks; a link leading out is skipped,
    never read (reviewer.storage.files.confine)."""
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


def _import_experiment(project: Project, exp: Path, report: ImportReport, actor: str | None) -> None:
    inputs = {p.name: p for p in _own_files(exp / "inputs", exp, report)}
    item_ids = {
        name: text_item(project, f"{exp.name}/{name}", read_text(path), report, actor) for name, path in inputs.items()
    }
    gt_dir = first_dir(exp, GT_DIRS)
    if gt_dir is not None:
        for path in _own_files(gt_dir, exp, report):
            if path.name not in item_ids:
                report.skip(f"{exp.name}/{gt_dir.name}/{path.name}", "no input with that name")
                continue
            store_reference(project, item_ids[path.name], read_text(path), "ground-truth", report)
    templates: dict[str, str] = {}  # prompt name -> text
    tdir = first_dir(exp, TEMPLATE_DIRS)
    if tdir is not None:
        for path in _own_files(tdir, exp, report):
            templates[path.stem] = read_text(path)
    trials = read_trials(exp, inputs, templates, report)
    store_trials(project, exp, trials, lambda t: item_ids[t.output.name], templates, report, actor)
