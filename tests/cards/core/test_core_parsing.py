"""reviewer.core.cards.parsing: the answer out of raw model text (T-P5 step 1)."""

from __future__ import annotations

import json
import string
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.core.cards.parsing import json_objects, line_col, parse_answer
from reviewer.core.models import AnswerSchema, BBox, ModelCard

PILES, CARDS, FREE = AnswerSchema.PILES, AnswerSchema.CARDS, AnswerSchema.FREE

# A made-up llama.cpp-style log around the answer: metadata dump with a Jinja
# chat template (braces that are not JSON), a JSON-looking settings line, and
# perf counters after the answer.
LOG_HEAD = """\
ggml_backend_init: found 1 device
build: 9999 (0123abcd) with clang for linux x86_64
llama_model_loader: - kv  27:  tokenizer.chat_template str = {%- if messages %}{{- '<|im_start|>' }}{% endif %}...
llama_model_loader: - kv  28:  general.tags arr[str,2] = ["vision", "ocr"]
load_hparams: {"n_ctx": 4096, "n_batch": 512}
clip_model_loader: model name:   vision-tower
main: loading model: models/tiny-vl.gguf
encoding image slice...
image decoded (batch 1/1) in 812 ms

"""
LOG_TAIL = """

llama_perf_context_print:        load time =    1877.44 ms
llama_perf_context_print: prompt eval time =    1824.29 ms /  1993 tokens
llama_perf_context_print:        eval time =    1878.39 ms /   324 runs
ggml_free: deallocating
"""


def fence(obj, lang: str = "json") -> str:
    return f"```{lang}\n{json.dumps(obj, indent=2)}\n```"


def texts(result) -> list[str]:
    return [c.text for c in result.cards]


PILES_ANSWER = {
    "piles": [
        {"label": "left", "cards": ["To be free from pain", "To be kept clean"]},
        {"label": "right", "cards": ["To have human touch"]},
    ]
}

CARDS_ANSWER = {
    "cards": [
        {"text": "To be free from pain", "bbox": {"x_min": 0.1, "y_min": 0.1, "x_max": 0.3, "y_max": 0.4}},
        {"text": "To have human touch", "bbox": {"x_min": 0.5, "y_min": 0.1, "x_max": 0.7, "y_max": 0.4}},
    ]
}


# --- finding the answer ----------------------------------------------------------


def test_answer_inside_llama_cpp_log_noise() -> None:
    raw = LOG_HEAD + "Here are the piles:\n" + fence(PILES_ANSWER) + LOG_TAIL
    r = parse_answer(raw, PILES)
    assert r.json_valid and not r.repaired and r.parsed
    assert r.error is None and r.error_offset is None
    assert texts(r) == ["To be free from pain", "To be kept clean", "To have human touch"]
    assert [c.pile for c in r.cards] == ["left", "left", "right"]
    assert r.grouped is True
    assert r.data == PILES_ANSWER
    start, end = r.span
    assert json.loads(raw[start:end]) == PILES_ANSWER


def test_prose_and_json_fence() -> None:
    raw = (
        "I can see two cards on the table. Reading them carefully:\n\n"
        + fence(CARDS_ANSWER)
        + "\n\nLet me know if you need anything else!"
    )
    r = parse_answer(raw, CARDS)
    assert r.json_valid and r.error is None
    assert texts(r) == ["To be free from pain", "To have human touch"]
    assert r.cards[0].bbox == BBox(x_min=0.1, y_min=0.1, x_max=0.3, y_max=0.4)
    assert r.grouped is False  # no pile or row field


def test_bare_json_without_fence() -> None:
    r = parse_answer(json.dumps(CARDS_ANSWER), CARDS)
    assert r.json_valid
    assert texts(r) == ["To be free from pain", "To have human touch"]


def test_several_blocks_last_valid_one_is_taken() -> None:
    draft = {"cards": [{"text": "draft reading"}]}
    final = {"cards": [{"text": "final reading"}]}
    raw = "First try:\n" + fence(draft) + "\nCorrected:\n" + fence(final)
    r = parse_answer(raw, CARDS)
    assert r.json_valid
    assert texts(r) == ["final reading"]
    assert raw[r.span[0] : r.span[1]].count("final reading") == 1


def test_several_blocks_one_matching_the_schema_is_taken() -> None:
    # Objects of other shapes after the answer do not hide it.
    raw = (
        fence(PILES_ANSWER)
        + '\nMeta: {"confidence": 0.9}\n'
        + fence({"piles": "none"})  # has the key but does not match the schema
        + '\n{"note": "done"}'
    )
    r = parse_answer(raw, PILES)
    assert r.json_valid and r.error is None
    assert texts(r) == ["To be free from pain", "To be kept clean", "To have human touch"]


def test_schema_decides_which_block_is_taken() -> None:
    raw = fence(CARDS_ANSWER) + "\n" + fence(PILES_ANSWER)
    assert texts(parse_answer(raw, CARDS)) == ["To be free from pain", "To have human touch"]
    assert texts(parse_answer(raw, PILES)) == [
        "To be free from pain",
        "To be kept clean",
        "To have human touch",
    ]


def test_echoed_prompt_example_is_skipped() -> None:
    example = {"piles": [{"label": "left", "cards": ["card text 1", "card text 2"]}]}
    # The model answers, then repeats the schema it was given.
    raw = fence(PILES_ANSWER) + "\nI followed the schema " + json.dumps(example) + "."
    without = parse_answer(raw, PILES)
    assert texts(without) == ["card text 1", "card text 2"]  # the echo is valid JSON
    r = parse_answer(raw, PILES, prompt_example=example)
    assert r.json_valid
    assert texts(r) == ["To be free from pain", "To be kept clean", "To have human touch"]


def test_echo_is_compared_as_json_not_as_text() -> None:
    example = {"cards": [{"text": "x", "bbox": None}]}
    echo = '{ "cards" : [ { "bbox": null, "text": "x" } ] }'  # same JSON, other spelling
    raw = fence(CARDS_ANSWER) + "\n" + echo
    r = parse_answer(raw, CARDS, prompt_example=example)
    assert texts(r) == ["To be free from pain", "To have human touch"]


def test_output_with_only_the_echoed_example_recovers_nothing() -> None:
    example = {"cards": [{"text": "card text", "bbox": {"x_min": 0.0, "y_min": 0.0, "x_max": 0.0, "y_max": 0.0}}]}
    raw = "You asked for:\n" + fence(example) + "\n"
    r = parse_answer(raw, CARDS, prompt_example=example)
    assert r.error is not None
    assert not r.json_valid
    assert not r.repaired
    assert r.cards == []


# --- FORMAT errors -----------------------------------------------------------------


@pytest.mark.parametrize("schema", [PILES, CARDS])
def test_no_json_is_an_error(schema) -> None:
    r = parse_answer("I see some cards on a wooden table.", schema)
    assert not r.json_valid and not r.repaired and not r.parsed
    assert r.error is not None and "no JSON object" in r.error
    assert f'"{schema.value}"' in r.error
    assert r.cards == []


def test_other_json_only_is_an_error() -> None:
    r = parse_answer('{"answer": "two cards"}', PILES)
    assert not r.parsed
    assert r.error is not None
    assert "schema" in r.error
    assert r.cards == []


@pytest.mark.parametrize("raw", ["", "   ", "\n\t\n"])
@pytest.mark.parametrize("schema", [PILES, CARDS])
def test_empty_output_is_an_error(raw, schema) -> None:
    r = parse_answer(raw, schema)
    assert not r.parsed
    assert r.error == "the output is empty"


def test_free_schema_is_not_parsed() -> None:
    r = parse_answer(fence(CARDS_ANSWER), FREE)
    assert r.error is None and not r.json_valid and r.cards == []
    assert parse_answer("", FREE).error is None


def test_invalid_json_names_line_column_and_offset() -> None:
    head = "llama log line\nanother line\n```json\n"
    body = '{\n  "cards": [\n    {"text": "A"},\n    {"text": "B",}\n  ]\n}\n'
    raw = head + body + "```\n"
    bad = raw.index(",}") + 1  # the '}' after a trailing comma
    r = parse_answer(raw, CARDS, salvage=False)
    assert not r.json_valid and not r.repaired
    assert r.error_offset == bad
    assert raw[r.error_offset] == "}"
    line, col = line_col(raw, bad)
    assert (line, col) == (7, 18)
    assert r.error.startswith("invalid JSON")
    assert f"line {line} column {col}" in r.error


def test_invalid_json_missing_comma_offset() -> None:
    raw = 'Answer:\n```json\n{"piles": [{"label": "left", "cards": ["A" "B"]}]}\n```'
    r = parse_answer(raw, PILES, salvage=False)
    assert r.error_offset == raw.index('"B"')
    assert "line 3 column" in r.error
    assert "Expecting ',' delimiter" in r.error


def test_invalid_json_is_salvaged_when_allowed() -> None:
    raw = '```json\n{"cards": [{"text": "A card"} {"text": "B card"}]}\n```'
    r = parse_answer(raw, CARDS)
    assert r.repaired and not r.json_valid and r.parsed
    assert r.error.startswith("invalid JSON")
    assert texts(r) == ["A card", "B card"]


def test_line_col() -> None:
    text = "ab\ncd\n\nef"
    assert line_col(text, 0) == (1, 1)
    assert line_col(text, 1) == (1, 2)
    assert line_col(text, 3) == (2, 1)
    assert line_col(text, 7) == (4, 1)
    assert line_col(text, 8) == (4, 2)


@pytest.mark.parametrize(
    "schema, answer, path",
    [
        (CARDS, {"cards": [{"name": "To be free from pain"}]}, "cards.0.text"),
        (CARDS, {"cards": [{"text": "ok"}, {"txt": "bad"}]}, "cards.1.text"),
        (PILES, {"piles": [{"name": "left", "cards": ["A"]}]}, "piles.0.label"),
        (PILES, {"piles": [{"label": "left", "cards": "A, B"}]}, "piles.0.cards"),
        (PILES, {"piles": [{"label": "left", "items": ["A"]}]}, "piles.0.cards"),
    ],
)
def test_schema_mismatch_names_pydantic_path(schema, answer, path) -> None:
    raw = "Result:\n" + fence(answer)
    r = parse_answer(raw, schema)
    assert not r.json_valid and not r.repaired and r.cards == []
    assert r.error.startswith(f"JSON does not match the {schema.value} schema")
    assert path in r.error
    assert r.error_offset == raw.index("{")
    assert raw[r.span[0] : r.span[1]] == json.dumps(answer, indent=2)


def test_schema_mismatch_counts_further_errors() -> None:
    answer = {"cards": [{"name": str(i)} for i in range(5)]}
    r = parse_answer(json.dumps(answer), CARDS)
    assert "cards.0.text" in r.error and "cards.2.text" in r.error
    assert "cards.3.text" not in r.error
    assert "(+2 more)" in r.error


def test_valid_answer_after_mismatch_wins() -> None:
    raw = json.dumps({"cards": [{"name": "x"}]}) + "\n" + json.dumps({"cards": [{"text": "y"}]})
    r = parse_answer(raw, CARDS)
    assert r.json_valid and r.error is None and texts(r) == ["y"]


# --- truncated JSON ----------------------------------------------------------------

TRUNCATED_CARDS = (
    LOG_HEAD
    + "```json\n"
    + '{"cards": [\n'
    + '  {"text": "To be free from pain", "pile": "left"},\n'
    + '  {"text": "To be kept clean", "pile": "left"},\n'
    + '  {"text": "To have human touch", "bbox": {"x_min": 0.5, "y_'
)


def test_truncated_json_is_salvaged() -> None:
    r = parse_answer(TRUNCATED_CARDS, CARDS)
    assert r.error.startswith("truncated JSON")
    assert "line " in r.error and " column " in r.error
    assert r.repaired and not r.json_valid and r.parsed
    # The card cut in the middle of its box is dropped; the others are kept.
    assert texts(r) == ["To be free from pain", "To be kept clean"]
    assert [c.pile for c in r.cards] == ["left", "left"]
    assert r.grouped is True
    assert "recovered 2 card(s)" in r.error
    # The error points at the string the cut left open.
    assert TRUNCATED_CARDS[r.error_offset :] == '"y_'
    assert "Unterminated string" in r.error
    assert r.span[0] == TRUNCATED_CARDS.index('{"cards"')


def test_truncated_json_without_salvage_recovers_nothing() -> None:
    r = parse_answer(TRUNCATED_CARDS, CARDS, salvage=False)
    assert r.error.startswith("truncated JSON")
    assert not r.repaired and not r.parsed
    assert r.cards == []
    assert "recovered" not in r.error


def test_truncated_piles_are_salvaged() -> None:
    raw = (
        "```json\n"
        '{"piles": [{"label": "left", "cards": ["A card", "B card"]},\n'
        '           {"label": "right", "cards": ["C card"'
    )
    r = parse_answer(raw, PILES)
    assert r.error.startswith("truncated JSON")
    assert r.repaired
    assert [(c.text, c.pile) for c in r.cards] == [
        ("A card", "left"),
        ("B card", "left"),
        ("C card", "right"),
    ]


def test_truncated_piles_with_cards_key_first_are_salvaged() -> None:
    raw = (
        "```json\n"
        '{"piles": [{"cards": ["A card", "B card"], "label": "left"},\n'
        '           {"cards": ["C card"], "label": "right"},\n'
        '           {"cards": ["D ca'
    )
    r = parse_answer(raw, PILES)
    assert r.error.startswith("truncated JSON")
    assert r.repaired
    assert ("A card", "left") in [(c.text, c.pile) for c in r.cards]


def test_card_cut_inside_its_text_is_dropped() -> None:
    raw = '```json\n{"cards": [{"text": "To be free from pain"}, {"text": "To have my fin'
    r = parse_answer(raw, CARDS)
    assert r.repaired
    assert texts(r) == ["To be free from pain"]


def test_log_after_truncated_answer_is_not_salvaged_into_a_card() -> None:
    raw = '```json\n{"cards": [\n  {"text": "To be free from pain", "pile": "left"},\n  {"text": "To have hu' + LOG_TAIL
    r = parse_answer(raw, CARDS)
    assert r.repaired
    assert texts(r)[0] == "To be free from pain"
    assert not any("llama_perf" in t for t in texts(r))


def test_truncated_answer_followed_by_log_keeps_complete_cards() -> None:
    raw = (
        "```json\n"
        '{"cards": [\n'
        '  {"text": "To be free from pain", "pile": "left"},\n'
        '  {"text": "To be kept clean", "pile": "right"},\n'
        '  {"text": "To have human touch", "bbox": {"x_min": 0.5, "y_' + LOG_TAIL
    )
    r = parse_answer(raw, CARDS)
    assert r.repaired and r.error.startswith("truncated JSON")
    assert [(c.text, c.pile) for c in r.cards] == [
        ("To be free from pain", "left"),
        ("To be kept clean", "right"),
    ]


def test_truncated_without_any_complete_card_is_not_repaired() -> None:
    raw = '```json\n{"cards": [{"bbox": {"x_min": 0.1'
    r = parse_answer(raw, CARDS)
    assert r.error.startswith("truncated JSON")
    assert not r.repaired and r.cards == []


# --- grouping ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "card, pile",
    [
        ({"text": "A", "pile": "left"}, "left"),
        ({"text": "A", "row": "top"}, "top"),
        ({"text": "A", "row": 2}, "2"),
        ({"text": "A", "pile": 1, "row": 2}, "1"),
    ],
)
def test_cards_with_pile_or_row_are_grouped(card, pile) -> None:
    r = parse_answer(json.dumps({"cards": [card, {"text": "B"}]}), CARDS)
    assert r.json_valid and r.grouped is True
    assert r.cards[0].pile == pile
    assert r.cards[1].pile is None


def test_cards_without_piles_are_not_grouped() -> None:
    r = parse_answer(json.dumps({"cards": [{"text": "A"}, {"text": "B", "pile": None}]}), CARDS)
    assert r.json_valid and r.grouped is False
    assert all(c.pile is None for c in r.cards)


def test_extra_fields_are_ignored() -> None:
    r = parse_answer(json.dumps({"cards": [{"text": "A", "confidence": 0.4}], "n": 1}), CARDS)
    assert r.json_valid and r.cards == [ModelCard(text="A")]


# --- size, json_objects --------------------------------------------------------------


def test_500_card_answer_parses_quickly() -> None:
    answer = {
        "cards": [
            {
                "text": f"Card number {i}",
                "pile": f"pile {i % 7}",
                "bbox": {"x_min": i, "y_min": i, "x_max": i + 10, "y_max": i + 20},
            }
            for i in range(500)
        ]
    }
    raw = LOG_HEAD + fence(answer) + LOG_TAIL
    t0 = time.perf_counter()
    r = parse_answer(raw, CARDS)
    assert time.perf_counter() - t0 < 2.0
    assert r.json_valid and len(r.cards) == 500
    assert r.cards[499] == ModelCard(
        text="Card number 499", pile="pile 2", bbox=BBox(x_min=499, y_min=499, x_max=509, y_max=519)
    )


def test_500_card_truncated_answer_is_salvaged() -> None:
    answer = {"cards": [{"text": f"Card number {i}"} for i in range(500)]}
    full = json.dumps(answer)
    raw = full[: full.index('{"text": "Card number 499"}') + 12]
    r = parse_answer(raw, CARDS)
    assert r.repaired and r.error.startswith("truncated JSON")
    assert len(r.cards) >= 499
    assert texts(r)[:499] == [f"Card number {i}" for i in range(499)]


def test_json_objects_lists_top_level_objects_only() -> None:
    text = 'x {"a": {"b": 1}} y {bad} {"c": [1, {"d": 2}]} {'
    found = json_objects(text)
    assert [v for _, _, v in found] == [{"a": {"b": 1}}, {"c": [1, {"d": 2}]}]
    for start, end, value in found:
        assert json.loads(text[start:end]) == value


# --- never raises ----------------------------------------------------------------------

SCHEMAS = st.sampled_from([PILES, CARDS, FREE])

JSONISH = st.lists(
    st.sampled_from(
        [
            "{",
            "}",
            "[",
            "]",
            ":",
            ",",
            '"',
            "\n",
            " ",
            "```",
            "```json\n",
            "\\",
            '"cards"',
            '"piles"',
            '"text"',
            '"label"',
            '"pile"',
            '"row"',
            '"bbox"',
            '"x_min"',
            "0.5",
            "1000",
            "-1",
            "null",
            "true",
            "1e999",
            "NaN",
            '"To be free from pain"',
            "abc",
            "\u00e9",
            "\ufffd",
        ]
    ),
    max_size=60,
).map("".join)


def _check_result(r, schema) -> None:
    if schema == FREE:
        assert r.error is None and r.cards == []
        return
    if r.json_valid:
        assert r.error is None
        assert not r.repaired
    elif not r.repaired:
        assert r.error
        assert r.cards == []
    else:
        assert r.error and r.cards
    assert r.parsed == (r.json_valid or r.repaired)
    assert all(isinstance(c, ModelCard) for c in r.cards)


@settings(max_examples=150, deadline=None)
@given(st.text(), SCHEMAS, st.booleans())
def test_random_text_never_raises(raw, schema, salvage) -> None:
    _check_result(parse_answer(raw, schema, salvage=salvage), schema)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=400), SCHEMAS)
def test_random_bytes_never_raise(data, schema) -> None:
    raw = data.decode("utf-8", errors="replace")
    _check_result(parse_answer(raw, schema), schema)


@settings(max_examples=200, deadline=None)
@given(JSONISH, SCHEMAS, st.booleans())
def test_json_like_garbage_never_raises(raw, schema, salvage) -> None:
    _check_result(parse_answer(raw, schema, salvage=salvage), schema)


NOISE = st.text(alphabet=string.ascii_letters + string.digits + " \n.:;-_=()<>|", max_size=80)
CARD_TEXT = st.text(alphabet=string.ascii_letters + " '.,!?-", min_size=1, max_size=30).filter(lambda s: s.strip())


@settings(max_examples=100, deadline=None)
@given(NOISE, NOISE, st.lists(CARD_TEXT, max_size=8), st.booleans())
def test_valid_answer_in_noise_round_trips(before, after, cards, fenced) -> None:
    answer = {"piles": [{"label": "only", "cards": cards}]}
    body = fence(answer) if fenced else json.dumps(answer)
    r = parse_answer(before + "\n" + body + "\n" + after, PILES)
    assert r.json_valid and r.error is None
    assert texts(r) == cards


def test_nan_and_infinite_boxes_are_a_format_error() -> None:
    raw = '{"cards": [{"text": "a", "bbox": {"x_min": NaN, "y_min": 0, "x_max": 1e999, "y_max": 1}}]}'
    r = parse_answer(raw, CARDS)
    assert not r.json_valid and r.error and "cards.0.bbox" in r.error
