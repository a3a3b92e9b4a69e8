"""Reading a streamed HTTP response body with a cap on its decompressed
size, for the chat client (reviewer.clients.chat).

httpx decompresses a whole network chunk at once and stacks decoders for
``Content-Encoding: gzip, gzip``, so 1 MB of gzip can grow to gigabytes
before a caller sees a byte. Here the raw bytes are decompressed with
zlib's ``max_length``: never more than the cap (+1 byte) is produced,
whatever the compression ratio.

* Encodings: identity, gzip (x-gzip) and deflate (zlib or raw), one of
  them; the client sends ``Accept-Encoding: gzip, deflate`` so a server has
  no reason to use another. Anything else is :class:`BodyError`.
* The cap counts decompressed bytes; a body over it is
  :class:`BodyTooLarge` as soon as the first byte past the cap is decoded
  (an endless body stops there).
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

#: Content-Encoding values read (the client's Accept-Encoding).
ACCEPT_ENCODING = "gzip, deflate"


class BodyError(Exception):
    """A body that cannot be decoded (unsupported or corrupt encoding)."""


class BodyTooLarge(BodyError):
    """A body whose decompressed size is over the cap."""


class _Decoder:
    """One Content-Encoding, decompressing at most ``room`` bytes a call."""

    def __init__(self, encoding: str | None):
        codings = [c.strip().lower() for c in (encoding or "").split(",")]
        codings = [c for c in codings if c and c != "identity"]
        self.raw_deflate_tried = False
        if not codings:
            self.z = None
        elif codings in (["gzip"], ["x-gzip"]):
            self.z = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif codings == ["deflate"]:
            self.z = zlib.decompressobj()
        else:
            raise BodyError(f"unsupported Content-Encoding '{encoding[:60] if encoding else ''}'")
        self.deflate = codings == ["deflate"]
        self.started = False

    def decode(self, data: bytes, room: int) -> bytes:
        """Up to ``room`` + 1 decompressed bytes of ``data`` (+1: enough to
        tell that the cap is passed)."""
        if self.z is None:
            return data[: room + 1]
        try:
            out = self.z.decompress(data, room + 1)
        except zlib.error as exc:
            if self.deflate and not self.started and not self.raw_deflate_tried:
                # 'deflate' is often sent raw, without the zlib header (as httpx reads it)
                self.raw_deflate_tried = True
                self.z = zlib.decompressobj(-zlib.MAX_WBITS)
                return self.decode(data, room)
            raise BodyError(f"corrupt compressed body ({exc})") from None
        self.started = True
        return out

    def flush(self, room: int) -> bytes:
        """What the decompressor still holds, up to ``room`` + 1 bytes."""
        if self.z is None:
            return b""
        try:
            return self.z.flush(room + 1)
        except zlib.error as exc:
            raise BodyError(f"corrupt compressed body ({exc})") from None


async def read_capped(chunks: AsyncIterator[bytes], encoding: str | None, cap: int, strict: bool = True) -> bytes:
    """The decompressed body from raw ``chunks`` (``response.aiter_raw()``)
    sent with Content-Encoding ``encoding``, at most ``cap`` bytes. Past
    the cap: BodyTooLarge when ``strict``, else the first ``cap`` bytes
    (an excerpt of an error body). Raises BodyError for an encoding that is
    not read or corrupt data."""
    decoder = _Decoder(encoding)
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        out = decoder.decode(chunk, cap - size)
        size += len(out)
        parts.append(out)
        if size > cap:
            break
    else:
        out = decoder.flush(cap - size)
        size += len(out)
        parts.append(out)
    if size > cap:
        if strict:
            raise BodyTooLarge(f"the answer is larger than {cap:,} bytes (the cap on a response)")
        return b"".join(parts)[:cap]
    return b"".join(parts)
