"""The span report the design describes (span-labeling-evaluation-design.md,
"Reporting Layer", as the snapshots' own report has it): latency per model
and tier, missed elements by severity and by category, worst performers, in
Markdown, CSV and the export; and ``compare`` of snapshots that share few
prompts. A synthetic twin covers the logic; the real baseline, when present,
gives the figures of baseline-report.txt."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.spans.compare import compare_loaded, shared_pairs
from reviewer.core.spans.diagnostics import latency_stats
from reviewer.core.spans.summary import compute_summary, load_snapshot
from tests.helpers import span_twin
from tests.helpers.paths import shared


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_twin_sections_as_worked_out_by_hand():
    s = compute_summary(load_snapshot(span_twin.snapshot()))
    rows = [(r["model"], r["stage"], r["n"], r["avg"], r["p50"], r["p95"], r["p99"]) for r in s["latencyByModel"]]
    assert rows == span_twin.EXPECTED["latency"]  # per model; tiers only where recorded
    assert {k: v["count"] for k, v in s["missedSeverity"].items()} == span_twin.EXPECTED["severity"]
    assert s["missedSeverity"]["critical"]["examples"] == ["climbing (action)"]
    assert sorted(s["missedCountsByCategory"].items(), key=lambda kv: -kv[1]) == span_twin.EXPECTED["categories"]
    assert [(w["prompt"], w["score"]) for w in s["worstPerformers"]] == span_twin.EXPECTED["worst"]
    assert s["worstPerformers"][0]["input"] == "a cyclist climbing a hill at dusk"


def test_latency_percentiles_follow_the_snapshots_rule():
    assert latency_stats([]) == {"n": 0, "avg": 0, "p50": 0, "p95": 0, "p99": 0}
    xs = list(range(1, 201))  # 1..200: pN is the value at index floor(200 N / 100)
    assert latency_stats(reversed(xs)) == {"n": 200, "avg": 100, "p50": 101, "p95": 191, "p99": 199}


def test_twin_sections_in_markdown_csv_and_export(tmp_path):
    db = tmp_path / "p.db"
    r = cli("import", db, span_twin.write(tmp_path / "twin.json", span_twin.snapshot()))
    assert r.exit_code == 0, r.output
    md = cli("report", db).output
    for model, stage, n, avg, p50, p95, p99 in span_twin.EXPECTED["latency"]:
        assert f"| {model} | {stage} | {n} | {avg} | {p50} | {p95} | {p99} |" in md
    for severity, n in span_twin.EXPECTED["severity"].items():
        assert re.search(rf"\| {severity} \| {n} \|", md)
    cats = re.findall(r"\| (\w+) \| (\d+) \|\n", md.split("**Missed elements by category**")[1].split("**")[0])
    assert [(c, int(n)) for c, n in cats] == span_twin.EXPECTED["categories"]
    worst = md.split("**Worst performers**")[1]
    assert [m for m in re.findall(r"\| (\d+)/25 \| (tw-\d) \|", worst)] == [
        (str(s), p) for p, s in span_twin.EXPECTED["worst"]
    ]
    text = cli("report", db, "--format", "csv").output
    blocks = {}
    for block in text.strip().split("\n\n"):
        parsed = list(csv.DictReader(io.StringIO(block)))
        if parsed and "table" in parsed[0]:
            blocks[parsed[0]["table"]] = parsed
    assert [
        (r["model"], r["stage"], int(r["results"]), int(r["avg_ms"]), int(r["p99_ms"])) for r in blocks["span_latency"]
    ] == [(m, st, n, a, p99) for m, st, n, a, _, _, p99 in span_twin.EXPECTED["latency"]]
    assert {r["severity"]: int(r["count"]) for r in blocks["span_missed_severity"]} == span_twin.EXPECTED["severity"]
    assert [(r["category"], int(r["count"])) for r in blocks["span_missed_categories"]] == span_twin.EXPECTED[
        "categories"
    ]
    assert [r["prompt"] for r in blocks["span_worst_performers"]] == [p for p, _ in span_twin.EXPECTED["worst"]]
    out = tmp_path / "out.db"
    assert cli("export", db, out).exit_code == 0
    con = sqlite3.connect(out)
    try:
        assert con.execute(
            "SELECT model, stage, results, avg_ms, p50_ms, p95_ms, p99_ms FROM span_latency WHERE snapshot = 'twin'"
        ).fetchall() == [(m, st, n, a, p50, p95, p99) for m, st, n, a, p50, p95, p99 in span_twin.EXPECTED["latency"]]
        assert dict(con.execute("SELECT severity, count FROM span_missed_severity")) == span_twin.EXPECTED["severity"]
        assert (
            con.execute("SELECT category, count FROM span_missed_categories").fetchall()
            == span_twin.EXPECTED["categories"]
        )
        assert con.execute("SELECT rank, prompt, score FROM span_worst_performers").fetchall() == [
            (i, p, s) for i, (p, s) in enumerate(span_twin.EXPECTED["worst"], 1)
        ]
    finally:
        con.close()


def test_compare_of_snapshots_without_shared_prompts_warns_and_compares_none(tmp_path):
    db = tmp_path / "p.db"
    assert cli("import", db, span_twin.write(tmp_path / "twin.json", span_twin.snapshot())).exit_code == 0
    assert cli("import", db, span_twin.write(tmp_path / "other.json", span_twin.snapshot("x-"))).exit_code == 0
    r = cli("compare", db, "twin", "other")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("warning: the snapshots share 0 of 6 prompts of the smaller one")
    assert "only the 0 shared prompts are compared" in r.output
    c = json.loads(cli("compare", db, "twin", "other", "--json").output)
    assert (c["shared_prompts"], c["only_shared"]) == (0, True) and c["warning"]
    assert c["score_delta"] == 0 and c["resolved_confusions"] == [] and c["new_confusions"] == []
    assert all(d["missed"] == 0 and d["false_positives"] == 0 for d in c["section_deltas"].values())


def test_compare_with_few_shared_prompts_compares_only_those():
    base = span_twin.snapshot()
    other = span_twin.snapshot("x-")
    # two of six prompts in common (the same input text under another id), scores moved by +5 and -4
    for i, delta in ((0, 5), (1, -4)):
        other["results"][i] = json.loads(json.dumps(base["results"][i]))
        other["results"][i]["promptId"] = f"renamed-{i}"
        other["results"][i]["judgeResult"]["totalScore"] += delta
    b, c = load_snapshot(base), load_snapshot(other)
    assert [(x["promptId"], y["promptId"]) for x, y in shared_pairs(b, c)] == [
        ("tw-1", "renamed-0"),
        ("tw-2", "renamed-1"),
    ]
    result = compare_loaded(b, c)
    assert result["shared_prompts"] == 2 and result["only_shared"] and "share 2 of 6" in result["warning"]
    assert result["score_delta"] == pytest.approx(((25 + 11) - (20 + 15)) / 2)  # over the shared two only
    assert [x["prompt"] for x in result["improvements"]] == ["tw-1"]
    assert [x["prompt"] for x in result["regressions"]] == ["tw-2"]


def test_compare_with_most_prompts_shared_compares_the_whole_snapshots():
    base = span_twin.snapshot()
    current = span_twin.snapshot()
    del current["results"][4]  # five of six shared: no warning
    b, c = load_snapshot(base), load_snapshot(current)
    result = compare_loaded(b, c)
    assert result["warning"] is None and not result["only_shared"] and result["shared_prompts"] == 5
    assert result["score_delta"] == pytest.approx(compute_summary(c)["avgScore"] - compute_summary(b)["avgScore"])


# -- the real snapshot ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def snapshots():
    return shared("span-labeling") / "snapshots"


def test_baseline_report_has_the_four_sections_with_the_files_figures(snapshots, tmp_path):
    file_report = (snapshots / "baseline-report.txt").read_text(encoding="utf-8")
    avg, p50, p95, p99 = re.search(r"Avg: (\d+) \| P50: (\d+) \| P95: (\d+) \| P99: (\d+)", file_report).groups()
    assert (avg, p50, p95, p99) == ("13925", "13340", "20208", "23998")
    by_category = re.findall(
        r"\n  - (\w+): (\d+)(?=\n)", file_report.split("MISSED ELEMENTS BY CATEGORY")[1].split("CATEGORY SCORES")[0]
    )
    worst = re.findall(r"\[(\d+)/25\] \"([^\"]+)\"", file_report.split("WORST PERFORMERS")[1])
    critical = re.search(r"CRITICAL: (.+)\n", file_report).group(1)
    db = tmp_path / "p.db"
    assert cli("import", db, snapshots / "baseline.json").exit_code == 0
    md = cli("report", db).output
    assert f"| nlp-v1 | total | 54 | {avg} | {p50} | {p95} | {p99} |" in md
    assert "| nlp-v1 | tier 1 | 54 |" in md and "| nlp-v1 | tier 2 | 54 |" in md
    assert f"| critical | 1 | {critical} |" in md
    section = md.split("**Missed elements by category**")[1].split("**")[0]
    assert re.findall(r"\| (\w+) \| (\d+) \|\n", section) == by_category
    assert by_category[:2] == [("lighting", "42"), ("action", "27")]
    rows = re.findall(r"\| (\d+)/25 \| [^|]+ \| ([^|]+?) \|", md.split("**Worst performers**")[1])
    assert [(s, t) for s, t in rows[:3]] == worst[:3] and worst[0] == ("17", "man riding a bike")


def test_compare_baseline_with_the_gemini_snapshot_warns(snapshots, tmp_path):
    db = tmp_path / "p.db"
    for name in ("baseline.json", "latest-gemini.json"):
        assert cli("import", db, snapshots / name).exit_code == 0
    r = cli("compare", db, "baseline", "latest-gemini")
    assert r.exit_code == 0 and r.output.startswith("warning: the snapshots share 0 of 1 prompts")
    assert "resolved confusions: 0" in r.output
