"""An async client for the OpenAI chat-completions API (``POST
{base}/chat/completions``), as vLLM, Ollama, llama.cpp server, LiteLLM and
OpenAI serve it (docs/runner.md).

* The base URL ends in ``/v1``; user:password in it is refused for storage
  (:func:`public_url` gives the form that may be stored or printed).
* The key comes from the environment (OPENAI_API_KEY by default) and is
  only ever put in the ``Authorization`` header: it is redacted from every
  error message this module makes, even when a server echoes it.
* Bounded concurrency: at most ``concurrency`` requests in flight (an
  ``asyncio.Semaphore``; httpx's pool is sized to match).
* Retries (tenacity): connection errors, timeouts, 429 and 5xx are retried
  up to ``retries`` times with exponential backoff and full jitter
  (``backoff`` seconds doubling, capped at ``max_backoff``); a
  ``Retry-After`` header (seconds or an HTTP date, capped at
  ``max_retry_after``) is honoured instead. Other 4xx and malformed bodies
  fail at once.
* Bounds: ``timeout`` is the deadline of one whole attempt (connect,
  send, wait and read the whole answer), so a server that drips a byte at
  a time or never ends its body is cut off there (a timeout, retried); the
  answer is read up to ``max_bytes`` decompressed bytes
  (:mod:`reviewer.clients.bounded_body`; 10 MB by default), a larger one
  fails at once.
* A reply that cannot be an answer fails at once with the reason
  (:class:`UnusableReply`): content that is not text (a number, a list of
  numbers), token counts that are not counts (1e308, negative, NaN).

Answers are untrusted text: nothing here interprets them.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from reviewer.clients.bounded_body import ACCEPT_ENCODING, BodyError, read_capped
from reviewer.core.bounds import is_number

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: Longest excerpt of an error body kept in a message (characters).
_BODY_EXCERPT = 200
#: The largest answer read (decompressed bytes): 10 MB.
DEFAULT_MAX_RESPONSE_BYTES = 10_000_000
#: How much of an error response (4xx, 5xx) is read for its excerpt (bytes).
_ERROR_BODY_BYTES = 65_536
#: The largest token count believed (usage.*_tokens); more is an unusable reply.
MAX_TOKEN_COUNT = 10**12


class ChatError(Exception):
    """A request that failed for good (after retries). ``status``: the HTTP
    status of the last attempt, or None (connection, timeout, malformed
    body); ``attempts``: how many requests were sent. The message never
    holds the key."""

    def __init__(
        self, message: str, *, status: int | None = None, attempts: int = 1, retry_errors: list[str] | None = None
    ):
        super().__init__(message)
        self.status = status
        self.attempts = attempts
        self.retry_errors = list(retry_errors or [])  # the errors of the attempts before the last


class _Retryable(Exception):
    """An attempt worth repeating: 429, 5xx, a connection error, a timeout."""

    def __init__(self, message: str, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class EndpointError(ValueError):
    """An endpoint URL that cannot be used (message for the user)."""


class UnusableReply(ValueError):
    """A 200 reply that cannot be an answer (content not text, token counts
    that are not counts); the message says why, in one line."""


def public_url(url: str) -> str:
    """``url`` without user:password, query or fragment, and without a
    trailing '/': the form that may be stored, printed or logged. A URL
    that cannot be split (a port that is not a number from 1 to 65535, an
    unclosed '[') gives '' (never raises)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return ""
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    netloc = host + (f":{port}" if port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def _url_problem(url: str) -> str | None:
    """Why ``url`` cannot be split into scheme, host and port (a port that
    is not a number from 1 to 65535, an unclosed IPv6 '['), or None."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        text = " ".join(str(exc).split())
        return "the port must be a number from 1 to 65535" if "port" in text.lower() else text or "not a URL"
    return "the port must be a number from 1 to 65535" if port == 0 else None


def check_endpoint(url: str) -> str:
    """The base URL to use for ``url``: http(s), a host, a port from 1 to
    65535 if any, a path ending in ``/v1`` (as http://localhost:11434/v1).
    Raises EndpointError (one line) otherwise. Credentials in the URL are
    refused: put the key in the environment."""
    problem = _url_problem(url)
    if problem is not None:
        shown = re.sub(r"//[^/?#]*@", "//", " ".join(url.split()))[:100]  # never user:password
        raise EndpointError(f"the endpoint '{shown}' is not a usable URL: {problem}")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError(
            f"the endpoint must be an http(s) URL such as http://localhost:11434/v1, got '{public_url(url) or '?'}'"
        )
    if parts.username or parts.password:
        raise EndpointError(
            "the endpoint URL must not hold user:password; give the key in an environment variable (--api-key-env)"
        )
    base = public_url(url)
    if not base.endswith("/v1"):
        raise EndpointError(f"the endpoint must be the API base ending in /v1 (e.g. {base}/v1), got '{base}'")
    try:
        httpx.URL(base)
    except (httpx.InvalidURL, ValueError) as exc:
        raise EndpointError(f"the endpoint '{base[:100]}' is not a usable URL: {' '.join(str(exc).split())}") from None
    return base


def api_key(env_name: str = DEFAULT_KEY_ENV) -> str | None:
    """The key in environment variable ``env_name``, or None when unset or
    empty (local servers need none)."""
    return os.environ.get(env_name) or None


@dataclass(frozen=True)
class ChatRequest:
    """One chat-completions request. ``messages``: OpenAI messages (content
    a string or a list of text / image_url parts); ``tag``: sent as the
    X-Reviewer-Request header so a server log can tell requests apart."""

    model: str
    messages: list[dict]
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    tag: str = ""
    top_logprobs: int | None = None  # ask for logprobs (and this many alternatives a token); None: not

    def params(self) -> dict:
        """The sampling parameters sent (None ones left out): temperature,
        max_tokens, seed."""
        out = {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed}
        return {k: v for k, v in out.items() if v is not None}

    def body(self) -> dict:
        """The JSON body of the request (with ``logprobs: true,
        top_logprobs: N`` when ``top_logprobs`` is set)."""
        body = {"model": self.model, "messages": self.messages, **self.params()}
        if self.top_logprobs is not None:
            body.update(logprobs=True, top_logprobs=self.top_logprobs)
        return body


@dataclass
class ChatAnswer:
    """What came back: ``content`` (raw text, untrusted), ``finish_reason``
    ('stop', 'length' = cut off at max_tokens, ...), token usage (None when
    the server does not say), ``latency_ms`` of the successful attempt,
    ``server_model`` (the model name the server reports), the request
    ``params`` and ``attempts`` (1 = no retry); ``retry_errors``: the
    errors of the attempts that were retried, oldest first; ``total_ms``:
    the whole call with its retries and waits; ``tokens``: the reply's
    token stream with logprobs, [(token, logprob)], when the request asked
    for logprobs and the endpoint returned them (else empty: logprobs a
    server sends unasked are dropped)."""

    content: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    latency_ms: float | None = 0.0  # None: not measured (an answer read from a batch's output)
    server_model: str | None = None
    params: dict = field(default_factory=dict)
    attempts: int = 1
    retry_errors: list = field(default_factory=list)
    total_ms: float | None = None
    tokens: list = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        """The answer was cut off (finish_reason 'length')."""
        return self.finish_reason == "length"


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: a number of seconds or an
    HTTP date (RFC 9110 §10.2.3); None when absent or unreadable; never
    negative."""
    if not value:
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", dict: "an object", list: "a list"}.get(
        type(value), type(value).__name__
    )


def _content(content: Any) -> str:
    """The text of a message's content: a string, content parts
    ({"type": "text", "text": ...}; parts without text, as images, add
    nothing) or null (a refusal or tool call: ''). Raises UnusableReply
    for anything else (a number must never become an empty answer)."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        texts = []
        for part in content:
            text = part.get("text") if isinstance(part, dict) else part
            if isinstance(part, dict) and text is None:
                continue
            if not isinstance(text, str):
                raise UnusableReply(f"a content part is {_kind(text)}, not text")
            texts.append(text)
        return "".join(texts)
    raise UnusableReply(f"the message content is {_kind(content)}, not text")


def parse_completion(data: Any) -> ChatAnswer:
    """A ChatAnswer from a chat-completions JSON body (``choices[0].message.
    content``, ``finish_reason``, ``usage``, ``model``). Raises ValueError
    when the body has no choice with a message; UnusableReply (a
    ValueError) when the content is not text (content null, a refusal or
    tool call, is read as '') or a token count in ``usage`` is a number
    that cannot be one (not finite, negative, over MAX_TOKEN_COUNT);
    counts of another type are read as unknown."""
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list) or not data["choices"]:
        raise ValueError("no choices in the response")
    choice = data["choices"][0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise ValueError("no message in the first choice")
    content = _content(message.get("content"))
    usage = data.get("usage")
    if not isinstance(usage, dict):
        usage = {}

    def count(key: str) -> int | None:
        v = usage.get(key)
        if not is_number(v):
            return None
        if not (isinstance(v, int) or math.isfinite(v)) or not 0 <= v <= MAX_TOKEN_COUNT:
            raise UnusableReply(f"usage.{key} is {str(v)[:40]}, not a token count (0 to {MAX_TOKEN_COUNT:.0e})")
        return int(v)

    total = count("total_tokens")
    prompt, completion = count("prompt_tokens"), count("completion_tokens")
    if total is None and prompt is not None and completion is not None:
        total = prompt + completion
    return ChatAnswer(
        content=content,
        tokens=token_logprobs(choice),
        finish_reason=choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None,
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        server_model=data.get("model") if isinstance(data.get("model"), str) else None,
    )


def read_answer(body: Any, redact: Callable[[str], str] = str, excerpt: Callable[[], str] | None = None) -> ChatAnswer:
    """The answer of a 200 reply's ``body`` (bytes of JSON, or the JSON value
    already read, as a batch output line holds it): parse_completion, with
    its failures as ChatError (status 200) saying 'unusable reply: ...' or
    'malformed response body: ...'. ``redact`` cleans a message (the key);
    ``excerpt()`` shows the body. The live client and the import of a
    batch's output read answers through here."""
    try:
        return parse_completion(json.loads(body) if isinstance(body, (bytes, str)) else body)
    except UnusableReply as exc:
        raise ChatError(f"unusable reply: {redact(str(exc))[:_BODY_EXCERPT]}", status=200) from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        reason = "nested too deeply" if isinstance(exc, RecursionError) else redact(str(exc))
        shown = f" (body: {excerpt()})" if excerpt is not None else ""
        raise ChatError(f"malformed response body: {reason[:_BODY_EXCERPT]}{shown}", status=200) from None


def token_logprobs(choice: Any) -> list[tuple[str, float]]:
    """The token stream of a choice, ``choice.logprobs.content`` as
    [(token, logprob)] (OpenAI chat-completions logprobs). Untrusted: the
    whole stream is dropped ([]) when it is missing, longer than
    MAX_TOKEN_COUNT, or any entry lacks a text token or a finite logprob <= 0
    (a gap would shift every position after it)."""
    logprobs = choice.get("logprobs") if isinstance(choice, dict) else None
    entries = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(entries, list) or len(entries) > MAX_TOKEN_COUNT:
        return []
    out = []
    for e in entries:
        token = e.get("token") if isinstance(e, dict) else None
        lp = e.get("logprob") if isinstance(e, dict) else None
        if (
            not isinstance(token, str)
            or not isinstance(lp, (int, float))
            or isinstance(lp, bool)
            or not math.isfinite(lp)
            or lp > 0
        ):
            return []
        out.append((token, float(lp)))
    return out


class _Wait:
    """tenacity wait: Retry-After when the server gave one, else exponential
    backoff with full jitter."""

    def __init__(self, backoff: float, max_backoff: float, max_retry_after: float):
        self.backoff, self.max_backoff, self.max_retry_after = backoff, max_backoff, max_retry_after

    def __call__(self, state) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, _Retryable) and exc.retry_after is not None:
            return min(exc.retry_after, self.max_retry_after)
        ceiling = min(self.max_backoff, self.backoff * 2 ** (state.attempt_number - 1))
        return random.uniform(0, ceiling)


class ChatClient:
    """Chat-completions client for one endpoint (use ``async with``).

    Args:
        base_url: the API base ending in /v1 (checked by check_endpoint).
        key: the API key, or None (no Authorization header).
        concurrency: requests in flight at most (>= 1).
        retries: extra attempts after the first (>= 0).
        timeout: seconds one attempt may take in all, from connecting to
            the last byte of the answer (a deadline, not a per-read limit).
        backoff, max_backoff: first backoff ceiling and its cap (seconds).
        max_retry_after: the longest Retry-After honoured (seconds).
        max_bytes: the largest answer read, in decompressed bytes.
    """

    def __init__(
        self,
        base_url: str,
        key: str | None = None,
        *,
        concurrency: int = 4,
        retries: int = 3,
        timeout: float = 120.0,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        max_retry_after: float = 120.0,
        max_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ):
        self.base_url = check_endpoint(base_url)
        self._key = key
        self.concurrency = max(1, int(concurrency))
        self.retries = max(0, int(retries))
        self.timeout = timeout
        self.max_bytes = max(1, int(max_bytes))
        self._wait = _Wait(backoff, max_backoff, max_retry_after)
        self._semaphore = asyncio.Semaphore(self.concurrency)
        self._http: httpx.AsyncClient | None = None

    async def __aenter__(self) -> ChatClient:
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}
        headers["Accept-Encoding"] = ACCEPT_ENCODING  # what bounded_body decodes within the cap
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=self.timeout, limits=limits)
        return self

    async def __aexit__(self, *exc) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def _redact(self, text: str) -> str:
        text = "".join(ch if ch.isprintable() else " " for ch in text)
        if self._key:
            text = text.replace(self._key, "***")
        return text

    async def _attempt(self, request: ChatRequest) -> ChatAnswer:
        assert self._http is not None, "use 'async with ChatClient(...)'"
        headers = {"X-Reviewer-Request": quote(request.tag, safe="|/:@")} if request.tag else {}
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.timeout):  # the deadline of the whole attempt
                status, retry_after, body = await self._exchange(request, headers)
        except TimeoutError:
            raise _Retryable(f"no complete answer within {self.timeout:g} s (the timeout of a whole attempt)") from None
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timed out after {self.timeout:g} s ({type(exc).__name__})") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"cannot reach the endpoint: {self._redact(str(exc)) or type(exc).__name__}") from None
        except BodyError as exc:
            raise ChatError(f"{exc}", status=None) from None
        latency = (time.perf_counter() - started) * 1000
        if status == 429 or status >= 500:
            raise _Retryable(f"HTTP {status}: {self._excerpt(body)}", status, retry_after_seconds(retry_after))
        if status != 200:
            raise ChatError(f"HTTP {status}: {self._excerpt(body)}", status=status)
        answer = read_answer(body, self._redact, lambda: self._excerpt(body))
        if request.top_logprobs is None:  # not asked for (--no-logprobs, or the retry without them): none kept
            answer.tokens = []
        answer.latency_ms = latency
        answer.params = request.params()
        return answer

    async def _exchange(self, request: ChatRequest, headers: dict) -> tuple[int, str | None, bytes]:
        """Send ``request`` and read the answer within the byte cap: (status,
        Retry-After header, decompressed body; only the first 64 KB of an
        error body)."""
        assert self._http is not None
        async with self._http.stream("POST", "/chat/completions", json=request.body(), headers=headers) as response:
            ok = response.status_code == 200
            body = await read_capped(
                response.aiter_raw(),
                response.headers.get("content-encoding"),
                self.max_bytes if ok else _ERROR_BODY_BYTES,
                strict=ok,
            )
            return response.status_code, response.headers.get("retry-after"), body

    def _excerpt(self, body: bytes) -> str:
        text = self._redact(" ".join(body.decode("utf-8", errors="replace").split()))
        return (text[:_BODY_EXCERPT] + "...") if len(text) > _BODY_EXCERPT else (text or "(empty body)")

    async def chat(self, request: ChatRequest) -> ChatAnswer:
        """Send ``request`` (waiting for a free slot) with retries; the answer
        or ChatError once the retries are spent or the failure is not
        retryable. A request asking for logprobs that the endpoint refuses
        (HTTP 400 or 422) is sent once more without them: logprobs are
        asked for where the endpoint supports them."""
        try:
            return await self._chat(request)
        except ChatError as exc:
            if request.top_logprobs is None or exc.status not in (400, 422):
                raise
        return await self._chat(replace(request, top_logprobs=None))

    async def _chat(self, request: ChatRequest) -> ChatAnswer:
        async with self._semaphore:
            attempts = 0
            errors: list[str] = []
            started = time.perf_counter()
            try:
                async for attempt in AsyncRetrying(
                    stop=stop_after_attempt(self.retries + 1),
                    retry=retry_if_exception(lambda e: isinstance(e, _Retryable)),
                    wait=self._wait,
                    reraise=True,
                ):
                    with attempt:
                        attempts += 1
                        try:
                            answer = await self._attempt(request)
                        except _Retryable as exc:
                            errors.append(str(exc))
                            raise
            except _Retryable as exc:
                raise ChatError(
                    f"{exc} (after {attempts} attempts)", status=exc.status, attempts=attempts, retry_errors=errors[:-1]
                ) from None
            except ChatError as exc:
                exc.attempts = attempts
                exc.retry_errors = errors
                raise
            answer.attempts = attempts
            answer.retry_errors = errors
            answer.total_ms = (time.perf_counter() - started) * 1000
            return answer
