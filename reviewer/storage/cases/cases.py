"""Test cases in a project (docs/test-cases.md): the cases, the metric set in use,
scoring the answers of cases, and reading back their results.

A test case is a text item (named by the case id, its text the query) with
a row in ``cases`` (dataset, context, expected behaviour, metadata). Its
answers are ordinary runs, of the prompt named after the dataset (whose
text is the dataset's system prompt, '' when it gives none).

Scoring a case's run evaluates every check of the project's metric set
(core.cases.metrics.evaluate), stores every outcome in ``case_run_scores``
(for the window's highlights and the scores of the metrics that do not
count for the case's category) and writes each fired check of a metric
that counts as an automatic finding (ERROR or WARNING). Scoring again keeps the review decisions, as for
cards (storage.cards.scores): a fired check with the same code, metric and check
keeps its finding; a finding no longer produced is deleted if undecided and
kept, marked stale, if decided; a person's findings are never touched.

The metric set is the built-in CICADA preset (resources/cicada-metrics.toml,
package ``reviewer.resources``) until ``use_metrics`` stores another one in
the project (``reviewer score P --metrics FILE``).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from reviewer.core.bounded_yaml import YAMLError, load_yaml
from reviewer.core.cases.asking import DEFAULT_TEMPLATE
from reviewer.core.cases.metrics import REGEX_TIMEOUT_S, MetricsError, MetricSet, evaluate, metric_set
from reviewer.core.cases.model import TestCase, query_of
from reviewer.core.cases.scoring import CaseScore, case_score, counted_metrics, findings_of
from reviewer.core.models import STALE_PREFIX, AnswerSchema, CaseCode, Finding, Item, Prompt, Source
from reviewer.core.text import visible
from reviewer.storage.project.db import Project, ProjectError, now
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import items as repo_items

PRESET = "cicada-metrics.toml"
#: The repository's resources/ folder, used when the package is not installed
#: (a source checkout on PYTHONPATH).
_SOURCE_TREE = Path(__file__).resolve().parents[2] / "resources"


# -- metric sets ---------------------------------------------------------------------------------
def read_metrics_file(path: Path) -> MetricSet:
    """A metrics file (TOML, or YAML for .yaml/.yml) read as a
    MetricSet; ProjectError with one line naming the file (and the metric
    and check) when it cannot be read or used (§5: a broken regex)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ProjectError(f"cannot read the metrics file {path}: {exc.strerror or exc}") from None
    try:
        data = load_yaml(raw) if path.suffix.lower() in (".yaml", ".yml") else tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, YAMLError, UnicodeDecodeError) as exc:
        raise ProjectError(
            f"{path}: not valid {'YAML' if path.suffix.lower() in ('.yaml', '.yml') else 'TOML'}: "
            f"{' '.join(str(exc).split())}"
        ) from None
    if not isinstance(data, dict):
        raise ProjectError(f"{path}: a metrics file is a table of patterns, metrics and scoring")
    try:
        return metric_set(data, where=str(path))
    except MetricsError as exc:
        raise ProjectError(str(exc)) from None


def preset_metrics() -> MetricSet:
    """The built-in CICADA preset (reviewer.resources, or the
    source tree's resources/ folder)."""
    try:
        text = resources.files("reviewer.resources").joinpath(PRESET).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        text = (_SOURCE_TREE / PRESET).read_text(encoding="utf-8")
    return metric_set(tomllib.loads(text), where=PRESET)


#: How fired checks become findings, part of every score's version (scores
#: made under other rules are stale): only checks of the metrics that count
#: for the case's category are findings.
FINDING_RULES = "findings: counted metrics only"


def metrics_version(metrics: MetricSet) -> str:
    """A short digest of a metric set and FINDING_RULES, stored with every
    case score (scores made by another set or other rules are stale)."""
    data = metrics.model_dump(mode="json", by_alias=True)
    if data.get("regex_timeout") == REGEX_TIMEOUT_S:  # the default limit: the digest sets had before it existed
        del data["regex_timeout"]
    blob = json.dumps(data, sort_keys=True)
    return hashlib.sha256((FINDING_RULES + "\n" + blob).encode()).hexdigest()[:12]


def project_metrics(project: Project) -> MetricSet:
    """The project's metric set: the one stored by ``use_metrics``, else the preset."""
    stored = project.meta("case_metrics")
    if stored:
        try:
            return MetricSet.model_validate_json(stored)
        except ValueError:
            pass
    return preset_metrics()


def use_metrics(project: Project, metrics: MetricSet, actor: str | None = None) -> None:
    """Make ``metrics`` the project's metric set (audited; derived data, so
    allowed in a read-only project's in-memory copy)."""
    blob = metrics.model_dump_json(by_alias=True)
    with project.transaction(derived=True):
        if project.meta("case_metrics") != blob:
            project.audit(
                "set",
                "meta",
                "case_metrics",
                metrics_version(project_metrics(project)),
                metrics_version(metrics),
                actor,
            )
            project.set_meta("case_metrics", blob)


# -- cases ----------------------------------------------------------------------------------------
_CASE_COLUMNS = "c.item_id, c.case_id, c.dataset, c.query, c.context, c.expected, c.metadata"


def _case(row) -> TestCase:
    return TestCase(
        id=row[1],
        dataset=row[2],
        query=row[3],
        context=json.loads(row[4]),
        expected=json.loads(row[5]),
        metadata=json.loads(row[6]),
    )


def has_cases(project: Project) -> bool:
    """The project holds at least one test case."""
    return project.db.execute("SELECT 1 FROM cases LIMIT 1").fetchone() is not None


def cases(project: Project) -> dict[int, TestCase]:
    """{item id: test case} of every case."""
    return {r[0]: _case(r) for r in project.db.execute(f"SELECT {_CASE_COLUMNS} FROM cases c ORDER BY c.case_id")}


def case_of_item(project: Project, item_id: int) -> TestCase | None:
    """The test case that item ``item_id`` is, or None."""
    row = project.db.execute(f"SELECT {_CASE_COLUMNS} FROM cases c WHERE c.item_id = ?", [item_id]).fetchone()
    return _case(row) if row else None


def case_by_id(project: Project, case_id: str) -> TestCase | None:
    """The test case with id ``case_id`` (its item's name), or None."""
    row = project.db.execute(f"SELECT {_CASE_COLUMNS} FROM cases c WHERE c.case_id = ?", [case_id]).fetchone()
    return _case(row) if row else None


def case_query(project: Project, item: str) -> str | None:
    """The query text a model is asked for the test-case item
    named ``item`` (for ``reviewer run``), or None when it is no test case."""
    case = case_by_id(project, item)
    return query_of(case) if case else None


def dataset_of(project: Project, item: str) -> str | None:
    """The dataset of the test-case item named ``item`` (the
    default prompt of its answers), or None when it is no test case."""
    row = project.db.execute("SELECT dataset FROM cases WHERE case_id = ?", [item]).fetchone()
    return row[0] if row else None


def dataset_names(project: Project) -> set[str]:
    """The datasets of the project's test cases (the prompts their answers belong to)."""
    return {r[0] for r in project.db.execute("SELECT DISTINCT dataset FROM cases")}


def case_template() -> str:
    """The default case template (resources/case-prompt-v1.md, package
    ``reviewer.resources``; see reviewer.core.cases.asking)."""
    from reviewer.core.templates import load_resource

    return load_resource(DEFAULT_TEMPLATE)


def set_system_prompt(project: Project, dataset: str, system_prompt: str, actor: str | None = None) -> bool:
    """Keep ``system_prompt`` (the dataset file's) as the text of the
    dataset's prompt, which ``reviewer run`` sends as the system message of
    the dataset's cases. Audited; True when it changed. A prompt that does
    not exist yet is made (free text)."""
    with project.transaction():
        row = project.db.execute("SELECT id, text FROM prompts WHERE name = ?", [dataset]).fetchone()
        if row is None:
            repo_items.upsert_prompt(
                project, Prompt(name=dataset, text=system_prompt, schema=AnswerSchema.FREE), actor=actor
            )
            return True
        if (row[1] or "") == system_prompt:
            return False
        project.db.execute("UPDATE prompts SET text = ? WHERE id = ?", [system_prompt, row[0]])
        project.audit("update", "prompts", row[0], {"text": row[1]}, {"text": system_prompt}, actor)
        return True


def upsert_case(project: Project, case: TestCase, source: str | None = None, actor: str | None = None) -> str:
    """Add a test case (its text item, its dataset's prompt, its row).
    Returns 'added', 'exists' (same content), 'updated' (same id and dataset,
    edited in the file: audited, nothing else changes) or 'conflict: ...'
    (docs/test-cases.md: the id is another dataset's case or an item that is no
    test case; nothing is written)."""
    data = dict(
        case_id=case.id,
        dataset=case.dataset,
        query=case.query,
        context=json.dumps(case.context, sort_keys=True),
        expected=json.dumps(case.expected, sort_keys=True),
        metadata=json.dumps(case.metadata, sort_keys=True),
        category=case.category,
        source=source,
    )
    with project.transaction():
        item = repo_items.item_by_name(project, case.id)
        if item is not None:
            row = project.db.execute(
                "SELECT dataset, query, context, expected, metadata FROM cases WHERE item_id = ?", [item.id]
            ).fetchone()
            if row is None:
                return f"conflict: duplicate id '{case.id}': an item of that name exists already (not a test case)"
            if row[0] != case.dataset:
                return f"conflict: duplicate id '{case.id}' (already a case of dataset '{row[0]}')"
            if tuple(row[1:]) == (data["query"], data["context"], data["expected"], data["metadata"]):
                return "exists"
            project.db.execute(
                "UPDATE cases SET query = :query, context = :context, expected = :expected, "
                "metadata = :metadata, category = :category, source = :source WHERE item_id = :id",
                {**data, "id": item.id},
            )
            project.db.execute("UPDATE items SET text = ? WHERE id = ?", [case.query, item.id])
            # its answers are scored again against the new expectations
            project.db.execute(
                "DELETE FROM case_run_scores WHERE run_id IN (SELECT id FROM runs WHERE item_id = ?)", [item.id]
            )
            project.audit(
                "update",
                "cases",
                item.id,
                dict(zip(("dataset", "query", "context", "expected", "metadata"), row)),
                data,
                actor,
            )
            return "updated"
        item_id, _ = repo_items.upsert_item(project, Item(name=case.id, kind="text", text=case.query), actor)
        repo_items.upsert_prompt(project, Prompt(name=case.dataset, text="", schema=AnswerSchema.FREE), actor=actor)
        project.db.execute(
            "INSERT INTO cases (item_id, case_id, dataset, query, context, expected, metadata, "
            "category, source, imported_at) VALUES (:item_id, :case_id, :dataset, :query, "
            ":context, :expected, :metadata, :category, :source, :imported_at)",
            {**data, "item_id": item_id, "imported_at": now()},
        )
        project.audit("insert", "cases", item_id, None, data, actor)
    return "added"


# -- scoring --------------------------------------------------------------------------------------
def _key(f: Finding) -> tuple:
    return (f.code.value, f.attrs.get("metric"), f.attrs.get("check"))


def _merge(project: Project, run_id: int, new: list[Finding], version: str) -> None:
    """Write a run's new automatic case findings, keeping decisions (module doc)."""
    old = [
        f for f in repo_findings.findings(project, run_id) if f.source == Source.AUTO and isinstance(f.code, CaseCode)
    ]
    by_key: dict[tuple, list[Finding]] = {}
    for f in old:
        by_key.setdefault(_key(f), []).append(f)
    for f in new:
        same = by_key.get(_key(f))
        if same:
            kept = same.pop(0)
            if (kept.detail, kept.attrs, kept.model_card) != (f.detail, f.attrs, f.model_card):
                project.db.execute(
                    "UPDATE findings SET detail = ?, attrs = ?, model_card = ?, config_version = ? WHERE id = ?",
                    [f.detail, json.dumps(f.attrs), f.model_card, version, kept.id],
                )
            continue
        repo_findings.insert_finding(project, run_id, f, version, actor="scorer")
    for rest in by_key.values():
        for f in rest:
            if f.status.value == "proposed":
                assert f.id is not None  # read from the database
                repo_findings.delete_finding(project, f.id, actor="scorer")
            elif not f.stale:
                project.db.execute("UPDATE findings SET detail = ? WHERE id = ?", [STALE_PREFIX + f.detail, f.id])


def score_cases(
    project: Project,
    metrics: MetricSet | None = None,
    *,
    run_ids: Iterable[int] | None = None,
    only_stale: bool = False,
) -> int:
    """Score the runs of test cases (all, or ``run_ids``)
    with ``metrics`` (the project's set by default): every check's outcome
    stored, every fired check a finding (decisions kept). ``only_stale``:
    skip runs already scored with this set. Derived data, in short
    transactions. Returns the number of runs scored."""
    if project.db.execute("SELECT 1 FROM cases LIMIT 1").fetchone() is None:
        return 0  # no test case: nothing to load the metric set for
    metrics = metrics or project_metrics(project)
    version = metrics_version(metrics)
    sql = (
        f"SELECT r.id, r.output, {_CASE_COLUMNS}, s.metrics_version FROM runs r "
        "JOIN cases c ON c.item_id = r.item_id LEFT JOIN case_run_scores s ON s.run_id = r.id"
    )
    params: list = []
    if run_ids is not None:
        ids = list(run_ids)
        sql += f" WHERE r.id IN ({','.join('?' * len(ids))})"
        params = ids
    rows = [r for r in project.db.execute(sql, params).fetchall() if not (only_stale and r[-1] == version)]
    if not rows:
        return 0
    with project.batched(derived=True) as batch:
        for row in rows:
            run_id, output, case = row[0], row[1], _case(row[2:9])
            outcomes = evaluate(metrics, case, output)
            _merge(project, run_id, findings_of(outcomes, output, counted_metrics(metrics, case.category)), version)
            project.db.execute(
                "INSERT INTO case_run_scores (run_id, metrics_version, outcomes, scored_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(run_id) DO UPDATE SET metrics_version = excluded.metrics_version, "
                "outcomes = excluded.outcomes, scored_at = excluded.scored_at",
                [run_id, version, json.dumps([o.model_dump(mode="json") for o in outcomes]), now()],
            )
            batch.tick()
    return len(rows)


def check_outcomes(project: Project, run_id: int) -> list[dict]:
    """The stored outcome of every check of a case's run (metric, check,
    severity, on, fired, message, spans; ran and note, when not run), []
    when not scored."""
    return json.loads(check_outcomes_text(project, run_id))


def check_outcomes_text(project: Project, run_id: int) -> str:
    """``check_outcomes`` as stored (JSON text, '[]' when not scored): a
    reader can tell whether they changed without parsing them."""
    row = project.db.execute("SELECT outcomes FROM case_run_scores WHERE run_id = ?", [run_id]).fetchone()
    return row[0] if row else "[]"


def not_run_notes(project: Project, limit: int = 10) -> list[str]:
    """One line per check not run on an answer (its regexes ran out of the
    metric set's time limit: core.cases.metrics), naming the check, the case
    and the model; at most ``limit`` lines and one counting the rest."""
    rows = project.db.execute(
        "SELECT s.outcomes, i.name, r.model, r.repetition FROM case_run_scores s JOIN runs r ON r.id = s.run_id "
        "JOIN items i ON i.id = r.item_id WHERE s.outcomes LIKE '%\"ran\": false%' ORDER BY i.name, r.model, "
        "r.repetition, r.id"
    ).fetchall()
    lines = []
    for outcomes, case_id, model, repetition in rows:
        for o in json.loads(outcomes):
            if o.get("ran", True) is False:
                lines.append(
                    f"note: check {visible(o['metric'], False)}/{visible(o['check'], False)} on case "
                    f"{visible(case_id, False)} ({visible(model, False)} #{repetition}) {o.get('note') or 'not run'}"
                )
    if len(lines) > limit:
        lines[limit:] = [f"note: {len(lines) - limit} more checks not run over their time limit"]
    return lines


# -- results --------------------------------------------------------------------------------------
@dataclass
class CaseResult:
    """A scored answer of a test case: the run, the case, its findings and
    its automatic and reviewed scores. ``date``: the run's timestamp, or
    when it was imported (YYYY-MM-DD...)."""

    run: dict
    case: TestCase
    findings: list[Finding]
    auto: CaseScore
    reviewed: CaseScore

    @property
    def date(self) -> str:
        """The run's timestamp (or import time) as stored."""
        return self.run.get("timestamp") or self.run.get("imported_at") or ""


def case_results(project: Project, metrics: MetricSet | None = None) -> list[CaseResult]:
    """Every scored run of a test case with its scores (by
    case id, model, repetition)."""
    metrics = metrics or project_metrics(project)
    the_cases = cases(project)
    rows = project.db.execute(
        "SELECT r.id, r.item_id, i.name, p.name, r.model, r.repetition, r.output, r.timestamp, r.imported_at, "
        "s.outcomes FROM runs r JOIN items i ON i.id = r.item_id JOIN prompts p ON p.id = r.prompt_id "
        "JOIN case_run_scores s ON s.run_id = r.id ORDER BY i.name, r.model, r.repetition, r.id"
    ).fetchall()
    by_run: dict[int, list[Finding]] = {}
    for f in repo_findings.findings(project):
        assert f.run_id is not None  # stored findings belong to a run
        by_run.setdefault(f.run_id, []).append(f)
    out = []
    names = ("id", "item_id", "item", "prompt", "model", "repetition", "output", "timestamp", "imported_at")
    for row in rows:
        run = dict(zip(names, row))
        case = the_cases.get(run["item_id"])
        if case is None:
            continue
        fs = by_run.get(run["id"], [])
        outcomes = json.loads(row[-1] or "[]")
        out.append(
            CaseResult(
                run=run,
                case=case,
                findings=fs,
                auto=case_score(case, fs, metrics, outcomes=outcomes),
                reviewed=case_score(case, fs, metrics, reviewed=True, outcomes=outcomes),
            )
        )
    return out


CASE_RESULT_COLUMNS = {
    "run_id": int,
    "case_id": str,
    "model": str,
    "metric": str,
    "score": float,
    "errors": str,
    "warnings": str,
    "basis": str,
}
CASE_SCORE_COLUMNS = {
    "run_id": int,
    "case_id": str,
    "model": str,
    "category": str,
    "basis": str,
    "score": float,
    "passed": int,
}


def case_tables(project: Project) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The export's case_results (per run, metric and basis:
    score, errors and warnings as JSON lists) and case_scores (per run and
    basis: the case score and passed); [] when the project has no cases."""
    if not has_cases(project):
        return []
    results, scores = [], []
    for r in case_results(project):
        for s in (r.auto, r.reviewed):
            scores.append((r.run["id"], r.case.id, r.run["model"], r.case.category, s.basis, s.score, int(s.passed)))
            for m in s.metrics.values():
                results.append(
                    (
                        r.run["id"],
                        r.case.id,
                        r.run["model"],
                        m.metric,
                        m.score,
                        json.dumps(m.errors),
                        json.dumps(m.warnings),
                        s.basis,
                    )
                )
    return [("case_results", CASE_RESULT_COLUMNS, None, results), ("case_scores", CASE_SCORE_COLUMNS, None, scores)]
