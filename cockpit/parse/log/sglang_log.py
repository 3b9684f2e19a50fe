"""SGLang server log lines -> typed events (see shared/docs/sglang-log-format.md).

`parse_line` types one physical line; `LogParser` is the incremental form the live pane
uses: it takes bytes or text as they arrive, keeps an unfinished last line until its
newline, gathers tracebacks into ErrorBlock events and bench_serving blocks into
BenchResult events. Nothing here raises on any input.
"""

from __future__ import annotations

import codecs
import re
from functools import lru_cache

from cockpit.ground.sanitize import strip_ansi
from cockpit.parse.bench.bench_serving import BenchBlockParser
from cockpit.parse.log.batch_lines import parse_batch
from cockpit.parse.log.error_labels import line_error_labels
from cockpit.parse.log.events import (
    LAZY_FIELDS,
    NO_RANKS,
    CudaGraphCapture,
    DecodeBatch,
    ErrorBlock,
    ErrorLine,
    FieldValue,
    HttpRequest,
    KvCacheSize,
    LoadingWeights,
    LogEvent,
    PlainLine,
    PrefillBatch,
    Ranks,
    Ready,
    ServerArgs,
    ServerStopped,
    set_lazy_filler,
)
from cockpit.parse.log.sglang_patterns import BATCH_MARKER, BENCH_HEADER, READY_TEXT
from cockpit.parse.numbers import read_float, read_int

# `[2025-01-01 10:00:00 DP3 TP12 EP12]`, `[04:40:55 TP0]`, `[10:00:00.123]`, `[11-11 20:29:05]`.
# Searched, not anchored: a tqdm bar without a newline can sit in front of the record.
_PREFIX = re.compile(
    r"\[((?:\d{4}-\d{2}-\d{2} |\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}(?:[.,]\d{1,6})?)"
    r"((?: [A-Z][A-Z_]*\d+)*)\]"
)
# SGLANG_LOGGING_CONFIG_PATH / Dynamo forms: `2025-10-20 03:02:22 INFO 31223 [DP3 TP3 EP3 x.py:222]`.
_ALT_TS = re.compile(r"(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,6})?)")
_ALT_TAGS = re.compile(r"\[((?:(?:DP|TP|PP|EP|ATTN_CP|MOE_DP)\d+ ?)+)")
_TAG = re.compile(r"(DP|TP|PP|EP|ATTN_CP|MOE_DP)(\d+)")
_TAG_FIELDS = {"DP": "dp", "TP": "tp", "PP": "pp", "EP": "ep", "ATTN_CP": "attn_cp", "MOE_DP": "moe_dp"}

_HTTP = re.compile(r'([\w.:\[\]-]+):(\d+) - "([A-Z]+) (\S+) HTTP/[\d.]+"(?: (\d{3}))?')
_GB = r"([\d.]+) GB"
_AVAIL = re.compile(r"avail[ _]mem=" + _GB)
_USAGE = re.compile(r"mem usage=" + _GB)
_ELAPSED = re.compile(r"(?:Time elapsed: |elapsed=)([\d.]+) ?s")
_PERCENT = re.compile(r"(\d+)%")
_KV_TOKENS = re.compile(r"#tokens: (\d+)")
_KV_SIZES = re.compile(r"\bK?V? ?size: ([\d.]+) GB")
_SUMMARY = re.compile(r"(max_total_num_tokens|max_running_requests|context_len)=(\d+)")
_ARG = re.compile(r"(\w+)=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[\w.+-]+)")
_MAX_BLOCK_LINES = 5000  # bound a runaway "traceback" (e.g. a py-spy dump glued to one)


@lru_cache(maxsize=512)
def parse_ranks(tags: str) -> Ranks:
    """`" DP3 TP12 EP12"` (any order, any digits) -> Ranks; unknown tags are ignored."""
    values = {_TAG_FIELDS[name]: n for name, num in _TAG.findall(tags) if (n := read_int(num)) is not None}
    return Ranks(**values) if values else NO_RANKS


_RANKS_SEEN: dict[str, Ranks] = {"": NO_RANKS}  # tag text -> Ranks: a dict hit beats a cached call


def _ranks_of(tags: str) -> Ranks:
    ranks = _RANKS_SEEN.get(tags)
    if ranks is None:
        ranks = parse_ranks(tags)
        if len(_RANKS_SEEN) < 4096:
            _RANKS_SEEN[tags] = ranks
    return ranks


def split_prefix(line: str) -> tuple[str | None, Ranks, int]:
    """(timestamp text, ranks, index where the message starts) of a record line."""
    if "[" in line:
        m = _PREFIX.search(line)
        if m:
            ts, tags = m.group(1, 2)
            return ts, _ranks_of(tags), m.end()
    m = _ALT_TS.match(line)
    if m:
        tags = _ALT_TAGS.search(line, m.end())
        return m.group(1), parse_ranks(tags.group(1)) if tags else NO_RANKS, m.end()
    return None, NO_RANKS, 0


def _float(rx: re.Pattern[str], text: str) -> float | None:
    m = rx.search(text)
    return read_float(m.group(1)) if m else None  # None for `1.2.3 GB` in a mangled paste


def _server_args(line: str, start: int, ts: str | None, ranks: Ranks) -> ServerArgs:
    args: dict[str, FieldValue | None] = {}
    for key, raw in _ARG.findall(line, start):
        if raw[:1] in "'\"":
            value: FieldValue | None = raw[1:-1]
        elif raw in ("True", "False"):
            value = raw == "True"
        elif raw == "None":
            value = None
        else:
            number: int | float | None = read_int(raw)
            if number is None:
                number = read_float(raw)
            value = raw if number is None else number  # a word, or a number too long to be one
        args.setdefault(key, value)
    return ServerArgs(line=line, ts=ts, ranks=ranks, args=args)


_new = object.__new__
_set = object.__setattr__


def _bare(cls: type[LogEvent], line: str, ts: str | None, ranks: Ranks) -> LogEvent:
    """An event with only line/ts/ranks set: a PlainLine whole, or a lazy batch/access event
    whose other fields `fill_lazy` parses on first read (see log_events._lazy_getattr).
    Skips the frozen dataclass __init__, which costs a call per field."""
    ev = _new(cls)
    _set(ev, "line", line)
    _set(ev, "ts", ts)
    _set(ev, "ranks", ranks)
    return ev


def fill_lazy(ev: LogEvent) -> None:
    """Set every field of a lazily built batch or access event, exactly as parse_line would."""
    line, ts, ranks = ev.line, ev.ts, ev.ranks
    full: LogEvent | None = None
    if isinstance(ev, HttpRequest):
        m = _HTTP.search(line, split_prefix(line)[2])
        if m:
            full = HttpRequest(line=line, ts=ts, ranks=ranks, client=f"{m.group(1)}:{m.group(2)}",
                               method=m.group(3), path=m.group(4),
                               status=read_int(m.group(5)) if m.group(5) else None)
    else:
        m = BATCH_MARKER.search(line)
        if m:
            full = parse_batch(line, m, ts, ranks)
    if full is None or type(full) is not type(ev):  # cannot happen for parser-built events
        full = type(ev)(line=line, ts=ts, ranks=ranks)
    for name in LAZY_FIELDS[type(ev)]:
        _set(ev, name, object.__getattribute__(full, name))


set_lazy_filler(fill_lazy)


def parse_line(line: str, ts: str | None = None, ranks: Ranks | None = None) -> LogEvent:
    """Type one physical line (without its newline). `ts`/`ranks` are used when the line
    has no prefix of its own (continuation lines inherit their record's)."""
    if "\x1b" in line:
        line = strip_ansi(line)
    m = _PREFIX.search(line) if "[" in line else None
    if m is not None:  # split_prefix, inlined: this runs for every line
        ts, tags = m.group(1, 2)
        ranks = _RANKS_SEEN.get(tags) or _ranks_of(tags)
        start = m.end()
    else:
        own_ts, own_ranks, start = split_prefix(line)
        if own_ts is not None:
            ts, ranks = own_ts, own_ranks
        ranks = ranks or NO_RANKS
    if "batch" in line:
        m = BATCH_MARKER.search(line)
        if m:  # fields parsed on first read (most batch lines are only shown and counted)
            return _bare(DecodeBatch if m.group(1) == "Decode" else PrefillBatch, line, ts, ranks)
    labels = line_error_labels(line)
    if labels:
        return ErrorLine(line=line, ts=ts, ranks=ranks, labels=labels)
    if "server_args=" in line:
        return _server_args(line, line.find("server_args=") + 12, ts, ranks)
    if "KV Cache is allocated" in line:
        m = _KV_TOKENS.search(line)
        sizes = [n for s in _KV_SIZES.findall(line) if s.count(".") <= 1 and (n := read_float(s)) is not None]
        return KvCacheSize(line=line, ts=ts, ranks=ranks, tokens=read_int(m.group(1)) if m else None,
                           size_gb=round(sum(sizes), 3) if sizes else None)
    if "max_total_num_tokens=" in line and "self." not in line:
        found = dict(_SUMMARY.findall(line))
        return KvCacheSize(line=line, ts=ts, ranks=ranks, source="summary",
                           tokens=read_int(found["max_total_num_tokens"]),
                           max_running_requests=read_int(found.get("max_running_requests", "")),
                           context_len=read_int(found.get("context_len", "")))
    if "Capturing batches" in line or ("raph" in line and ("Captur" in line or "captur" in line)):
        return _graph_event(line, ts, ranks)
    if "Load weight" in line or "Loading safetensors" in line or "checkpoint shards" in line:
        phase = "end" if "Load weight end" in line else "begin" if "Load weight begin" in line else "progress"
        m = _PERCENT.search(line) if phase == "progress" else None
        return LoadingWeights(line=line, ts=ts, ranks=ranks, phase=phase,
                              avail_mem_gb=_float(_AVAIL, line), mem_usage_gb=_float(_USAGE, line),
                              percent=read_int(m.group(1)) if m else None)
    if READY_TEXT in line:
        return Ready(line=line, ts=ts, ranks=ranks, primary=True)
    if "Uvicorn running on" in line:
        return Ready(line=line, ts=ts, ranks=ranks, primary=False)
    if "HTTP/" in line and _HTTP.search(line, start):
        return _bare(HttpRequest, line, ts, ranks)  # fields parsed on first read
    if "Shutting down" in line or "Finished server process" in line:
        return ServerStopped(line=line, ts=ts, ranks=ranks)
    return _bare(PlainLine, line, ts, ranks)


def _graph_event(line: str, ts: str | None, ranks: Ranks) -> LogEvent:
    low = line.lower()
    if "capturing batches" in low:
        phase = "progress"
    elif "graph begin" in low:
        phase = "begin"
    elif "graph end" in low:
        phase = "end"
    elif "failed" in low:
        phase = "failed"
    else:
        return PlainLine(line=line, ts=ts, ranks=ranks)  # e.g. `Capture cuda graph bs [1, 2, ...]`
    return CudaGraphCapture(line=line, ts=ts, ranks=ranks, phase=phase,
                            elapsed_s=_float(_ELAPSED, line), avail_mem_gb=_float(_AVAIL, line),
                            mem_usage_gb=_float(_USAGE, line))


# --- tracebacks as blocks ---------------------------------------------------------------
_FRAME_START = re.compile(r'\s*File ".*", line \d+, in |frame #\d+: ')
_EXCEPTION_LINE = re.compile(r"[A-Za-z_][\w.]*(?::|$)")  # `RuntimeError: ...` ends a block


def _starts_block(line: str) -> bool:
    if "Traceback (most recent call last)" in line or "terminate called after throwing" in line:
        return True
    c = line[:1]  # _FRAME_START needs `File`/`frame` after optional white space
    return (c == "F" or c == "f" or c.isspace()) and _FRAME_START.match(line) is not None


class LogParser:
    """Incremental parser: `feed(bytes | str) -> list[LogEvent]`, then `end()` to flush.

    Yields one line event per physical line, in order; an ErrorBlock follows the last line
    of its traceback, a BenchResult follows the closing line of its result block.
    """

    def __init__(self, max_line_chars: int = 8 << 20) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""
        self._max_line = max_line_chars
        self._ts: str | None = None
        self._ranks: Ranks = NO_RANKS
        self._block: list[str] = []
        self._block_labels: set[str] = set()
        self._block_ts: tuple[str | None, Ranks] = (None, NO_RANKS)
        self._bench = BenchBlockParser()

    def feed(self, data: bytes | str) -> list[LogEvent]:
        text = self._decoder.decode(data) if isinstance(data, (bytes, bytearray, memoryview)) else data
        if not text:
            return []
        text = self._partial + text
        lines = text.split("\n")
        self._partial = lines.pop()
        out: list[LogEvent] = []
        append, one, bench, header = out.append, self._one, self._bench, BENCH_HEADER
        for line in lines:
            if line[-1:] == "\r":
                line = line[:-1]
            if self._block or bench.active:
                one(line, out)
                continue
            # _one's common case, inlined: no open traceback or bench block
            event = parse_line(line, self._ts, self._ranks)
            if event.ts is not None:
                self._ts, self._ranks = event.ts, event.ranks
            line = event.line
            if _starts_block(line):
                self._block_ts = (event.ts, event.ranks)
                self._add_to_block(line, event)
            append(event)
            if header in line:
                self._feed_bench(line, out)
        while len(self._partial) > self._max_line:  # a "line" that never ends: cut it
            self._one(self._partial[: self._max_line], out)
            self._partial = self._partial[self._max_line:]
        return out

    def end(self) -> list[LogEvent]:
        """Flush the unfinished last line and any open traceback or bench block."""
        out: list[LogEvent] = []
        tail = self._decoder.decode(b"", final=True)
        rest, self._partial = self._partial + tail, ""
        if rest:
            self._one(rest[:-1] if rest.endswith("\r") else rest, out)
        self._close_block(out)
        result = self._bench.finish()
        if result is not None:
            out.append(result)
        return out

    def _one(self, line: str, out: list[LogEvent]) -> None:
        event = parse_line(line, self._ts, self._ranks)
        line = event.line  # colour codes already stripped
        if event.ts is not None:
            self._ts, self._ranks = event.ts, event.ranks
        if self._block:
            if _continues_block(line):
                self._add_to_block(line, event)
                out.append(event)
                if len(self._block) >= _MAX_BLOCK_LINES:
                    self._close_block(out)
                self._feed_bench(line, out)
                return
            if _ends_block(line):
                self._add_to_block(line, event)
                out.append(event)
                self._close_block(out)
                self._feed_bench(line, out)
                return
            self._close_block(out)  # a record, a blank or other text: the block ended before it
        if _starts_block(line):
            self._block_ts = (event.ts, event.ranks)
            self._add_to_block(line, event)
        out.append(event)
        self._feed_bench(line, out)

    def _add_to_block(self, line: str, event: LogEvent) -> None:
        self._block.append(line)
        self._block_labels.update(getattr(event, "labels", ()))

    def _feed_bench(self, line: str, out: list[LogEvent]) -> None:
        result = self._bench.feed(line)
        if result is not None:
            out.append(result)

    def _close_block(self, out: list[LogEvent]) -> None:
        if not self._block:
            return
        lines, self._block = tuple(self._block), []
        labels, self._block_labels = tuple(sorted(self._block_labels)), set()
        exception = lines[-1] if len(lines) > 1 and _ends_block(lines[-1]) else None
        ts, ranks = self._block_ts
        out.append(ErrorBlock(line=lines[0], ts=ts, ranks=ranks, lines=lines, labels=labels,
                              exception=exception))


def _continues_block(line: str) -> bool:
    """Indented frame/source/caret lines, C++ `frame #N:` lines, a new frame."""
    return (line[:1] in (" ", "\t") and line.strip() != "") or line.startswith("frame #")


def _ends_block(line: str) -> bool:
    """The unindented `Name: message` line that closes a traceback."""
    return _EXCEPTION_LINE.match(line) is not None and not _starts_block(line)


def parse_text(text: str | bytes) -> list[LogEvent]:
    """All events of a complete log text (convenience for tests and small files)."""
    parser = LogParser()
    return parser.feed(text) + parser.end()
