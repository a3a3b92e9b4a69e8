"""The label-first queue is fair on LLMBar (../shared/data, skipped when
absent): the window lists the very order `reviewer label` walks, and the
share of its first 100 subjects where the judges disagree lies within the
99 % binomial range of the queue's base rate (the queue's order knows
nothing of disagreements)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from scipy.stats import binom

from reviewer.cli import main
from reviewer.core.judging.dispute_common import primary_verdicts, value_of
from reviewer.qt.app import build
from reviewer.storage.importers import import_source
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from tests.helpers.paths import shared

pytestmark = [pytest.mark.gui, pytest.mark.shared_data]

JUDGE = "GPT-4/Vanilla_NoRules"


@pytest.fixture
def llmbar(tmp_path):
    folder = shared("pairwise-llmbar")
    path = tmp_path / "llmbar.db"
    p = open_project(path, create=True)
    import_source(p, folder)
    p.close()
    return path


def _disagree(path) -> dict[str, bool]:
    p = open_project(path)
    try:
        values: dict[str, set] = {}
        for vs in labels.judge_verdicts(p, judging.verdicts(p)).values():
            for (subject, _), v in primary_verdicts(vs).items():
                x = value_of(v, "winner")
                if x is not None:
                    values.setdefault(subject, set()).add(x)
    finally:
        p.close()
    return {s: len(xs) > 1 for s, xs in values.items()}


def test_the_windows_first_100_subjects_are_a_fair_draw_and_the_command_line_walks_the_same_order(
    qtbot, llmbar, tmp_path, monkeypatch
):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    w = build(llmbar, ask_name=False, mode="adjudication")
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    view = w.adjudication
    view.toggle_labels()
    assert view.labelling_shown()
    page = view.label_page
    qtbot.waitUntil(lambda: page.plan is not None)
    page.judge_combo.setCurrentIndex(page.judge_combo.findData(JUDGE))
    qtbot.waitUntil(lambda: page.plan is not None and page.plan.judge == JUDGE)
    listed = [page.list.item(n).text().split(". ", 1)[1] for n in range(page.list.count())]
    assert len(listed) == page.plan.queue_size == 200
    w.close()
    disagree = _disagree(llmbar)
    queue = [s for s in listed if s in disagree]
    base = sum(disagree[s] for s in queue) / len(queue)
    first = queue[:100]
    low, high = binom.interval(0.99, len(first), base)
    assert low <= sum(disagree[s] for s in first) <= high
    # the command line walks the same order: skip the first 30 and read the subjects it names
    out = (
        CliRunner()
        .invoke(main, ["label", str(llmbar), "--judge", JUDGE, "--reviewer", "ann", "--limit", "30"], input="s\n" * 30)
        .output
    )
    walked = re.findall(r"^\[\d+/30\] (\S+)$", out, flags=re.M)
    assert walked == listed[:30]
