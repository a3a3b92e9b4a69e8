"""A chat-completions endpoint on 127.0.0.1 that misbehaves on purpose, for
the bounds tests (tests/reliability/test_reliability_endpoints.py): a real HTTP server
(``ThreadingHTTPServer`` in a thread) whose every reply is chosen by
``respond(tag, body)``, which returns one of the actions below.

    with HostileOpenAI(lambda tag, body: drip()) as server:
        server.base_url   # 'http://127.0.0.1:<port>/v1'
        server.counts     # Counter of requests per X-Reviewer-Request tag

Actions: ``drip`` (200 and a Content-Length, then one byte every
``interval`` s), ``endless`` (a chunked body that never ends, slowly or as
fast as the socket takes it), ``gzip_bomb`` (about 1 MB of gzip that
inflates to 1 GiB), ``reply`` (a chat-completions body with any content and
usage, after an optional delay) and ``raw`` (any bytes). Every endless
action stops when the client goes away or the server is shut down.
"""

from __future__ import annotations

import contextlib
import json
import struct
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

Action = Callable[[BaseHTTPRequestHandler, threading.Event], None]


def drip(interval: float = 0.1, length: int = 1_000_000) -> Action:
    """200 with ``Content-Length: length``, then one byte every ``interval``
    seconds (a per-read timeout never fires)."""

    def act(h, stop):
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(length))
        h.end_headers()
        h.wfile.write(b"{")
        h.wfile.flush()
        for _ in range(length - 1):
            if stop.wait(interval):
                return
            h.wfile.write(b" ")
            h.wfile.flush()

    return act


def endless(interval: float = 0.05, chunk: int = 1) -> Action:
    """200 with a chunked body of ``chunk``-byte chunks, one every
    ``interval`` seconds (0: as fast as the client reads), never ending."""

    def act(h, stop):
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        piece = f"{chunk:x}\r\n".encode() + b" " * chunk + b"\r\n"
        h.wfile.write(b"1\r\n{\r\n")
        while not stop.is_set():
            h.wfile.write(piece)
            h.wfile.flush()
            if interval and stop.wait(interval):
                return

    return act


@lru_cache(maxsize=1)
def gzip_bomb_bytes(mib: int = 1024) -> bytes:
    """A valid gzip member of ``mib`` MiB of zeros (1 GiB: about 1 MB).
    Built from one repeated deflate segment (after a sync flush the
    compressor's state is the same for every MiB of zeros), in well under
    a second."""
    c = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    zeros = b"\0" * (1 << 20)
    first = c.compress(zeros) + c.flush(zlib.Z_SYNC_FLUSH)
    again = c.compress(zeros) + c.flush(zlib.Z_SYNC_FLUSH)
    assert again == c.compress(zeros) + c.flush(zlib.Z_SYNC_FLUSH)
    deflate = first + again * (mib - 1) + c.flush()
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(zeros, crc)
    return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + deflate + struct.pack("<II", crc, (mib << 20) & 0xFFFFFFFF)


def gzip_bomb(encoding: str = "gzip") -> Action:
    """200 with ``Content-Encoding: encoding`` and :func:`gzip_bomb_bytes`
    (for 'gzip, gzip' the bomb is gzipped once more)."""
    data = gzip_bomb_bytes()
    if encoding.count("gzip") == 2:
        c = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
        data = c.compress(data) + c.flush()
    return raw(data, headers={"Content-Encoding": encoding})


def raw(data: bytes, status: int = 200, headers: dict | None = None, delay: float = 0.0) -> Action:
    """``data`` as the body, after ``delay`` seconds."""

    def act(h, stop):
        if delay and stop.wait(delay):
            return
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    return act


def reply(content: Any = "an answer", usage: dict | None = None, delay: float = 0.0) -> Action:
    """A chat-completions body whose message content is ``content`` (any
    JSON value) and whose usage is ``usage`` (default: small counts)."""
    body = {
        "id": "x",
        "object": "chat.completion",
        "model": "hostile",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": usage if usage is not None else {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }
    return raw(json.dumps(body).encode(), delay=delay)


class HostileOpenAI:
    """See module doc."""

    def __init__(self, respond: Callable[[str, dict], Action]):
        self.respond = respond
        self.counts: Counter = Counter()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        """The API base, ending in /v1."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> HostileOpenAI:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                tag = unquote(self.headers.get("X-Reviewer-Request", ""))
                with server.lock:
                    server.counts[tag] += 1
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client went away
                    server.respond(tag, body)(self, server.stop)
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


def serve(respond: Callable[[str, dict], Action]) -> None:  # pragma: no cover - manual use
    """Run a hostile server until Ctrl+C (prints its base URL)."""
    with HostileOpenAI(respond) as server:
        print(server.base_url, flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
