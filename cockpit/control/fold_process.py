"""A live log parsed once and folded into LogMetrics, in a child process (no Textual).

At 20k lines/s parsing and folding cost a good part of a core; done in a thread of the UI
process they hold the GIL in 5 ms slices and every frame and key waits behind them. So
the log's bytes go as they came to a child (`python -m cockpit.control.fold_process`),
which parses them once with its LogParser, folds the events into its LogMetrics and sends
back, for each round of input, the display rows (`LogLines`: inert text and flags, what
the pane's buffer stores) and at most every `SNAPSHOT_INTERVAL_S` a MetricsSnapshot.
When no child can be started (or it dies), the same `LogEngine` runs in a thread here.

Frames both ways: a 4-byte big-endian length, then the payload. To the child: b"L" + a
pickled (notes, bytes, ended) (`ended`: the file was rotated or truncated before these
bytes), or b"S" + a pickled summary dict (the file's beginning, scanned elsewhere).
From the child: a pickled (frames handled, LogLines or None, MetricsSnapshot or None).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any, BinaryIO

from cockpit.ground.quiet_warnings import quiet_known_warnings
from cockpit.live.log.items import LogLines, lines_of, max_peak
from cockpit.live.log.metrics_snapshot import MetricsSnapshot

SNAPSHOT_INTERVAL_S = 0.05
Item = LogLines | MetricsSnapshot


class LogEngine:
    """The one parser and the one fold of a log: bytes in, display rows out."""

    def __init__(self) -> None:
        from cockpit.live.log.metrics import LogMetrics
        from cockpit.parse.log.sglang_log import LogParser

        self.parser, self.metrics = LogParser(), LogMetrics()
        self.folded = 0
        self._unfolded: list[list[Any]] = []

    def take(self, notes: list[str], data: bytes, ended: bool = False) -> LogLines | None:
        """Parse: the display rows now, the events folded by `fold` (lines go out first)."""
        events = self.parser.end() if ended else []
        if data:
            events += self.parser.feed(data)
        return self._rows(events, notes)

    def seed(self, summary: dict[str, Any]) -> None:
        self.metrics.seed_summary(summary)

    def finish(self) -> LogLines | None:
        return self._rows(self.parser.end(), [])

    def fold(self) -> None:
        events, self._unfolded = self._unfolded, []
        for batch in events:
            self.metrics.apply_all(batch)
            self.folded += len(batch)

    def snapshot(self) -> MetricsSnapshot:
        self.fold()
        return MetricsSnapshot.of(self.metrics, self.folded)

    def _rows(self, events: list[Any], notes: list[str]) -> LogLines | None:
        if events:
            self._unfolded.append(events)
        return lines_of(events, notes) if events or notes else None


def _frame(payload: bytes) -> bytes:
    return len(payload).to_bytes(4, "big") + payload


def _read_exact(stream: IO[bytes], n: int) -> bytes | None:
    data = stream.read(n)
    return data if data is not None and len(data) == n else None


def _merge(a: LogLines | None, b: LogLines | None) -> LogLines | None:
    if a is None or b is None:
        return a or b
    peaks = (max_peak(a.peaks[0], b.peaks[0]), max_peak(a.peaks[1], b.peaks[1]))
    return LogLines(a.segments + b.segments, a.lines + b.lines, peaks=peaks)


# ----- the child ------------------------------------------------------------------------------
def serve(fd_in: int, out: BinaryIO) -> None:
    """The child's loop: parse and fold frames from `fd_in`, answer on `out`, until EOF."""
    engine = LogEngine()
    buf = bytearray()
    handled = acked = 0  # frames read; frames whose effect a sent snapshot shows
    dirty, last_sent = False, 0.0

    def send(lines: LogLines | None, snap: bool) -> None:
        nonlocal dirty, last_sent, acked
        snapshot = None
        if snap:
            snapshot, acked = engine.snapshot(), handled
            dirty, last_sent = False, time.monotonic()
        out.write(_frame(pickle.dumps((acked, lines, snapshot), protocol=5)))
        out.flush()

    while True:
        if dirty and time.monotonic() >= last_sent + SNAPSHOT_INTERVAL_S:
            send(None, True)
        wait = max(0.0, last_sent + SNAPSHOT_INTERVAL_S - time.monotonic()) if dirty else None
        ready, _, _ = select.select([fd_in], [], [], wait)
        if not ready:
            continue
        chunk = os.read(fd_in, 1 << 20)
        if not chunk:
            send(engine.finish(), True)
            return
        buf += chunk
        pos = 0
        lines: LogLines | None = None
        while len(buf) - pos >= 4:
            size = int.from_bytes(buf[pos:pos + 4], "big")
            if len(buf) - pos - 4 < size:
                break
            kind, body = buf[pos + 4:pos + 5], bytes(buf[pos + 5:pos + 4 + size])
            pos += 4 + size
            if kind == b"L":
                lines = _merge(lines, engine.take(*pickle.loads(body)))
            elif kind == b"S":
                engine.seed(pickle.loads(body))
            handled += 1
            dirty = True
        del buf[:pos]
        # lines go at once, before they are folded (they are what the user watches);
        # the figures at most 20x/s
        if lines is not None:
            send(lines, False)
        engine.fold()


def main() -> int:
    quiet_known_warnings()  # a child started with python -m: the same quiet start as the CLI
    # Below the UI process: on a busy machine its frames and keys come first (the first
    # screenful of a big log is drawn before this child's start-up and parse compete).
    with contextlib.suppress(OSError):
        os.nice(10)
    try:
        serve(sys.stdin.fileno(), sys.stdout.buffer)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    return 0


# ----- the UI side ----------------------------------------------------------------------------
class ChildFold:
    """A LogEngine off the UI's GIL. `send` and `seed` never block (a sender thread writes
    to the child); `on_item` gets each LogLines and MetricsSnapshot from a reader thread
    (post a message from it), and None once after `close()` when everything is out."""

    def __init__(self, on_item: Callable[[Item | None], None], *, use_process: bool = True) -> None:
        self._on_item = on_item
        self._use_process = use_process
        self._queue: queue.Queue[Any] = queue.Queue()
        self._lock = threading.Lock()
        self._pending = 0  # frames given whose effect has not been handed over yet
        self._pending_bytes = 0
        self._sent = self._acked = 0
        self._thread: threading.Thread | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self.engine: LogEngine | None = None  # set when working in this process

    @property
    def in_child(self) -> bool:
        return self._proc is not None

    @property
    def idle(self) -> bool:
        """Everything given was parsed, folded and handed over."""
        with self._lock:
            return self._pending == 0

    @property
    def pending_bytes(self) -> int:
        """Log bytes given and not yet taken by the engine (the caller's backpressure)."""
        with self._lock:
            return self._pending_bytes

    def start(self) -> None:
        """Start the child now (its start-up overlaps the source's opening)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="log-engine", daemon=True)
            self._thread.start()

    def send(self, notes: list[str], data: bytes, ended: bool = False) -> None:
        if notes or data or ended:
            self._put(("L", notes, data, ended), len(data))

    def seed(self, summary: dict[str, Any]) -> None:
        self._put(("S", summary), 0)

    def close(self) -> None:
        """No more input: the parser's unfinished block comes out, then None."""
        self.start()
        self._queue.put(None)

    stop = close

    def _put(self, item: Any, size: int) -> None:
        with self._lock:
            self._pending += 1
            self._pending_bytes += size
        self.start()
        self._queue.put(item)

    def _take(self) -> list[Any] | None:
        """The next item and whatever else waits behind it (None: stop)."""
        item = self._queue.get()
        if item is None:
            return None
        items = [item]
        while len(items) < 64:
            try:
                more = self._queue.get_nowait()
            except queue.Empty:
                break
            if more is None:
                self._queue.put(None)
                break
            items.append(more)
        with self._lock:
            self._pending_bytes -= sum(len(i[2]) for i in items if i[0] == "L")
        return items

    def _run(self) -> None:
        proc = self._spawn() if self._use_process else None
        if proc is None:
            self._work_here()
            return
        self._proc = proc
        stdin = proc.stdin
        assert stdin is not None  # _start_child opens it as a pipe
        reader = threading.Thread(target=self._read_child, args=(proc,), name="log-engine-in", daemon=True)
        reader.start()
        items: list[Any] = []
        try:
            while (items := self._take()) is not None:  # type: ignore[assignment]
                with self._lock:
                    self._sent += len(items)
                for item in items:  # one frame at a time: a backlog is never copied whole
                    body = b"S" + pickle.dumps(item[1], protocol=5) if item[0] == "S" \
                        else b"L" + pickle.dumps(item[1:], protocol=5)
                    stdin.write(_frame(body))
                stdin.flush()
        except (OSError, ValueError):  # the child died: from now on in this process
            self._end_child(proc)
            reader.join(timeout=5)
            self._write_off()
            with self._lock:
                self._pending += len(items)
            self._work_here(items)
            return
        self._end_child(proc)  # EOF: the child sends its last lines, then the reader ends
        reader.join()
        self._on_item(None)

    def _spawn(self) -> subprocess.Popen[bytes] | None:
        from cockpit.sources.transport.child_process import spawn_python

        return spawn_python("-m", "cockpit.control.fold_process")

    def _end_child(self, proc: subprocess.Popen[bytes]) -> None:
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        with contextlib.suppress(Exception):
            proc.wait(timeout=5)
        if proc.poll() is None:
            proc.kill()

    def _read_child(self, proc: subprocess.Popen[bytes]) -> None:
        out = proc.stdout
        assert out is not None
        while (head := _read_exact(out, 4)) is not None \
                and (body := _read_exact(out, int.from_bytes(head, "big"))) is not None:
            handled, lines, snapshot = pickle.loads(body)
            with self._lock:
                done, self._acked = handled - self._acked, handled
            try:
                if lines is not None:
                    self._on_item(lines)
                if snapshot is not None:
                    self._on_item(snapshot)
            finally:
                with self._lock:
                    self._pending -= done
        self._write_off()

    def _write_off(self) -> None:
        """The child is gone: what it had not done will not be (idempotent)."""
        with self._lock:
            self._pending -= self._sent - self._acked
            self._acked = self._sent

    def _work_here(self, first: list[Any] | None = None) -> None:
        """No child: parse and fold in this thread (it holds the GIL while it works)."""
        self.engine = engine = LogEngine()
        while (items := first or self._take()) is not None:
            first = None
            lines = None
            for item in items:
                if item[0] == "S":
                    engine.seed(item[1])
                else:
                    lines = _merge(lines, engine.take(*item[1:]))
            try:
                if lines is not None:
                    self._on_item(lines)
                self._on_item(engine.snapshot())
            finally:
                with self._lock:
                    self._pending -= len(items)
        lines = engine.finish()
        if lines is not None:
            self._on_item(lines)
        self._on_item(engine.snapshot())
        self._on_item(None)


if __name__ == "__main__":
    sys.exit(main())
