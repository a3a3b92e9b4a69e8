"""Requests per second through reviewer's chat client against the local
fake server (answers in 50 ms) at concurrency 1, 4 and 16, compared in the
same run with the same requests sent one by one with plain httpx.

Target: concurrency 16 reaches >= 8x the sequential rate. The last line
prints the ratio and its target. ``--quick``: a smoke run of a few seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx

from reviewer.clients.chat import ChatClient, ChatRequest
from tests.helpers.fake_openai import FakeOpenAI

TARGET = 8.0


def requests(n: int) -> list[ChatRequest]:
    return [
        ChatRequest(model="bench", messages=[{"role": "user", "content": f"question {i}"}], tag=str(i))
        for i in range(n)
    ]


def sequential(base: str, reqs: list[ChatRequest]) -> float:
    """Plain httpx, one request after another; requests per second."""
    start = time.perf_counter()
    with httpx.Client(base_url=base, timeout=30) as client:
        for r in reqs:
            client.post("/chat/completions", json=r.body()).raise_for_status()
    return len(reqs) / (time.perf_counter() - start)


def through_client(base: str, reqs: list[ChatRequest], concurrency: int) -> float:
    """reviewer's ChatClient with bounded concurrency; requests per second."""

    async def go():
        async with ChatClient(base, None, concurrency=concurrency, retries=0) as client:
            await asyncio.gather(*(client.chat(r) for r in reqs))

    start = time.perf_counter()
    asyncio.run(go())
    return len(reqs) / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    args = parser.parse_args()
    n = 32 if args.quick else 160
    with FakeOpenAI(delay=0.05, log_requests=False) as fake:
        base = fake.base_url
        seq = sequential(base, requests(n // 4 if args.quick else n // 2))
        print(f"plain httpx, one by one: {seq:.1f} requests/s")
        rates = {}
        for k in (1, 4, 16):
            rates[k] = through_client(base, requests(n), k)
            print(f"ChatClient concurrency {k:>2}: {rates[k]:.1f} requests/s ({rates[k] / seq:.1f}x sequential)")
    ratio = rates[16] / seq
    verdict = "PASS" if ratio >= TARGET else "FAIL"
    print(f"{verdict}: concurrency 16 / sequential = {ratio:.1f}x (target >= {TARGET:g}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
