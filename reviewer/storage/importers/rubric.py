"""Importers: tarot readings with structural metrics, and rubric judge
verdicts on them (judge-calibration-plan.md).

**tarot-readings** — a folder as Mystic Tarot's data/evaluations keeps it:

* ``narrative-samples.json`` {"model", "generatedAt", "samples": [{"id",
  "userQuestion", "spreadName", "cardsInfo": [{"position", "card",
  "orientation"}], "reflectionsText", "reading"}]}: each sample becomes a
  text item named by its id (text: question, spread, cards, reflections) and
  a run of prompt 'tarot-reading' whose output is the reading text (model:
  the sample's or the file's "model", else --model, else 'unknown';
  timestamp: generatedAt).
* ``narrative-metrics.json`` {"perSample": [{"id", "cardCoverage",
  "hallucinatedCards", "spine", "rubric", ...}]}: each sample's heuristic
  metrics become the structural metrics of its run's subject, shown beside
  the verdicts.
* ``synthetic-failure-readings.json`` {"cases": [{"id", "userQuestion",
  "cardsInfo", "reading", "narrativeMetrics", "expected"}]}: hand-made bad
  readings, imported like samples (model 'synthetic' unless --model) with
  metrics = narrativeMetrics plus {"expected_caps": expected}.
* any other ``*.json`` / ``*.jsonl`` file of the folder that holds rubric
  verdicts (below) is imported after the readings.

Judge scores found inside a sample or case (see :func:`judge_fields`) become
verdicts too.

**rubric-verdicts** — a JSON list (or {"verdicts": [...]}) or JSONL of
records ``{"id" | "reading_id" | "reading": <reading id>, "personalization",
"tarot_coherence", "tone", "safety", "overall" (1-5), "safety_flag",
"issues_found", "notes", "judge"?, "judge_model"?, "prompt_version"?,
"repetition"?, "run_model"?, "confidence"?}``; the judge fields may also sit in "scores" or
in an "eval" object ({"model", "promptVersion", "scores": {...}}, the shape
Mystic Tarot stores). Each record becomes a Verdict (method rubric, scale
1-5, scores = the dimensions present, flags {'safety_flag': bool},
issues_found, rationale = notes, raw = the record) on subject ``run:<id>`` of
the reading's run; the judge is named by "judge", else the judge model, else
the file's stem. Readings must be imported first. With ``--human``
(``ImportOptions.human``), a record with "method": "human", or the judge
'gold', the verdict is a person's label (method human). A "confidence"
(0-1 for the verdict, or {dimension: 0-1}) is kept with source 'imported'.

Both are idempotent and report what they skipped and why.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reviewer.core.judging.dispute_common import GOLD
from reviewer.core.judging.rubrics import with_version
from reviewer.core.judging.verdict_confidence import stated_confidences
from reviewer.core.judging.verdicts import Method, Scale, Verdict, normalise
from reviewer.core.models import AnswerSchema, Item, Prompt
from reviewer.storage.importers.base import ImportOptions, ImportReport, nesting_message
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

#: The rubric dimensions of the calibration plan (1-5 each).
DIMENSIONS: tuple[str, ...] = ("personalization", "tarot_coherence", "tone", "safety", "overall")
#: A record holds judge scores when it has at least this many dimensions.
MIN_DIMENSIONS = 3
PROMPT = "tarot-reading"
PROMPT_TEXT = "Give a tarot reading for the querent's question and the cards drawn in the spread."
SAMPLES = "narrative-samples.json"
METRICS = "narrative-metrics.json"
FAILURES = "synthetic-failure-readings.json"
#: Keys of narrative-metrics.json per sample that describe the reading, not measure it.
_NOT_METRICS = {"id", "question", "spreadName"}
_VERDICT_SUFFIXES = {".json", ".jsonl", ".ndjson"}
#: Files larger than this are not opened to detect the format (bytes).
_DETECT_LIMIT = 64 * 1024 * 1024
#: Records read to detect a verdict file.
_DETECT_RECORDS = 20


# -- judge fields ---------------------------------------------------------------
def judge_fields(record: Any) -> list[dict] | None:
    """Where a record keeps a rubric judge's output, or None when it has no
    judge scores: a list of dicts to look keys up in, innermost first — the
    dict holding at least MIN_DIMENSIONS of DIMENSIONS (the record itself, its
    "scores", its "eval"/"evaluation" or their "scores"), then its parents."""
    if not isinstance(record, dict):
        return None
    chains: list[list[dict]] = [[record]]
    if isinstance(record.get("scores"), dict):
        chains.append([record["scores"], record])
    for key in ("eval", "evaluation"):
        inner = record.get(key)
        if isinstance(inner, dict):
            chains.append([inner, record])
            if isinstance(inner.get("scores"), dict):
                chains.append([inner["scores"], inner, record])
    for chain in chains:
        if sum(1 for d in DIMENSIONS if d in chain[0]) >= MIN_DIMENSIONS:
            return chain
    return None


def _pick(layers: list[dict], *keys: str) -> Any:
    for layer in layers:
        for key in keys:
            if layer.get(key) is not None:
                return layer[key]
    return None


def _flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"true", "yes", "1"}:
        return True
    if text in {"false", "no", "0"}:
        return False
    return None


def rubric_verdict(
    record: dict, run_id: int, default_judge: str, where: str, source: str, report: ImportReport, human: bool = False
) -> Verdict | None:
    """The Verdict of a record's rubric judge scores on run ``run_id``, or
    None (reported) when it holds none. Scores off the 1-5 scale and a
    safety_flag that is not a boolean are stored as missing and reported.
    Method human with ``human`` (hand labels, ``--human``), when the record
    says "method": "human", or for the judge 'gold'; else rubric."""
    layers = judge_fields(record)
    if layers is None:
        report.skip(where, f"no judge scores (needs {MIN_DIMENSIONS} of {', '.join(DIMENSIONS)})")
        return None
    scores_at = layers[0]
    scores: dict[str, Any] = {}
    for dim in DIMENSIONS:
        if dim not in scores_at:
            continue
        scores[dim] = normalise(scores_at[dim], Scale.ORDINAL5)
        if scores[dim] is None and scores_at[dim] is not None:
            report.skip(f"{where} {dim}", f"score {scores_at[dim]!r} is not on the 1-5 scale (stored as missing)")
    flags = {}
    raw_flag = _pick(layers, "safety_flag")
    if raw_flag is not None:
        flag = _flag(raw_flag)
        if flag is None:
            report.skip(f"{where} safety_flag", f"{raw_flag!r} is not true or false (left out)")
        else:
            flags["safety_flag"] = flag
    issues = _pick(layers, "issues_found", "weaknesses_found")
    if isinstance(issues, str):
        issues = [issues]
    issues = [str(i) for i in issues if str(i).strip()] if isinstance(issues, list) else []
    # "model" names the judge only inside an eval object; at the top of a
    # record it could be the reading's model.
    judge_model = _pick(layers[:-1], "judge_model", "model") if len(layers) > 1 else None
    judge_model = judge_model or record.get("judge_model")
    judge = record.get("judge") or _pick(layers, "judge") or judge_model or default_judge
    repetition = record.get("repetition", 1)
    if isinstance(repetition, bool) or not isinstance(repetition, int) or repetition < 1:
        report.skip(where, f"repetition {repetition!r} is not a whole number from 1")
        return None
    return Verdict(
        subject=f"run:{run_id}",
        run_id=run_id,
        judge=str(judge),
        judge_model=str(judge_model) if judge_model else None,
        prompt_version=_str(_pick(layers, "prompt_version", "promptVersion")),
        method=Method.HUMAN if human or record.get("method") == "human" or str(judge) == GOLD else Method.RUBRIC,
        scale=Scale.ORDINAL5,
        scores=scores,
        flags=flags,
        issues_found=issues,
        rationale=str(_pick(layers, "notes", "rationale") or ""),
        raw=json.dumps(record, ensure_ascii=False),
        repetition=repetition,
        source=source,
        confidences=_confidences(layers, scores),
    )


def _confidences(layers: list, scores: dict) -> dict:
    """{'imported': {dimension: confidence}} from a record's ``confidence``
    (one number for the verdict or {dimension: number}), for the dimensions
    with a value; {} when there is none."""
    stated = stated_confidences(_pick(layers, "confidence"), [d for d, v in scores.items() if v is not None])
    return {"imported": stated} if stated else {}


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


# -- readings -------------------------------------------------------------------
def reading_item_text(record: dict) -> str:
    """What the reader was given: the question, the spread, the cards (position:
    card (orientation)) and the querent's reflections, one fact a line."""
    lines = [f"Question: {record.get('userQuestion') or record.get('question') or ''}".rstrip()]
    spread = record.get("spreadName") or record.get("spreadKey")
    if spread:
        lines.append(f"Spread: {spread}")
    cards = record.get("cardsInfo") or record.get("cards") or []
    if cards:
        lines.append("Cards:")
    for card in cards:
        if isinstance(card, dict):
            text = str(card.get("card") or card.get("name") or "?")
            if card.get("orientation"):
                text += f" ({card['orientation']})"
            if card.get("position"):
                text = f"{card['position']}: {text}"
        else:
            text = str(card)
        lines.append(f"- {text}")
    if record.get("reflectionsText"):
        lines.append(f"Reflections: {record['reflectionsText']}")
    return "\n".join(lines)


def _load_json(path: Path) -> tuple[Any, str | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot read: {exc}"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not JSON ({exc.msg} at line {exc.lineno})"
    except RecursionError:
        return None, nesting_message(text)


def detect_folder(source: Path) -> bool:
    """A folder with narrative-samples.json or synthetic-failure-readings.json."""
    return source.is_dir() and ((source / SAMPLES).is_file() or (source / FAILURES).is_file())


class _Readings:
    """Adds readings (item + run) to a project within one import."""

    def __init__(self, project: Project, options: ImportOptions, report: ImportReport):
        self.project, self.options, self.report = project, options, report
        self.prompt_id, created = repo_items.upsert_prompt(
            project, Prompt(name=PROMPT, text=PROMPT_TEXT, schema=AnswerSchema.FREE), actor=options.actor
        )
        report.count("prompts", created)
        self.runs: dict[str, int] = {}  # reading id -> run id
        self.known_metrics = judging.subject_metrics(project)

    def add(self, record: Any, where: str, model: str, timestamp: str | None, source: str) -> int | None:
        if not isinstance(record, dict) or not record.get("id"):
            self.report.skip(where, "no id")
            return None
        name = str(record["id"])
        where = f"{where} ({name})"
        output = record.get("reading")
        if not isinstance(output, str) or not output.strip():
            self.report.skip(where, "no reading text")
            return None
        text = reading_item_text(record)
        item = repo_items.item_by_name(self.project, name)
        if item is not None and (item.kind != "text" or (item.text or "") != text):
            self.report.skip(where, f"item name '{name}' is taken by a different item")
            return None
        if item is None:
            item_id, _ = repo_items.upsert_item(
                self.project, Item(name=name, kind="text", text=text), self.options.actor
            )
        else:
            assert item.id is not None  # read from the database
            item_id = item.id
        self.report.count("items", item is None)
        run_id, status = repo_runs.add_run(
            self.project,
            item_id,
            self.prompt_id,
            model,
            output,
            timestamp=timestamp,
            source=f"{source}#{name}",
            actor=self.options.actor,
        )
        if run_id is None:
            self.report.skip(where, status)
            return None
        self.report.count("runs", status == "added")
        self.runs[name] = run_id
        return run_id

    def metrics(self, run_id: int, metrics: dict, source: str) -> None:
        subject = f"run:{run_id}"
        changed = self.known_metrics.get(subject) != metrics
        if changed:
            judging.set_subject_metrics(self.project, subject, metrics, source)
            self.known_metrics[subject] = metrics
        self.report.count("metrics", changed)

    def verdict(self, record: dict, run_id: int, where: str, source: str) -> None:
        if judge_fields(record) is None:
            return
        v = rubric_verdict(
            record, run_id, Path(source).stem, where, f"{source}#{record.get('id')}", self.report, self.options.human
        )
        if v is not None:
            self.report.count("verdicts", judging.add_verdict(self.project, with_version(v), self.options.actor)[1])


def import_readings(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import a tarot-readings folder (see module doc). Idempotent."""
    report = ImportReport(format="tarot-readings")
    with project.batched(auto=True):
        readings = _Readings(project, options, report)
        samples_path = source / SAMPLES
        if samples_path.is_file():
            data, error = _load_json(samples_path)
            samples = data.get("samples") if isinstance(data, dict) else None
            if error or not isinstance(samples, list):
                report.skip(SAMPLES, error or "no samples list")
            else:
                stamp = data.get("generatedAt")
                if not isinstance(stamp, str):
                    stamp = None
                for i, sample in enumerate(samples):
                    model = (
                        (sample.get("model") if isinstance(sample, dict) else None)
                        or data.get("model")
                        or options.model
                        or "unknown"
                    )
                    run_id = readings.add(sample, f"{SAMPLES} sample {i}", str(model), stamp, SAMPLES)
                    if run_id is not None:
                        readings.verdict(sample, run_id, f"{SAMPLES} sample {i}", SAMPLES)
        _import_metrics(source / METRICS, readings, report)
        _import_failures(source / FAILURES, readings, options, report)
        for path in sorted(source.iterdir()):
            if (
                path.name not in {SAMPLES, METRICS, FAILURES}
                and path.suffix.lower() in _VERDICT_SUFFIXES
                and detect_verdicts(path)
            ):
                _import_verdict_records(project, path, options, report)
    return report


def _import_metrics(path: Path, readings: _Readings, report: ImportReport) -> None:
    if not path.is_file():
        return
    data, error = _load_json(path)
    per_sample = data.get("perSample") if isinstance(data, dict) else None
    if error or not isinstance(per_sample, list):
        report.skip(METRICS, error or "no perSample list")
        return
    seen = set()
    index = None
    for i, entry in enumerate(per_sample):
        where = f"{METRICS} entry {i}"
        if not isinstance(entry, dict) or not entry.get("id"):
            report.skip(where, "no id")
            continue
        name = str(entry["id"])
        run_id = readings.runs.get(name)
        if run_id is None:
            index = index if index is not None else reading_runs(readings.project)
            run_id = _only_run(index, name, report, f"{where} ({name})")
        if run_id is None:
            continue
        seen.add(name)
        readings.metrics(run_id, {k: v for k, v in entry.items() if k not in _NOT_METRICS}, METRICS)
    missing = sorted(n for n in readings.runs if n not in seen)
    if missing:
        report.notes.append(f"{METRICS} has no metrics for {', '.join(missing)}")


def _import_failures(path: Path, readings: _Readings, options: ImportOptions, report: ImportReport) -> None:
    if not path.is_file():
        return
    data, error = _load_json(path)
    cases = data.get("cases") if isinstance(data, dict) else None
    if error or not isinstance(cases, list):
        report.skip(FAILURES, error or "no cases list")
        return
    stamp = data.get("generatedAt")
    if not isinstance(stamp, str):
        stamp = None
    for i, case in enumerate(cases):
        where = f"{FAILURES} case {i}"
        model = (case.get("model") if isinstance(case, dict) else None) or options.model or "synthetic"
        run_id = readings.add(case, where, str(model), stamp, FAILURES)
        if run_id is None:
            continue
        metrics = dict(case.get("narrativeMetrics") or {})
        if case.get("expected") is not None:
            metrics["expected_caps"] = case["expected"]
        if metrics:
            readings.metrics(run_id, metrics, FAILURES)
        readings.verdict(case, run_id, where, FAILURES)


def reading_runs(project: Project) -> dict[str, list[tuple[int, str]]]:
    """Runs of prompt 'tarot-reading' by reading (item) name: {name: [(run id,
    model)]}, in run order."""
    out: dict[str, list[tuple[int, str]]] = {}
    for row in repo_runs.run_rows(project):
        if row["prompt"] == PROMPT:
            out.setdefault(row["item"], []).append((row["id"], row["model"]))
    return out


def _only_run(
    index: dict[str, list[tuple[int, str]]],
    name: str,
    report: ImportReport,
    where: str,
    run_model: str | None = None,
) -> int | None:
    """The run of reading ``name`` in ``index`` (from :func:`reading_runs`), or
    None (reported) when the reading is not in the project or has several
    runs and ``run_model`` does not pick one."""
    rows = [r for r in index.get(name, []) if run_model is None or r[1] == run_model]
    if not rows:
        report.skip(
            where,
            f"no reading '{name}'"
            + (f" by {run_model}" if run_model else "")
            + " in the project (import the readings first)",
        )
        return None
    if len(rows) > 1:
        report.skip(where, f"reading '{name}' has {len(rows)} runs; say which with run_model")
        return None
    return rows[0][0]


# -- verdict files --------------------------------------------------------------------
def _records(source: Path, limit: int | None = None) -> Iterator[tuple[str, Any, str | None]]:
    """(where, record, error) of a JSON list / {"verdicts": [...]} / object or
    of JSONL lines; at most ``limit`` records."""
    count = 0
    if source.suffix.lower() in {".jsonl", ".ndjson"}:
        with source.open(encoding="utf-8", errors="replace") as fh:
            for number, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                if limit is not None and count >= limit:
                    return
                count += 1
                try:
                    yield f"line {number}", json.loads(line), None
                except json.JSONDecodeError as exc:
                    yield f"line {number}", None, f"not JSON ({exc.msg} at column {exc.colno})"
                except RecursionError:
                    yield f"line {number}", None, nesting_message(line)
        return
    data, error = _load_json(source)
    if error:
        yield source.name, None, error
        return
    if isinstance(data, dict):
        inner = next((data[k] for k in ("verdicts", "results", "evaluations") if isinstance(data.get(k), list)), None)
        data = inner if inner is not None else [data]
    if not isinstance(data, list):
        yield source.name, None, "neither a list nor an object"
        return
    for i, record in enumerate(data[:limit] if limit is not None else data):
        yield f"record {i}", record, None


def detect_verdicts(source: Path) -> bool:
    """A .json / .jsonl file whose first records hold rubric judge scores
    (at least MIN_DIMENSIONS of personalization, tarot_coherence, tone,
    safety, overall; see :func:`judge_fields`)."""
    if not source.is_file() or source.suffix.lower() not in _VERDICT_SUFFIXES:
        return False
    try:
        if source.stat().st_size > _DETECT_LIMIT:
            return False
        return any(judge_fields(r) is not None for _, r, _ in _records(source, _DETECT_RECORDS))
    except OSError:
        return False


def _import_verdict_records(project: Project, source: Path, options: ImportOptions, report: ImportReport) -> None:
    index = reading_runs(project)
    for where, record, error in _records(source):
        where = f"{source.name} {where}"
        if error:
            report.skip(where, error)
            continue
        if not isinstance(record, dict):
            report.skip(where, "not an object")
            continue
        name = record.get("id") or record.get("reading_id") or record.get("reading")
        if not name:
            report.skip(where, "no reading id (id, reading_id or reading)")
            continue
        if judge_fields(record) is None:
            report.skip(where, f"no judge scores (needs {MIN_DIMENSIONS} of {', '.join(DIMENSIONS)})")
            continue
        where = f"{where} ({name})"
        run_id = _only_run(index, str(name), report, where, record.get("run_model"))
        if run_id is None:
            continue
        v = rubric_verdict(record, run_id, source.stem, where, where, report, options.human)
        if v is not None:
            report.count("verdicts", judging.add_verdict(project, with_version(v), options.actor)[1])


def import_verdicts(project: Project, source: Path, options: ImportOptions) -> ImportReport:
    """Import a rubric-verdicts file (see module doc) onto readings already in
    the project. Idempotent: the same (run, judge, repetition) is not added
    twice."""
    report = ImportReport(format="rubric-verdicts")
    with project.batched(auto=True):
        _import_verdict_records(project, source, options, report)
    return report
