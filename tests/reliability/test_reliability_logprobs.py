"""--no-logprobs means no logprob is stored (reviewer.clients.chat): a
server that sends logprobs unasked, on the first attempt or on the retry
without logprobs after an HTTP 400, gives no 'logprob' confidence. Tested
against a server on 127.0.0.1 that the test starts."""

from __future__ import annotations

from reviewer.storage.judging.confidences import confidences
from reviewer.storage.project.db import open_project
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.judges import tarot_tokens
from tests.helpers.runs import cli, text_project


def _judge(db, fake, *extra):
    result = cli("judge", db, "--endpoint", fake.base_url, "--model", "j", "--judge", "tarot-rubric", *extra)
    assert result.exit_code == 0, result.output
    return result


def _logprob_confidences(db) -> int:
    p = open_project(db)
    try:
        return sum(len(by_source.get("logprob", {})) for by_source in confidences(p).values())
    finally:
        p.close()


def _server(**kw) -> FakeOpenAI:
    tokens, _ = tarot_tokens(0)
    content = "".join(t for t, _ in tokens)
    return FakeOpenAI(answer=lambda body, tag: content, logprobs=lambda c: tokens, unasked_logprobs=True, **kw)


def test_no_logprobs_stores_none_a_server_sends_unasked(tmp_path):
    db = text_project(tmp_path, n=3)
    with _server() as fake:
        _judge(db, fake, "--no-logprobs")
        assert all("logprobs" not in body for _, body, _ in fake.requests) and len(fake.requests) == 3
    assert _logprob_confidences(db) == 0


def test_the_retry_without_logprobs_stores_none_a_server_sends_anyway(tmp_path):
    db = text_project(tmp_path, n=3)
    with _server(refuse_logprobs=True) as fake:
        _judge(db, fake)
        asked = [bool(body.get("logprobs")) for _, body, _ in fake.requests]
        assert asked.count(True) == 3 and asked.count(False) == 3  # each refused, then asked without
    assert _logprob_confidences(db) == 0


def test_logprobs_asked_for_are_still_stored(tmp_path):
    db = text_project(tmp_path, n=3)
    with _server() as fake:
        _judge(db, fake)
    assert _logprob_confidences(db) == 15  # 5 dimensions x 3 verdicts
