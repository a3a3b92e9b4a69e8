"""Hand labelling a golden span in a few keys (docs/spans.md#keys): W and S
grow the selection by a word and a sentence, the role field lists the roles
completing what is typed and Enter takes the first. Real keys, offscreen."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from reviewer.core.spans.golden import complete_role
from reviewer.core.spans.selection import grow
from reviewer.storage.spans import spans as span_store
from tests.helpers.span_window import open_span_window

pytestmark = pytest.mark.gui

TEXT = "Establishing Shot of a harbour town at dawn. Gulls circle the masts, slowly!\nSoft piano score."


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    """The window on a one-prompt golden set (written here) whose text starts with 'Establishing Shot'."""
    source = tmp_path / "harbour-golden.json"
    start = TEXT.index("harbour town")
    source.write_text(
        json.dumps(
            {
                "metadata": {"name": "harbour"},
                "prompts": [
                    {
                        "id": "harbour",
                        "text": TEXT,
                        "groundTruth": {
                            "spans": [
                                {
                                    "text": "harbour town",
                                    "start": start,
                                    "end": start + 12,
                                    "role": "environment.location",
                                }
                            ]
                        },
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    w = open_span_window(qtbot, tmp_path, monkeypatch, [source], "harbour")
    yield w
    w.close()


def test_establishing_shot_as_shot_type_in_at_most_six_keys(qtbot, window):
    pane, s = window.span_pane, window.session
    view = pane.view
    assert view.toPlainText() == TEXT
    view.setFocus()
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.cursorRect(view.textCursor()).center())  # the start
    keys = 0

    def key(widget, k):
        nonlocal keys
        keys += 1
        qtbot.keyClick(widget, k)

    key(view, Qt.Key_W)
    key(view, Qt.Key_W)
    assert view.textCursor().selectedText() == "Establishing Shot"
    key(view, Qt.Key_L)
    assert pane.role_bar.isVisible() and pane.role_bar.choices.isVisible()  # the roles are listed at once
    key(pane.role_bar.edit, Qt.Key_S)
    assert pane.role_bar.choices.chosen() == "shot.type"  # the first role completing 's'
    assert pane.role_bar.choices.count() == len(complete_role("s"))
    key(pane.role_bar.edit, Qt.Key_Return)
    assert keys <= 6
    assert keys == 5  # measured: W, W, L, s, Enter
    golden = span_store.golden_spans(s.project, s.item().id, TEXT)
    made = [(g.text, g.start, g.end, g.role) for g in golden if g.role == "shot.type"]
    assert made == [("Establishing Shot", 0, 17, "shot.type")]
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    assert [g.role for g in span_store.golden_spans(s.project, s.item().id, TEXT)] == ["environment.location"]


def test_s_grows_by_a_sentence_and_the_role_list_follows_the_keys(qtbot, window):
    pane = window.span_pane
    view = pane.view
    view.setFocus()
    c = view.textCursor()
    c.setPosition(TEXT.index("Gulls") + 2)  # inside a word
    view.setTextCursor(c)
    qtbot.keyClick(view, Qt.Key_S)
    assert view.textCursor().selectedText() == "Gulls circle the masts, slowly"
    qtbot.keyClick(view, Qt.Key_S)  # the next sentence ends at the line break
    assert view.textCursor().selectedText().endswith("Soft piano score")
    qtbot.keyClick(view, Qt.Key_L)
    bar = pane.role_bar
    qtbot.keyClicks(bar.edit, "mov")
    assert bar.choices.chosen() == complete_role("mov")[0]
    qtbot.keyClick(bar.edit, Qt.Key_Down)
    second = complete_role("mov")[1]
    assert bar.choices.chosen() == second
    qtbot.keyClick(bar.edit, Qt.Key_Return)
    golden = span_store.golden_spans(window.session.project, window.session.item().id, TEXT)
    assert any(g.role == second and g.text.startswith("Gulls") for g in golden)


def test_grow_by_word_and_sentence():
    t = "Slow dolly in on an old baker, flour-dusted hands. 35mm lens"
    assert grow(t, 0, 0) == (0, 4)
    assert t[slice(*grow(t, 0, 4))] == "Slow dolly"
    assert t[slice(*grow(t, 31, 31))] == "flour-dusted"  # one word with its hyphen
    assert t[slice(*grow(t, 2, 2, "sentence"))] == "Slow dolly in on an old baker, flour-dusted hands"
    assert t[slice(*grow(t, *grow(t, 0, 0, "sentence"), "sentence"))] == t  # up to the end of the text
    assert grow(t, len(t), len(t)) == (len(t), len(t))  # nothing further
    with pytest.raises(ValueError, match="not 'line'"):
        grow(t, 0, 0, "line")
