"""`cockpit tail TARGET`: follow a log like a resumable `tail -F`, headless.

TARGET is a local path, `[user@]host:path` (or `ssh://[user@]host[:port]/path`), or a host
with `--cmd "docker logs -f NAME"`. Log lines go to stdout, made harmless for the terminal
(or, with --json, one JSON object per line); connection state and file events go to stderr,
so `cockpit tail gpu1:/var/log/sglang.log | grep ...` sees only the log.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import asdict, is_dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

from cockpit.cli.watch.target_args import add_target_args, source_of
from cockpit.ground.sanitize import UNSAFE_MULTILINE, json_inert, sanitize

if TYPE_CHECKING:
    from cockpit.sources.log.tail import ResumableTail
    from cockpit.sources.log.tail_events import TailEvent

# Anything a terminal could act on (C0 but TAB and LF, DEL, C1, bidi and zero-width
# characters: `UNSAFE_MULTILINE`). Checked per chunk first: the common chunk has none and is written
# as it came, which keeps a 200 MB catch-up fast; a chunk that has some is sanitized line
# by line.
_SAFE_ASCII = bytes([0x09, 0x0A, *range(0x20, 0x7F)])  # deleted: if nothing is left, all is safe


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "tail",
        help="follow a local or remote log like a resumable tail -F",
        description="Follow a log like `tail -F`, locally or over SSH, resuming after a dropped "
        "link with no line lost or repeated. Log lines go to stdout, state to stderr.",
    )
    add_target_args(p, lines=10, lines_help="start with the last N lines (default 10)",
                    cmd_example="docker logs -f --tail 0 sglang")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per line: parsed SGLang events (or {\"line\": ...})")
    # for benchmarks and scripts: stop once this many log bytes were written
    p.add_argument("--stop-after-bytes", type=int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_tail(args))
    except KeyboardInterrupt:  # ctrl-c: the tail's task was cancelled and its channel closed
        return 0
    except BrokenPipeError:  # `cockpit tail ... | head`: the reader has gone, which is fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


async def _tail(args: argparse.Namespace) -> int:
    from cockpit.sources.log.tail import ResumableTail
    from cockpit.sources.log.tail_sources import LocalFile

    try:
        source = source_of(args)
    except ValueError as exc:
        print(sanitize(f"cockpit tail: {exc}"), file=sys.stderr)
        return 2
    if args.cmd is None and args.lines < 0:
        print("cockpit tail: -n must be 0 or more", file=sys.stderr)
        return 2
    out = sys.stdout.buffer
    writer = _JsonWriter(out) if args.json else _TextWriter(out)
    limit = args.stop_after_bytes
    kw = dict(lines=args.lines, from_start=args.from_start)
    if isinstance(source, LocalFile):
        tail = ResumableTail(source, **kw)
        return await _pump(tail, writer, out, limit)
    from cockpit.sources.transport.ssh_pool import SshError, SshPool

    async with SshPool(_say) as pool:
        tail = ResumableTail(source, pool=pool, **kw)
        try:
            return await _pump(tail, writer, out, limit)
        except SshError as exc:  # host key not trusted, keys refused: a person must act
            print(sanitize(f"cockpit tail: {exc}"), file=sys.stderr)
            return 2


async def _pump(tail: ResumableTail, writer: _TextWriter | _JsonWriter, out: BinaryIO, limit: int | None) -> int:
    from cockpit.sources.log.tail_events import HostConnected, HostConnecting, HostDisconnected, LogBytes

    written = 0
    try:
        async for ev in tail:
            if isinstance(ev, LogBytes):
                data = ev.data
                if limit is not None and written + len(data) >= limit:
                    writer.write(data[: limit - written])
                    out.flush()
                    return 0
                written += len(data)
                writer.write(data)
                out.flush()
            elif not isinstance(ev, (HostConnecting, HostConnected, HostDisconnected)):
                _say(ev)  # host events come from the pool's listener (same words, once per host)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            raise
        from cockpit.cli.os_errors import os_error_line
        from cockpit.sources.log.tail_sources import LocalFile

        local = tail.source.path if isinstance(tail.source, LocalFile) else None
        print(f"cockpit tail: {sanitize(os_error_line(exc, exc.filename or local))}", file=sys.stderr)
        return 1
    finally:
        writer.end()
    return 0


def _say(ev: TailEvent) -> None:
    """One line of state on stderr, in the words the TUI and MCP use for the same event
    (sources/log/log_batch.describe_event), the file named where it rotated or shrank."""
    from cockpit.sources.log import tail_events as te
    from cockpit.sources.log.batch import describe_event

    if isinstance(ev, te.HostDisconnected) and (ev.reason == "closed" or ev.retry_in_s is None):
        return  # our exit, or a refusal that ends the tail with its own line
    text = describe_event(ev)
    if isinstance(ev, (te.TailRotated, te.TailTruncated)):
        text = f"{sanitize(ev.path)}: {text}"
    elif isinstance(ev, te.HostConnecting):
        text += " ..."
    print(f"cockpit tail: {text}", file=sys.stderr, flush=True)


def safe_text(data: bytes) -> bytes:
    """The lines of `data`, with anything a terminal would act on made visible."""
    if data.isascii() and not data.translate(None, _SAFE_ASCII):  # the fast path (C loops only)
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
    else:
        if UNSAFE_MULTILINE.search(text) is None:
            return data
    lines = text.split("\n")
    return "\n".join(sanitize(line[:-1] if line.endswith("\r") else line) for line in lines).encode()


class _TextWriter:
    """Log bytes as they came, made harmless for the terminal."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out

    def write(self, data: bytes) -> None:
        self.out.write(safe_text(data))

    def end(self) -> None:
        """Nothing is held back."""


class _JsonWriter:
    """JSON lines: the SGLang parser's events (a line it does not know is a PlainLine)."""

    def __init__(self, out: BinaryIO) -> None:
        from cockpit.parse.log.sglang_log import LogParser

        self.out = out
        self.parser = LogParser()

    def write(self, data: bytes) -> None:
        self._emit(self.parser.feed(data))

    def end(self) -> None:
        """The last line when the log did not end with a newline."""
        self._emit(self.parser.end())
        self.out.flush()

    def _emit(self, events: Iterable[object]) -> None:
        for e in events:
            self.out.write(json_inert(json.dumps(event_json(e), ensure_ascii=False)).encode() + b"\n")


def event_json(event: Any) -> dict[str, Any]:
    """A parsed log event as JSON: {"type": ClassName, field: value...}, None fields left out."""
    if hasattr(event, "to_json"):
        return event.to_json()
    body: dict[str, Any] = (asdict(event) if is_dataclass(event) and not isinstance(event, type)
                            else {"value": str(event)})
    ranks = body.get("ranks")
    if isinstance(ranks, dict):
        body["ranks"] = {k: v for k, v in ranks.items() if v is not None}
        if not body["ranks"]:
            del body["ranks"]
    return {"type": type(event).__name__, **{k: v for k, v in body.items() if v is not None}}
