"""A judge reply nested past the interpreter's limit: one scanner of judge
replies (replies.last_object) meets it at once; a live judge's such reply is
a failed attempt (tests/reliability/test_reliability_endpoints.py), and the
reader of imported replies reads it as nothing."""

import time

import pytest

from reviewer.core.judging import llm_judges, replies

BOMB = '{"a":' * 100_000


def test_a_nesting_bomb_is_met_at_once_by_the_one_scanner():
    start = time.perf_counter()
    with pytest.raises(RecursionError):  # the pipeline turns it into a failed attempt with the reason
        llm_judges.last_json_object(BOMB)
    with pytest.raises(RecursionError):
        replies.last_object(BOMB)
    assert replies.reply_fields(BOMB) == {}  # an imported reply: nothing read
    assert time.perf_counter() - start < 2.0  # one pass: not a parse attempt at each of 100,000 braces


def test_objects_are_still_read():
    assert llm_judges.last_json_object('x {"score": 4} y') == {"score": 4}
    assert replies.last_object('x {"a": {"b": 1}} y') == {"a": {"b": 1}}
