"""A workflow beyond the five, registered only here (tests/helpers/toy_workflow),
is imported, recognised, scored, reported in every format and exported by
the composition modules looping over the registries, with no edit to them."""

from __future__ import annotations

import json

import pytest
import sqlite_utils
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.workflows import Workflow, infer, parse
from reviewer.storage.formats import import_formats
from tests.helpers import toy_workflow
from tests.helpers.export_parts import ONE_ROW
from tests.helpers.riddles import RIDDLES_FILE
from tests.helpers.toy_workflow.core import RIDDLES


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def riddles(tmp_path):
    source = tmp_path / "set.riddles.json"
    source.write_text(json.dumps(RIDDLES_FILE))
    with toy_workflow.registered():
        yield tmp_path / "p.db", source


def test_a_registered_workflow_is_recognised_before_the_five_and_parsed_back():
    with toy_workflow.registered():
        assert infer(photo=False, case=True, riddle=True) is RIDDLES
        assert infer(photo=False, riddle=False) == Workflow.JUDGED
        assert parse("riddles") is RIDDLES
        names = list(import_formats())
        assert names.index("riddles") == names.index("card-folder") - 1  # before the folder that takes any photos
    assert parse("riddles") is None and "riddles" not in import_formats()


def test_a_registered_workflow_is_imported_scored_reported_and_exported(riddles, tmp_path):
    db, source = riddles
    result = cli("import", db, source)
    assert result.exit_code == 0, result.output
    project = sqlite_utils.Database(db)
    assert {r["workflow"] for r in project.query("SELECT workflow FROM items")} == {"riddles"}

    md = cli("report", db)
    assert md.exit_code == 0, md.output
    assert "## Riddles" in md.output and "| m | 1 | 2 |" in md.output
    assert md.output.startswith("# reviewer report: p.db\n\n## Riddles")
    csv = cli("report", db, "--format", "csv")
    assert "riddles,m,1,2" in csv.output.splitlines()
    data = json.loads(cli("report", db, "--format", "json").output)
    assert data["workflows"] == {"riddles": [{"model": "m", "correct": 1, "runs": 2}]}

    out = tmp_path / "out.db"
    result = cli("export", db, out)
    assert result.exit_code == 0, result.output
    x = sqlite_utils.Database(out)
    assert sorted(r["correct"] for r in x.query("SELECT correct FROM riddle_scores")) == [0, 1]
    assert x.execute("SELECT workflow FROM items").fetchall() == [("riddles",), ("riddles",)]
    described = dict(x.execute("SELECT column, description FROM _columns WHERE \"table\" = 'riddle_scores'").fetchall())
    assert described["correct"] == "1 when the guess is the answer."


def test_the_five_register_their_export_tables_and_a_table_two_parts_give_is_one(tmp_path):
    from reviewer.storage import export_schema, registry
    from reviewer.storage.export import collect_tables, workflow_tables
    from reviewer.storage.project.db import open_project

    project = open_project(tmp_path / "p.db", create=True)
    try:
        base = ["items", "runs", "findings", "prompt_verdicts", "scoring_config"]
        names = [t[0] for t in collect_tables(project)]
        assert names[: len(base)] == base and set(export_schema.TABLES) == {*base, "_tables", "_columns"}
        # Every other table comes from a registration, described by it.
        registered = [t[0] for t in workflow_tables(project)]
        assert names[len(base) :] == registered
        docs = {name for parts in registry.registered() for name in parts.export_docs}
        assert set(registered) <= docs and {"verdicts", "case_scores", "span_runs", "gt_cards"} <= docs
        # Rows of a table that parts of two registrations give follow in rank order, in one table.
        later = registry.ExportPart(160, "tests.helpers.export_parts", "later_agreement_row")
        earlier = registry.ExportPart(150, "tests.helpers.export_parts", "agreement_row")
        registry.register(registry.StorageWorkflow("agreeing", export_parts=(later, earlier)))
        try:
            tables = {t[0]: t for t in workflow_tables(project)}
            assert [t[0] for t in workflow_tables(project)] == registered
            assert list(tables["agreement"][3]) == [ONE_ROW, ONE_ROW[:3] + (0.7,) + ONE_ROW[4:]]
        finally:
            registry.unregister("agreeing")
    finally:
        project.close()


def test_the_five_register_their_report_sections_and_the_report_loops_over_them(tmp_path):
    import inspect

    from reviewer.storage import registry, report
    from reviewer.storage.project.db import open_project

    sections = registry.report_sections()
    assert [s.key for _, s in sections if s.key] == [
        "cards",
        "test_cases",
        "judges",
        "ground_truth_agreement",
        "failter",
        "spans",
    ]
    # Every named function is found in its module, and the report's own module names no workflow package.
    for _, section in sections:
        for part in (section.markdown, section.csv, section.json, section.has_data):
            assert part is None or callable(section.function(part))
    source = inspect.getsource(report)
    assert not any(f"storage.{w}." in source for w in ("cards", "cases", "annotators"))
    # A section ranked among the five's, with a key of its own, sits there in every format and
    # hides the card section's empty tables.
    extra = registry.ReportSection(
        markdown=lambda p: "## Noted\n",
        csv=lambda p: "table,n\nnoted,1\n",
        json=lambda p: {"n": 1},
        rank=150,
        json_rank=5,
        key="noted",
    )
    registry.register(registry.StorageWorkflow("noting", report=extra))
    project = open_project(tmp_path / "p.db", create=True)
    try:
        md = report.build_report(project, report.ReportOptions(title="p")).text
        assert md == "# reviewer report: p\n\n## Noted\n"
        assert report.build_report(project, report.ReportOptions(fmt="csv")).text == "table,n\nnoted,1\n"
        data = json.loads(report.build_report(project, report.ReportOptions(fmt="json")).text)
        assert list(data)[:3] == ["project", "noted", "test_cases"] and data["cards"] is None
    finally:
        registry.unregister("noting")
        project.close()
    project = open_project(tmp_path / "p.db")
    try:
        assert "## T-P1 verdicts" in report.build_report(project, report.ReportOptions()).text
    finally:
        project.close()
