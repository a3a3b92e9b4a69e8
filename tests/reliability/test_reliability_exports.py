"""Exports never destroy (reviewer.storage.files.safe_write): every export writes a
temporary file in the target's folder and renames it into place, and
refuses, unless --force, a target that is a reviewer project, a file of
another format (read to tell), or inside what the project was imported
from. A full disk (a simulated ENOSPC, or a file-size limit) leaves the
previous file as it was."""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.storage.files import safe_write
from reviewer.storage.project.db import ProjectError
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.golden import GOLDEN
from tests.helpers.judges import judge_answer, make_experiment
from tests.helpers.paths import ROOT, SAMPLES


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def integrity(db) -> str:
    con = sqlite3.connect(db)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def golden(tmp_path):
    """A project with golden set 'tiny' imported from the folder src (src/tiny.json) and the sample cards."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "tiny.json").write_text(json.dumps(GOLDEN, indent=2) + "\n", encoding="utf-8")
    db = tmp_path / "p.db"
    assert cli("import", db, src).exit_code == 0
    assert cli("import", db, SAMPLES, "--model", "m").exit_code == 0
    return db


def test_golden_export_and_export_gt_refuse_a_project(golden, tmp_path):
    before = golden.read_bytes()
    for args in (
        ["golden-export", golden, "tiny", golden],
        ["export-gt", golden, golden, "--format", "coco"],
        ["golden-export", golden, "tiny", golden, "--force"],
    ):
        result = cli(*args)
        assert result.exit_code == 1 and "is the project itself" in result.output, result.output
        assert result.output.count("\n") == 1 and "Traceback" not in result.output
    assert golden.read_bytes() == before and integrity(golden) == "ok"
    other = tmp_path / "other.db"
    assert cli("init", other).exit_code == 0
    other_bytes = other.read_bytes()
    for args in (
        ["golden-export", golden, "tiny", other],
        ["export-gt", golden, other, "--format", "label-studio"],
        ["export", golden, other],
    ):
        result = cli(*args)
        assert result.exit_code == 1 and "is a reviewer project" in result.output, result.output
    assert other.read_bytes() == other_bytes
    # any other file: refused unless it holds the format written
    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": true}')
    for args in (["golden-export", golden, "tiny", notes], ["export-gt", golden, notes, "--format", "coco"]):
        result = cli(*args)
        assert result.exit_code == 1 and "is not a" in result.output and "--force" in result.output, result.output
    assert notes.read_text() == '{"mine": true}'
    # an earlier export of the same format is replaced; --force replaces anything but the project itself
    out = tmp_path / "out.json"
    assert cli("golden-export", golden, "tiny", out).exit_code == 0
    assert cli("golden-export", golden, "tiny", out).exit_code == 0
    assert json.loads(out.read_text()) == GOLDEN
    assert cli("golden-export", golden, "tiny", notes, "--force").exit_code == 0
    assert json.loads(notes.read_text()) == GOLDEN and leftovers(tmp_path) == []


def test_golden_export_into_its_source_is_refused_unless_forced(golden, tmp_path):
    source = tmp_path / "src" / "tiny.json"
    before = source.read_bytes()
    result = cli("golden-export", golden, "tiny", source)
    assert result.exit_code == 1 and "which the project was imported from" in result.output
    assert source.read_bytes() == before
    assert cli("golden-export", golden, "tiny", source, "--force").exit_code == 0
    assert json.loads(source.read_text()) == GOLDEN  # unedited: the same set (byte-identical apart from indent)


def test_export_refuses_a_foreign_sqlite_file_and_keeps_the_users_part_file(golden, tmp_path):
    mlflow = tmp_path / "mlflow.db"
    con = sqlite3.connect(mlflow)
    con.execute("CREATE TABLE runs (run_uuid TEXT PRIMARY KEY, name TEXT)")
    con.execute("CREATE TABLE experiments (experiment_id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("INSERT INTO runs VALUES ('abc', 'my run')")
    con.commit()
    con.close()
    before = mlflow.read_bytes()
    result = cli("export", golden, mlflow)
    assert result.exit_code == 1 and "is not a reviewer export" in result.output, result.output
    assert mlflow.read_bytes() == before
    out = tmp_path / "out.db"
    part = tmp_path / "out.db.part"
    part.write_text("the user's own file")
    assert cli("export", golden, out).exit_code == 0
    assert cli("export", golden, out).exit_code == 0  # an earlier export is replaced
    assert part.read_text() == "the user's own file" and leftovers(tmp_path) == []
    assert integrity(out) == "ok"
    # into the folder it was imported from: refused unless forced
    inside = tmp_path / "src" / "export.db"
    result = cli("export", golden, inside)
    assert result.exit_code == 1 and "imported from" in result.output and not inside.exists()


def test_export_gt_labelme_into_the_source_keeps_the_users_file(tmp_path):
    src = tmp_path / "photos"
    src.mkdir()
    shutil.copy(SAMPLES / "test-images" / "table-01.jpg", src / "table-01.jpg")
    user = json.loads((ROOT / "tests" / "fixtures" / "gt" / "labelme" / "table-01.json").read_text())
    user.update(imagePath="table-01.jpg", flags={"checked": True})
    user["shapes"] += [
        {
            "label": "coffee",
            "points": [[10, 10], [20, 20]],
            "shape_type": "circle",
            "flags": {},
            "group_id": None,
            "description": "",
        },
        {
            "label": "pin",
            "points": [[30, 30]],
            "shape_type": "point",
            "flags": {"x": True},
            "group_id": None,
            "description": "",
        },
    ]
    mine = src / "table-01.json"
    mine.write_text(json.dumps(user, indent=2))
    before = mine.read_bytes()
    db = tmp_path / "p.db"
    assert cli("import", db, src).exit_code == 0
    result = cli("export-gt", db, src, "--format", "labelme")
    assert result.exit_code == 1 and "imported from" in result.output, result.output
    assert mine.read_bytes() == before
    # elsewhere: written; a labelme file there of another format, refused
    out = tmp_path / "lm"
    out.mkdir()
    (out / "table-01.json").write_text('{"not": "labelme"}')
    result = cli("export-gt", db, out, "--format", "labelme")
    assert result.exit_code == 1 and "is not a labelme file" in result.output
    assert (out / "table-01.json").read_text() == '{"not": "labelme"}'
    (out / "table-01.json").unlink()
    assert cli("export-gt", db, out, "--format", "labelme").exit_code == 0
    assert json.loads((out / "table-01.json").read_text())["shapes"]


def test_safe_write_leaves_the_target_when_the_writer_fails(tmp_path):
    target = tmp_path / "a.json"
    fmt = safe_write.json_format("list", lambda v: isinstance(v, list))
    safe_write.write_json(target, [1], fmt, indent=None, newline=False)  # reviewer wrote it: in its record
    with pytest.raises(RuntimeError), safe_write.replacing(target, fmt) as tmp:
        tmp.write_text("[2")
        raise RuntimeError("killed half-way")
    assert target.read_text() == "[1]" and leftovers(tmp_path) == []
    with pytest.raises(ProjectError, match="is a folder"):
        safe_write.write_json(tmp_path, [3], fmt, force=True)
    safe_write.write_json(target, [4], fmt)
    assert json.loads(target.read_text()) == [4]
    assert oct(target.stat().st_mode & 0o777) != "0o600"  # a normal file, not mkstemp's private one


def _limit_file_size(limit):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return pre


def run_on_a_full_disk(limit, *args):
    """``reviewer ARGS`` in a process that cannot write a file past ``limit``
    bytes (RLIMIT_FSIZE: every write beyond it fails, as on a full disk)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "reviewer.cli", *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_limit_file_size(limit),
    )


def big_project(tmp_path):
    """A project with a golden set and ground truth whose exports are far
    larger than 64 KiB."""
    src = tmp_path / "src"
    src.mkdir()
    prompts = [
        {
            "id": f"t-{i:03}",
            "text": f"A red fox number {i} jumps over a fence.",
            "groundTruth": {"spans": [{"text": "red fox", "start": 2, "end": 9, "role": "subject.identity"}]},
        }
        for i in range(600)
    ]
    (src / "big.json").write_text(json.dumps({"metadata": {"name": "big"}, "prompts": prompts}, indent=2) + "\n")
    shutil.copy(SAMPLES / "test-images" / "table-01.jpg", src / "table-01.jpg")
    shapes = [
        {
            "label": "left",
            "points": [[i, i], [i + 50, i + 20]],
            "shape_type": "rectangle",
            "flags": {},
            "group_id": None,
            "description": f"card {i}",
        }
        for i in range(600)
    ]
    (src / "table-01.json").write_text(
        json.dumps({"version": "5.5.0", "flags": {}, "shapes": shapes, "imagePath": "table-01.jpg", "imageData": None})
    )
    db = tmp_path / "p.db"
    assert cli("import", db, src / "big.json").exit_code == 0
    assert cli("import", db, src / "table-01.json").exit_code == 0
    return db


def test_a_full_disk_leaves_the_previous_json_whole_and_prints_one_line(tmp_path):
    db = big_project(tmp_path)
    gold, coco = tmp_path / "gold.json", tmp_path / "coco.json"
    from reviewer.storage.gt_formats.coco import COCO_FORMAT
    from reviewer.storage.spans.spans import GOLDEN_FORMAT

    safe_write.write_json(gold, GOLDEN, GOLDEN_FORMAT)  # an earlier export of another set
    assert cli("export-gt", db, coco, "--format", "coco", "--annotator", "consensus").exit_code == 0
    safe_write.write_json(coco, {"images": [], "annotations": [], "categories": []}, COCO_FORMAT)
    before = {p: p.read_bytes() for p in (gold, coco)}
    for args, target in (
        (["golden-export", db, "big", gold], gold),
        (["export-gt", db, coco, "--format", "coco"], coco),
    ):
        done = run_on_a_full_disk(64 * 1024, *args)
        assert done.returncode == 1, (done.stdout, done.stderr)
        assert done.stderr.startswith("Error: cannot write") and done.stderr.count("\n") == 1, done.stderr
        assert target.read_bytes() == before[target]
    assert leftovers(tmp_path) == [] and integrity(db) == "ok"
    # with room, the same commands write the whole file
    assert cli("golden-export", db, "big", gold).exit_code == 0 and len(json.loads(gold.read_text())["prompts"]) == 600


def test_a_simulated_enospc_is_one_line_and_leaves_the_previous_file(golden, tmp_path, monkeypatch):
    gold = tmp_path / "gold.json"
    assert cli("golden-export", golden, "tiny", gold).exit_code == 0
    before = gold.read_bytes()
    real = os.write

    def write(fd, data):
        if os.readlink(f"/proc/self/fd/{fd}").startswith(str(tmp_path)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    result = cli("golden-export", golden, "tiny", gold)
    assert result.exit_code == 1 and result.output.count("\n") == 1
    assert result.output.startswith("Error: cannot write") and "the disk is full (" in result.output
    assert " free on " in result.output  # the space left, where
    assert gold.read_bytes() == before and leftovers(tmp_path) == []


def test_a_full_disk_during_export_leaves_the_previous_export(golden, tmp_path):
    out = tmp_path / "out.db"
    assert cli("export", golden, out).exit_code == 0
    assert cli("score", golden).exit_code == 0
    before = out.read_bytes()
    done = run_on_a_full_disk(max(len(before) // 4, 40000), "export", golden, out)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and done.stderr.startswith("Error:"), done.stderr
    assert out.read_bytes() == before and leftovers(tmp_path) == []
    assert integrity(golden) == "ok"


def test_failter_output_file_naming_a_project_is_refused_before_any_request(tmp_path):
    spec = make_experiment(tmp_path)
    project = tmp_path / "exp1" / "report.json"  # output_file: report.json
    assert cli("init", project).exit_code == 0
    before = project.read_bytes()
    db = tmp_path / "f.db"
    with FakeOpenAI(answer=judge_answer) as fake:
        result = CliRunner().invoke(
            main, ["run", str(db), str(spec), "--endpoint", fake.base_url], env={"OPENAI_API_KEY": "k"}
        )
        assert result.exit_code == 1 and "is a reviewer project" in result.output, result.output
        assert sum(fake.counts.values()) == 0
    assert project.read_bytes() == before and integrity(project) == "ok"


def test_a_screenshot_never_replaces_the_project(golden, tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "QT_QPA_PLATFORM": "offscreen",
        "REVIEWER_CONFIG_DIR": str(tmp_path / "config"),
    }
    runs = sqlite3.connect(golden).execute("SELECT count(*) FROM runs").fetchone()[0]
    done = subprocess.run(
        [sys.executable, "-m", "reviewer", "open", str(golden), "--screenshot", str(golden)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1 and "is the project itself" in done.stderr, (done.stdout, done.stderr)
    assert integrity(golden) == "ok"  # still the project (the window itself writes to it: not byte for byte)
    assert sqlite3.connect(golden).execute("SELECT count(*) FROM runs").fetchone()[0] == runs > 0
    png = tmp_path / "shot.png"
    done = subprocess.run(
        [sys.executable, "-m", "reviewer", "open", str(golden), "--screenshot", str(png)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and leftovers(tmp_path) == []


def test_failter_artifacts_never_replace_a_project_or_a_foreign_file(tmp_path):
    from tests.helpers.failter import answers, experiment

    spec = experiment(tmp_path)
    art = spec.parent / "artifacts"
    db = tmp_path / "f.db"
    run = ("run", db, spec)
    # artifacts_dir naming a project: refused before any request, the project untouched
    assert cli("init", art).exit_code == 0
    before = art.read_bytes()
    with FakeOpenAI(answer=answers("score: 80")) as fake:
        result = cli(*run, "--endpoint", fake.base_url)
        assert result.exit_code == 1 and "is a file; Failter's artifacts are written to a folder" in result.output, (
            result.output
        )
        assert sum(fake.counts.values()) == 0
    assert art.read_bytes() == before and integrity(art) == "ok"
    art.unlink()
    # a project, or a user's file, where a trial's output goes: refused before any request unless --force
    trial = art / "ollama-qwen3-8b_clean-a" / "doc0.md"
    trial.parent.mkdir(parents=True)
    assert cli("init", trial).exit_code == 0
    notes = art / "openai-gpt-4o-mini_clean-b" / "doc1.md.eval"
    notes.parent.mkdir()
    notes.write_text("my own notes\n")
    with FakeOpenAI(answer=answers("score: 80")) as fake:
        result = cli(*run, "--endpoint", fake.base_url)
        assert result.exit_code == 1 and "is a reviewer project" in result.output, result.output
        assert sum(fake.counts.values()) == 0
        trial.unlink()
        result = cli(*run, "--endpoint", fake.base_url)
        assert result.exit_code == 1 and "is not a Failter .eval file" in result.output, result.output
        assert sum(fake.counts.values()) == 0 and notes.read_text() == "my own notes\n"
        forced = cli(*run, "--endpoint", fake.base_url, "--force")
        assert forced.exit_code == 0, forced.output
    assert yaml_score(notes) == 80 and trial.read_text().startswith("---\n") and leftovers(trial.parent) == []
    # Failter's own files are replaced; unchanged ones are left as they are
    stamps = {p: p.stat().st_mtime_ns for p in art.rglob("*") if p.is_file()}
    with FakeOpenAI(answer=answers("score: 80")) as fake:
        again = cli(*run, "--endpoint", fake.base_url)
        assert again.exit_code == 0 and sum(fake.counts.values()) == 0, again.output
    assert {p: p.stat().st_mtime_ns for p in art.rglob("*") if p.is_file()} == stamps


def test_failter_artifacts_inside_the_inputs_are_refused(tmp_path):
    from tests.helpers.failter import answers, experiment

    spec = experiment(tmp_path)
    spec.write_text(spec.read_text().replace("artifacts_dir: artifacts", "artifacts_dir: inputs/artifacts"))
    with FakeOpenAI(answer=answers("score: 80")) as fake:
        result = cli("run", tmp_path / "f.db", spec, "--endpoint", fake.base_url)
        assert result.exit_code == 1 and "inputs, which the project was imported from" in result.output, result.output
        assert sum(fake.counts.values()) == 0
    assert not (spec.parent / "inputs" / "artifacts").exists()


def yaml_score(path) -> float:
    import yaml

    return yaml.safe_load(path.read_text())["score"]


def test_the_export_metadata_file_never_replaces_a_foreign_file(golden, tmp_path):
    out = tmp_path / "out.db"
    meta = tmp_path / "out.db.metadata.json"
    meta.write_text('{"mine": true}\n')
    result = cli("export", golden, out)
    assert (
        result.exit_code == 1 and "out.db.metadata.json exists and is not a Datasette metadata file" in result.output
    ), result.output
    assert not out.exists() and meta.read_text() == '{"mine": true}\n'  # refused before anything is written
    meta.unlink()
    assert cli("init", meta).exit_code == 0
    result = cli("export", golden, out)
    assert result.exit_code == 1 and "is a reviewer project" in result.output and integrity(meta) == "ok"
    meta.unlink()
    assert cli("export", golden, out).exit_code == 0
    first = json.loads(meta.read_text())
    assert "runs" in first["databases"]["out"]["tables"]
    assert cli("export", golden, out).exit_code == 0  # its own metadata is replaced
    assert json.loads(meta.read_text()) == first and leftovers(tmp_path) == []
