"""One HTTP GET over any byte stream pair: a TCP socket, or a direct TCP channel of an SSH
connection (the server's /metrics usually listens on the host's loopback only).

Deliberately small, so no HTTP client library is added for one request shape: HTTP/1.1
with `Connection: close`, the body read to EOF (chunked transfer decoded), size-capped.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

MAX_BODY_BYTES = 32 * 1024 * 1024  # a /metrics page of 2,000 series is ~300 kB
EXPOSITION = "text/plain;version=0.0.4;q=1,*/*;q=0.1"


class HttpGetError(Exception):
    """The GET failed; the message is one sentence for the pane."""


@dataclass(frozen=True, slots=True)
class UrlParts:
    scheme: str
    host: str
    port: int
    target: str  # path and query, as sent on the request line

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def split_url(url: str) -> UrlParts:
    """`http://host:port/path?q` -> parts; refuses what this client cannot fetch."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise HttpGetError(f"{url!r} is not a usable URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HttpGetError(f"{url!r} is not an http:// URL")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return UrlParts(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80), target)


class ByteReader(Protocol):
    """asyncio's StreamReader, or asyncssh's SSHReader of a forwarded connection."""

    async def read(self, n: int = -1) -> bytes: ...


class ByteWriter(Protocol):
    """asyncio's StreamWriter, or asyncssh's SSHWriter."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...


@dataclass(frozen=True, slots=True)
class HttpAnswer:
    status: int
    reason: str
    body: bytes


async def get(reader: ByteReader, writer: ByteWriter, url: UrlParts, *, max_bytes: int = MAX_BODY_BYTES,
              headers: Mapping[str, str] | None = None) -> bytes:
    """Send the request on `writer`, read the whole answer from `reader`; the body of a 200."""
    answer = await request(reader, writer, url, max_bytes=max_bytes, headers=headers)
    if answer.status != 200:
        raise HttpGetError(f"HTTP {answer.status} {answer.reason}".rstrip())
    return answer.body


async def request(reader: ByteReader, writer: ByteWriter, url: UrlParts, *, max_bytes: int = MAX_BODY_BYTES,
                  headers: Mapping[str, str] | None = None,
                  accept: str = EXPOSITION) -> HttpAnswer:
    """Like `get`, but any status comes back with its body (Prometheus says why in a 400's JSON)."""
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    head = (f"GET {url.target} HTTP/1.1\r\nHost: {url.authority}\r\n"
            f"Accept: {accept}\r\nAccept-Encoding: identity\r\n"
            f"User-Agent: cockpit\r\n{extra}Connection: close\r\n\r\n")
    writer.write(head.encode("latin-1"))
    await writer.drain()
    chunks: list[bytes] = []
    size = 0
    while True:
        data = await reader.read(65536)
        if not data:
            break
        size += len(data)
        if size > max_bytes:
            raise HttpGetError(f"the answer is over {max_bytes // (1024 * 1024)} MiB: not a metrics page")
        chunks.append(data)
    return _answer(b"".join(chunks))


def _answer(raw: bytes) -> HttpAnswer:
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        raise HttpGetError("the server closed the connection without a complete HTTP answer"
                           if raw else "the server closed the connection without answering")
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ", 2)
    if len(status) < 2 or not status[0].startswith("HTTP/") or not status[1].isdigit():
        raise HttpGetError(f"not an HTTP answer: {lines[0][:80]!r}")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _dechunk(body)
    elif "content-length" in headers and headers["content-length"].isdigit():
        body = body[: int(headers["content-length"])]
    if headers.get("content-encoding", "").lower() == "gzip":
        body = gzip.decompress(body)
    return HttpAnswer(int(status[1]), status[2] if len(status) > 2 else "", body)


def _dechunk(body: bytes) -> bytes:
    out = bytearray()
    pos = 0
    while True:
        end = body.find(b"\r\n", pos)
        if end < 0:
            raise HttpGetError("the chunked answer was cut short")
        try:
            n = int(body[pos:end].split(b";")[0], 16)
        except ValueError:
            raise HttpGetError("a malformed chunked answer") from None
        if n == 0:
            return bytes(out)
        out += body[end + 2: end + 2 + n]
        pos = end + 2 + n + 2


async def get_direct(url: UrlParts, *, timeout_s: float, max_bytes: int = MAX_BODY_BYTES) -> bytes:
    """GET over a TCP connection from this machine (https verified against the system CAs)."""
    answer = await request_direct(url, timeout_s=timeout_s, max_bytes=max_bytes)
    if answer.status != 200:
        raise HttpGetError(f"HTTP {answer.status} {answer.reason}".rstrip())
    return answer.body


async def request_direct(url: UrlParts, *, timeout_s: float, max_bytes: int = MAX_BODY_BYTES,
                         headers: Mapping[str, str] | None = None, accept: str = EXPOSITION) -> HttpAnswer:
    """One GET from this machine, any status with its body; raises on no answer."""
    writer = None
    try:
        async with asyncio.timeout(timeout_s):
            reader, writer = await asyncio.open_connection(url.host, url.port, ssl=url.scheme == "https" or None)
            return await request(reader, writer, url, max_bytes=max_bytes, headers=headers, accept=accept)
    finally:
        if writer is not None:
            writer.close()
