"""The reveal reads true on LLMBar pair 585:586 (../shared/data, skipped
when absent): after the first label, each judge's verdict is shown with the
order it saw and in the letters shown to the reviewer, and its rationale's
'Output (a)/(b)' are rewritten to those letters, in the terminal and in the
window alike. ChatGPT/CoT chose its 'Output (a)', the pair's first run; in
the letters shown its choice and its rationale's praise name one output."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.label_first import HumanLabel, pair_verdict_text, rationale_as_shown
from reviewer.qt.app import build
from reviewer.storage.importers import import_source
from reviewer.storage.judging import labels
from reviewer.storage.project.db import open_project
from tests.helpers.paths import shared

pytestmark = pytest.mark.shared_data

SUBJECT = "pair:585:586"
JUDGE = "ChatGPT/CoT"


@pytest.fixture
def llmbar(tmp_path):
    folder = shared("pairwise-llmbar")
    path = tmp_path / "llmbar.db"
    p = open_project(path, create=True)
    import_source(p, folder)
    labels.refresh_queue(p, JUDGE, "winner")
    with p.transaction():  # shown swapped, as in the report: the judge's (a) is the output shown second
        p.db.execute("UPDATE label_subjects SET answer_order = 'ba' WHERE subject = ?", [SUBJECT])
    p.close()
    return path


def _check(text: str) -> None:
    chose = re.search(rf"{re.escape(JUDGE)} \(model [^)]*\): saw B first: chose B", text)
    assert chose, text
    assert "Output (a)" not in text and "Output (b)" not in text
    assert "However, Output B more closely and precisely executes the instruction" in text
    assert "GPT-4/Vanilla (model" in text and "saw B first: chose A" in text and "rationale: Output A" in text


def test_the_terminal_shows_each_verdict_in_the_order_shown(llmbar):
    p = open_project(llmbar)
    order = [e.subject for e in labels.next_entries(p, JUDGE, "winner", "ana")]
    p.close()
    at = order.index(SUBJECT)
    out = (
        CliRunner()
        .invoke(
            main,
            ["label", str(llmbar), "--judge", JUDGE, "--reviewer", "ana", "--limit", str(at + 1)],
            input="s\n" * at + "b\nk\n",
            catch_exceptions=False,
        )
        .output
    )
    assert f"] {SUBJECT}" in out and "first label committed: B" in out
    _check(out.split("Verdicts:")[1])


@pytest.mark.gui
def test_the_window_shows_each_verdict_in_the_order_shown(qtbot, llmbar, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = build(llmbar, ask_name=False, mode="adjudication")
    qtbot.addWidget(w)
    w.show()
    view = w.adjudication
    view.toggle_labels()
    page = view.label_page
    qtbot.waitUntil(lambda: page.plan is not None)
    label = HumanLabel(subject=SUBJECT, dimension="winner", reviewer="ana", first_value="1", answer_order="ba")
    page.show_verdicts(SUBJECT, "winner", "ba", label)
    _check(page.verdicts.toPlainText())
    w.close()


def test_the_mapping_rules():
    # the judge saw the original order; shown swapped: its (a) is B, its Response 2 is A
    assert pair_verdict_text("1", "ab", "ba") == "saw B first: chose B"
    assert pair_verdict_text("tie", "ba", "ab") == "saw B first: chose tie"
    assert rationale_as_shown("Response 2 beats Response 1", "ab", "ba") == "Response A beats Response B"
    assert rationale_as_shown("Output (a)", "ba", "ab") == "Output B"
    assert rationale_as_shown("The second is better.", "ab", "ab") == (
        "[in the order this judge saw: A first] The second is better."
    )
