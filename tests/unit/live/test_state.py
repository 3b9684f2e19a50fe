"""The live state below the UI (live/state.py): each `kind@host` folded once, read as frozen
snapshots. Real items: a corpus log through the parser and the pipeline's row shape, the demo's
nvidia-smi samples, SGLang `/metrics` pages through the real exposition parser."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest

from cockpit.live.gpu.power_history import PowerHistory, tokens_per_joule
from cockpit.live.log.items import NOTE_LINE, LogLines, SourceState, lines_of
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.snapshot import snapshot_of
from cockpit.live.state import LiveState
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.log.sglang_log import parse_line
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.parse.metrics.prom_text import parse_exposition

DATA = Path(__file__).resolve().parents[2] / "data"
PAGES = [(DATA / "metrics" / f"sglang-0.4-dp2-{n}.txt").read_text(encoding="utf-8") for n in "ab"]
LOG = (DATA / "diagnosis" / "09-queue-log-032" / "server.log").read_text(encoding="utf-8").splitlines()
URL = "http://127.0.0.1:30000/metrics"


def rows(lines: list[str], *, preview: bool = False, notes: tuple[str, ...] = ()) -> LogLines:
    return lines_of([parse_line(line) for line in lines], notes, preview=preview)


def tick(host: str | None, t: float, watts: float, gpus: int = 2) -> GpuSamplesTaken:
    return GpuSamplesTaken(host, tuple(GpuSample(index=i, name="H100", power_w=watts, power_limit_w=700, host=host)
                                       for i in range(gpus)), t)


def test_a_log_is_kept_as_its_last_lines_numbered_as_read() -> None:
    state = LiveState(kept_lines=5)
    state.take("log@gpu1", rows(LOG[-10:], preview=True))  # a big first read's tail, at once
    state.take("log@gpu1", rows(LOG, notes=("rotated",)))  # then all of it: the preview's place
    state.take("log@gpu1", SourceState("tail gpu1:/var/log/sglang.log", connected=True))
    log = state.log("gpu1")
    assert log is not None
    assert log.read == len(LOG) and log.total == len(LOG) + 1  # the note is a line shown, not one read
    assert log.lines == tuple(LOG[-5:])  # bounded: the newest kept
    assert log.first_line == log.total - 4
    assert log.state == "tail gpu1:/var/log/sglang.log" and log.connected is True
    assert state.log("gpu2") is None and state.log() == log


def test_gpu_ticks_fold_into_a_history_a_power_total_and_a_problem() -> None:
    state = LiveState(gpu_history=5)
    for n in range(4):
        state.take("gpu@gpu1", tick("gpu1", 100.0 + n, 300 + 10 * n))
    gpu = state.gpu("gpu1")
    assert gpu is not None and gpu.tick is not None and gpu.tick.taken_at == 103.0
    assert len(gpu.history) == 5  # bounded: the newest kept
    assert gpu.power_total == ((100.0, 600.0), (101.0, 620.0), (102.0, 640.0), (103.0, 660.0))
    state.take("gpu@gpu1", GpuStreamInterrupted("gpu1", "connection lost", 4))
    assert state.gpu("gpu1").problem == "gpu1: connection lost; restarting in 4 s"  # type: ignore[union-attr]
    state.take("gpu@gpu1", GpuSourceUnavailable("no nvidia-smi on gpu1", host="gpu1"))
    gone = state.gpu("gpu1")
    assert gone is not None and gone.tick is None and gone.problem == "no nvidia-smi on gpu1"
    state.take("gpu", tick(None, 200.0, 100))  # a fixed feed (no host) is a fold of its own
    assert state.gpu("gpu1") == gone and state.gpu() == gone  # the first GPU feed still
    assert state.keys("gpu") == ["gpu@gpu1", "gpu"] and state.gpu("nohost") is None


def test_metrics_keep_the_windows_scrapes_of_this_run() -> None:
    state = LiveState()
    for n, page in enumerate(PAGES):
        state.take("metrics@gpu1", MetricsScraped("gpu1", URL, parse_exposition(page), 1000.0 + 5 * n, 0.01))
    server = state.server("gpu1")
    assert server is not None and server.metrics.state == "ok" and server.metrics.scrapes == 2
    assert len(server.scrapes) == 2 and server.scrapes[-1].gauges == server.metrics.gauges
    state.take("metrics@gpu1", MetricsScrapeFailed("gpu1", URL, "connection refused", 1010.0))
    failing = state.server("gpu1")
    assert failing is not None and failing.metrics.state == "failing" and len(failing.scrapes) == 2
    state.take("metrics@gpu1", MetricsScraped("gpu1", URL, parse_exposition(PAGES[0]), 1015.0, 0.01))
    restarted = state.server("gpu1")  # counters went down: a new server run, its window anew
    assert restarted is not None and restarted.metrics.run_index == 1 and len(restarted.scrapes) == 1


def test_hosts_are_apart_and_a_forgotten_key_is_gone() -> None:
    state = LiveState()
    state.take("gpu@b", tick("b", 1.0, 200))
    state.take("gpu@a", tick("a", 1.0, 400))
    assert state.hosts() == ["b", "a"] and state.keys("gpu") == ["gpu@b", "gpu@a"]
    assert state.snapshot().gpu == state.gpu("b")  # no host: the first feed of each kind
    assert state.snapshot("a").gpu.power_total == ((1.0, 800.0),)  # type: ignore[union-attr]
    assert state.power.headline() == "1200 W of 2800 W"  # every feed's GPUs: what the GPU pane draws
    assert state.power.headline("b") == "400 W of 1400 W"
    state.forget("gpu@b")
    assert state.gpu("b") is None and state.snapshot().gpu == state.gpu("a")
    assert state.power.headline() == "800 W of 1400 W"  # b's GPUs left the totals
    state.take("gpu@a", MetricsSnapshot())  # a log's item on a GPU feed: no fold takes it
    assert state.log("a") is None and state.taken == 2


def test_a_snapshot_is_frozen_and_its_tok_per_joule_is_the_gpu_panes() -> None:
    state = LiveState()
    for n in range(6):
        state.take("gpu@a", tick("a", 100.0 + n, 300 + 20 * n))
    throughput = tuple((100.0 + n, 4000.0 + 100 * n) for n in range(6))
    state.take("log@a", MetricsSnapshot(points={"gen_throughput": throughput}))
    snap = state.snapshot("a")
    with pytest.raises(FrozenInstanceError):
        snap.host = "b"  # type: ignore[misc]
    history = PowerHistory()  # what the GPU pane folds from the same ticks
    for n in range(6):
        history.add(tick("a", 100.0 + n, 300 + 20 * n).samples, t=100.0 + n)
    expected = history.tokens_per_joule(throughput)
    assert expected is not None and snap.tokens_per_joule == pytest.approx(expected)
    assert tokens_per_joule(throughput, snap.gpu.power_total) == snap.tokens_per_joule  # type: ignore[union-attr]
    assert replace(snap, log=None).tokens_per_joule is None


def test_files_make_the_same_shape_of_snapshot() -> None:
    snap = snapshot_of(log_lines=LOG[:20], gpus=tick(None, 1.0, 100).samples)
    assert snap.log is not None and snap.log.lines == tuple(LOG[:20]) and snap.log.first_line == 1
    assert snap.gpu is not None and len(snap.gpu.history) == 2 and snap.server is None and snap.topology is None


def test_a_note_line_is_shown_not_counted_as_read() -> None:
    state = LiveState()
    state.take("log", LogLines([(NOTE_LINE, "── reconnecting ──")], 0))
    log = state.log()
    assert log is not None and log.lines == ("── reconnecting ──",) and log.read == 0 and log.total == 1
