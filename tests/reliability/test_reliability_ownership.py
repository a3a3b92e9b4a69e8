"""Ownership by record, not by shape (reviewer.storage.files.written; decision
record written-files-recorded-per-user).

reviewer keeps a record of every file it wrote (path and sha256) in its user
data folder. A target that exists is replaced only when the record lists it
with its current hash; any other file is refused, whatever its shape, unless
--force: a user's JSON list where a Failter report goes, a golden set or
export an earlier version wrote (refused once, with the hint to pass
--force), a file changed since. The exported bytes stay the same."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from reviewer.cli import main
from reviewer.storage.files import safe_write, written
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.golden import GOLDEN

#: A user's list of objects, shaped like a Failter report (LLMBar's dataset.json is one).
USERS_LIST = [{"input": f"question {i}", "output_1": "a", "output_2": "b", "label": 1} for i in range(50)]


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"OPENAI_API_KEY": "k"})


def test_a_failter_output_file_never_overwrites_a_users_json_list(tmp_path):
    from tests.helpers.failter import answers, experiment

    spec = experiment(tmp_path)
    out = spec.parent / "out" / "final-report.json"
    out.parent.mkdir()
    out.write_text(json.dumps(USERS_LIST, indent=2))
    before = out.read_bytes()
    db = tmp_path / "f.db"
    with FakeOpenAI(answer=answers("score: 80")) as fake:
        result = cli("run", db, spec, "--endpoint", fake.base_url)
        assert result.exit_code == 1 and "not in reviewer's record of the files it wrote" in result.output, (
            result.output
        )
        assert "--force" in result.output and result.output.count("\n") == 1
        assert sum(fake.counts.values()) == 0 and out.read_bytes() == before
        out.unlink()
        first = cli("run", db, spec, "--endpoint", fake.base_url)
        assert first.exit_code == 0, first.output
        report = out.read_bytes()
        again = cli("run", db, spec, "--endpoint", fake.base_url)  # its own report is replaced
        assert again.exit_code == 0, again.output
    assert out.read_bytes() == report and written.owned(out)


def test_a_golden_set_an_earlier_version_wrote_is_refused_once_with_the_hint(golden, tmp_path):
    out = tmp_path / "tiny.json"
    out.write_text(json.dumps(GOLDEN, indent=2) + "\n")  # as an earlier reviewer wrote it: not in the record
    result = cli("golden-export", golden, "tiny", out)
    assert result.exit_code == 1 and "looks like a golden-set file" in result.output, result.output
    assert "written by an earlier version" in result.output and "pass --force" in result.output
    assert cli("golden-export", golden, "tiny", out, "--force").exit_code == 0
    exported = out.read_bytes()
    assert json.loads(exported)["prompts"][0]["id"] == "t-001"
    again = cli("golden-export", golden, "tiny", out)  # now in the record: replaced without --force
    assert again.exit_code == 0, again.output
    assert out.read_bytes() == exported  # the record lives elsewhere: the file's bytes are the export's alone


def test_a_written_file_changed_since_is_refused(golden, tmp_path):
    out = tmp_path / "out.db"
    assert cli("export", golden, out).exit_code == 0
    assert written.owned(out) and written.owned(Path(str(out) + ".metadata.json"))
    meta = Path(str(out) + ".metadata.json")
    meta.write_text(meta.read_text().replace("{", "{ ", 1))  # edited by hand
    result = cli("export", golden, out)
    assert result.exit_code == 1 and "metadata.json" in result.output, result.output
    assert "--force" in result.output
    assert cli("export", golden, out, "--force").exit_code == 0


def test_every_writer_refuses_a_file_it_did_not_write_and_replaces_its_own(golden, tmp_path):
    cases = {
        "export": (["export", golden, "{OUT}"], "out.db"),
        "coco": (["export-gt", golden, "{OUT}", "--format", "coco"], "coco.json"),
        "label-studio": (["export-gt", golden, "{OUT}", "--format", "label-studio"], "ls.json"),
        "golden": (["golden-export", golden, "tiny", "{OUT}"], "gold.json"),
    }
    for name, (args, file_name) in cases.items():
        out = tmp_path / name / file_name
        out.parent.mkdir()
        argv = [str(a).replace("{OUT}", str(out)) for a in args]
        assert cli(*argv).exit_code == 0, name
        assert cli(*argv).exit_code == 0, name  # its own file, unchanged: replaced
        ours = out.read_bytes()
        os.unlink(out)
        out.write_bytes(ours)  # the same bytes, but the user's new file: its hash is still the record's
        assert cli(*argv).exit_code == 0, name
        out.write_bytes(ours + b" ")  # changed since: refused
        result = cli(*argv)
        assert result.exit_code == 1 and "--force" in result.output, (name, result.output)
        assert out.read_bytes() == ours + b" "


def test_the_record_lives_in_the_user_data_folder_and_keys_resolved_paths(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_DATA_DIR", str(tmp_path / "data"))
    fmt = safe_write.json_format("list", lambda v: isinstance(v, list))
    real = tmp_path / "a" / "x.json"
    safe_write.write_json(real, [1], fmt)
    assert written.record_path() == tmp_path / "data" / "written.db" and written.record_path().exists()
    assert written.owned(tmp_path / "a" / ".." / "a" / "x.json")
    monkeypatch.setenv("REVIEWER_DATA_DIR", str(tmp_path / "elsewhere"))  # another user: not theirs
    assert not written.owned(real)


def test_a_report_an_earlier_version_wrote_is_refused_once(tmp_path, monkeypatch):
    from tests.helpers.failter import answers, experiment

    spec = experiment(tmp_path)
    out = spec.parent / "out" / "final-report.json"
    db = tmp_path / "f.db"
    with FakeOpenAI(answer=answers("score: 80")) as fake:
        assert cli("run", db, spec, "--endpoint", fake.base_url).exit_code == 0
        report = out.read_bytes()
        monkeypatch.setenv("REVIEWER_DATA_DIR", str(tmp_path / "a-new-record"))  # as after an upgrade
        refused = cli("run", db, spec, "--endpoint", fake.base_url)
        assert refused.exit_code == 1 and "written by an earlier version" in refused.output, refused.output
        assert cli("run", db, spec, "--endpoint", fake.base_url, "--force").exit_code == 0
        again = cli("run", db, spec, "--endpoint", fake.base_url)  # once: now in the record
        assert again.exit_code == 0, again.output
    assert out.read_bytes() == report


def test_report_charts_not_in_the_record_are_replaced_with_force(tmp_path):
    """The refusal's hint (pass --force) names an option `reviewer report`
    has: a chart changed since reviewer wrote it is refused, then replaced
    with --force."""
    from tests.helpers.paths import ROOT

    db = tmp_path / "r.db"
    assert CliRunner().invoke(main, ["import", str(db), str(ROOT / "samples" / "rubric"), "--create"]).exit_code == 0
    charts = tmp_path / "charts"
    assert CliRunner().invoke(main, ["report", str(db), "--charts", str(charts)]).exit_code == 0
    chart = sorted(charts.glob("*.svg"))[0]
    chart.write_text(chart.read_text() + "<!-- a person's edit -->\n")
    refused = CliRunner().invoke(main, ["report", str(db), "--charts", str(charts)])
    assert refused.exit_code == 1 and "pass --force" in refused.output, refused.output
    assert chart.read_text().endswith("<!-- a person's edit -->\n")
    forced = CliRunner().invoke(main, ["report", str(db), "--charts", str(charts), "--force"])
    assert forced.exit_code == 0, forced.output
    assert "a person's edit" not in chart.read_text()
    assert CliRunner().invoke(main, ["report", str(db), "--charts", str(charts)]).exit_code == 0  # recorded again


def test_a_screenshot_over_a_png_reviewer_did_not_write_is_replaced_with_force(golden, tmp_path):
    import subprocess
    import sys

    from tests.helpers.paths import ROOT

    shot = tmp_path / "shot.png"
    shot.write_bytes(b"\x89PNG\r\n\x1a\n" + b"a person's picture")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    env["REVIEWER_CONFIG_DIR"] = str(tmp_path / "config")

    def shoot(*extra: str) -> subprocess.CompletedProcess:
        argv = [sys.executable, "-m", "reviewer", "open", str(golden), "--screenshot", str(shot), *extra]
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)

    refused = shoot()
    assert refused.returncode == 1 and "pass --force" in refused.stderr, refused.stderr
    assert shot.read_bytes().endswith(b"a person's picture")
    forced = shoot("--force")
    assert forced.returncode == 0, forced.stderr
    assert not shot.read_bytes().endswith(b"a person's picture")
