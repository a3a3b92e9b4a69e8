"""Writers replace only regular files (reviewer.storage.files.safe_write.regular_or_absent).

Every writer (``export``, ``export-gt`` in each format, ``golden-export``,
a Failter spec's ``output_file`` and artifacts) refuses a target that exists
and is not a regular file, with one line, and leaves it as it was: a FIFO, a
symbolic link to a FIFO and a folder, also with ``--force``. A symbolic link
to a regular file is refused unless ``--force``, which replaces the file it
points to. The tests make their FIFOs and sockets in a temporary folder and
never touch /dev."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.storage.files import safe_write
from tests.helpers.fake_openai import FakeOpenAI

KINDS = ("fifo", "link to a fifo", "folder")


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], env={"OPENAI_API_KEY": "k"})


def make_special(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link to a fifo":
        fifo = path.parent / (path.name + ".fifo")
        os.mkfifo(fifo)
        path.symlink_to(fifo)
    else:
        path.mkdir()


def unchanged(path: Path, kind: str) -> bool:
    if kind == "fifo":
        return stat.S_ISFIFO(os.lstat(path).st_mode)
    if kind == "link to a fifo":
        return path.is_symlink() and stat.S_ISFIFO(os.stat(path).st_mode)
    return path.is_dir() and not any(path.iterdir())


#: writer -> (arguments with OUT, the file written inside OUT or None for OUT itself)
WRITERS = {
    "export": (("export", "{P}", "{OUT}"), None),
    "export-gt coco": (("export-gt", "{P}", "{OUT}", "--format", "coco"), None),
    "export-gt label-studio": (("export-gt", "{P}", "{OUT}", "--format", "label-studio"), None),
    "export-gt labelme": (("export-gt", "{P}", "{OUT}", "--format", "labelme"), "table-01.json"),
    "golden-export": (("golden-export", "{P}", "tiny", "{OUT}"), None),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("writer", list(WRITERS))
def test_every_writer_refuses_a_fifo_a_link_to_a_fifo_and_a_folder(golden, tmp_path, writer, kind):
    args, inner = WRITERS[writer]
    out = tmp_path / "out"
    target = out / inner if inner else out
    make_special(target, kind)
    for force in ((), ("--force",)):
        argv = [a.replace("{P}", str(golden)).replace("{OUT}", str(out)) for a in args] + list(force)
        result = cli(*argv)
        if kind == "folder" and result.exit_code == 2:  # click's own check of OUT: a usage error
            assert "is a directory" in result.output, result.output
        else:
            assert result.exit_code == 1, (writer, kind, result.output)
            assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output
            assert ("a folder" if kind == "folder" else "a FIFO") in result.output, result.output
        assert unchanged(target, kind), (writer, kind)
    assert not [p for p in tmp_path.rglob("*.tmp")]


def _spec(tmp_path: Path) -> Path:
    from tests.helpers.failter import experiment

    return experiment(tmp_path)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("where", ["output_file", "artifact"])
def test_a_failter_spec_refuses_a_special_output_before_any_request(tmp_path, where, kind):
    from tests.helpers.failter import answers

    spec = _spec(tmp_path)
    if where == "output_file":
        target = spec.parent / "out" / "final-report.json"
    else:
        target = spec.parent / "artifacts" / "ollama-qwen3-8b_clean-a" / "doc0.md"
    make_special(target, kind)
    with FakeOpenAI(answer=answers("score: 80")) as fake:
        for force in ((), ("--force",)):
            result = cli("run", tmp_path / "f.db", spec, "--endpoint", fake.base_url, *force)
            assert result.exit_code == 1, result.output
            assert ("a folder" if kind == "folder" else "a FIFO") in result.output, result.output
            assert result.output.count("\n") == 1
        assert sum(fake.counts.values()) == 0
    assert unchanged(target, kind)


def test_a_link_to_a_regular_file_needs_force_and_then_replaces_the_file(tmp_path):
    real = tmp_path / "real.json"
    real.write_text('{"prompts": []}\n')
    link = tmp_path / "link.json"
    link.symlink_to(real)
    fmt = safe_write.json_format("golden set", lambda v: isinstance(v, dict) and "prompts" in v)
    with pytest.raises(safe_write.TargetRefused, match="is a symbolic link; .*--force"):
        safe_write.write_json(link, {"prompts": [1]}, fmt)
    assert json.loads(real.read_text()) == {"prompts": []}
    safe_write.write_json(link, {"prompts": [1]}, fmt, force=True)
    assert link.is_symlink() and json.loads(real.read_text()) == {"prompts": [1]}


def test_a_socket_and_a_dangling_link_are_refused_even_with_force(tmp_path):
    fmt = safe_write.json_format("golden set", lambda v: True)
    sock_path = tmp_path / "s.json"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(sock_path))
        for force in (False, True):
            with pytest.raises(safe_write.TargetRefused, match="is a socket"):
                safe_write.write_json(sock_path, [], fmt, force=force)
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    finally:
        server.close()
    dangling = tmp_path / "gone.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    for force in (False, True):
        with pytest.raises(safe_write.TargetRefused, match="dangling symbolic link"):
            safe_write.write_json(dangling, [], fmt, force=force)
    assert dangling.is_symlink() and not (tmp_path / "nowhere.json").exists()


def test_report_charts_refuse_a_fifo_a_link_to_a_fifo_and_a_folder(tmp_path):
    from tests.helpers.paths import ROOT

    db = tmp_path / "r.db"
    assert cli("import", db, ROOT / "samples" / "rubric", "--create").exit_code == 0
    first = tmp_path / "charts"
    assert cli("report", db, "--charts", first).exit_code == 0
    name = sorted(p.name for p in first.iterdir())[0]  # a chart the report writes
    for kind in KINDS:
        folder = tmp_path / f"charts-{kind.replace(' ', '-')}"
        make_special(folder / name, kind)
        result = cli("report", db, "--charts", folder)
        assert result.exit_code == 1, (kind, result.output)
        line = [x for x in result.output.splitlines() if x.startswith("Error:")]
        assert len(line) == 1 and ("a folder" if kind == "folder" else "a FIFO") in line[0], result.output
        assert unchanged(folder / name, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_a_screenshot_refuses_a_fifo_a_link_to_a_fifo_and_a_folder(golden, tmp_path, kind):
    import subprocess
    import sys

    from tests.helpers.paths import ROOT

    shot = tmp_path / "shot.png"
    make_special(shot, kind)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "QT_QPA_PLATFORM": "offscreen",
        "REVIEWER_CONFIG_DIR": str(tmp_path / "config"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "reviewer", "open", str(golden), "--screenshot", str(shot)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode != 0, (done.stdout, done.stderr)
    assert ("a folder" if kind == "folder" else "a FIFO") in done.stderr or "is a directory" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert unchanged(shot, kind)


FILE_WRITERS = [w for w, (_, inner) in WRITERS.items() if inner is None]


@pytest.mark.parametrize("writer", FILE_WRITERS)
def test_every_writer_needs_force_for_a_link_to_a_file_it_wrote(golden, tmp_path, writer):
    """A symbolic link is refused unless --force, even when the file it
    points to is one reviewer wrote (the writer must not resolve OUT before
    the check); with --force the file is replaced and the link stays."""
    args, _ = WRITERS[writer]
    real, link = tmp_path / "real.out", tmp_path / "link.out"

    def argv(out: Path, *extra: str) -> list[str]:
        return [a.replace("{P}", str(golden)).replace("{OUT}", str(out)) for a in args] + list(extra)

    assert cli(*argv(real)).exit_code == 0
    written = real.read_bytes()
    link.symlink_to(real)
    result = cli(*argv(link))
    assert result.exit_code == 1, (writer, result.output)
    assert "is a symbolic link" in result.output and "--force" in result.output, result.output
    assert link.is_symlink() and real.read_bytes() == written
    result = cli(*argv(link, "--force"))
    assert result.exit_code == 0, (writer, result.output)
    assert link.is_symlink() and real.stat().st_size > 0
