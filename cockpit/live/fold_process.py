"""Folding a live log into LogMetrics in a child process, so the UI keeps its GIL.

At 20k lines/s folding costs a good part of a core; done in a thread of the UI process it
holds the GIL in 5 ms slices and every frame and key waits behind it. So the pane's
`MetricsFolder` sends the lines as text to a child (`python -m cockpit.live.fold_process`)
which parses and folds them with its own LogParser and LogMetrics, and sends back a
MetricsSnapshot at most every `SNAPSHOT_INTERVAL_S` while lines flow (and soon after they
stop). When no child can be started the same thread folds in process, as before.

Frames both ways: a 4-byte big-endian length, then the payload. To the child: b"T" +
UTF-8 lines (each ending in "\\n"), or b"S" + a pickled summary dict (the file's beginning,
scanned elsewhere). From the child: a pickled (frames handled, MetricsSnapshot).
Plain Python, no Textual.
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
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO

from cockpit.live.metrics_snapshot import MetricsSnapshot
from cockpit.parse.log_events import BenchResult, ErrorBlock, LogEvent

if TYPE_CHECKING:
    from cockpit.live.log_metrics import LogMetrics

SNAPSHOT_INTERVAL_S = 0.05
_DERIVED = (ErrorBlock, BenchResult)  # built from lines that came as line events already


def events_text(events: list[LogEvent]) -> str:
    """The lines the events were parsed from, one per line event, "\\n"-terminated: parsed
    again they give the same events (a block follows its last line, as it did)."""
    lines = [ev.line for ev in events if not isinstance(ev, _DERIVED)]
    return "\n".join(lines) + "\n" if lines else ""


def _frame(payload: bytes) -> bytes:
    return len(payload).to_bytes(4, "big") + payload


def _read_exact(stream: IO[bytes], n: int) -> bytes | None:
    data = stream.read(n)
    return data if data is not None and len(data) == n else None


# ----- the child ------------------------------------------------------------------------------
def serve(fd_in: int, out: BinaryIO) -> None:
    """The child's loop: fold frames from `fd_in`, send snapshots to `out`, until EOF."""
    from cockpit.live.log_metrics import LogMetrics
    from cockpit.parse.sglang_log import LogParser

    parser, metrics = LogParser(), LogMetrics()
    buf = bytearray()
    handled = folded = 0
    dirty, last_sent = False, 0.0
    while True:
        now = time.monotonic()
        if dirty and now >= last_sent + SNAPSHOT_INTERVAL_S:
            out.write(_frame(pickle.dumps((handled, MetricsSnapshot.of(metrics, folded)), protocol=5)))
            out.flush()
            dirty, last_sent = False, now
            now = time.monotonic()
        wait = max(0.0, last_sent + SNAPSHOT_INTERVAL_S - now) if dirty else None
        ready, _, _ = select.select([fd_in], [], [], wait)
        if not ready:
            continue
        chunk = os.read(fd_in, 1 << 20)
        if not chunk:
            return
        buf += chunk
        pos = 0
        while len(buf) - pos >= 4:
            size = int.from_bytes(buf[pos:pos + 4], "big")
            if len(buf) - pos - 4 < size:
                break
            kind, body = buf[pos + 4:pos + 5], bytes(buf[pos + 5:pos + 4 + size])
            pos += 4 + size
            if kind == b"T":
                events = parser.feed(body.decode("utf-8", "replace"))
                metrics.apply_all(events)
                folded += len(events)
            elif kind == b"S":
                metrics.seed_summary(pickle.loads(body))
            handled += 1
            dirty = True
        del buf[:pos]


def main() -> int:
    try:
        serve(sys.stdin.fileno(), sys.stdout.buffer)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    return 0


# ----- the UI side ----------------------------------------------------------------------------
class MetricsFolder:
    """Folds event lists into LogMetrics off the UI's GIL; `on_snapshot` gets a
    MetricsSnapshot after each round (called from a worker thread: post a message from it).

    `submit(events)` and `seed(summary)` never block: items wait in a queue that a sender
    thread drains into the child's pipe. Beyond `max_pending_events` waiting, the oldest
    waiting lists are dropped (counted in `skipped`), so memory stays bounded when the log
    outruns the folding."""

    max_pending_events = 200_000

    def __init__(self, on_snapshot: Callable[[MetricsSnapshot], None], *, use_process: bool = True) -> None:
        self._on_snapshot = on_snapshot
        self._use_process = use_process
        self._queue: queue.Queue[Any] = queue.Queue()
        self._lock = threading.Lock()
        self._pending = 0  # items submitted whose effect no delivered snapshot shows yet
        self._pending_events = 0  # events in lists still waiting in the queue
        self._sent = 0  # frames written to the child
        self._acked = 0  # frames the last snapshot covers
        self.skipped = 0
        self._thread: threading.Thread | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self.metrics: LogMetrics | None = None  # set when folding in this process
        self._folded = 0

    @property
    def in_child(self) -> bool:
        """Folding happens in a child process (False: in this process's thread)."""
        return self._proc is not None

    def seed(self, summary: dict) -> None:
        """Add the summary of log text before everything submitted (a big file's beginning)."""
        self._put(summary, 0)

    def submit(self, events: list[LogEvent]) -> None:
        if events:
            self._put(events, len(events))

    def _put(self, item: Any, n_events: int) -> None:
        with self._lock:
            self._pending += 1
            self._pending_events += n_events
            while self._pending_events > self.max_pending_events:
                try:
                    old = self._queue.get_nowait()
                except queue.Empty:
                    break
                if old is None or isinstance(old, dict):
                    self._queue.put(old)
                    break
                self._pending -= 1
                self._pending_events -= len(old)
                self.skipped += len(old)
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="log-metrics", daemon=True)
            self._thread.start()
        self._queue.put(item)

    @property
    def idle(self) -> bool:
        """Nothing submitted is waiting or being folded (its snapshot was handed over)."""
        with self._lock:
            return self._pending == 0

    def stop(self) -> None:
        if self._thread is not None:
            self._queue.put(None)

    # ----- the sender thread ------------------------------------------------------------------
    def _take(self) -> list[Any] | None:
        """The next item and whatever else waits behind it (None: stop)."""
        item = self._queue.get()
        if item is None:
            return None
        items = [item]
        while True:
            try:
                more = self._queue.get_nowait()
            except queue.Empty:
                return items
            if more is None:
                self._queue.put(None)
                return items
            items.append(more)

    def _taken(self, items: list[Any]) -> None:
        with self._lock:
            self._pending_events -= sum(len(i) for i in items if not isinstance(i, dict))

    def _run(self) -> None:
        proc = self._start_child() if self._use_process else None
        if proc is None:
            self._fold_here()
            return
        self._proc = proc
        stdin = proc.stdin
        assert stdin is not None  # _start_child opens it as a pipe
        reader = threading.Thread(target=self._read_child, args=(proc,), name="log-metrics-in", daemon=True)
        reader.start()
        try:
            while (items := self._take()) is not None:
                self._taken(items)
                with self._lock:
                    self._sent += len(items)
                for item in items:  # one frame at a time: a backlog is never copied whole
                    if isinstance(item, dict):
                        frame = _frame(b"S" + pickle.dumps(item, protocol=5))
                    else:
                        frame = _frame(b"T" + events_text(item).encode("utf-8", "replace"))
                    stdin.write(frame)
                stdin.flush()
        except (OSError, ValueError):  # the child died: fold here from now on
            assert items is not None  # only writing the items to the child raises these
            self._end_child(proc)
            reader.join(timeout=5)
            self._write_off()
            with self._lock:  # these few are folded here after all
                self._pending += len(items)
            self._fold_here(items)
            return
        self._end_child(proc)

    def _end_child(self, proc: subprocess.Popen[bytes]) -> None:
        if proc.stdin is not None:
            with contextlib.suppress(Exception):
                proc.stdin.close()
        with contextlib.suppress(Exception):
            proc.wait(timeout=2)
        if proc.poll() is None:
            proc.kill()

    def _read_child(self, proc: subprocess.Popen[bytes]) -> None:
        out = proc.stdout
        assert out is not None
        while (head := _read_exact(out, 4)) is not None \
                and (body := _read_exact(out, int.from_bytes(head, "big"))) is not None:
            handled, snapshot = pickle.loads(body)
            with self._lock:
                done, self._acked = handled - self._acked, handled
                skipped = self.skipped
            try:
                self._on_snapshot(replace(snapshot, skipped=skipped))
            finally:
                with self._lock:
                    self._pending -= done
        self._write_off()

    def _write_off(self) -> None:
        """The child is gone: what it had not folded will not be (idempotent)."""
        with self._lock:
            self._pending -= self._sent - self._acked
            self._acked = self._sent

    def _start_child(self) -> subprocess.Popen[bytes] | None:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])  # a source checkout runs too
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            return subprocess.Popen([sys.executable, "-m", "cockpit.live.fold_process"], env=env,
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, close_fds=True)
        except OSError:
            return None

    def _fold_here(self, first: list[Any] | None = None) -> None:
        """No child: fold in this thread (holds the GIL while it works)."""
        from cockpit.live.log_metrics import LogMetrics

        self.metrics = metrics = LogMetrics()
        while (items := first or self._take()) is not None:
            if first is None:
                self._taken(items)
            first = None
            for item in items:
                if isinstance(item, dict):
                    metrics.seed_summary(item)
                else:
                    metrics.apply_all(item)
                    self._folded += len(item)
            try:
                self._on_snapshot(MetricsSnapshot.of(metrics, self._folded, self.skipped))
            finally:
                with self._lock:
                    self._pending -= len(items)


if __name__ == "__main__":
    sys.exit(main())
