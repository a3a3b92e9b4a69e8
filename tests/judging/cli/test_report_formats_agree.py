"""Every section of `reviewer report` is in every format with the same
figures: for each project `reviewer demo` builds from samples/ and for the
real data of ../shared/data (skipped when absent), the Markdown, the CSV
and the JSON are parsed back into tables and compared.

Generic over sections: the CSV's tables are found by their first column
``table``; a table of the CSV must be in the JSON (JSON_PATHS, or under
``spans`` by its own name) and under its heading in the Markdown
(MD_HEADINGS); a table in the JSON must be in the CSV. Figures are compared
column by column wherever two formats name a column alike (the Markdown's
numbers at their own precision), so a new section's figures are compared
once its table has a name in the two maps, and a section missing from a
format, or a figure that differs, fails."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from tests.helpers.paths import shared

#: tables of the span section are under "spans" by their own name.
JSON_PATHS = {
    "card_findings": ("cards", "code_counts"),
    "judge_verdicts": ("judges", "verdicts"),
    "judge_agreement": ("judges", "agreement"),
    "judge_disputes": ("judges", "disputes"),
    "rubric_gate": ("judges", "rubric", "gate"),
    "rubric_disputes": ("judges", "rubric", "disputes"),
    "gt_agreement": ("ground_truth_agreement",),
    "failter": ("failter",),
}
#: CSV table (or its prefix, ending in '_') -> the Markdown heading of its section.
MD_HEADINGS = {
    "card_verdicts": "## T-P1 verdicts",
    "card_findings": "## Findings per code",
    "case_reports": "## Test cases",
    "case_failures": "## Failures by check",
    "case_comparison": "## Comparison by",
    "judge_verdicts": "## Judge verdicts",
    "judge_agreement": "## Agreement",
    "judge_disputes": "## Disputes",
    "rubric_": "## Rubric rules",
    "gt_agreement": "## Ground-truth agreement",
    "failter": "## Failter report",
    "span_": "## Span labeling",
}
#: Markdown column -> the CSV column it shows, where the names differ.
MD_ALIASES = {
    "text": "text_accuracy",
    "spatial": "spatial_accuracy",
    "halluc_runs": "hallucination_runs",
    "avg_time": "avg_time_s",
}
#: Markdown rows that sum or explain the others (no row of the CSV).
MD_EXTRA_ROWS = {"total", "expected (plan)"}


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _key(name: str) -> str:
    name = re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")
    return MD_ALIASES.get(name, name)


def _scalar(value):
    """A cell as a float when it is a number, None when empty, else its text."""
    if value is None or value == "" or value == "-":
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(value)
    except ValueError:
        return str(value)


def _same(a, b, tolerance=1e-4) -> bool:
    a, b = _scalar(a), _scalar(b)
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= tolerance
    return a == b


# -- CSV ---------------------------------------------------------------------------------------
def csv_tables(text: str) -> dict[str, list[dict]]:
    tables: dict[str, list[dict]] = {}
    for block in text.strip("\n").split("\n\n"):
        if not block.strip():
            continue
        reader = csv.reader(io.StringIO(block))
        header = next(reader)
        assert header[0] == "table", f"a CSV table without a first column 'table': {header}"
        for row in reader:
            tables.setdefault(row[0], []).append({_key(h): v for h, v in zip(header[1:], row[1:])})
    return tables


# -- JSON --------------------------------------------------------------------------------------
def _seed_tables(auto: list, reviewed: list) -> dict[str, list[dict]]:
    """The test-case tables out of the seed's reports (one list per basis)."""
    reports, failures = [], {}
    for basis, reps in (("auto", auto), ("reviewed", reviewed)):
        for rep in reps:
            row = {k.lower(): rep[k] for k in ("totalCases", "passedCases", "failedCases", "averageScore")}
            row |= {k.lower(): v for k, v in rep["metricAverages"].items()}
            reports.append({"model": rep["modelInfo"]["modelId"], "basis": basis, **row})
            if basis == "reviewed":
                for result in rep["results"]:
                    for severity in ("errors", "warnings"):
                        for check in {d.split(":", 1)[0] for d in result["details"][severity]}:
                            k = (rep["modelInfo"]["modelId"], check, severity.rstrip("s"))
                            failures[k] = failures.get(k, 0) + 1
    out = {"case_reports": sorted(reports, key=lambda r: (r["model"], r["basis"]))}
    if failures:
        out["case_failures"] = [
            {"model": m, "check": c, "severity": s, "answers": n} for (m, c, s), n in sorted(failures.items())
        ]
    return out


def json_tables(auto_text: str, reviewed_text: str) -> dict[str, list[dict]]:
    data, reviewed = json.loads(auto_text), json.loads(reviewed_text)
    if isinstance(data, list):  # only test cases: the seed's shape
        return _seed_tables(data, reviewed) if data else {}
    tables: dict[str, list[dict]] = {}
    if data["test_cases"]:
        tables |= _seed_tables(data["test_cases"], reviewed["test_cases"])
    cards = data["cards"] or {}
    for basis, rows in (cards.get("verdicts") or {}).items():
        tables.setdefault("card_verdicts", []).extend({"basis": basis, **r} for r in rows)
    for name, path in JSON_PATHS.items():
        value = data
        for step in path:
            value = value.get(step) if isinstance(value, dict) else None
        if name == "card_findings" and value:
            value = [{"prompt": c["prompt"], "code": k, "findings": n} for c in value for k, n in c["codes"].items()]
        if name == "judge_disputes" and value:
            value = [{"kind": k, "disputes": n} for k, n in value.items()]
        if value:
            tables[name] = [{_key(k): v for k, v in r.items()} for r in value]
    for name, rows in (data["spans"] or {}).items():
        if rows:
            tables[name] = rows
    return {k: v for k, v in tables.items() if v}


# -- Markdown ----------------------------------------------------------------------------------
def _heading(table: str) -> str:
    for name, heading in MD_HEADINGS.items():
        if table == name or (name.endswith("_") and table.startswith(name)) or table.startswith(name + "_"):
            return heading
    raise AssertionError(f"the CSV table {table} has no Markdown heading in MD_HEADINGS: add it")


def _section(md: str, heading: str) -> str:
    start = md.find("\n" + heading)
    assert start >= 0, f"the Markdown has no section '{heading}'"
    rest = md[start + 1 :]
    end = rest.find("\n## ", 1)
    return rest if end < 0 else rest[:end]


def _md_cell(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text.strip())


def md_tables(section: str) -> list[list[dict]]:
    tables, lines = [], section.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            header = [_key(_md_cell(c)) for c in re.split(r"(?<!\\)\|", lines[i].strip().strip("|"))]
            rows, i = [], i + 2
            while i < len(lines) and lines[i].startswith("|"):
                cells = [_md_cell(c) for c in re.split(r"(?<!\\)\|", lines[i].strip().strip("|"))]
                rows.append(dict(zip(header, cells)))
                i += 1
            tables.append(rows)
        else:
            i += 1
    return tables


def _md_same(cell: str, value) -> bool:
    """A Markdown cell shows ``value`` (a CSV cell) at the cell's own precision."""
    if (cell, value) == ("all", "*"):  # the card verdicts' row of all items
        return True
    if cell == "undefined":  # a statistic without a value: empty in the CSV
        return _scalar(value) is None
    if cell in ("yes", "") and value in ("1", "0"):  # a flag: 'yes' or nothing in the Markdown
        return (cell == "yes") == (value == "1")
    if isinstance(value, str) and "; " in value and "; " not in cell:  # lists: '; ' in the CSV, ', ' in the Markdown
        value = value.replace("; ", ", ")
    if cell.endswith("…"):
        return str(value).startswith(cell[:-1])
    cell = re.sub(r"^(-?[\d.]+)/\d+$", r"\1", cell)  # a score out of its scale's top: '17/25'
    number = re.fullmatch(r"(-?\d+(?:\.(\d+))?)(%?)", cell)
    v = _scalar(value)
    if number and isinstance(v, float):
        decimals = len(number.group(2) or "")
        shown = float(number.group(1)) / (100 if number.group(3) else 1)
        step = 10 ** -(decimals + (2 if number.group(3) else 0))
        return abs(shown - v) <= step / 2 + 1e-9
    return _same(cell, value)


def compare_markdown(md: str, tables: dict[str, list[dict]]) -> None:
    """Each table of ``tables`` (CSV) has its section in the Markdown. Each
    Markdown table of a section is compared with the section's CSV table
    that shares most of its columns (at least two and half of them, one a
    number): its rows show figures of that table's rows, and every row of
    that table (by its text columns) is in one of them."""
    by_heading: dict[str, list[str]] = {}
    for table in tables:
        by_heading.setdefault(_heading(table), []).append(table)
    for heading, names in by_heading.items():
        shown: dict[str, list[tuple[list[str], list[dict]]]] = {}
        for md_rows in md_tables(_section(md, heading)):
            if not md_rows:
                continue
            columns = list(md_rows[0])
            table = max(names, key=lambda n: sum(c in tables[n][0] for c in columns))
            rows = tables[table]
            common = [c for c in columns if c in rows[0]]
            numeric = [c for c in common if isinstance(_scalar(rows[0][c]), float)]
            if len(common) < 2 or 2 * len(common) < len(columns) or not numeric:
                continue
            shown.setdefault(table, []).append((common, md_rows))
            for md_row in md_rows:
                if next(iter(md_row.values())) in MD_EXTRA_ROWS:
                    continue
                assert any(all(_md_same(md_row[c], r[c]) for c in common) for r in rows), (
                    f"{table}: the Markdown's row {md_row} is in no row of the CSV"
                )
        for table, parts in shown.items():
            for r in tables[table]:
                assert any(
                    all(_md_same(m[c], r[c]) for c in common if not isinstance(_scalar(r[c]), float))
                    for common, md_rows in parts
                    for m in md_rows
                ), f"{table}: the CSV's row {r} is not in the Markdown"


def compare_json(table: str, csv_rows: list[dict], json_rows: list[dict]) -> None:
    assert len(csv_rows) == len(json_rows), f"{table}: {len(csv_rows)} rows in the CSV, {len(json_rows)} in the JSON"
    key = lambda r: tuple(str(_scalar(r[c])) for c in sorted(r) if not isinstance(r[c], (list, dict)))  # noqa: E731
    common = sorted(c for c in csv_rows[0] if c in json_rows[0] and not isinstance(json_rows[0][c], (list, dict)))
    assert common, f"{table}: the CSV and the JSON share no column"
    rest = list(json_rows)
    for r in csv_rows:
        match = next((j for j in rest if all(_same(r[c], j[c]) for c in common)), None)
        assert match is not None, (
            f"{table}: the CSV's row {r} is in no row of the JSON ({key(rest[0]) if rest else ''})"
        )
        rest.remove(match)


def assert_formats_agree(db: Path) -> set[str]:
    """Parse the report of ``db`` in every format and compare; the tables compared."""
    md = cli("report", db).output
    as_csv = cli("report", db, "--format", "csv").output
    auto = cli("report", db, "--format", "json").output
    reviewed = cli("report", db, "--format", "json", "--basis", "reviewed").output
    from_csv = {k: v for k, v in csv_tables(as_csv).items() if v}
    from_json = json_tables(auto, reviewed)
    json_only = set(from_json) - set(from_csv)
    assert not json_only, f"{db.name}: sections in the JSON and not in the CSV: {sorted(json_only)}"
    for table, rows in from_csv.items():
        if not table.startswith("case_comparison"):  # the JSON's seed results hold these figures
            assert table in from_json, f"{db.name}: the CSV's table {table} is not in the JSON"
            compare_json(table, rows, from_json[table])
    compare_markdown(md, from_csv)
    return set(from_csv)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo")
    result = cli("demo", folder)
    assert result.exit_code == 0, result.output
    return folder


#: The demo's projects and the sections each must have (at least).
DEMO_SECTIONS = {
    "sample.db": {"card_verdicts", "card_findings"},
    "cases.db": {"case_reports", "case_failures", "case_comparison", "case_comparison_cases"},
    "failter.db": {"judge_verdicts", "judge_disputes", "failter"},
    "rubric.db": {"judge_verdicts", "judge_agreement", "rubric_disputes"},
    "pairwise.db": {"judge_agreement", "judge_disputes"},
    "promptfoo.db": {"judge_verdicts"},
    "spans.db": {"span_f1"},
    "inspect.db": set(),
}


@pytest.mark.parametrize("name", sorted(DEMO_SECTIONS))
def test_every_sample_projects_sections_agree_in_every_format(demo, name):
    db = demo / name
    if not db.exists():
        pytest.skip(f"the demo made no {name} (its optional dependency is not installed)")
    assert DEMO_SECTIONS[name] <= assert_formats_agree(db)


SHARED_SOURCES = {
    "span-labeling": ("golden-set", "snapshots/baseline.json"),
    "tarot-readings": (".",),
    "cicada-test-cases": ("citation-accuracy.json",),
}


@pytest.mark.parametrize("folder", sorted(SHARED_SOURCES))
def test_the_real_datas_sections_agree_in_every_format(tmp_path, folder):
    data = shared(folder)
    db = tmp_path / "real.db"
    for source in SHARED_SOURCES[folder]:
        result = cli("import", db, data / source)
        assert result.exit_code == 0, result.output
    assert_formats_agree(db)


def test_a_differing_figure_or_a_missing_section_fails(demo):
    # the comparison can fail: a figure changed in one format, or a section
    # left out of one, is caught
    as_csv = cli("report", demo / "failter.db", "--format", "csv").output
    rows = csv_tables(as_csv)["failter"]
    md = cli("report", demo / "failter.db").output
    changed = [dict(r, avg_score="51.0") if r["model"] == "sloppy-model" else r for r in rows]
    compare_markdown(md, {"failter": rows})
    with pytest.raises(AssertionError):
        compare_markdown(md, {"failter": changed})
    with pytest.raises(AssertionError):
        compare_markdown(md.replace("## Failter report", "## Something else"), {"failter": rows})
    json_rows = json_tables(
        *(cli("report", demo / "failter.db", "--format", "json", *b).output for b in ((), ("--basis", "reviewed"))),
    )["failter"]
    with pytest.raises(AssertionError):
        compare_json("failter", changed, json_rows)
