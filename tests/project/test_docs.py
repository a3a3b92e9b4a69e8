"""The documentation keeps up with the program: docs/cli.md is what
docs/gen_cli.py makes from the click commands today and names every command
and option; the README links every docs page and every link between pages
points at a file that exists; the export schema page names every table and
column the export describes; the reliability page names tests that exist."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import click

from reviewer.cli import main
from reviewer.storage.export_schema import table_docs

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _generator():
    """docs/gen_cli.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("gen_cli", DOCS / "gen_cli.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_not_stale():
    """docs/cli.md equals what the generator writes now: run
    `python docs/gen_cli.py` after changing a command."""
    assert (DOCS / "cli.md").read_text(encoding="utf-8") == _generator().render()


def _undocumented(text: str) -> list[str]:
    """Commands and options of ``reviewer`` that ``text`` (a cli.md) does not name."""
    ctx = click.Context(main, info_name="reviewer")
    missing = []
    for name in main.list_commands(ctx):
        if f"## reviewer {name}\n" not in text:
            missing.append(name)
        for param in main.get_command(ctx, name).params:
            for opt in getattr(param, "opts", []) + getattr(param, "secondary_opts", []):
                if opt.startswith("-") and f"`{opt}" not in text and f", {opt}" not in text:
                    missing.append(f"{name} {opt}")
    return missing


def test_every_command_and_option_is_in_the_cli_reference():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert len(main.list_commands(click.Context(main))) >= 10
    assert _undocumented(text) == []
    # the check sees a dropped option and a dropped command
    assert "judge --fail-on" in _undocumented(text.replace("`--fail-on", "`--x"))
    assert "fidelity" in _undocumented(text.replace("## reviewer fidelity\n", ""))


def _links(page: Path) -> list[str]:
    """Relative link targets of a Markdown page (no URLs, no anchors-only)."""
    targets = re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8"))
    return [t.split("#")[0] for t in targets if not t.startswith(("http://", "https://", "#", "mailto:"))]


def test_readme_links_every_docs_page():
    linked = {(ROOT / t).resolve() for t in _links(ROOT / "README.md")}
    pages = {p.resolve() for p in DOCS.glob("*.md")} | {(DOCS / "decisions" / "README.md").resolve()}
    missing = sorted(str(p.relative_to(ROOT)) for p in pages - linked)
    assert not missing, f"README.md links none of {missing}"


def test_every_link_between_pages_points_at_a_file():
    pages = [ROOT / "README.md", ROOT / "CONTEXT.md", *DOCS.glob("**/*.md")]
    broken = [f"{p.relative_to(ROOT)} -> {t}" for p in pages for t in _links(p) if t and not (p.parent / t).exists()]
    assert not broken, broken


def test_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 160


def test_export_schema_page_names_every_table_and_column():
    text = (DOCS / "export-schema.md").read_text(encoding="utf-8")
    for table, (_description, columns) in table_docs().items():
        assert f"**{table}**" in text, f"table {table} is not on docs/export-schema.md"
        section = text.split(f"### {table}\n", 1)
        assert len(section) == 2, f"docs/export-schema.md has no section for {table}"
        body = section[1].split("\n### ", 1)[0]
        for column in columns:
            assert f"`{column}`" in body, f"{table}.{column} is not on docs/export-schema.md"


def test_reliability_page_names_real_tests_of_every_reliability_file():
    """Each case on docs/reliability.md names a test that exists, and every
    tests/reliability/test_reliability_*.py file has a case there."""
    text = (DOCS / "reliability.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_[a-z0-9_]+)`", text))
    defined: dict[str, set[str]] = {}
    for path in (ROOT / "tests").rglob("test_*.py"):
        defined[path.name] = set(re.findall(r"^def (test_[a-z0-9_]+)", path.read_text(encoding="utf-8"), re.M))
    everywhere = set().union(*defined.values())
    assert named and not named - everywhere, f"not tests: {sorted(named - everywhere)}"
    for name, tests in defined.items():
        if name.startswith("test_reliability_"):
            assert tests & named, f"docs/reliability.md names no test of {name}"


def test_decision_index_lists_every_record():
    index = (DOCS / "decisions" / "README.md").read_text(encoding="utf-8")
    records = [p for p in (DOCS / "decisions").glob("*.md") if p.name != "README.md"]
    assert len(records) >= 5
    for record in records:
        assert f"]({record.name})" in index, f"{record.name} is not in docs/decisions/README.md"
        text = record.read_text(encoding="utf-8")
        for part in ("## Context", "## Decision", "## Consequences"):
            assert part in text, f"{record.name} has no {part}"


def test_formats_page_names_every_import_format():
    from reviewer.storage.formats import FORMAT_NAMES

    text = (DOCS / "formats.md").read_text(encoding="utf-8")
    missing = [name for name in FORMAT_NAMES if f"`{name}`" not in text]
    assert not missing, f"docs/formats.md does not name {missing}"


#: The word issue followed by a number (with a space, #, - or _ between,
#: or none): an issue number in a file's name or text, which users cannot
#: see; code and docs cite a decision by its name instead.
ISSUE_NUMBER = re.compile(r"issue[ _#-]*\d", re.IGNORECASE)


def test_no_file_names_an_issue_number():
    found = []
    for folder in ("reviewer", "tests", "docs", "benchmarks", "samples", "resources"):
        for path in sorted((ROOT / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT)
            if ISSUE_NUMBER.search(str(rel)):
                found.append(f"{rel}: its name")
            if path.suffix not in (".py", ".md", ".txt", ".toml", ".yml", ".yaml", ".json", ".jsonl"):
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if ISSUE_NUMBER.search(line) and "ISSUE_NUMBER" not in line:
                    found.append(f"{rel}:{n}: {line.strip()[:80]}")
    for name in ("README.md", "CONTEXT.md"):
        for n, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), 1):
            if ISSUE_NUMBER.search(line):
                found.append(f"{name}:{n}: {line.strip()[:80]}")
    assert not found, "\n".join(found)
