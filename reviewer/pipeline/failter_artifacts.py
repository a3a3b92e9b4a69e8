"""Failter's artifacts, in Failter's layout (failter-docs USAGE.md "Deeper
Analysis"; Failter's runner.clj, exp_paths.clj, eval.clj at 0067bff), written
by ``reviewer run spec.yml`` from what the project holds:

* ``<artifacts_dir>/<model>_<template>/<input file>``: the trial's output
  (its ``<think>`` / ``<scratchpad>`` blocks removed) under Failter's front
  matter: the input's own front matter, then ``filtered-by-model``,
  ``filtered-by-template`` (the template's file name), ``source-input-path``,
  ``source-template-path`` (absolute), ``total-trial-time-ms``,
  ``execution-time-ms`` (the last attempt), ``retry-attempts``,
  ``errors-on-retry``, ``token-usage`` {prompt_tokens, completion_tokens,
  total_tokens} and ``estimated-cost`` when known. A failed trial has
  ``error`` (the message), ``retry-attempts`` and ``errors-on-retry``
  instead, and no body. Model and template names as exp_paths.clj makes
  them ('.md' / '.prompt' dropped, runs of '/', ':', '.' and white space
  made '-').
* ``<output>.thoughts``: the first think block's text, when not blank.
* ``<output>.eval``: the spec judge's verdicts, score in points 0-100 as
  eval.clj writes them (``score``, ``rationale``, ``evaluation-method``,
  ``judge-model``) plus ``scale: 0-100``. With ``--dual`` (Path B) the
  proposal's nested form (``rules_based_eval`` / ``ground_truth_eval``
  blocks). A judgement that failed or could not be read has ``score:
  null`` and ``error`` (and ``raw-reply``, the judge's reply), which the
  Failter importer reads back as an undecided verdict.

Writing is idempotent: a file whose text is unchanged is not touched, and
every file is written whole through :func:`write_atomic`
(reviewer.storage.files.safe_write: a temporary file, fsynced, renamed into
place). A file is replaced only when it is new, empty or Failter's own
(``OUTPUT_FORMAT``, ``THOUGHTS_FORMAT``, ``EVAL_FORMAT``): a reviewer
project, a file of another kind or a file inside a ``source`` (the spec's
inputs, templates and ground truth, what the project was imported from) is
refused (TargetRefused) unless ``force``. :func:`check_artifacts` checks
every file a spec's trials may write before anything is asked.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from reviewer.core.bounded_yaml import load_yaml
from reviewer.core.judging.verdicts import Method
from reviewer.storage.files import safe_write, written
from reviewer.storage.importers.failter_files import sanitize
from reviewer.storage.judging import calls
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.verdict_table import verdict_score
from reviewer.storage.project.db import Project, open_here
from reviewer.storage.repo import runs as repo_runs

_THOUGHTS = re.compile(r"(?s)<(?:think|scratchpad)>(.*?)</(?:think|scratchpad)>")
_MONOLOGUE = re.compile(r"(?s)(<think>.*?</think>|<scratchpad>.*?</scratchpad>)\s*")
_FRONT = re.compile(r"^---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|$)", re.DOTALL)
_BLOCKS = {Method.RULES: "rules_based_eval", Method.GROUND_TRUTH: "ground_truth_eval"}


#: Bytes of a trial output read to find its front matter.
_HEAD_BYTES = 1 << 20


def _is_output(path: Path) -> bool:
    """A Failter trial output: front matter (a YAML mapping) naming
    ``filtered-by-model`` or ``source-input-path``."""
    try:
        with open(path, "rb") as fh:  # not SQLite and not open here: safe_write.check_target made sure
            head = fh.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return False
    meta = _input_front_matter(head)
    return "filtered-by-model" in meta or "source-input-path" in meta


def _is_eval(path: Path) -> bool:
    """A Failter .eval: a YAML mapping with a score, a judge model or Path B's blocks."""
    try:
        if path.stat().st_size > safe_write.MAX_RECOGNISE_BYTES:
            return False
        data = load_yaml(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return False
    return isinstance(data, dict) and any(k in data for k in ("score", "judge-model", *_BLOCKS.values()))


def _is_thoughts(path: Path) -> bool:
    """A Failter .thoughts: UTF-8 text beside the trial output it belongs to."""
    output = path.with_name(path.name.removesuffix(".thoughts"))
    try:
        if path.stat().st_size > safe_write.MAX_RECOGNISE_BYTES:
            return False
        path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return output != path and output.is_file() and not open_here(output) and _is_output(output)


#: What the artifacts are, to check a file they would replace (reviewer.storage.files.safe_write).
#: Failter writes them too, so its own files are replaced by their shape (by_shape).
OUTPUT_FORMAT = safe_write.FileFormat("Failter trial output", _is_output, by_shape=True)
THOUGHTS_FORMAT = safe_write.FileFormat("Failter .thoughts file", _is_thoughts, by_shape=True)
EVAL_FORMAT = safe_write.FileFormat("Failter .eval file", _is_eval, by_shape=True)


def artifact_format(path: Path) -> safe_write.FileFormat:
    """The FileFormat of the artifact at ``path``, by its name (.eval, .thoughts, else a trial output)."""
    name = Path(path).name
    return EVAL_FORMAT if name.endswith(".eval") else THOUGHTS_FORMAT if name.endswith(".thoughts") else OUTPUT_FORMAT


def write_atomic(
    path: Path,
    text: str,
    fmt: safe_write.FileFormat | None = None,
    *,
    sources: Iterable[Path] = (),
    force: bool = False,
) -> bool:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all through
    reviewer.storage.files.safe_write (checked as ``fmt``, by default
    ``artifact_format(path)``, against ``sources`` unless ``force``; a
    temporary file in the same folder, fsynced, renamed over ``path``).
    Folders are made; a file already holding ``text`` is not touched, only
    recorded as reviewer's (reviewer.storage.files.written).
    Returns True when written. Raises TargetRefused, or ProjectError when
    it cannot be written."""
    path = Path(path)
    data = text.encode("utf-8")
    try:
        if path.is_file() and not open_here(path) and path.stat().st_size == len(data) and path.read_bytes() == data:
            # what reviewer writes, byte for byte (also a file an earlier version wrote): recorded as its own
            written.remember(path, hashlib.sha256(data).hexdigest(), len(data))
            return False
    except OSError:
        pass
    safe_write.write_bytes(path, data, fmt or artifact_format(path), sources=sources, force=force)
    return True


def check_artifacts(
    artifacts_dir: Path, trials: list[Trial], sources: Iterable[Path] = (), force: bool = False
) -> None:
    """Check, before anything is asked, every file ``write_artifacts`` may
    write for ``trials`` (outputs, .thoughts, .eval; safe_write.check_target
    with their formats). Raises TargetRefused: ``artifacts_dir`` is a file
    (a reviewer project too), or a target is refused (module doc)."""
    artifacts_dir = Path(artifacts_dir)
    if artifacts_dir.exists() and not artifacts_dir.is_dir():
        raise safe_write.TargetRefused(
            f"artifacts_dir {artifacts_dir} is a file; Failter's artifacts are written to a folder"
        )
    sources = list(sources)
    for t in trials:
        out = trial_path(artifacts_dir, t.model, t.template_path.name, t.input_path.name)
        if out.parent.exists() and not out.parent.is_dir():
            raise safe_write.TargetRefused(f"{out.parent} is a file; Failter's artifacts are written to a folder")
        for path in (out, out.with_name(out.name + ".thoughts"), out.with_name(out.name + ".eval")):
            safe_write.check_target(path, artifact_format(path), sources=sources, force=force)


def trial_path(artifacts_dir: Path, model: str, template: str, input_name: str) -> Path:
    """Where Failter puts a trial's output (exp_paths.clj output-path-for-trial)."""
    return Path(artifacts_dir) / f"{sanitize(model)}_{sanitize(template)}" / input_name


def split_thoughts(output: str) -> tuple[str, str]:
    """(body without think / scratchpad blocks, the first block's text
    stripped) as Failter's runner does."""
    m = _THOUGHTS.search(output or "")
    return _MONOLOGUE.sub("", output or ""), (m[1].strip() if m else "")


def _input_front_matter(text: str) -> dict:
    m = _FRONT.match(text or "")
    if not m:
        return {}
    try:
        data = load_yaml(m[1])
    except (yaml.YAMLError, RecursionError):
        return {}
    return {str(k): v for k, v in data.items()} if isinstance(data, dict) else {}


def _number(x) -> float | None:
    """A fact as written: an int when whole, else the float (exact round trip); None when unknown."""
    if x is None or not isinstance(x, (int, float)) or not math.isfinite(x):
        return None
    return int(x) if float(x).is_integer() else float(x)


def _dump(meta: dict) -> str:
    return yaml.safe_dump(meta, default_flow_style=False, sort_keys=False, allow_unicode=True, width=100000)


@dataclass(frozen=True)
class Trial:
    """One trial of a spec: input file, template file name, model; the item
    and prompt names it has in the project."""

    input_path: Path
    template_path: Path
    model: str
    item: str
    prompt: str


def write_artifacts(
    project: Project,
    artifacts_dir: Path,
    trials: list[Trial],
    judge_model: str,
    dual: bool,
    prices: Mapping[str, Mapping[str, float]] | None = None,
    sources: Iterable[Path] = (),
    force: bool = False,
) -> int:
    """Write the artifacts of ``trials`` (module doc) from the project's
    runs (repetition 1), failed attempts and the verdicts of the judges
    'rules-judge/<judge_model>' and 'gt-judge/<judge_model>'. A trial not
    asked yet gets nothing. Returns how many files were written (changed).
    Each file goes through :func:`write_atomic` (``sources``, ``force``).
    Raises TargetRefused or ProjectError (write_atomic), OSError when an
    input cannot be read."""
    sources = list(sources)
    put = lambda path, text: write_atomic(path, text, sources=sources, force=force)  # noqa: E731
    runs = {(r["item"], r["prompt"], r["model"]): r for r in repo_runs.run_rows(project) if r["repetition"] == 1}
    facts = calls.run_calls(project, [r["id"] for r in runs.values()]) if runs else {}
    failed = {
        (f["item"], f["prompt"], f["model"]): f for f in calls.failed_answers(project) if (f["repetition"] or 1) == 1
    }
    judges = {f"rules-judge/{judge_model}": Method.RULES, f"gt-judge/{judge_model}": Method.GROUND_TRUTH}
    verdicts: dict[int, dict[Method, object]] = {}
    for v in judging.verdicts(project):
        if v.judge in judges and v.run_id is not None and v.repetition == 1 and v.other_run_id is None:
            verdicts.setdefault(v.run_id, {})[judges[v.judge]] = v
    judge_failures: dict[int, dict[Method, dict]] = {}
    for f in calls.failed_judgements(project):
        subject = f["subject"] or ""
        if f["judge"] in judges and subject.startswith("run:") and subject[4:].isdigit():
            judge_failures.setdefault(int(subject[4:]), {})[judges[f["judge"]]] = f
    written = 0
    inputs: dict[Path, str] = {}
    for t in trials:
        key = (t.item, t.prompt, t.model)
        run, failure = runs.get(key), failed.get(key)
        if run is None and failure is None:
            continue
        if t.input_path not in inputs:
            inputs[t.input_path] = t.input_path.read_text(encoding="utf-8", errors="replace")
        meta = _input_front_matter(inputs[t.input_path])
        meta.update(
            {
                "filtered-by-model": t.model,
                "filtered-by-template": t.template_path.name,
                "source-input-path": str(t.input_path),
                "source-template-path": str(t.template_path),
            }
        )
        out = trial_path(artifacts_dir, t.model, t.template_path.name, t.input_path.name)
        if run is None:
            assert failure is not None  # a trial with neither was skipped above
            meta.update(
                {
                    "total-trial-time-ms": _number(failure.get("total_ms")),
                    "error": failure["error"] or "error",
                    "retry-attempts": max(0, (failure["attempts"] or 1) - 1),
                    "errors-on-retry": list(failure.get("retry_errors") or []),
                }
            )
            written += put(out, "---\n" + _dump(_clean(meta)) + "---\n")
            continue
        f = facts.get(run["id"], {})
        usage = {k: f.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens") if f.get(k) is not None}
        price = (prices or {}).get(t.model)
        cost = f.get("cost")
        if price is not None and f.get("prompt_tokens") is not None and f.get("completion_tokens") is not None:
            cost = f["prompt_tokens"] * price["input"] + f["completion_tokens"] * price["output"]
        meta.update(
            {
                "total-trial-time-ms": _number(f.get("total_ms")),
                "execution-time-ms": _number(f.get("latency_ms")),
                "retry-attempts": max(0, (f.get("attempts") or 1) - 1),
                "errors-on-retry": list(f.get("retry_errors") or []),
                "token-usage": usage or None,
                "estimated-cost": _number(cost),
            }
        )
        body, thoughts = split_thoughts(run["output"])
        written += put(out, "---\n" + _dump(_clean(meta)) + "---\n" + body)
        if thoughts:
            written += put(out.with_name(out.name + ".thoughts"), thoughts)
        blocks = _eval_blocks(verdicts.get(run["id"], {}), judge_failures.get(run["id"], {}), judge_model)
        if blocks:
            written += put(out.with_name(out.name + ".eval"), _eval_text(blocks, judge_model, dual))
    return written


def _clean(meta: dict) -> dict:
    return {k: v for k, v in meta.items() if v is not None}


def _eval_blocks(verdicts: dict, failures: dict, judge_model: str) -> dict[Method, dict]:
    """Per method, the .eval fields of its verdict or failure."""
    out = {}
    for method in (Method.RULES, Method.GROUND_TRUTH):
        v, f = verdicts.get(method), failures.get(method)
        if v is not None:
            score = verdict_score(v)
            if score is not None:
                out[method] = {
                    "score": _number(score),
                    "rationale": v.rationale,
                    "judge-model": judge_model,
                    "scale": "0-100",
                }
            else:
                why = v.rationale.removeprefix("undecided:").strip() or "no readable score"
                out[method] = {
                    "score": None,
                    "rationale": "",
                    "judge-model": judge_model,
                    "error": f"judge reply not read: {why}",
                    "raw-reply": v.raw,
                }
        elif f is not None:
            out[method] = {
                "score": None,
                "rationale": "",
                "judge-model": judge_model,
                "error": f"judge failed: {f['error']}",
            }
    return out


def _eval_text(blocks: dict[Method, dict], judge_model: str, dual: bool) -> str:
    """An .eval: eval.clj's single form, or the nested Path B form."""
    if not dual and len(blocks) == 1:
        ((method, b),) = blocks.items()
        single = {
            "score": b["score"],
            "rationale": b["rationale"],
            "evaluation-method": method.value,
            "judge-model": judge_model,
            "scale": "0-100",
        }
        single.update({k: b[k] for k in ("error", "raw-reply") if k in b})
        if "error" in b:
            single.pop("scale")
        return _dump(single)
    nested: dict = {"judge-model": judge_model}
    for method, b in blocks.items():
        block = {k: v for k, v in b.items() if k != "judge-model"}
        if "error" in block:
            block.pop("scale", None)
        nested[_BLOCKS[method]] = block
    return _dump(nested)
