"""``reviewer run P spec.yml``: a Failter v2 experiment as one idempotent
pipeline (docs/failter.md; failter-docs/docs/spec-format.md, Failter's run.clj):
trials, then judging (Path A; Path B with ``dual``), then the report.

The spec: ``version`` 2, ``inputs_dir``, ``templates_dir``,
``artifacts_dir`` (the trials are kept in the project and written there
in Failter's layout: reviewer.pipeline.failter_artifacts), ``templates``
(file names in templates_dir), ``models``, ``judge_model``, optional
``retries`` (Failter's default 0), ``timeout`` and ``concurrency``
(reviewer's, not Failter's) and ``output_file`` (Failter's JSON report,
USAGE.md's shape, also printed on stdout). Relative paths are read from the
spec file's folder. Flags given on the command line (--retries, --model,
--prompt, --timeout, --concurrency) override the spec's values, and the run
says so in one line. The spec is read by core.bounded_yaml (at most 1 MB, a
few aliases) and its retries, timeout and concurrency obey the command
line's bounds (pipeline.limits).

The artifacts and output_file are written whole through
reviewer.storage.files.safe_write and checked before any request: a reviewer
project, a file that is not Failter's (a trial output, .thoughts, .eval, a
Failter JSON report) or a file inside the spec's inputs, ground truth or
templates or inside what the project was imported from is refused unless
``force``.

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

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from reviewer.core.bounded_yaml import YAMLError, read_yaml_file
from reviewer.pipeline import limits
from reviewer.pipeline.ask import RunOptions, run_models
from reviewer.pipeline.batch_out import BatchOut, batch_line
from reviewer.pipeline.execute import Progress, RunSummary, Settings
from reviewer.pipeline.failter_artifacts import Trial, check_artifacts, write_artifacts, write_atomic
from reviewer.pipeline.judge import GT_SOURCE, JudgeOptions, judge_runs
from reviewer.storage.files import safe_write
from reviewer.storage.importers.base import ImportReport
from reviewer.storage.importers.pairwise import free_prompt, store_reference, text_item
from reviewer.storage.judging.failter_report import (
    failed_markdown,
    failter_markdown,
    failter_rows,
    load_prices,
    usage_json,
)
from reviewer.storage.project.db import Project, open_here
from reviewer.storage.repo.sources import import_sources

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
    retries: int | None = None
    output_file: Path | None = None
    artifacts_dir: Path | None = None
    timeout: float | None = None
    concurrency: int | None = None

    @property
    def experiment(self) -> str:
        """The experiment's name: the folder holding inputs_dir."""
        return self.inputs_dir.resolve().parent.name


def load_spec(path: Path) -> Spec:
    """Read and check a Failter v2 spec. Raises SpecError naming the
    problem (not YAML, over 1 MB or an alias bomb, a missing key, version
    not 2, retries, timeout or concurrency outside the command line's
    bounds, a missing folder or template)."""
    try:
        data = read_yaml_file(path)
    except (OSError, YAMLError, UnicodeDecodeError) as exc:
        raise SpecError(f"cannot read the spec {path}: {' '.join(str(exc).split())}") from None
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
    spec = Spec(
        inputs_dir=where(data["inputs_dir"]),
        templates_dir=where(data["templates_dir"]),
        templates=[str(t) for t in data["templates"]],
        models=[str(m) for m in data["models"]],
        judge_model=str(data["judge_model"]),
        retries=_bounded(data, limits.RETRIES, path),
        timeout=_bounded(data, limits.TIMEOUT_S, path),
        concurrency=_bounded(data, limits.CONCURRENCY, path),
        output_file=where(data["output_file"]) if data.get("output_file") else None,
        artifacts_dir=where(data["artifacts_dir"]) if data.get("artifacts_dir") else None,
    )
    for folder in (spec.inputs_dir, spec.templates_dir):
        if not folder.is_dir():
            raise SpecError(f"{path}: no folder {folder}")
    absent = [t for t in spec.templates if not (spec.templates_dir / t).is_file()]
    if absent:
        raise SpecError(f"{path}: no template(s) {', '.join(absent)} in {spec.templates_dir}")
    return spec


def _bounded(data: dict, bound: limits.Bound, path: Path):
    """The spec's value of ``bound.name`` (None when absent) within the
    command line's bound; a number written as a string is read as one.
    Raises SpecError naming the spec and the key."""
    value = data.get(bound.name)
    if value is None:
        return None
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = int(value) if bound.whole else float(value)
    try:
        return bound.check(value)
    except ValueError as exc:
        raise SpecError(f"{path}: {exc}") from None


@dataclass
class SpecResult:
    """What a spec run did: the trials' and the judging's summaries, the
    report (Markdown), Failter's JSON report (USAGE.md's shape), the line
    saying what the command line overrode ('' when nothing), how many
    artifact files were written and, with a batch file, the step written."""

    trials: RunSummary
    judging: RunSummary
    report: str  # '' while a batch step is under way (``step`` says which)
    usage: str = "[]"
    overrides: str = ""
    artifacts_written: int = 0
    step: str = ""  # with a batch file: the step written ('' when the report was made)


def apply_overrides(
    spec: Spec, retries: int | None, models: tuple[str, ...], templates: tuple[str, ...]
) -> tuple[Spec, str]:
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
                store_reference(
                    project,
                    item_id,
                    (gt_dir / path.name).read_text(encoding="utf-8", errors="replace"),
                    GT_SOURCE,
                    report,
                )
        prompts = []
        for template in spec.templates:
            path = spec.templates_dir / template
            free_prompt(project, path.stem, path.read_text(encoding="utf-8", errors="replace"), report)
            prompts.append(path.stem)
    return items, prompts


#: The report rows a spec's output_file holds (a JSON list of objects), to
#: check a file it would replace (reviewer.storage.files.safe_write).
FAILTER_JSON = safe_write.json_format(
    "Failter report JSON file", lambda v: isinstance(v, list) and all(isinstance(r, dict) for r in v)
)


def run_spec(
    project: Project,
    spec_path: Path,
    settings: Settings,
    *,
    dual: bool = False,
    weights: tuple[float, float] = (0.5, 0.5),
    prices: Path | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    retries: int | None = None,
    models: tuple[str, ...] = (),
    templates: tuple[str, ...] = (),
    notice: Callable[[str], None] | None = None,
    force: bool = False,
    given: tuple[str, ...] = (),
    batch: BatchOut | None = None,
) -> SpecResult:
    """Run the spec at ``spec_path`` into ``project`` (module doc).
    ``retries``, ``models``, ``templates``: the command line's flags, which
    override the spec (None / empty: not given); without either, retries
    are the spec's or Failter's default 0. ``given`` names the settings
    ("timeout", "concurrency") set on the command line, which the spec's
    values do not replace. Raises SpecError for a bad spec
    or prices file; ReadOnlyProject, or TargetRefused for the spec's
    output_file or artifacts (module doc; ``force``), before any request;
    ProjectError when the artifacts or output_file cannot be written.
    ``notice(line)`` gets the overrides line before anything is asked.

    With ``batch`` (reviewer.pipeline.batch_out.BatchOut) nothing is sent and
    the spec runs in two steps, each a batch file: step 1 writes the
    trials not stored (while any is unanswered, or held by a batch file,
    the run stops there); step 2 writes the judge requests of the stored
    trials (Path A, or Path B with ``dual``). Once every trial and verdict
    is stored, the report and artifacts are made as without a batch.
    ``SpecResult.step`` says which step was written."""
    project.require_writable("run a Failter spec")
    spec, overrides = apply_overrides(load_spec(spec_path), retries, models, templates)
    kept = [
        f"{k} {getattr(settings, k):g} (spec: {getattr(spec, k):g})"
        for k in ("timeout", "concurrency")
        if k in given and getattr(spec, k) is not None
    ]
    if kept:
        overrides = (overrides + "; " if overrides else "command line overrides the spec: ") + "; ".join(kept)
    sources = _spec_sources(spec) + import_sources(project)
    if spec.output_file is not None:
        safe_write.check_target(spec.output_file, FAILTER_JSON, sources=sources, force=force)
    if spec.artifacts_dir is not None:
        check_artifacts(spec.artifacts_dir, _trials(spec), sources, force)
    if overrides and notice is not None:
        notice(overrides)
    try:
        price_table = load_prices(prices) if prices else None
    except (OSError, ValueError, Exception) as exc:  # noqa: BLE001 - yaml errors too
        raise SpecError(f"cannot read the prices {prices}: {exc}") from None
    settings = replace(settings, retries=spec.retries if spec.retries is not None else 0)
    settings = replace(
        settings,
        **{k: getattr(spec, k) for k in ("timeout", "concurrency") if getattr(spec, k) is not None and k not in given},
    )
    items, prompts = _setup(project, spec)
    trials = RunSummary()
    for model in spec.models:
        s, _ = run_models(
            project,
            settings,
            RunOptions(
                model=model,
                prompts=tuple(prompts),
                items=tuple(items),
                temperature=temperature,
                max_tokens=max_tokens,
                seed=seed,
            ),
            progress=progress,
            cancel=cancel,
            batch=batch,
        )
        trials.add(s)
    if batch is not None and (trials.asked or trials.batched):
        batch.write(project)
        return SpecResult(
            trials,
            RunSummary(),
            "",
            overrides=overrides,
            step=f"step 1 of 2 (trials): {batch_line(batch, trials)}. Import the batch's output "
            "('reviewer import P OUTPUT.jsonl'), then run the same command again for step 2 (judging)",
        )
    judged = judge_runs(
        project,
        settings,
        JudgeOptions(
            kind="failter-gt",
            model=spec.judge_model,
            dual=dual,
            prompts=tuple(prompts),
            items=tuple(items),
            run_models=tuple(spec.models),
        ),
        progress=progress,
        cancel=cancel,
        batch=batch,
    )
    if batch is not None and (judged.asked or judged.batched):
        batch.write(project)
        path = "Path B, both judges" if dual else "Path A"
        return SpecResult(
            trials,
            judged,
            "",
            overrides=overrides,
            step=f"step 2 of 2 (judging, {path}): {batch_line(batch, judged)}. Import the batch's output, "
            "then run the same command again for the report",
        )
    rows = failter_rows(project, weights, price_table, items=items, prompts=prompts, models=spec.models)
    text = failter_markdown(rows, weights, bool(price_table))
    failed = failed_markdown(project)
    if failed:
        text += "\n" + failed
    written = 0
    if spec.artifacts_dir is not None:
        written = write_artifacts(
            project,
            spec.artifacts_dir,
            _trials(spec),
            spec.judge_model,
            dual,
            price_table,
            sources=sources,
            force=force,
        )
    usage = usage_json(rows, {Path(t).stem: t for t in spec.templates})
    if spec.output_file is not None:
        write_atomic(spec.output_file, usage + "\n", FAILTER_JSON, sources=sources, force=force)
    return SpecResult(trials, judged, text, usage, overrides, written)


def _spec_sources(spec: Spec) -> list[Path]:
    """The folders a spec reads: inputs, templates and ground truth."""
    return [spec.inputs_dir, spec.templates_dir] + [
        spec.inputs_dir.parent / d for d in GT_DIRS if (spec.inputs_dir.parent / d).is_dir()
    ]


def _inputs(spec: Spec) -> list[Path]:
    """The input files of the spec (not hidden; not a project open here, which is read only through SQLite)."""
    return sorted(
        p for p in spec.inputs_dir.iterdir() if p.is_file() and not p.name.startswith(".") and not open_here(p)
    )


def _trials(spec: Spec) -> list[Trial]:
    """Every input x template x model of the spec, as Failter's run.clj plans them."""
    return [
        Trial(path, spec.templates_dir / template, model, f"{spec.experiment}/{path.name}", Path(template).stem)
        for path in _inputs(spec)
        for template in spec.templates
        for model in spec.models
    ]
