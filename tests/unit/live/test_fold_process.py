"""Folding in a child process: the same metrics as folding here, idle when done, and a
child that dies hands the work back instead of hanging the pane's metrics."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from cockpit.live.fold_process import MetricsFolder, events_text
from cockpit.live.log_metrics import LogMetrics
from cockpit.live.metrics_snapshot import MetricsSnapshot
from cockpit.parse.sglang_log import LogParser, parse_text
from paths import CORPUS

LOGS = sorted((CORPUS / "sglang-logs").glob("*.log"))


def _wait(cond, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def _fold_here(data: bytes, chunk: int) -> MetricsSnapshot:
    parser, metrics, n = LogParser(), LogMetrics(), 0
    for i in range(0, len(data), chunk):
        events = parser.feed(data[i:i + chunk])
        metrics.apply_all(events)
        n += len(events)
    return MetricsSnapshot.of(metrics, n)


class Collector:
    def __init__(self) -> None:
        self.snapshots: list[MetricsSnapshot] = []
        self.lock = threading.Lock()

    def __call__(self, snap: MetricsSnapshot) -> None:
        with self.lock:
            self.snapshots.append(snap)

    @property
    def last(self) -> MetricsSnapshot:
        return self.snapshots[-1]


@pytest.mark.parametrize("log", LOGS[::5], ids=lambda p: p.name)
def test_events_text_parses_back_to_the_same_events(log: Path) -> None:
    events = parse_text(log.read_bytes())
    again = parse_text(events_text(events))
    assert [(type(e).__name__, e.line) for e in again] == [(type(e).__name__, e.line) for e in events]


def test_the_child_folds_what_this_process_would() -> None:
    data = b"".join(p.read_bytes() for p in LOGS)
    want = _fold_here(data, 1 << 30)
    got = Collector()
    folder = MetricsFolder(got)
    parser = LogParser()
    for i in range(0, len(data), 3000):  # batches as the feed sends them
        folder.submit(parser.feed(data[i:i + 3000]))
    folder.submit(parser.end())
    _wait(lambda: folder.idle)
    assert folder.in_child
    snap = got.last
    assert snap.summary == want.summary
    assert snap.points == want.points and snap.peak == want.peak
    assert (snap.run_index, snap.run_state, snap.model, snap.dp_ranks) == \
        (want.run_index, want.run_state, want.model, want.dp_ranks)
    assert snap.summary["decode_lines"] > 0
    folder.stop()


def test_a_seed_summary_counts_before_the_lines() -> None:
    got = Collector()
    folder = MetricsFolder(got)
    folder.seed({"decode_lines": 1000, "prefill_lines": 5, "max_gen_throughput": 9999.0})
    folder.submit(parse_text(LOGS[0].read_bytes()))
    _wait(lambda: folder.idle)
    alone = _fold_here(LOGS[0].read_bytes(), 1 << 30).summary
    assert got.last.summary["decode_lines"] == 1000 + alone["decode_lines"]
    assert got.last.summary["max_gen_throughput"] == 9999.0
    folder.stop()


def test_a_dead_child_hands_the_folding_back() -> None:
    got = Collector()
    folder = MetricsFolder(got)
    events = parse_text(LOGS[0].read_bytes())
    folder.submit(events)
    _wait(lambda: folder.idle)
    assert folder._proc is not None
    folder._proc.kill()
    folder._proc.wait()
    folder.submit(events)  # written into a closed pipe: folded here from now on
    folder.submit(events)
    _wait(lambda: folder.idle)
    assert folder.metrics is not None  # the in-process fallback took over
    assert got.last.lines >= len(events)
    folder.stop()


def test_without_a_child_the_thread_folds() -> None:
    got = Collector()
    folder = MetricsFolder(got, use_process=False)
    data = LOGS[0].read_bytes()
    folder.submit(parse_text(data))
    _wait(lambda: folder.idle)
    assert not folder.in_child
    assert got.last.summary == _fold_here(data, 1 << 30).summary
    folder.stop()
