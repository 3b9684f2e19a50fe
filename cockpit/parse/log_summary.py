"""The `parse-log` summary of a whole log, computed fast over big byte buffers.

Whole buffers (a mapped regular file, or bytes) go through `log_summary_fast.scan`: a few
C-speed passes (memchr, literal-prefix regex, or one Hyperscan pass where the wheel exists)
with no per-line Python work, split over one process per CPU for big files and merged; the
Hyperscan pass is compiled once, before forking, from seeds sampled over the whole buffer. Streams (stdin) are read in chunks by `SummaryScanner`,
which does per-batch-line work. Both equal folding LogParser's events with
`cockpit.live.log_metrics.LogSummary` (tests check them on corpus, fuzz and edge inputs).
"""

from __future__ import annotations

import mmap
import os
import re
from typing import TYPE_CHECKING

from cockpit.parse import log_summary_fast as fast
from cockpit.parse.error_labels import ANCHORS_BYTES, NEEDLES, line_error_labels
from cockpit.parse.sanitize import _ANSI_CSI_BYTES, strip_ansi_bytes

if TYPE_CHECKING:
    from typing import BinaryIO

HEADER = fast.HEADER
PARALLEL_MIN_BYTES = 16 << 20  # a slice smaller than this costs more to fork than it saves
MAX_PROCESSES = 16

# One literal-prefix pass per marker: sre skips fast to a literal, while alternations or
# lookbehinds make it try every byte (measured 3x slower on a 1M-line log).
_DECODE = re.compile(rb"Decode batch(?:[.,]| \[\d+\],)([^\n]*)")
_PREFILL = re.compile(rb"Prefill batch(?:[.,]| \[\d+\],)([^\n]*)")
_LEGACY = re.compile(rb"new fill batch\.([^\n]*)")
_RUNNING = re.compile(rb"#running-req: (\d+)")
_QUEUE = re.compile(rb"#queue-req: (\d+)")
_GEN = re.compile(rb"gen throughput \(token/s\): (\d+(?:\.\d+)?)")
_LEGACY_RUNNING = re.compile(rb"#running[_-]req: (\d+)")
_LEGACY_QUEUE = re.compile(rb"#(?:remaining_req|queue-req): (\d+)")
_READY = "The server is fired up and ready to roll"
_NEEDLES = tuple((n.encode(), label) for n, label in NEEDLES.items())
CHUNK_BYTES = 32 << 20
_STR = {name: re.compile(rx.pattern.decode(), re.ASCII) for name, rx in (
    ("running", _RUNNING), ("queue", _QUEUE), ("gen", _GEN),
    ("legacy_running", _LEGACY_RUNNING), ("legacy_queue", _LEGACY_QUEUE))}


# str forms of the three markers, for folding single events by the same rules
KIND_MARKERS = (("decode", re.compile(r"Decode batch(?:[.,]| \[\d+\],)", re.ASCII)),
                ("prefill", re.compile(r"Prefill batch(?:[.,]| \[\d+\],)", re.ASCII)),
                ("legacy", re.compile(r"new fill batch\.")))


def batch_line_figures(rest: str, kind: str) -> tuple[int | None, int | None, list[float]]:
    """(max #running-req, max #queue-req, gen throughputs) of the text after a batch
    marker, by the same substring rules as the byte scan; `kind` is decode/prefill/legacy."""
    legacy = kind == "legacy"
    running = [int(v) for v in _STR["running"].findall(rest)] if not legacy else []
    queue = [int(v) for v in _STR["queue"].findall(rest)] if not legacy else []
    if legacy:
        running += [int(v) for v in _STR["legacy_running"].findall(rest)]
        queue += [int(v) for v in _STR["legacy_queue"].findall(rest)]
    gens = [float(v) for v in _STR["gen"].findall(rest)] if kind == "decode" else []
    return max(running, default=None), max(queue, default=None), gens


def _max_int(values: list[bytes], current: int | None) -> int | None:
    if not values:
        return current
    best = max(map(int, set(values)))  # few distinct values: dedupe before converting
    return best if current is None or best > current else current


class SummaryScanner:
    """Accumulates the summary over buffers of complete lines (`feed`), then `result()`."""

    def __init__(self) -> None:
        self.prefill_lines = 0
        self.decode_lines = 0
        self.last_gen: float | None = None
        self.max_gen: float | None = None
        self.max_running: int | None = None
        self.max_queue: int | None = None
        self.errors: set[str] = set()
        self.ready = False
        from cockpit.parse.bench_serving import BenchBlockParser  # lazy: keeps start-up cheap

        self._bench = BenchBlockParser()
        self._bench_seen = False

    def feed(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        """Scan data[start:end], which must end at a line boundary (or the stream's end)."""
        end = len(data) if end is None else end
        if data.find(b"\x1b", start, end) >= 0:  # colour codes: rare, so copy only then
            data, start = strip_ansi_bytes(data[start:end]), 0
            end = len(data)
        if self._bench.active:
            start_after = self._continue_bench(data, start, end)
        else:
            start_after = start
        self._batches(data, start, end)
        self._rare_lines(data, start_after, end)

    def _batches(self, data: bytes, start: int, end: int) -> None:
        decode = _DECODE.findall(data, start, end)
        prefill = _PREFILL.findall(data, start, end)
        legacy = _LEGACY.findall(data, start, end) if data.find(b"new fill batch.", start, end) >= 0 else []
        # A line holding two markers (glued records) counts once per kind, as grep would;
        # findall already consumed the rest of the line after the first marker of a kind.
        self.decode_lines += len(decode)
        self.prefill_lines += len(prefill) + len(legacy)
        running: list[bytes] = []
        queue: list[bytes] = []
        for rests, rx_running, rx_queue in ((decode, _RUNNING, _QUEUE), (prefill, _RUNNING, _QUEUE),
                                            (legacy, _LEGACY_RUNNING, _LEGACY_QUEUE)):
            if rests:
                text = b"\n".join(rests)
                running += rx_running.findall(text)
                queue += rx_queue.findall(text)
                if rests is decode:
                    gen = _GEN.findall(text)
                    if gen:
                        self.last_gen = float(gen[-1])
                        best = max(map(float, set(gen)))
                        self.max_gen = best if self.max_gen is None or best > self.max_gen else self.max_gen
        self.max_running = _max_int(running, self.max_running)
        self.max_queue = _max_int(queue, self.max_queue)

    def _rare_lines(self, data: bytes, start: int, end: int) -> None:
        seen: set[int] = set()  # start offsets of lines already checked
        for m in ANCHORS_BYTES.finditer(data, start, end):
            self._candidate(data, m.start(), start, end, seen)
        for needle, label in _NEEDLES:
            pos = data.find(needle, start, end) if label not in self.errors else -1
            while pos >= 0 and label not in self.errors:
                pos = self._candidate(data, pos, start, end, seen)
                pos = data.find(needle, pos, end) if pos < end else -1

    def _candidate(self, data: bytes, pos: int, start: int, end: int, seen: set[int]) -> int:
        """Check the line around `pos` once; returns the offset after it."""
        line_start = data.rfind(b"\n", start, pos) + 1
        line_end = data.find(b"\n", pos, end)
        line_end = end if line_end < 0 else line_end
        if line_start in seen:
            return line_end + 1
        seen.add(line_start)
        line = data[line_start:line_end].decode("utf-8", "replace")
        self.errors.update(line_error_labels(line))
        if not self.ready and _READY in line:
            self.ready = True
        if HEADER in line:
            self._bench.feed(line)
            self._bench_seen = True
            return self._continue_bench(data, line_end + 1, end, seen)
        return line_end + 1

    def _continue_bench(self, data: bytes, pos: int, end: int, seen: set[int] | None = None) -> int:
        """Feed bench rows from `pos` until the block closes; returns where it stopped."""
        while self._bench.active and pos < end:
            nl = data.find(b"\n", pos, end)
            nl = end if nl < 0 else nl
            line = data[pos:nl].decode("utf-8", "replace")
            if HEADER in line:
                return pos  # a new block: let the anchor scan start it
            self._bench.feed(line)
            self.errors.update(line_error_labels(line))
            if seen is not None:
                seen.add(pos)
            pos = nl + 1
        return pos

    def result(self) -> dict:
        # the last result block seen, complete or cut short; null if there was none
        bench = dict(self._bench.values) if self._bench_seen else None
        return {
            "prefill_lines": self.prefill_lines,
            "decode_lines": self.decode_lines,
            "last_gen_throughput": self.last_gen,
            "max_gen_throughput": self.max_gen,
            "max_running_req": self.max_running,
            "max_queue_req": self.max_queue,
            "errors": sorted(self.errors),
            "bench": bench,
            "ready": self.ready,
        }


def summarize_bytes(data: bytes) -> dict:
    """Summary of a whole log held in memory (bytes, bytearray or mmap)."""
    if data.find(b"\x1b") >= 0:  # colour codes: strip them once (rare), per line as the parser does
        data = _ANSI_CSI_BYTES.sub(b"", data)
    size = len(data)
    part = _scan_processes(data) if size >= 2 * PARALLEL_MIN_BYTES else None
    if part is None:
        part = fast.scan(data, 0, size)
    return _result(part, data)


def _result(part: fast.Partial, data: bytes) -> dict:
    return {
        "prefill_lines": part.prefill,
        "decode_lines": part.decode,
        "last_gen_throughput": part.last_gen,
        "max_gen_throughput": part.max_gen,
        "max_running_req": part.max_running,
        "max_queue_req": part.max_queue,
        "errors": sorted(part.errors),
        "bench": None if part.header_at < 0 else _bench_block(data, part.header_at),
        "ready": part.ready,
    }


def _bench_block(data: bytes, at: int) -> dict:
    """Values of the block whose header line starts at `at` (the last one in the log)."""
    from cockpit.parse.bench_serving import BenchBlockParser

    parser = BenchBlockParser()
    end = len(data)
    pos = at
    while pos < end:
        nl = data.find(b"\n", pos)
        nl = end if nl < 0 else nl
        parser.feed(data[pos:nl].decode("utf-8", "replace"))
        if not parser.active:
            break
        pos = nl + 1
    return dict(parser.values)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _scan_processes(data: bytes) -> fast.Partial | None:
    """Scan slices (split at newlines) in this process and forked children, one slice
    per CPU this process may run on (at most MAX_PROCESSES, each at least PARALLEL_MIN_BYTES)."""
    size = len(data)
    n = min(_cpus(), MAX_PROCESSES, size // max(1, PARALLEL_MIN_BYTES))
    if not hasattr(os, "fork") or n < 2:
        return None
    cuts = [0]
    for k in range(1, n):
        nl = data.find(b"\n", max(cuts[-1], size * k // n))
        if nl < 0 or nl + 1 >= size:
            break
        cuts.append(nl + 1)
    cuts.append(size)
    if len(cuts) < 3:
        return None
    import marshal

    shared = fast.hyperscan_pass(data, 0, size) or False  # compiled once, inherited by the children
    children: list[tuple[int, int, int, int]] = []  # pid, read fd, slice start, slice end
    for start, end in zip(cuts[1:-1], cuts[2:]):
        r, w = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(r)
            os.close(w)
            children.append((-1, -1, start, end))  # scanned here below
            continue
        if pid == 0:  # child: its slice, sent back as plain values
            status = 1
            try:
                os.close(r)
                payload = marshal.dumps(fast.scan(data, start, end, shared).to_tuple())
                view = memoryview(payload)
                while view:
                    view = view[os.write(w, view):]
                status = 0
            finally:
                os._exit(status)
        os.close(w)
        children.append((pid, r, start, end))
    total = fast.scan(data, 0, cuts[1], shared)
    for pid, r, start, end in children:
        part = _collect(pid, r)
        total.merge(part if part is not None else fast.scan(data, start, end, shared))  # a failed child: here
    return total


def _collect(pid: int, r: int) -> fast.Partial | None:
    """A child's partial, or None when it failed."""
    if pid < 0:
        return None
    import marshal

    chunks = []
    try:
        while chunk := os.read(r, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(r)
        _, status = os.waitpid(pid, 0)
    if status != 0 or not chunks:
        return None
    return fast.Partial.from_tuple(marshal.loads(b"".join(chunks)))


def summarize_stream(stream: BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> dict:
    """Summary of a binary stream (a file or stdin), read in large chunks."""
    fileno = _regular_fileno(stream)
    if fileno is not None:  # a regular file: map it, no copies at all
        size = os.fstat(fileno).st_size
        if size > 0:
            if hasattr(mmap, "MAP_SHARED"):  # POSIX: pre-fault the pages in one go where possible
                flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
                mapped = mmap.mmap(fileno, 0, flags=flags, prot=mmap.PROT_READ)
            else:
                mapped = mmap.mmap(fileno, 0, access=mmap.ACCESS_READ)
            with mapped:
                return summarize_bytes(mapped)  # type: ignore[arg-type]
    scanner = SummaryScanner()
    carry = b""
    while True:
        chunk = stream.read(chunk_bytes)
        if not chunk:
            break
        data = carry + chunk if carry else chunk
        cut = data.rfind(b"\n") + 1
        if cut:
            scanner.feed(data, 0, cut)
        carry = data[cut:]
    if carry:
        scanner.feed(carry)
    return scanner.result()


def _regular_fileno(stream: BinaryIO) -> int | None:
    try:
        fileno = stream.fileno()
        import stat
        if stream.tell() == 0 and stat.S_ISREG(os.fstat(fileno).st_mode):
            return fileno
    except (OSError, ValueError, AttributeError):
        pass
    return None
