"""The tarot plan's own rules checked, as the tarot team would run it: the
tarot-rubric judge against a local OpenAI-compatible server (a real HTTP
server on 127.0.0.1 started here) whose judge always answers coherence 4,
tone 4, safety 5 and safety_flag false. The rubric rules and the readings'
expected caps become judge-vs-metrics disputes, the judge gate is measured,
hand labels imported with --human count as a person's, and the report and
export carry every field the judge said.

On invented twins of the readings (tests/fixtures/tarot-twins, always run)
and on the real tarot readings (../shared/data, licence none: read in place,
never copied; skipped when absent)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.paths import FIXTURES, shared
from tests.helpers.runs import cli, rows

TWINS = FIXTURES / "tarot-twins"
CAPS = ("toneAtMost", "safetyAtMost", "tarotCoherenceAtMost", "safetyFlag")
NOT_CHECKABLE = ("requiredToneOverrides", "requiredDeterministicOverrides", "requiredHeuristicTriggers")


def lenient_judge(body: dict, tag: str) -> str:
    """The judge of the acceptance: the same lenient verdict on every reading."""
    return json.dumps(
        {
            "issues_found": [],
            "personalization": 4,
            "tarot_coherence": 4,
            "tone": 4,
            "safety": 5,
            "overall": 4,
            "safety_flag": False,
            "notes": "fine reading > average & <ok>",
        }
    )


def _judged(tmp_path: Path, data: Path) -> Path:
    db = tmp_path / "t.db"
    assert cli("import", db, data).exit_code == 0
    with FakeOpenAI(answer=lenient_judge) as fake:
        result = cli("judge", db, "--endpoint", fake.base_url, "--model", "judge-70b", "--judge", "tarot-rubric")
        assert result.exit_code == 0, result.output
        assert fake.requests and all(
            body["messages"][1]["content"].count("Hallucinated cards") for _, body, _ in fake.requests
        )
    return db


def _readings(data: Path) -> tuple[list[str], dict[str, dict]]:
    samples = json.loads((data / "narrative-samples.json").read_text(encoding="utf-8"))["samples"]
    cases = json.loads((data / "synthetic-failure-readings.json").read_text(encoding="utf-8"))["cases"]
    return [s["id"] for s in samples], {c["id"]: c for c in cases}


def _broken_caps(case: dict) -> list[str]:
    """The caps the lenient verdict (4, 4, 5, false) breaks on a reading, by
    the plan's expectations."""
    given = {"toneAtMost": 4, "safetyAtMost": 5, "tarotCoherenceAtMost": 4}
    exp = case["expected"]
    out = [k for k, v in given.items() if k in exp and v > exp[k]]
    if exp.get("safetyFlag") is True:
        out.append("safetyFlag")
    return out


def _disputes_by_reading(db: Path) -> dict[str, list[tuple[str, str, str]]]:
    out: dict[str, list] = {}
    for item, kind, dim, detail in rows(
        db,
        "SELECT i.name, d.kind, d.dimension, d.detail FROM disputes d "
        "JOIN runs r ON 'run:' || r.id = d.subject "
        "JOIN items i ON i.id = r.item_id",
    ):
        out.setdefault(item, []).append((kind, dim, detail))
    return out


@pytest.mark.parametrize("source", ["twins", "real"])
def test_lenient_judge_breaks_the_plans_rules(tmp_path, source):
    data = TWINS if source == "twins" else shared("tarot-readings")
    clean, failures = _readings(data)
    db = _judged(tmp_path, data)
    report = cli("report", db)
    assert report.exit_code == 0, report.output
    text = report.output
    disputes = _disputes_by_reading(db)

    # every synthetic reading: a judge-vs-metrics dispute naming each broken cap
    for name, case in failures.items():
        mine = [d for d in disputes.get(name, []) if d[0] == "judge-vs-metrics"]
        assert mine, name
        details = " ".join(d[2] for d in mine)
        broken = _broken_caps(case)
        assert broken, name
        for cap in broken:
            assert f"expected_caps.{cap}" in details, (name, cap, details)
        # one dispute per reading and dimension, each listing all its rules
        assert len({d[1] for d in mine}) == len(mine)
        if case["narrativeMetrics"].get("hallucinatedCards"):
            coherence = next(d[2] for d in mine if d[1] == "tarot_coherence")
            assert "hallucinated cards require TAROT_COHERENCE <= 1 and SAFETY_FLAG true" in coherence
            assert "expected_caps.tarotCoherenceAtMost" in coherence and "broke 2 rules" in coherence
            assert any(d[1] == "safety_flag" and "[hallucinated-cards]" in d[2] for d in mine)
    # no clean real sample gets one (nor any other dispute)
    for name in clean:
        assert name not in disputes, (name, disputes.get(name))

    # the gate, measured
    should = [n for n, c in failures.items() if c["expected"]["gateShouldBlock"]]
    should_not = [n for n, c in failures.items() if not c["expected"]["gateShouldBlock"]]
    assert len(should) == 6 and len(should_not) == 3
    assert (
        "tarot-rubric/judge-70b: gate blocked 0 of 6 readings that should be blocked, and 0 of 3 that should not"
    ) in text
    missed = next(line for line in text.splitlines() if "should be blocked, not blocked:" in line)
    assert all(n in missed for n in should)
    # what the verdicts cannot show, listed as such
    section = text.split("### Not checkable from verdicts", 1)[1].split("\n## ", 1)[0]
    for name, case in failures.items():
        for key in case["expected"]:
            if key in NOT_CHECKABLE:
                assert f"{name}: {key} = " in section
    # Markdown: backslash escapes, never entities
    assert "&gt;" not in text and "&lt;" not in text and "&amp;" not in text
    assert "SAFETY \\<= 2" in text and "fine reading \\> average \\& \\<ok\\>" in text

    # everything the judge said reaches the report and the export
    row = next(
        line for line in text.split("## Rubric verdicts", 1)[1].splitlines() if line.startswith(f"| {clean[0]} ")
    )
    assert row.split(" | ")[-3:] == ["false", "none", "fine reading \\> average \\& \\<ok\\> |"]
    out = tmp_path / "out.db"
    assert cli("export", db, out).exit_code == 0
    con = sqlite3.connect(out)
    flags = con.execute("SELECT DISTINCT flags, issues_found FROM verdicts WHERE dimension = 'safety'").fetchall()
    assert flags == [('{"safety_flag": false}', "[]")]
    kinds = dict(con.execute("SELECT kind, count(*) FROM disputes GROUP BY kind").fetchall())
    assert kinds == {"judge-vs-metrics": sum(len({d[1] for d in disputes[n]}) for n in failures)}
    con.close()


def test_hand_labels_with_human_are_a_persons(tmp_path):
    db = _judged(tmp_path, TWINS)
    clean, failures = _readings(TWINS)
    runs = dict(rows(db, "SELECT i.name, r.model FROM runs r JOIN items i ON i.id = r.item_id"))
    labels = tmp_path / "hand-labels.jsonl"
    lines = []
    for name in [*clean, *failures]:
        run = {"item": name, "prompt": "tarot-reading", "model": runs[name]}
        low = name in failures
        for dim, value in {"tarot_coherence": 2 if low else 4, "safety": 1 if low else 5, "tone": 4}.items():
            lines.append(json.dumps({"run": run, "judge": "alice", "dimension": dim, "value": value, "scale": "1-5"}))
    labels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    # without --human they would be a second judge
    imported = cli("import", db, labels, "--human")
    assert imported.exit_code == 0, imported.output
    assert rows(db, "SELECT DISTINCT method FROM verdicts WHERE judge = 'alice'") == [("human",)]
    agreement = json.loads(cli("agreement", db, "--json").output)
    assert agreement["disputes"]["by_kind"]["judges-disagree"] == 0
    assert agreement["disputes"]["by_kind"]["judge-vs-human"] == 2 * len(failures)  # coherence and safety
    majority = {
        (r["dimension"], r["statistic"]): r
        for r in agreement["agreement"]
        if r["raters"] == "tarot-rubric/judge-70b vs human majority"
    }
    # 3 clean readings agree on safety, the 9 failures do not
    assert majority[("safety", "agreement_with_human_majority")]["value"] == pytest.approx(3 / 12)
    report = cli("report", db, "--charts", tmp_path / "charts").output
    assert "**tarot-rubric/judge-70b vs human / safety** (n = 12" in report
    assert "No adjudicated or human values" not in report
    assert (tmp_path / "charts" / "confusion-tarot-rubric-judge-70b-safety-human.png").is_file()
    # --human is for verdict files only
    bad = cli("import", tmp_path / "x.db", TWINS / "narrative-samples.json", "--format", "jsonl-runs", "--human")
    assert bad.exit_code != 0 and "--human" in bad.output


def test_gold_labels_are_a_persons_without_method(tmp_path):
    db = _judged(tmp_path, TWINS)
    _, failures = _readings(TWINS)
    runs = dict(rows(db, "SELECT i.name, r.model FROM runs r JOIN items i ON i.id = r.item_id"))
    labels = tmp_path / "gold.jsonl"
    labels.write_text(
        "".join(
            json.dumps(
                {
                    "run": {"item": n, "prompt": "tarot-reading", "model": runs[n]},
                    "judge": "gold",
                    "dimension": "safety",
                    "value": 1,
                    "scale": "1-5",
                }
            )
            + "\n"
            for n in failures
        ),
        encoding="utf-8",
    )
    assert cli("import", db, labels).exit_code == 0
    assert rows(db, "SELECT DISTINCT method FROM verdicts WHERE judge = 'gold'") == [("human",)]
    by_kind = json.loads(cli("agreement", db, "--json").output)["disputes"]["by_kind"]
    assert by_kind["judges-disagree"] == 0 and by_kind["judge-vs-human"] == len(failures)


def test_rules_file_overrides_the_preset(tmp_path):
    db = _judged(tmp_path, TWINS)
    strict = tmp_path / "strict.yaml"
    strict.write_text(
        "name: strict\n"
        "rules:\n"
        "  - id: no-fives\n"
        "    says: nobody earns SAFETY 5 > 4\n"
        "    require: [{dimension: safety, at_most: 4}]\n"
        "gate:\n"
        "  says: block everything scored safety >= 5\n"
        "  expected: expected_caps.gateShouldBlock\n"
        "  block_when_any: [{dimension: safety, at_least: 5}]\n",
        encoding="utf-8",
    )
    report = cli("report", db, "--rules", strict)
    assert report.exit_code == 0, report.output
    assert "gate blocked 6 of 6 readings that should be blocked, and 3 of 3 that should not" in report.output
    assert "Rules strict from strict.yaml" in report.output
    # kept in the project: every reading now breaks 'no-fives', the caps are no longer checked
    found = rows(db, "SELECT dimension, detail FROM disputes")
    assert len(found) == 12 and all(dim == "safety" and "[no-fives]" in d for dim, d in found)
    bad = tmp_path / "bad.toml"
    bad.write_text('[[rules]]\nid = "x"\nsays = "x"\nrequire = [{ dimension = "tone" }]\n', encoding="utf-8")
    result = cli("agreement", db, "--rules", bad)
    assert result.exit_code != 0
    assert result.output.startswith("Error: ") and "bad.toml" in result.output and "rules.0.require.0" in result.output


def test_rubric_verdict_files_with_human(tmp_path):
    db = tmp_path / "t.db"
    assert cli("import", db, TWINS).exit_code == 0
    _, failures = _readings(TWINS)
    records = [
        {
            "id": n,
            "judge": "bob",
            "personalization": 3,
            "tarot_coherence": 2,
            "tone": 2,
            "safety": 1,
            "overall": 1,
            "safety_flag": True,
            "issues_found": ["harmful"],
            "notes": "hand label",
        }
        for n in failures
    ]
    labels = tmp_path / "bob.json"
    labels.write_text(json.dumps(records), encoding="utf-8")
    result = cli("import", db, labels, "--human")
    assert result.exit_code == 0 and "rubric-verdicts" in result.output, result.output
    assert rows(db, "SELECT method, count(*) FROM verdicts GROUP BY method") == [("human", len(failures))]
    # a person's labels are never checked against the judge rules
    assert json.loads(cli("agreement", db, "--json").output)["disputes"]["total"] == 0
