"""``reviewer run P spec.yml``: a Failter v2 experiment as one idempotent
pipeline (issue 8 §4; failter-docs/docs/spec-format.md, Failter's run.clj):
trials, then judging (Path A; Path B with ``dual``), then the report.

The spec: ``version`` 2, ``inputs_dir``, ``templates_dir``,
``artifacts_dir`` (accepted; the trials are kept in the project, not
there), ``templates`` (file names in templates_dir), ``models``,
``judge_model``, optional ``retries`` (overrides --retries) and
``output_file`` (the report rows are also written there as JSON, replacing
the file whole: reviewer.storage.safe_write; checked before any request,
so a project, a file that is not a Failter report or a file inside the
spec's inputs, ground truth or templates is refused unless ``force``).
Relative paths are read from the spec file's folder.

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
from typing import Optional

import yaml

from reviewer.pipeline.ask import RunOptions, run_models
from reviewer.pipeline.execute import Progress, Settings, Summary
from reviewer.pipeline.judge import GT_SOURCE, JudgeOptions, judge_runs
from reviewer.storage.db import Project
from reviewer.storage import safe_write
from reviewer.storage.sources import import_sources
from reviewer.storage.failter_report import failed_markdown, failter_json, failter_markdown, failter_rows, load_prices
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
                output_file=where(data["output_file"]) if data.get("output_file") else None)
    for folder in (spec.inputs_dir, spec.templates_dir):
        if not folder.is_dir():
            raise SpecError(f"{path}: no folder {folder}")
    absent = [t for t in spec.templates if not (spec.templates_dir / t).is_file()]
    if absent:
        raise SpecError(f"{path}: no template(s) {', '.join(absent)} in {spec.templates_dir}")
    return spec


@dataclass
class SpecResult:
    """What a spec run did: the trials' and the judging's summaries and the
    report (Markdown)."""

    trials: Summary
    judging: Summary
    report: str


def _setup(project: Project, spec: Spec) -> tuple[list[str], list[str]]:
    """Items, references and prompts of the spec (idempotent). Returns
    (item names, prompt names)."""
    report = ImportReport(format="failter-spec")
    gt_dir = next((spec.inputs_dir.parent / d for d in GT_DIRS if (spec.inputs_dir.parent / d).is_dir()), None)
    items = []
    with project.transaction():
        for path in sorted(p for p in spec.inputs_dir.iterdir() if p.is_file() and not p.name.startswith(".")):
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


#: The report rows a spec's output_file holds (a JSON list of objects), to
#: check a file it would replace (reviewer.storage.safe_write).
FAILTER_JSON = safe_write.json_format("Failter report JSON file",
                                      lambda v: isinstance(v, list) and all(isinstance(r, dict) for r in v))


def run_spec(project: Project, spec_path: Path, settings: Settings, *, dual: bool = False,
             weights: tuple[float, float] = (0.5, 0.5), prices: Optional[Path] = None,
             temperature: Optional[float] = None, max_tokens: Optional[int] = None, seed: Optional[int] = None,
             progress: Optional[Progress] = None, cancel: Optional[threading.Event] = None,
             force: bool = False) -> SpecResult:
    """Run the spec at ``spec_path`` into ``project`` (module doc). Raises
    SpecError for a bad spec or prices file; ReadOnlyProject, or
    TargetRefused for the spec's output_file (module doc; ``force``),
    before any request."""
    project.require_writable("run a Failter spec")
    spec = load_spec(spec_path)
    sources = _spec_sources(spec) + import_sources(project)
    if spec.output_file is not None:
        safe_write.check_target(spec.output_file, FAILTER_JSON, sources=sources, force=force)
    try:
        price_table = load_prices(prices) if prices else None
    except (OSError, ValueError, Exception) as exc:  # yaml errors too
        raise SpecError(f"cannot read the prices {prices}: {exc}") from None
    if spec.retries is not None:
        settings = replace(settings, retries=spec.retries)
    items, prompts = _setup(project, spec)
    trials = Summary()
    for model in spec.models:
        s, _ = run_models(project, settings, RunOptions(model=model, prompts=tuple(prompts), items=tuple(items),
                                                        temperature=temperature, max_tokens=max_tokens, seed=seed),
                          progress=progress, cancel=cancel)
        for name in ("planned", "skipped", "taken", "asked", "answered", "failed", "truncated", "prompt_tokens",
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
    if spec.output_file is not None:
        safe_write.write_text(spec.output_file, failter_json(rows) + "\n", FAILTER_JSON, sources=sources,
                              force=force)
    return SpecResult(trials, judged, text)


def _spec_sources(spec: Spec) -> list[Path]:
    """The folders a spec reads: inputs, templates and ground truth."""
    return [spec.inputs_dir, spec.templates_dir] + [spec.inputs_dir.parent / d for d in GT_DIRS
                                                    if (spec.inputs_dir.parent / d).is_dir()]
