"""Reading Failter's files (for the Failter importer,
reviewer.storage.importers.failter, whose module doc describes the layout
and the .eval forms): the folder and key names, an .eval's judgements
(parse_eval), a score scale inferred from the values, Failter's folder-name
sanitising, a trial output's front matter and the call facts it holds,
and the paths its front matter names. Nothing here writes to a project.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from reviewer.core.bounded_yaml import YAMLLimitError, load_yaml
from reviewer.core.judging import replies
from reviewer.core.judging.verdicts import Method, Scale
from reviewer.storage.files.confine import experiment_root, find_inside

GT_DIRS = ("ground-truth", "ground_truth")
TEMPLATE_DIRS = ("templates", "prompts")
OUTPUT_ROOTS = ("results", "outputs")
EXCLUDED = {"inputs", *GT_DIRS, *TEMPLATE_DIRS}
IGNORED_SUFFIXES = (".eval", ".thoughts")
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
    grade: str | None = None
    score: float | None = None
    scale: Scale | None = None
    rationale: str = ""
    judge_model: str | None = None
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


def _judgement(block: dict[str, Any], method: Method, default_model: str | None, raw: str, name: str) -> Judgement:
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
    the failter module's doc for the forms). A judgement without a readable score comes
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
    method: Method | None
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


def front_matter(text: str) -> tuple[dict | None, str]:
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


def head_meta(path: Path, limit: int = 65536) -> dict | None:
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


def find_source(folder: Path, written: str, root: Path | None = None) -> Path | None:
    """The file a Failter front matter path names (the failter module's doc), inside the
    experiment folder ``root`` only (default: the one holding ``folder``,
    reviewer.storage.files.confine.experiment_root): ``written`` as it
    is when it lies inside, else it or its last three or two parts under
    ``folder`` or one of its ancestors up to ``root``; None when not found.
    A path outside ``root`` is never read as written."""
    return find_inside(root or experiment_root(folder), folder, written)


def first_dir(folder: Path, names: tuple[str, ...]) -> Path | None:
    """The first of ``names`` that is a folder inside ``folder``, or None."""
    return next((folder / n for n in names if (folder / n).is_dir()), None)


def read_text(path: Path, limit: int | None = None) -> str:
    """The text of ``path``; with ``limit``, ValueError for a file over
    ``limit`` bytes (read no further)."""
    if limit is None:
        return path.read_text(encoding="utf-8", errors="replace")
    with path.open("rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"larger than {limit:,} bytes")
    return data.decode("utf-8", errors="replace")


def _count(value: Any) -> float | None:
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
