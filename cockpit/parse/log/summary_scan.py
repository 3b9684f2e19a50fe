"""The `parse-log` summary (log_summary.Summary) of whole buffers, at C speed.

`summarize_bytes(data, engine=...)` equals folding the buffer's events with
log_summary.LogSummary, with no per-line Python work: log_summary_fast's `scan`, with the
engine's pass for the rare lines ("sre": log_summary_fast.SrePass; "hyperscan":
log_summary_hs.Pass, which also finds the maxima and the sparse line counts), split over
one process per CPU for big buffers and merged; the engine's pass is made once, before
forking, from seeds sampled over the whole buffer. `summarize_stream` maps a regular file,
or scans a pipe chunk by chunk and merges the partials. Tests check every engine and path
against LogSummary on corpus, fuzz and edge inputs. Kept apart from log_summary so that
`parse-log` starts without building the event classes.
"""

from __future__ import annotations

import marshal
import mmap
import os
import signal
import stat
from typing import TYPE_CHECKING, BinaryIO, Literal

from cockpit.ground.sanitize import strip_ansi_bytes
from cockpit.parse.log import summary_fast as fast
from cockpit.parse.log.summary_fast import SRE, EnginePass, Partial
from cockpit.parse.log.summary_values import Buffer

if TYPE_CHECKING:
    from cockpit.parse.bench.bench_serving import BenchBlockParser
    from cockpit.parse.log.events import Number
    from cockpit.parse.log.summary import Summary

Engine = Literal["auto", "sre", "hyperscan"]
# "auto": Hyperscan for buffers of HS_MIN_BYTES or more where the wheel is installed, else
# sre; "hyperscan": at any size (sre where there is no wheel); "sre": never Hyperscan.
_ENV_ENGINE = os.environ.get("COCKPIT_SCAN_ENGINE", "auto")
ENGINE: Engine = "sre" if _ENV_ENGINE == "sre" else "hyperscan" if _ENV_ENGINE == "hyperscan" else "auto"
HS_MIN_BYTES = 4 << 20  # below this, importing and compiling Hyperscan costs more than it saves
PARALLEL_MIN_BYTES = 16 << 20  # a slice smaller than this costs more to fork than it saves
MAX_PROCESSES = 16
CHUNK_BYTES = 32 << 20
MAX_LINE_BYTES = 8 << 20  # a "line" longer than this is cut (LogParser's max_line_chars)


def hyperscan_available() -> bool:
    """Is the Hyperscan wheel installed (x86-64 Linux)? Does not import it."""
    import importlib.util  # (4 ms at start-up otherwise)

    return importlib.util.find_spec("hyperscan") is not None


def engine_pass(data: Buffer, start: int, end: int, engine: Engine | None = None) -> EnginePass:
    """The pass of `engine` (default ENGINE) for data[start:end]. Made once per buffer:
    forked slices share its import, seeds and compiled database."""
    engine = ENGINE if engine is None else engine
    if engine == "sre" or (engine == "auto" and end - start < HS_MIN_BYTES):
        return SRE
    from cockpit.parse.log import summary_hs as log_summary_hs

    if not log_summary_hs.WHEEL:  # no wheel for this platform: the sre engine gives the same answer
        return SRE
    return log_summary_hs.Pass(data, start, end)


def summarize_bytes(data: Buffer, engine: Engine | None = None) -> Summary:
    """Summary of a whole log held in memory (bytes or mmap), equal to LogSummary's."""
    size = len(data)
    part = None
    if size >= 2 * PARALLEL_MIN_BYTES:
        # Each slice looks for ESC itself, in parallel (a serial look was 4 % of a 225 MB run);
        # colour codes found anywhere (rare): None, and the whole buffer is stripped below.
        part = _scan_processes(data, engine_pass(data, 0, size, engine), esc_free=True)
    if part is None:
        data = strip_ansi_bytes(data)  # colour codes: stripped once, as the parser does per line
        size = len(data)
        scan_pass = engine_pass(data, 0, size, engine)
        part = _scan_processes(data, scan_pass) if size >= 2 * PARALLEL_MIN_BYTES else None
        if part is None:
            part = fast.scan(data, 0, size, scan_pass)
    bench = _LastBench()
    bench.feed(data, part.header_at, size)
    return _result(part, bench)


def summarize_stream(stream: BinaryIO, chunk_bytes: int = CHUNK_BYTES, engine: Engine | None = None) -> Summary:
    """Summary of a binary stream (a file or stdin): a regular file is mapped (no copies);
    anything else is read in chunks cut at line ends, each scanned, the partials merged."""
    fileno = _regular_fileno(stream)
    if fileno is not None:
        size = os.fstat(fileno).st_size
        if size > 0:
            if hasattr(mmap, "MAP_SHARED"):  # POSIX: pre-fault the pages in one go where possible
                flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
                mapped = mmap.mmap(fileno, 0, flags=flags, prot=mmap.PROT_READ)
            else:
                mapped = mmap.mmap(fileno, 0, access=mmap.ACCESS_READ)
            with mapped:
                return summarize_bytes(mapped, engine)
    total = Partial()
    bench = _LastBench()
    carry = b""
    while True:
        chunk = stream.read(chunk_bytes)
        if not chunk:
            break
        data = carry + chunk if carry else chunk
        cut = data.rfind(b"\n") + 1
        if cut:
            _add_chunk(total, bench, data, cut, engine)
        carry = data[cut:]
        if len(carry) > MAX_LINE_BYTES:  # a line that never ends (no newline in GBs): cut it, as
            _add_chunk(total, bench, carry, len(carry), engine)  # the log parser does, instead
            carry = b""  # of copying a growing carry for every chunk (quadratic)
    if carry:
        _add_chunk(total, bench, carry, len(carry), engine)
    return _result(total, bench)


def _add_chunk(total: Partial, bench: _LastBench, data: bytes, end: int, engine: Engine | None) -> None:
    """Scan data[:end] (whole lines) and merge it into `total`, which holds the text before it."""
    if data.find(b"\x1b", 0, end) >= 0:  # a CSI sequence never spans a newline: strip per chunk
        data = bytes(strip_ansi_bytes(data[:end]))
        end = len(data)
    part = fast.scan(data, 0, end, engine_pass(data, 0, end, engine))
    total.merge(part)
    bench.feed(data, part.header_at, end)


class _LastBench:
    """The values of the last bench_serving block, fed a buffer (or chunk after chunk)."""

    def __init__(self) -> None:
        self.parser: BenchBlockParser | None = None

    def feed(self, data: Buffer, header_at: int, end: int) -> None:
        """Read data[:end] from `header_at` (the start of its last header line; -1 for none)
        or, when a block is still open from an earlier chunk, from the start."""
        if header_at >= 0:
            from cockpit.parse.bench.bench_serving import BenchBlockParser  # only where a block is: cheap start

            self.parser, pos = BenchBlockParser(), header_at
        elif self.parser is not None and self.parser.active:
            pos = 0
        else:
            return
        parser = self.parser
        while pos < end:
            nl = data.find(b"\n", pos, end)
            nl = end if nl < 0 else nl
            parser.feed(data[pos:nl].decode("utf-8", "replace"))
            if not parser.active:
                break
            pos = nl + 1

    def values(self) -> dict[str, Number] | None:
        return None if self.parser is None else dict(self.parser.values)


def _result(part: Partial, bench: _LastBench) -> Summary:
    return {
        "prefill_lines": part.prefill,
        "decode_lines": part.decode,
        "last_gen_throughput": part.last_gen,
        "max_gen_throughput": part.max_gen,
        "max_running_req": part.max_running,
        "max_queue_req": part.max_queue,
        "errors": sorted(part.errors),
        "bench": bench.values(),
        "ready": part.ready,
    }


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


HAS_ESC = 3  # a child's exit status: its slice holds an ESC byte (not scanned)


def _scan_processes(data: Buffer, scan_pass: EnginePass, esc_free: bool = False) -> Partial | None:
    """Scan slices (split at newlines) in this process and forked children, one slice
    per CPU this process may run on (at most MAX_PROCESSES, each at least PARALLEL_MIN_BYTES).
    `esc_free`: each slice is first checked for an ESC byte; None if any holds one."""
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
                part = _scan_slice(data, start, end, scan_pass, esc_free)
                if part is None:
                    status = HAS_ESC
                    return None  # (the finally exits)
                payload = marshal.dumps(part.to_tuple())
                view = memoryview(payload)
                while view:
                    view = view[os.write(w, view):]
                status = 0
            finally:
                os._exit(status)
        os.close(w)
        children.append((pid, r, start, end))
    total = _scan_slice(data, 0, cuts[1], scan_pass, esc_free)
    if total is None:  # the whole buffer will be stripped and scanned again: the children's work is moot
        for pid, _, _, _ in children:
            if pid > 0:
                os.kill(pid, signal.SIGKILL)
    for pid, r, start, end in children:
        got = _collect(pid, r)
        if total is None:
            continue
        part = got if isinstance(got, Partial) else (
            None if got == HAS_ESC else _scan_slice(data, start, end, scan_pass, esc_free))  # a failed child: here
        if part is None:
            total = None
        else:
            total.merge(part)
    return total


def _scan_slice(data: Buffer, start: int, end: int, scan_pass: EnginePass, esc_free: bool) -> Partial | None:
    """fast.scan of one slice; None when `esc_free` and it holds an ESC byte (looked for
    first, unless the engine's pass finds ESC itself as it scans)."""
    if esc_free and not scan_pass.finds_esc and data.find(b"\x1b", start, end) >= 0:
        return None
    part = fast.scan(data, start, end, scan_pass)
    return None if esc_free and part.esc else part


def _collect(pid: int, r: int) -> Partial | int | None:
    """A child's partial, HAS_ESC when its slice holds an ESC, or None when it failed."""
    if pid < 0:
        return None
    chunks = []
    try:
        while chunk := os.read(r, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(r)
        _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == HAS_ESC:
        return HAS_ESC
    if status != 0 or not chunks:
        return None
    return Partial.from_tuple(marshal.loads(b"".join(chunks)))


def _regular_fileno(stream: BinaryIO) -> int | None:
    try:
        fileno = stream.fileno()
        if stream.tell() == 0 and stat.S_ISREG(os.fstat(fileno).st_mode):
            return fileno
    except (OSError, ValueError, AttributeError):
        pass
    return None
