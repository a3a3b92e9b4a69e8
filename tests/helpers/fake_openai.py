"""An OpenAI-compatible chat-completions server for tests and benchmarks:
a real HTTP server on 127.0.0.1 (``http.server.ThreadingHTTPServer`` in a
thread), deterministic answers, and scripted failures.

    with FakeOpenAI() as fake:            # fake.base_url == 'http://127.0.0.1:<port>/v1'
        fake.script["item|prompt|model|1"] = ["500", "429:1", "ok"]
        ...
        fake.counts  # Counter of requests per X-Reviewer-Request tag

Script actions, consumed one per request of that tag (then 'ok'):
'ok', '500' (or any 4xx/5xx status), '429:<seconds>' (with Retry-After),
'sleep:<seconds>' (answer late: a client timeout), 'malformed' (200 with a
body that is not JSON), 'length' (finish_reason 'length'),
'nochoices' (200 JSON without choices).

Logprobs: with ``logprobs(content) -> [(token, logprob)]`` given, a request
asking ``logprobs: true`` gets ``choices[0].logprobs.content`` (OpenAI's
shape: token, logprob, bytes, top_logprobs of ``top_logprobs`` entries);
with ``unasked_logprobs`` every answer carries them, asked or not (servers
that always send them); with ``refuse_logprobs`` such a request gets HTTP 400, as an endpoint that
does not support them.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote


def default_answer(body: dict, tag: str) -> str:
    """The deterministic answer: names the tag (item|prompt|model|rep)."""
    return f"answer for {tag or body.get('model')}"


class FakeOpenAI:
    """See module doc. ``answer(body, tag) -> str`` makes the content;
    ``delay``: seconds before every answer; ``requests``: every request as
    (tag, body, headers) in arrival order."""

    def __init__(
        self,
        answer: Callable[[dict, str], str] = default_answer,
        delay: float = 0.0,
        log_requests: bool = True,
        logprobs: Callable[[str], list] | None = None,
        refuse_logprobs: bool = False,
        unasked_logprobs: bool = False,
    ):
        self.answer = answer
        self.logprobs = logprobs
        self.refuse_logprobs = refuse_logprobs
        self.unasked_logprobs = unasked_logprobs
        self.delay = delay
        self.log_requests = log_requests
        self.script: dict[str, list[str]] = defaultdict(list)
        self.counts: Counter = Counter()
        self.requests: list[tuple[str, dict, dict]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The API base, ending in /v1."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._server = _Server(("127.0.0.1", 0), self)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def _next_action(self, tag: str, body: dict, headers: dict) -> str:
        """Count and log a request of ``tag``; its next scripted action ('ok' when none is left)."""
        with self._lock:
            self.counts[tag] += 1
            if self.log_requests:
                self.requests.append((tag, body, headers))
            return self.script[tag].pop(0) if self.script.get(tag) else "ok"

    def completion(self, body: dict, content: str, action: str) -> dict:
        """The chat.completion answering ``body`` with ``content``: finish_reason 'length'
        for the action 'length', usage in words, and logprobs when asked (or always sent)."""
        finish = "length" if action == "length" else "stop"
        words = len(str(body.get("messages")).split())
        out = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "model": f"{body.get('model')}-served",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": words,
                "completion_tokens": len(content.split()),
                "total_tokens": words + len(content.split()),
            },
        }
        if (body.get("logprobs") or self.unasked_logprobs) and self.logprobs is not None:
            top = int(body.get("top_logprobs") or 0)
            out["choices"][0]["logprobs"] = {
                "content": [
                    {
                        "token": t,
                        "logprob": lp,
                        "bytes": list(t.encode()),
                        "top_logprobs": [{"token": t, "logprob": lp, "bytes": list(t.encode())}][:top],
                    }
                    for t, lp in self.logprobs(content)
                ]
            }
        return out

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class _Server(ThreadingHTTPServer):
    """The fake's HTTP server; ``fake`` holds the script, counts and answers."""

    request_queue_size = 256  # the default backlog of 5 resets connections under concurrency

    def __init__(self, address: tuple[str, int], fake: FakeOpenAI):
        super().__init__(address, _Handler)
        self.fake = fake


class _Handler(BaseHTTPRequestHandler):
    """Answers POST /v1/chat/completions as the server's fake says (module doc)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.endswith("/v1/chat/completions"):
            return self._send(404, {"error": {"message": "not found"}})
        body = json.loads(raw)
        tag = unquote(self.headers.get("X-Reviewer-Request", ""))
        action = fake._next_action(tag, body, dict(self.headers))
        if fake.delay:
            time.sleep(fake.delay)
        if action.startswith("sleep:"):
            time.sleep(float(action.split(":", 1)[1]))
            action = "ok"
        if self._failed(action, body, fake):
            return
        self._send(200, fake.completion(body, fake.answer(body, tag), action))

    def _failed(self, action: str, body: dict, fake: FakeOpenAI) -> bool:
        """Send the scripted failure of ``action`` (429, a status, 'malformed', 'nochoices'),
        or 400 for logprobs the fake refuses; False when the request is to be answered."""
        if action.startswith("429"):
            wait = action.split(":", 1)[1] if ":" in action else "0"
            self._send(429, {"error": {"message": "slow down"}}, {"Retry-After": wait})
        elif action.isdigit():
            self._send(int(action), {"error": {"message": f"scripted {action}"}})
        elif action == "malformed":
            self._send_raw(200, b"<html>not json</html>", "text/html")
        elif action == "nochoices":
            self._send(200, {"id": "x", "object": "chat.completion"})
        elif body.get("logprobs") and fake.refuse_logprobs:
            self._send(400, {"error": {"message": "logprobs are not supported"}})
        else:
            return False
        return True

    def _send(self, status, payload, headers=None):
        self._send_raw(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_raw(self, status, data, ctype, headers=None):
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass


def serve_forever(port: int = 0, delay: float = 0.0) -> None:  # pragma: no cover - manual use
    """Run a fake on ``port`` until Ctrl+C (prints its base URL)."""
    with FakeOpenAI(delay=delay) as fake:
        print(fake.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
