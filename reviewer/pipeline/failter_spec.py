"""``reviewer run P spec.yml``: a Failter v2 experiment as one idempotent
pipeline (issue 8 §4; failter-docs/docs/spec-format.md, Failter's run.clj):
trials, then judging (Path A; Path B with ``dual``), then the report.

The spec: ``version`` 2, ``inputs_dir``, ``templates_dir``,
``artifacts_dir`` (the trials are kept in the project and written there
in Failter's layout: reviewer.pipeline.failter_artifacts), ``templates``
(file names in templates_dir), ``models``, ``judge_model``, optional
``retries`` (Failter's default 0) and ``output_file`` (Failter's JSON
report, USAGE.md's shape, also printed on stdout). Relative paths are read
from the spec file's folder. Flags given on the command line (--retries,
--model, --prompt) override the spec's retries, models and templates, and
the run says so in one line.

Inputs become text items named '<experiment>/<file>' (experiment: the
folder holding inputs_dir, as the failter importer names them), the
ground truth of an input is ``ground-truth/<file>`` or
``ground_truth/<file>`` beside inputs_dir (a reference, source
'ground-truth'), each template a free-text prompt named by its stem whose
``{{INPUT_TEXT}}`` gets the input. Every input x template x model is asked
once (repetition 1) unless stored; then the judge model judges every trial
not judged yet; the report covers exactly the spec's trials.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Optional

import yaml

from reviewer.pipeline.ask import RunOptions, run_models
from reviewer.pipeline.failter_artifacts import Trial, write_artifacts, write_atomic
from reviewer.pipeline.execute import Progress, Settings, Summary
from reviewer.pipeline.judge import GT_SOURCE, JudgeOptions, judge_runs
from reviewer.storage.db import Project
from reviewer.storage.judging.failter_report import failed_markdown, failter_markdown, failter_rows, load_prices, usage_json
from reviewer.storage.importers.base import ImportReport
from reviewer.storage.importers.pairwise import free_prompt, store_reference, text_item

REQUIRED = ("inputs_dir", "templates_dir", "templates", "models", "judge_model")
GT_DIRS = ("ground-truth", "ground_truth")


class SpecError(ValueError):
    """A spec that cannot be run (message for the user)."""


@dataclass
class Spec:
    """A read spec.yml with absolute paths."""

    inputs_dir: Path
    templates_dir: Path
    templates: list[str]
    models: list[str]
    judge_model: str
    retries: Optional[int] = None
    output_file: Optional[Path] = None
    artifacts_dir: Optional[Path] = None

    @property
    def experiment(self) -> str:
        """The experiment's name: the folder holding inputs_dir."""
        return self.inputs_dir.resolve().parent.name


def load_spec(path: Path) -> Spec:
    """Read and check a Failter v2 spec. Raises SpecError naming the
    problem (not YAML, a missing key, version not 2, a missing folder or
    template)."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SpecError(f"cannot read the spec {path}: {exc}") from None
    if not isinstance(data, dict):
        raise SpecError(f"{path} is not a Failter spec (a YAML mapping)")
    if data.get("version") not in (2, "2"):
        raise SpecError(f"{path}: version must be 2 (Failter spec format 2.0), got {data.get('version')!r}")
    missing = [k for k in REQUIRED if not data.get(k)]
    if missing:
        raise SpecError(f"{path}: missing required key(s): {', '.join(missing)}")
    base = Path(path).resolve().parent
    where = lambda v: (base / str(v)).resolve()  # noqa: E731
    if not isinstance(data["templates"], list) or not isinstance(data["models"], list):
        raise SpecError(f"{path}: templates and models must be lists")
    spec = Spec(inputs_dir=where(data["inputs_dir"]), templates_dir=where(data["templates_dir"]),
                templates=[str(t) for t in data["templates"]], models=[str(m) for m in data["models"]],
                judge_model=str(data["judge_model"]),
                retries=int(data["retries"]) if data.get("retries") is not None else None,
                output_file=where(data["output_file"]) if data.get("output_file") else None,
                artifacts_dir=where(data["artifacts_dir"]) if data.get("artifacts_dir") else None)
    for folder in (spec.inputs_dir, spec.templates_dir):
        if not folder.is_dir():
            raise SpecError(f"{path}: no folder {folder}")
    absent = [t for t in spec.templates if not (spec.templates_dir / t).is_file()]
    if absent:
        raise SpecError(f"{path}: no template(s) {', '.join(absent)} in {spec.templates_dir}")
    return spec


@dataclass
class SpecResult:
    """What a spec run did: the trials' and the judging's summaries, the
    report (Markdown), Failter's JSON report (USAGE.md's shape), the line
    saying what the command line overrode ('' when nothing) and how many
    artifact files were written."""

    trials: Summary
    judging: Summary
    report: str
    usage: str = "[]"
    overrides: str = ""
    artifacts_written: int = 0


def apply_overrides(spec: Spec, retries: Optional[int], models: tuple[str, ...],
                    templates: tuple[str, ...]) -> tuple[Spec, str]:
    """The spec with the command line's flags in place of its values
    (``retries`` None and empty tuples: not given) and the one line saying
    so ('' when nothing was given). A template is named by its file name or
    stem. Raises SpecError for a template not in templates_dir."""
    said = []
    if retries is not None:
        said.append(f"retries {retries} (spec: {spec.retries if spec.retries is not None else 'not set'})")
        spec = replace(spec, retries=retries)
    if models:
        said.append(f"models {', '.join(models)} (spec: {', '.join(spec.models)})")
        spec = replace(spec, models=list(dict.fromkeys(models)))
    if templates:
        files = {p.name: p.name for p in spec.templates_dir.iterdir() if p.is_file()}
        files.update({Path(n).stem: n for n in list(files)})
        absent = [t for t in templates if t not in files]
        if absent:
            raise SpecError(f"no template(s) {', '.join(absent)} in {spec.templates_dir}")
        chosen = list(dict.fromkeys(files[t] for t in templates))
        said.append(f"templates {', '.join(chosen)} (spec: {', '.join(spec.templates)})")
        spec = replace(spec, templates=chosen)
    return spec, ("command line overrides the spec: " + "; ".join(said)) if said else ""


def _setup(project: Project, spec: Spec) -> tuple[list[str], list[str]]:
    """Items, references and prompts of the spec (idempotent). Returns
    (item names, prompt names)."""
    report = ImportReport(format="failter-spec")
    gt_dir = next((spec.inputs_dir.parent / d for d in GT_DIRS if (spec.inputs_dir.parent / d).is_dir()), None)
    items = []
    with project.transaction():
        for path in _inputs(spec):
            name = f"{spec.experiment}/{path.name}"
            item_id = text_item(project, name, path.read_text(encoding="utf-8", errors="replace"), report)
            items.append(name)
            if gt_dir is not None and (gt_dir / path.name).is_file():
                store_reference(project, item_id, (gt_dir / path.name).read_text(encoding="utf-8", errors="replace"),
                                GT_SOURCE, report)
        prompts = []
        for template in spec.templates:
            path = spec.templates_dir / template
            free_prompt(project, path.stem, path.read_text(encoding="utf-8", errors="replace"), report)
            prompts.append(path.stem)
    return items, prompts


def run_spec(project: Project, spec_path: Path, settings: Settings, *, dual: bool = False,
             weights: tuple[float, float] = (0.5, 0.5), prices: Optional[Path] = None,
             temperature: Optional[float] = None, max_tokens: Optional[int] = None, seed: Optional[int] = None,
             progress: Optional[Progress] = None, cancel: Optional[threading.Event] = None,
             retries: Optional[int] = None, models: tuple[str, ...] = (),
             templates: tuple[str, ...] = (), notice: Optional[Callable[[str], None]] = None) -> SpecResult:
    """Run the spec at ``spec_path`` into ``project`` (module doc).
    ``retries``, ``models``, ``templates``: the command line's flags, which
    override the spec (None / empty: not given); without either, retries
    are the spec's or Failter's default 0. Raises SpecError for a bad spec
    or prices file, OSError when the artifacts or output_file cannot be
    written. ``notice(line)`` gets the overrides line before anything is
    asked."""
    spec, overrides = apply_overrides(load_spec(spec_path), retries, models, templates)
    if overrides and notice is not None:
        notice(overrides)
    try:
        price_table = load_prices(prices) if prices else None
    except (OSError, ValueError, Exception) as exc:  # yaml errors too
        raise SpecError(f"cannot read the prices {prices}: {exc}") from None
    settings = replace(settings, retries=spec.retries if spec.retries is not None else 0)
    items, prompts = _setup(project, spec)
    trials = Summary()
    for model in spec.models:
        s, _ = run_models(project, settings, RunOptions(model=model, prompts=tuple(prompts), items=tuple(items),
                                                        temperature=temperature, max_tokens=max_tokens, seed=seed),
                          progress=progress, cancel=cancel)
        for name in ("planned", "skipped", "asked", "answered", "failed", "truncated", "prompt_tokens",
                     "completion_tokens", "wall_s"):
            setattr(trials, name, getattr(trials, name) + getattr(s, name))
        trials.errors += s.errors
    judged = judge_runs(project, settings, JudgeOptions(kind="failter-gt", model=spec.judge_model, dual=dual,
                                                        prompts=tuple(prompts), items=tuple(items),
                                                        run_models=tuple(spec.models)),
                        progress=progress, cancel=cancel)
    rows = failter_rows(project, weights, price_table, items=items, prompts=prompts, models=spec.models)
    text = failter_markdown(rows, weights, bool(price_table))
    failed = failed_markdown(project)
    if failed:
        text += "\n" + failed
    written = 0
    if spec.artifacts_dir is not None:
        written = write_artifacts(project, spec.artifacts_dir, _trials(spec), spec.judge_model, dual, price_table)
    usage = usage_json(rows, {Path(t).stem: t for t in spec.templates})
    if spec.output_file is not None:
        write_atomic(spec.output_file, usage + "\n")
    return SpecResult(trials, judged, text, usage, overrides, written)


def _inputs(spec: Spec) -> list[Path]:
    return sorted(p for p in spec.inputs_dir.iterdir() if p.is_file() and not p.name.startswith("."))


def _trials(spec: Spec) -> list[Trial]:
    """Every input x template x model of the spec, as Failter's run.clj plans them."""
    return [Trial(path, spec.templates_dir / template, model, f"{spec.experiment}/{path.name}", Path(template).stem)
            for path in _inputs(spec) for template in spec.templates for model in spec.models]
