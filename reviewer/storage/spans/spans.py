"""Span labeling in the project (docs/spans.md): imported snapshots, golden sets
and golden spans, span F1 of runs, the span tables of the export and the
span section of the report.

A *span run* is a run whose output is ``{"text": labelled text, "spans":
[...]}`` (what the span-snapshot and span-golden-results importers store).
Golden spans belong to an item and the sha256 of the labelled text they
were drawn on (for golden-set items the item's text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from reviewer.core import workflows
from reviewer.core.spans import golden as g
from reviewer.core.spans.compare import compare_loaded
from reviewer.core.spans.report import f1_table, snapshot_markdown
from reviewer.core.spans.summary import compare_block, compute_summary, load_snapshot
from reviewer.core.tables import md_text
from reviewer.storage.files import safe_write
from reviewer.storage.project.db import Project, ProjectError, default_actor, inserted_id, now
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo.sources import import_sources

#: The prompt every span run belongs to (as the span-snapshot importer names it).
SPAN_PROMPT = workflows.SPAN_PROMPT


# -- snapshots --------------------------------------------------------------------
def save_snapshot(project: Project, name: str, source: str, data: Mapping, actor: str | None = None) -> tuple[int, str]:
    """Store a snapshot's JSON under ``name`` (the file stem): (id, 'added' |
    'exists' | 'replaced'); the same name with other content replaces it."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    digest = repo_items.sha256_text(text)
    with project.transaction():
        row = project.db.execute("SELECT id, sha256 FROM span_snapshots WHERE name = ?", [name]).fetchone()
        values = [
            source,
            digest,
            data.get("timestamp") if isinstance(data.get("timestamp"), str) else None,
            str(data.get("judgeModel") or ""),
            data.get("extractionModel") if isinstance(data.get("extractionModel"), str) else None,
            text,
            now(),
        ]
        if row and row[1] == digest:
            return row[0], "exists"
        if row:
            project.db.execute(
                "UPDATE span_snapshots SET source = ?, sha256 = ?, timestamp = ?, judge_model = ?, "
                "extraction_model = ?, data = ?, imported_at = ? WHERE id = ?",
                values + [row[0]],
            )
            project.audit("update", "span_snapshots", row[0], None, {"name": name, "source": source}, actor)
            return row[0], "replaced"
        cur = project.db.execute(
            "INSERT INTO span_snapshots (name, source, sha256, timestamp, judge_model, "
            "extraction_model, data, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [name] + values,
        )
        project.audit("insert", "span_snapshots", inserted_id(cur), None, {"name": name, "source": source}, actor)
        return inserted_id(cur), "added"


def link_run(project: Project, snapshot_id: int, prompt_key: str, run_id: int | None) -> None:
    """Record that the result ``prompt_key`` of a snapshot became run ``run_id``."""
    with project.transaction():
        project.db.execute(
            "INSERT OR REPLACE INTO span_snapshot_runs (snapshot_id, prompt_key, run_id) VALUES (?, ?, ?)",
            [snapshot_id, prompt_key, run_id],
        )


def snapshot_names(project: Project) -> list[str]:
    """Names of the stored snapshots, in import order."""
    return [r[0] for r in project.db.execute("SELECT name FROM span_snapshots ORDER BY id")]


def snapshot(project: Project, name: str) -> tuple[dict, dict]:
    """(meta {name, source, timestamp, judge_model, extraction_model}, the
    loaded snapshot) of ``name``; ProjectError when there is none."""
    row = project.db.execute(
        "SELECT name, source, timestamp, judge_model, extraction_model, data FROM span_snapshots WHERE name = ?", [name]
    ).fetchone()
    if row is None:
        known = ", ".join(snapshot_names(project)) or "none"
        raise ProjectError(f"no span snapshot named '{name}' (known: {known})")
    meta = dict(zip(("name", "source", "timestamp", "judge_model", "extraction_model"), row[:5]))
    return meta, load_snapshot(json.loads(row[5]))


def summary_and_notes(loaded: Mapping) -> tuple[dict, list[str]]:
    """(recomputed summary, notes on where the file's own blocks differ)."""
    computed = compute_summary(loaded)
    extra = {"categoryScores": loaded["categoryScores"]} if loaded.get("categoryScores") else None
    notes = []
    for key, diffs in compare_block(computed, loaded.get("summary") or {}, extra).items():
        if diffs:
            notes.append(
                f"the file's {key} differs from the results: "
                + "; ".join(diffs[:3])
                + (f" (+{len(diffs) - 3} more)" if len(diffs) > 3 else "")
            )
    return computed, notes


def compare(project: Project, baseline: str, current: str) -> dict:
    """The comparison of two stored snapshots (design property P10) over
    the prompts they share, see reviewer.core.spans.compare.compare_loaded."""
    _, b = snapshot(project, baseline)
    _, c = snapshot(project, current)
    return compare_loaded(b, c)


def compare_text(baseline: str, current: str, c: Mapping) -> str:
    """The comparison as readable lines for the terminal."""
    lines = [f"warning: {c['warning']}"] if c.get("warning") else []
    if "shared_prompts" in c:
        lines.append(
            f"prompts: baseline {c['baseline_prompts']}, current {c['current_prompts']}, shared "
            f"{c['shared_prompts']}"
            + (f"; compared: the {c['shared_prompts']} shared prompts only" if c.get("only_shared") else "")
        )
    lines += [
        f"{baseline} -> {current}: average score {c['score_delta']:+.2f}, span count {c['span_count_delta']:+.2f}",
        f"regressions (score down 3 or more): {len(c['regressions'])}",
    ]
    lines += [f"  {r['prompt']}: {r['baseline']:g} -> {r['current']:g} ({r['delta']:+g})" for r in c["regressions"]]
    lines.append(f"improvements (score up 3 or more): {len(c['improvements'])}")
    lines += [f"  {r['prompt']}: {r['baseline']:g} -> {r['current']:g} ({r['delta']:+g})" for r in c["improvements"]]
    lines.append("category deltas (coverage / precision):")
    lines += [f"  {cat:<12} {d['coverage']:+.2f} / {d['precision']:+.2f}" for cat, d in c["category_deltas"].items()]
    for title, key in (("new confusions", "new_confusions"), ("resolved confusions", "resolved_confusions")):
        lines.append(f"{title}: {len(c[key])}")
        lines += [f"  {x['assigned_role']} -> {x['expected_role']} ({x['count']}x)" for x in c[key]]
    lines.append("section deltas (false positives / missed):")
    lines += [f"  {sec:<15} {d['false_positives']:+d} / {d['missed']:+d}" for sec, d in c["section_deltas"].items()]
    return "\n".join(lines)


# -- span runs ----------------------------------------------------------------------
def parse_span_output(output: str) -> tuple[str, list[dict]] | None:
    """(labelled text, spans) of a span run's output, None when it is not one."""
    try:
        data = json.loads(output)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str) or not isinstance(data.get("spans"), list):
        return None
    return data["text"], [s for s in data["spans"] if isinstance(s, dict)]


def span_runs(project: Project) -> list[dict]:
    """Every span run: {run_id, item_id, item, model, source, text, spans, snapshot}."""
    rows = project.db.execute(
        "SELECT r.id, r.item_id, i.name, r.model, r.source, r.output, "
        "(SELECT s.name FROM span_snapshot_runs l JOIN span_snapshots s ON s.id = l.snapshot_id "
        " WHERE l.run_id = r.id ORDER BY s.id LIMIT 1) "
        "FROM runs r JOIN items i ON i.id = r.item_id JOIN prompts p ON p.id = r.prompt_id "
        "WHERE p.name = ? ORDER BY r.id",
        [SPAN_PROMPT],
    ).fetchall()
    out = []
    for run_id, item_id, item, model, source, output, snap in rows:
        parsed = parse_span_output(output)
        if parsed is None:
            continue
        out.append(
            {
                "run_id": run_id,
                "item_id": item_id,
                "item": item,
                "model": model,
                "source": source,
                "text": parsed[0],
                "spans": parsed[1],
                "snapshot": snap,
            }
        )
    return out


# -- golden spans -----------------------------------------------------------------
def _golden(row) -> g.GoldenSpan:
    return g.GoldenSpan(id=row[0], start=row[1], end=row[2], role=row[3], text=row[4], extra=json.loads(row[5] or "{}"))


def golden_spans(project: Project, item_id: int, text: str) -> list[g.GoldenSpan]:
    """The golden spans of ``item_id`` drawn on ``text``, in order of start."""
    rows = project.db.execute(
        "SELECT id, start, end, role, text, extra FROM golden_spans WHERE item_id = ? "
        "AND text_sha256 = ? ORDER BY start, end, position, id",
        [item_id, repo_items.sha256_text(text)],
    ).fetchall()
    return [_golden(r) for r in rows]


def all_golden(project: Project) -> dict[tuple[int, str], list[dict]]:
    """{(item id, text sha256): golden spans as dicts}."""
    out: dict[tuple[int, str], list[dict]] = {}
    for item_id, sha, start, end, role, text in project.db.execute(
        "SELECT item_id, text_sha256, start, end, role, text FROM golden_spans ORDER BY start, end, position, id"
    ):
        out.setdefault((item_id, sha), []).append({"start": start, "end": end, "role": role, "text": text})
    return out


class GoldenSpanStore:
    """The golden-span part of the commands' Store (mixed into
    reviewer.storage.store.ProjectStore): each method one transaction with
    an audit row."""

    project: Project
    actor: str

    def add_golden_span(self, item_id: int, labelled: str, span: g.GoldenSpan) -> int:
        """Insert ``span`` on (item, labelled text), keeping ``span.id`` when set (redo), after the
        item's other golden spans in the file order; its id."""
        p = self.project
        sha = repo_items.sha256_text(labelled)
        with p.transaction():
            position = p.db.execute(
                "SELECT coalesce(max(position) + 1, 0) FROM golden_spans WHERE item_id = ? AND text_sha256 = ?",
                [item_id, sha],
            ).fetchone()[0]
            cur = p.db.execute(
                "INSERT INTO golden_spans (id, item_id, text_sha256, start, end, role, text, extra, position, "
                "created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    span.id,
                    item_id,
                    sha,
                    span.start,
                    span.end,
                    span.role,
                    span.text,
                    json.dumps(span.extra),
                    position,
                    self.actor,
                    now(),
                ],
            )
            p.audit("insert", "golden_spans", inserted_id(cur), None, span.to_json(), self.actor)
            return inserted_id(cur)

    def get_golden_span(self, span_id: int) -> tuple[int, g.GoldenSpan]:
        """(item id, span) of ``span_id``; KeyError when absent."""
        row = self.project.db.execute(
            "SELECT id, start, end, role, text, extra, item_id FROM golden_spans WHERE id = ?", [span_id]
        ).fetchone()
        if row is None:
            raise KeyError(span_id)
        return row[6], _golden(row)

    def update_golden_span(self, span_id: int, span: g.GoldenSpan) -> None:
        """Write start, end, role and text of ``span`` to ``span_id``; KeyError when absent."""
        _, before = self.get_golden_span(span_id)
        with self.project.transaction():
            self.project.db.execute(
                "UPDATE golden_spans SET start = ?, end = ?, role = ?, text = ? WHERE id = ?",
                [span.start, span.end, span.role, span.text, span_id],
            )
            self.project.audit("update", "golden_spans", span_id, before.to_json(), span.to_json(), self.actor)

    def delete_golden_span(self, span_id: int) -> None:
        """Delete ``span_id``; KeyError when absent."""
        _, before = self.get_golden_span(span_id)
        with self.project.transaction():
            self.project.db.execute("DELETE FROM golden_spans WHERE id = ?", [span_id])
            self.project.audit("delete", "golden_spans", span_id, before.to_json(), None, self.actor)


def import_golden_prompts(
    project: Project, name: str, metadata: Mapping, prompts: list[g.GoldenPrompt], actor: str | None = None
) -> dict[str, int]:
    """Store a golden-set file: an item per prompt (text item named by its
    id), its golden spans (only when the item has none on that text yet, so
    hand edits survive a re-import), and the file's metadata and prompt order
    for export. Returns counts {'items': added, 'golden spans': added,
    'skipped': prompts whose name is taken by another item}."""
    from reviewer.core.models import Item

    counts = {"items": 0, "golden spans": 0, "skipped": 0}
    order = []
    for p in prompts:
        existing = repo_items.item_by_name(project, p.id)
        if existing is not None and (existing.kind != "text" or (existing.text or "") != p.text):
            counts["skipped"] += 1
            continue
        item_id, created = repo_items.upsert_item(project, Item(name=p.id, kind="text", text=p.text), actor)
        counts["items"] += int(created)
        order.append({"item": p.id, "extra": p.extra, "truth_extra": p.truth_extra, "key_order": list(p.key_order)})
        sha = repo_items.sha256_text(p.text)
        with project.transaction():
            has = project.db.execute(
                "SELECT 1 FROM golden_spans WHERE item_id = ? AND text_sha256 = ? LIMIT 1", [item_id, sha]
            ).fetchone()
            if has:
                continue
            for pos, s in enumerate(p.spans):
                project.db.execute(
                    "INSERT INTO golden_spans (item_id, text_sha256, start, end, role, text, extra, position, "
                    "created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        item_id,
                        sha,
                        s.start,
                        s.end,
                        s.role,
                        s.text,
                        json.dumps({**s.extra, "_key_order": list(s.key_order)}),
                        pos,
                        actor or default_actor(),
                        now(),
                    ],
                )
                counts["golden spans"] += 1
    with project.transaction():
        project.db.execute(
            "INSERT INTO golden_sets (name, metadata, prompts, imported_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET metadata = excluded.metadata, prompts = excluded.prompts",
            [name, json.dumps(dict(metadata)), json.dumps(order), now()],
        )
    return counts


def golden_set_names(project: Project) -> list[str]:
    """Names (file stems) of the imported golden sets."""
    return [r[0] for r in project.db.execute("SELECT name FROM golden_sets ORDER BY id")]


def golden_set_json(project: Project, name: str) -> dict:
    """A golden set in its own file format, with the golden spans as they are
    now (hand edits included); ProjectError when there is none."""
    row = project.db.execute("SELECT metadata, prompts FROM golden_sets WHERE name = ?", [name]).fetchone()
    if row is None:
        raise ProjectError(f"no golden set named '{name}' (known: {', '.join(golden_set_names(project)) or 'none'})")
    prompts = []
    for entry in json.loads(row[1]):
        item = repo_items.item_by_name(project, entry["item"])
        if item is None:
            continue
        rows = project.db.execute(
            "SELECT id, start, end, role, text, extra FROM golden_spans WHERE item_id = ? AND text_sha256 = ? "
            "ORDER BY position, start, id",
            [item.id, repo_items.sha256_text(item.text or "")],
        ).fetchall()
        spans = []
        for r in rows:
            span = _golden(r)
            order = span.extra.pop("_key_order", None)
            if order:
                span.key_order = tuple(order)
            spans.append(span)
        prompts.append(
            g.GoldenPrompt(
                id=entry["item"],
                text=item.text or "",
                spans=spans,
                extra=entry["extra"],
                truth_extra=entry["truth_extra"],
                key_order=tuple(entry["key_order"]),
            )
        )
    return g.golden_set_json(json.loads(row[0]), prompts)


#: A golden-set file, to check a file golden-export would replace
#: (reviewer.storage.files.safe_write): a JSON object with a list of prompts.
GOLDEN_FORMAT = safe_write.json_format(
    "golden-set file", lambda v: isinstance(v, dict) and isinstance(v.get("prompts"), list)
)


def write_golden_set(project: Project, name: str, out: Path, force: bool = False) -> int:
    """Write golden set ``name`` to ``out`` in its own format (2-space
    indent, UTF-8, newline at the end, as the files are: nothing is added,
    so an unedited set is byte-identical); the number of prompts. The file
    is replaced whole (reviewer.storage.files.safe_write): TargetRefused, before
    writing, for a project, a file that is not a golden set or a target
    inside a source the project was imported from (the golden file itself
    included), unless ``force``; ProjectError when it cannot be written
    (the previous file is left whole)."""
    sources = import_sources(project)
    safe_write.check_target(out, GOLDEN_FORMAT, sources=sources, force=force)
    data = golden_set_json(project, name)
    safe_write.write_json(out, data, GOLDEN_FORMAT, sources=sources, force=force, indent=2)
    return len(data["prompts"])


# -- F1 -----------------------------------------------------------------------------
def _group(run: Mapping) -> str:
    return run["snapshot"] or f"model:{run['model']}"


def f1_by_group(project: Project) -> dict[str, dict[str, dict[str, g.Counts]]]:
    """{group: {'exact'|'relaxed': {'all' | category | role: Counts}}} of the
    span runs that have golden spans on their labelled text; a group is the
    run's snapshot, else 'model:<model>'. Categories and roles both appear
    (categories: the nine taxonomy categories; roles: category.attribute)."""
    gold = all_golden(project)
    pairs: dict[str, list] = {}
    for run in span_runs(project):
        golden = gold.get((run["item_id"], repo_items.sha256_text(run["text"])))
        if golden is None:
            continue
        pairs.setdefault(_group(run), []).append((run["spans"], golden))
    out: dict[str, dict[str, dict[str, g.Counts]]] = {}
    for group, ps in pairs.items():
        out[group] = {}
        for mode in ("exact", "relaxed"):
            by_cat = g.span_f1(ps, mode, key=g.category_of)
            by_role = g.span_f1(ps, mode)
            by_role.pop("all")
            out[group][mode] = {**by_cat, **{k: v for k, v in by_role.items() if k not in by_cat}}
    return out


# -- export and report ----------------------------------------------------------------
def export_tables(project: Project) -> list[tuple[str, dict, str | None, list[tuple]]]:
    """The span tables of the export, keyed by snapshot (docs/export-schema.md):
    span_summary, span_category_scores, span_fp_reasons,
    span_taxonomy_confusions, span_sections, span_confidence, golden_spans
    and span_f1. Empty tables when the project has no span data."""
    summary, cats, reasons, confusions, sections, confidence = [], [], [], [], [], []
    for name in snapshot_names(project):
        _, loaded = snapshot(project, name)
        s = compute_summary(loaded)
        ca = s["confidenceAnalysis"]
        summary.append(
            (
                name,
                s["prompts"],
                s["judged"],
                s["errorCount"],
                s["avgScore"],
                s["avgSpanCount"],
                ca["recommendedThreshold"],
            )
        )
        cats += [(name, c, v["coverage"], v["precision"]) for c, v in s["avgCategoryScores"].items()]
        reasons += [(name, r, n) for r, n in s["falsePositiveReasons"].items()]
        confusions += [(name, c["assignedRole"], c["expectedRole"], c["count"]) for c in s["topTaxonomyErrors"]]
        sections += [(name, sec, v["falsePositives"], v["missed"]) for sec, v in s["errorsBySection"].items()]
        confidence += [(name, b, v["total"], v["errors"], v["errorRate"]) for b, v in ca["buckets"].items()]
    golden_rows = [
        tuple(r)
        for r in project.db.execute(
            "SELECT g.id, i.name, g.text_sha256, g.start, g.end, g.role, g.text, g.created_by, g.created_at "
            "FROM golden_spans g JOIN items i ON i.id = g.item_id ORDER BY i.name, g.start, g.end, g.id"
        )
    ]
    f1_rows = []
    for group, modes in f1_by_group(project).items():
        for mode, groups in modes.items():
            for key, c in groups.items():
                f1_rows.append((group, mode, key, c.golden, c.predicted, c.tp, c.precision, c.recall, c.f1))
    return [
        (
            "span_summary",
            {
                "snapshot": str,
                "prompts": int,
                "judged": int,
                "errors": int,
                "avg_score": float,
                "avg_span_count": float,
                "recommended_min_confidence": float,
            },
            "snapshot",
            summary,
        ),
        ("span_category_scores", {"snapshot": str, "category": str, "coverage": float, "precision": float}, None, cats),
        ("span_fp_reasons", {"snapshot": str, "reason": str, "count": int}, None, reasons),
        (
            "span_taxonomy_confusions",
            {"snapshot": str, "assigned_role": str, "expected_role": str, "count": int},
            None,
            confusions,
        ),
        ("span_sections", {"snapshot": str, "section": str, "false_positives": int, "missed": int}, None, sections),
        (
            "span_confidence",
            {"snapshot": str, "bucket": str, "total": int, "errors": int, "error_rate": float},
            None,
            confidence,
        ),
        (
            "golden_spans",
            {
                "golden_span_id": int,
                "item": str,
                "text_sha256": str,
                "start": int,
                "end": int,
                "role": str,
                "text": str,
                "created_by": str,
                "created_at": str,
            },
            "golden_span_id",
            golden_rows,
        ),
        (
            "span_f1",
            {
                "snapshot": str,
                "match": str,
                "category": str,
                "golden": int,
                "predicted": int,
                "matched": int,
                "precision": float,
                "recall": float,
                "f1": float,
            },
            None,
            f1_rows,
        ),
    ]


def has_span_data(project: Project) -> bool:
    """True when the project has a span snapshot or golden spans."""
    return bool(
        project.db.execute("SELECT 1 FROM span_snapshots UNION ALL SELECT 1 FROM golden_spans LIMIT 1").fetchone()
    )


def report_markdown(project: Project) -> str:
    """The span section of ``reviewer report`` (Markdown): per snapshot the
    design's report shape, recomputed from the results, with span F1 where
    golden spans exist and notes where the file's own summary differs; then
    span F1 of runs outside snapshots."""
    f1 = f1_by_group(project)
    out = ["## Span labeling", ""]
    for name in snapshot_names(project):
        meta, loaded = snapshot(project, name)
        s, notes = summary_and_notes(loaded)
        out += snapshot_markdown(name, meta, s, md_text, f1.pop(name, None), notes)
    for group, modes in f1.items():
        out += [f"### Span F1 of {md_text(group)} against golden spans", ""] + f1_table(modes, md_text) + [""]
    return "\n".join(out).rstrip() + "\n"


__all__ = [
    "GoldenSpanStore",
    "SPAN_PROMPT",
    "all_golden",
    "compare",
    "export_tables",
    "f1_by_group",
    "golden_set_json",
    "golden_set_names",
    "golden_spans",
    "has_span_data",
    "import_golden_prompts",
    "link_run",
    "parse_span_output",
    "report_markdown",
    "save_snapshot",
    "snapshot",
    "snapshot_names",
    "span_runs",
    "summary_and_notes",
    "write_golden_set",
]
