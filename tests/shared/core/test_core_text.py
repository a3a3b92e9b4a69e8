"""reviewer.core.text.normalize: NFKC, case folding, punctuation, whitespace."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.core.text import normalize


@pytest.mark.parametrize(
    "raw, expected",
    [
        # NFKC: full-width Latin letters and digits become ASCII.
        ("ＷＩＬＤ　ＣＡＲＤ", "wild card"),
        ("Ｔｏ ｂｅ ｆｒｅｅ ｆｒｏｍ ｐａｉｎ", "to be free from pain"),
        ("Card ７", "card 7"),
        # NFKC: ligatures and compatibility characters.
        ("To be at peace with ﬁnances", "to be at peace with finances"),
        ("Ⅸ", "ix"),
        # NFKC composes a decomposed accent so it equals the precomposed one.
        ("Cafe\u0301", "café"),
        # Case folding (not only lower()): German sharp s.
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),
        ("To Be MENTALLY Aware", "to be mentally aware"),
        # Punctuation becomes a space, then spaces collapse.
        ("Wild Card!", "wild card"),
        ("To say goodbye... to important people", "to say goodbye to important people"),
        ("well-being", "well being"),
        ("“Quoted” card", "quoted card"),
        ("don't", "don t"),
        # Whitespace: tabs, newlines, non-breaking spaces, ends.
        ("  To\tbe\n\nkept   clean  ", "to be kept clean"),
        ("To\u00a0be\u2003kept", "to be kept"),
        # Underscores and digits are word characters and stay.
        ("card_1 2", "card_1 2"),
        ("", ""),
        ("!!! ... ???", ""),
    ],
)
def test_normalize_examples(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


def test_case_and_punctuation_variants_are_equal() -> None:
    assert normalize("WILD CARD") == normalize("Wild Card!") == normalize(" wild, card ")


def test_different_words_stay_different() -> None:
    assert normalize("To be free from pan") != normalize("To be free from pain")
    # Punctuation is a separator, not deleted: word boundaries are kept.
    assert normalize("wellbeing") != normalize("well-being")


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_normalize_is_idempotent_and_tidy(text: str) -> None:
    out = normalize(text)
    assert normalize(out) == out
    assert out == out.strip()
    assert "  " not in out
    assert not any(ch in out for ch in "\t\n\r")
    assert not any(ch in out for ch in string.punctuation.replace("_", ""))


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=string.ascii_letters + " .,!?'-", max_size=40))
def test_normalize_ignores_ascii_case_and_punctuation(text: str) -> None:
    assert normalize(text.upper()) == normalize(text.lower()) == normalize(text)
    assert normalize(text + "!?.") == normalize(text)


def test_visible_replaces_exactly_the_hidden_characters_of_the_character_rule():
    from reviewer.core.text import _is_hidden, visible

    for keep in (True, False):
        for code in range(0x3000):
            ch = chr(code)
            hidden = _is_hidden(ch) or (ch == "\n" and not keep)
            assert visible(f"a{ch}b", keep_newlines=keep) == (f"a<U+{code:04X}>b" if hidden else f"a{ch}b")


def test_natural_key_orders_numbers_and_reads_other_digit_signs_as_text():
    from reviewer.core.text import natural_key

    names = [
        "photo10",
        "photo2",
        "photo1²",
        "Photo1",
        "photo٣",
    ]  # ² is a digit sign, not a decimal; ٣ is Arabic-Indic 3
    ordered = sorted(names, key=lambda n: natural_key(n, casefold=True))
    assert ordered == ["Photo1", "photo1²", "photo2", "photo٣", "photo10"]
    assert natural_key("x1²") == ((1, 0, "x"), (0, 1, ""), (1, 0, "²"))
