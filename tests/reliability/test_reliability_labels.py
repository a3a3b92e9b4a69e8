"""A kill never loses a label (reviewer label; reviewer.storage.judging.labels).

A first label is written the moment it is typed. A subject whose first label
is stored but whose final value is not (the command was killed between the
two) is asked again at the reveal step, keep or change, and counts as
labelled, for the queue as for alignment, once its final value is stored."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.core.models import Item, Prompt
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.validation import people_and_splits
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from tests.helpers.paths import ROOT

JUDGE, D, WHO = "judge-x/m", "quality", "erin"


def six_subjects(path):
    p = open_project(path, create=True)
    item_id, _ = repo_items.upsert_item(p, Item(name="poem", kind="text", text="Write a poem about rain."))
    prompt_id, _ = repo_items.upsert_prompt(p, Prompt(name="write", text="Write"))
    for k in range(6):
        run_id, _ = repo_runs.add_run(p, item_id, prompt_id, f"writer-{k}", f"Rain poem number {k}.")
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{run_id}",
                run_id=run_id,
                judge=JUDGE,
                judge_model="m",
                prompt_version="rubric-v1",
                method=Method.RUBRIC,
                scale=Scale.PERCENT,
                scores={D: 10.0 * (k + 3)},
            ),
        )
    p.close()


def counts(path):
    """(subjects left in the queue, subjects alignment counts, first labels without a final value)."""
    p = open_project(path)
    try:
        left = len(labels.next_entries(p, JUDGE, D, WHO))
        people, _ = people_and_splits(p, judging.verdicts(p), judging.adjudications(p), 0)
        counted = sum(1 for (_, dim), (value, _, _) in people.items() if dim == D and value is not None)
        pending = sum(1 for x in labels.labels(p) if x.first_value is not None and x.final_value is None)
        return left, counted, pending
    finally:
        p.close()


def read_until(proc, marker: str, timeout: float = 60.0) -> str:
    seen, end = "", time.monotonic() + timeout
    fd = proc.stdout.fileno()
    while marker not in seen:
        assert time.monotonic() < end, seen
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            chunk = os.read(fd, 65536).decode()
            assert chunk, seen  # the process ended before the marker
            seen += chunk
    return seen


def test_a_first_label_committed_before_a_kill_is_asked_again_at_the_reveal(tmp_path):
    db = tmp_path / "l.db"
    six_subjects(db)
    # five subjects labelled: first label, keep
    done = CliRunner().invoke(
        main, ["label", str(db), "--judge", JUDGE, "--reviewer", WHO, "--limit", "5"], input="50\nk\n" * 5
    )
    assert done.exit_code == 0 and "5 subject(s) labelled" in done.output, done.output
    assert counts(db) == (1, 5, 0)
    # the sixth: its first label is committed, then the command is killed before keep or change
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "reviewer", "label", str(db), "--judge", JUDGE, "--reviewer", WHO],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        read_until(proc, "Label quality")
        proc.stdin.write(b"70\n")
        proc.stdin.flush()
        read_until(proc, "first label committed: 70")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    # the queue still holds it, alignment does not count it yet: they agree
    assert counts(db) == (1, 5, 1)
    again = CliRunner().invoke(main, ["label", str(db), "--judge", JUDGE, "--reviewer", WHO], input="c\n80\n")
    assert again.exit_code == 0, again.output
    assert "first label committed earlier: 70" in again.output
    assert "Label quality" not in again.output  # the first label is not asked again
    assert "Keep (k) or change (c)?" in again.output and "1 subject(s) labelled" in again.output
    assert counts(db) == (0, 6, 0)
    p = open_project(db)
    try:
        (x,) = [x for x in labels.labels(p) if x.first_value == 70.0]
        assert x.final_value == 80.0 and x.first_at is not None and x.final_at is not None
    finally:
        p.close()
    last = CliRunner().invoke(main, ["label", str(db), "--judge", JUDGE, "--reviewer", WHO])
    assert "nothing to label: every subject of the queue has a final value" in last.output
