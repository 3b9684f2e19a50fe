"""Parsing and folding in a child process: the same rows and metrics as one parse here,
idle when done, and a child that dies hands the work back instead of hanging the pane."""

from __future__ import annotations

import threading
import time

from paths import CORPUS
from waits import patience

from cockpit.control.fold_process import ChildFold
from cockpit.live.log.items import LogLines, lines_of
from cockpit.live.log.metrics import LogMetrics
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.parse.log.sglang_log import LogParser, parse_text

LOGS = sorted((CORPUS / "sglang-logs").glob("*.log"))


def _wait(cond, timeout: float = 20.0) -> None:
    end = time.monotonic() + patience(timeout)
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def _fold_here(data: bytes, chunk: int) -> MetricsSnapshot:
    parser, metrics, n = LogParser(), LogMetrics(), 0
    for i in range(0, len(data), chunk):
        events = parser.feed(data[i:i + chunk])
        metrics.apply_all(events)
        n += len(events)
    events = parser.end()  # the stream's end closes a block in progress
    metrics.apply_all(events)
    return MetricsSnapshot.of(metrics, n + len(events))


class Collector:
    def __init__(self) -> None:
        self.snapshots: list[MetricsSnapshot] = []
        self.lines: list[LogLines] = []
        self.done = threading.Event()
        self.lock = threading.Lock()

    def __call__(self, item: object) -> None:
        with self.lock:
            if item is None:
                self.done.set()
            elif isinstance(item, LogLines):
                self.lines.append(item)
            else:
                assert isinstance(item, MetricsSnapshot)
                self.snapshots.append(item)

    @property
    def last(self) -> MetricsSnapshot:
        return self.snapshots[-1]

    def texts(self) -> list[str]:
        return [t for batch in self.lines for seg in batch.segments for t in _texts(seg)]


def _texts(seg: tuple) -> list[str]:
    if seg[0] == 0:  # a run
        return list(seg[1])
    return [seg[1]] if seg[0] in (1, 3) else []  # an error line, a note; a block mark adds none


def test_the_child_parses_once_into_the_rows_and_metrics_of_a_parse_here() -> None:
    data = b"".join(p.read_bytes() for p in LOGS)
    want = _fold_here(data, 1 << 30)
    got = Collector()
    fold = ChildFold(got)
    for i in range(0, len(data), 3000):  # bytes as the tail sends them, cut anywhere
        fold.send([], data[i:i + 3000])
    fold.close()
    assert got.done.wait(30)
    assert fold.in_child and fold.idle
    here = lines_of(parse_text(data))
    assert got.texts() == [t for seg in here.segments for t in _texts(seg)]
    assert sum(b.lines for b in got.lines) == here.lines
    snap = got.last
    assert snap.summary == want.summary
    assert snap.points == want.points and snap.peak == want.peak
    assert (snap.run_index, snap.run_state, snap.model, snap.dp_ranks) == \
        (want.run_index, want.run_state, want.model, want.dp_ranks)
    assert snap.summary["decode_lines"] > 0


def test_notes_keep_their_place_between_the_lines() -> None:
    got = Collector()
    fold = ChildFold(got)
    fold.send([], b"[2025-03-01 12:00:00 TP0] before\n")
    fold.send(["rotated: new file"], b"[2025-03-01 12:00:01 TP0] after\n", True)
    fold.close()
    assert got.done.wait(30)
    assert got.texts() == ["[2025-03-01 12:00:00 TP0] before", "── rotated: new file ──",
                           "[2025-03-01 12:00:01 TP0] after"]


def test_a_seed_summary_counts_before_the_lines() -> None:
    got = Collector()
    fold = ChildFold(got)
    fold.seed({"decode_lines": 1000, "prefill_lines": 5, "max_gen_throughput": 9999.0})
    fold.send([], LOGS[0].read_bytes())
    fold.close()
    assert got.done.wait(30)
    alone = _fold_here(LOGS[0].read_bytes(), 1 << 30).summary
    assert got.last.summary["decode_lines"] == 1000 + alone["decode_lines"]
    assert got.last.summary["max_gen_throughput"] == 9999.0


def test_a_dead_child_hands_the_work_back() -> None:
    got = Collector()
    fold = ChildFold(got)
    data = LOGS[0].read_bytes()
    fold.send([], data)
    _wait(lambda: fold.idle and bool(got.snapshots))
    assert fold._proc is not None
    fold._proc.kill()
    fold._proc.wait()
    time.sleep(0.1)
    fold.send([], data)  # written into a closed pipe: parsed here from now on
    fold.send([], data)
    _wait(lambda: fold.idle and fold.engine is not None)
    assert fold.engine is not None  # the in-process fallback took over
    _wait(lambda: got.last.lines >= len(parse_text(data)))
    fold.close()
    assert got.done.wait(30)


def test_without_a_child_the_thread_parses_and_folds() -> None:
    got = Collector()
    fold = ChildFold(got, use_process=False)
    data = LOGS[0].read_bytes()
    fold.send([], data)
    fold.close()
    assert got.done.wait(30)
    assert not fold.in_child
    assert got.last.summary == _fold_here(data, 1 << 30).summary
    assert got.texts() == [t for seg in lines_of(parse_text(data)).segments for t in _texts(seg)]
