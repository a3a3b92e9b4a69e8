"""A judge reply nested past the interpreter's limit reads as no object, at
once, in every reader of judge replies (one scanner: replies.last_object)."""

import time

from reviewer.core.judging import llm_judges, replies

BOMB = '{"a":' * 100_000


def test_a_nesting_bomb_is_no_object_and_costs_one_pass():
    start = time.perf_counter()
    assert llm_judges.last_json_object(BOMB) is None  # it raised RecursionError before
    assert llm_judges.last_json_object(BOMB + "}" * 10) is None  # the first-to-last-brace fallback too
    assert replies.last_object(BOMB) is None
    assert replies.reply_fields(BOMB) == {}
    assert time.perf_counter() - start < 2.0  # one pass: not a parse attempt at each of 100,000 braces


def test_an_object_before_the_bomb_is_still_read():
    assert llm_judges.last_json_object('{"score": 4} ' + BOMB) == {"score": 4}
    assert replies.last_object('x {"a": {"b": 1}} y') == {"a": {"b": 1}}
