"""The GPU pane: snapshots at 80x24 (compact) and 120x40 with 1, 2, 4 and 8 GPUs, missing
fields, no driver, reconnecting; Pilot tests for ticks, the PCIe flag and throughput.

Samples come from real text: the demo capture (`sessions/demo/nvidia-smi-query.csv`,
8x RTX PRO 6000 over nvidia-smi) and corpus pastes (`nvidia-smi` tables), parsed by the
real parsers. Time comes from the samples, never from the clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest
from textual.widget import Widget

from paths import CORPUS as SHARED_CORPUS
from tui_support import OnePaneApp

from cockpit.model.figures import number
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_query import QUERY_FIELDS, parse_nvsmi_table, parse_query_csv
from cockpit.parse.gpu.nvsmi_topo import parse_topology
from cockpit.parse.gpu.sample import GpuSample
from cockpit.ui.render.gpu_columns import pcie_downgraded
from cockpit.ui.widgets.gpu.pane import GpuPane

REPO = Path(__file__).resolve().parents[2]
DEMO_CSV = REPO / "sessions" / "demo" / "nvidia-smi-query.csv"
DEMO_TOPO = REPO / "sessions" / "demo" / "nvidia-smi-topo.txt"
CORPUS = SHARED_CORPUS / "nvidia-smi"
HOST = "lxc"


PaneApp = OnePaneApp


# ----- samples from real text ------------------------------------------------------------------

def demo_ticks(gpus: int = 8, ticks: int = 60, *, host: str = HOST) -> list[GpuSamplesTaken]:
    """The first `ticks` ticks of the demo capture, GPUs 0..gpus-1, NUMA from its `topo -m`."""
    numa = parse_topology(DEMO_TOPO.read_text()).numa_affinity or {}
    samples = parse_query_csv(DEMO_CSV.read_text(), QUERY_FIELDS, host=host)
    out = []
    for stamp, group in groupby(samples, key=lambda s: s.timestamp):
        batch = tuple(replace(s, numa_node=int(numa[f"GPU{s.index}"] or 0)) for s in group if s.index < gpus)
        out.append(GpuSamplesTaken(host, batch, float(stamp or 0)))
        if len(out) == ticks:
            break
    return out


def edit_tick(tick: GpuSamplesTaken, index: int, **changes: Any) -> GpuSamplesTaken:
    samples = tuple(replace(s, **changes) if s.index == index else s for s in tick.samples)
    return GpuSamplesTaken(tick.host, samples, tick.taken_at)


def corpus_table_tick(name: str, taken_at: float = 1_772_440_200.0) -> GpuSamplesTaken:
    """A corpus `nvidia-smi` table paste as one tick (clocks, PCIe, NUMA absent)."""
    samples = parse_nvsmi_table((CORPUS / name).read_text(), host="a100-box")
    return GpuSamplesTaken("a100-box", tuple(samples), taken_at)


def gb10_like_tick() -> GpuSamplesTaken:
    """One GPU whose driver prints `[N/A]` for the power limit and the NUMA node (as a GB10
    does for the limit; NVML says NotSupported for NUMA on non-coherent hosts)."""
    line = ("2026/03/02 09:30:00.004, 0, NVIDIA GB10, GPU-00000000-0000-0000-0000-00000000gb10, "
            "38.20, [N/A], 12, 3, [N/A], [N/A], 47, 2405, 3003, [N/A], [N/A], [N/A], [N/A], 0x0000000000000000")
    (s,) = parse_query_csv(line, QUERY_FIELDS, host="spark")
    s = replace(s, notes={**s.notes, "numa_node": "[N/A]"})
    return GpuSamplesTaken("spark", (s,), s.timestamp or 0.0)


def downgraded(ticks: list[GpuSamplesTaken], index: int = 3) -> list[GpuSamplesTaken]:
    """The demo ticks with GPU `index` stuck at gen4 x8 in a gen5 x16 slot."""
    return [edit_tick(t, index, pcie_gen=4, pcie_width=8) for t in ticks]


def pane_app(items: Sequence[Any], after: Callable[[Widget], None] | None = None) -> PaneApp:
    return PaneApp(lambda: GpuPane(id="gpu"), items, after)


def described(pane: Widget) -> None:
    pane.set_state("nvidia-smi on lxc every 1 s")  # type: ignore[attr-defined]


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


# ----- snapshots ---------------------------------------------------------------------------------

class TestGpuPaneSnapshots:
    @pytest.mark.parametrize("size", SIZES)
    @pytest.mark.parametrize("gpus", [1, 2, 4, 8])
    def test_demo_gpus(self, snap_compare, gpus: int, size: tuple[int, int]) -> None:
        """A row per GPU with bar, figures and a sparkline of 60 s; the total reads
        `N W of M W`; 80x24 is one line per GPU, 120x40 two (with names and clocks).
        With 4 GPUs, GPU 3 runs at gen4x8 and its PCIe cell is flagged."""
        ticks = demo_ticks(gpus)
        if gpus == 4:
            ticks = downgraded(ticks)
        assert snap_compare(pane_app(ticks, described), terminal_size=size)

    @pytest.mark.parametrize("size", SIZES)
    def test_corpus_table_without_clocks_or_pcie(self, snap_compare, size: tuple[int, int]) -> None:
        """Two A100s from a pasted `nvidia-smi` table: clocks, PCIe, NUMA show `–` and the
        footnotes say they were not reported."""
        assert snap_compare(pane_app([corpus_table_tick("002.txt")]), terminal_size=size)

    @pytest.mark.parametrize("size", SIZES)
    def test_missing_power_limit_and_numa(self, snap_compare, size: tuple[int, int]) -> None:
        """No power limit: the bar is empty, `38/–W`, no percentage, and one footnote for the
        one reason, `power limit, memory, pcie, numa: [N/A] on GPU 0`."""
        assert snap_compare(pane_app([gb10_like_tick()]), terminal_size=size)

    def test_no_driver(self, snap_compare) -> None:
        """One clear message and nothing else."""
        item = GpuSourceUnavailable("No NVIDIA driver on this machine (libnvidia-ml.so.1 not found): no local GPUs.")
        assert snap_compare(pane_app([item]), terminal_size=(80, 24))

    @pytest.mark.parametrize("size", SIZES)
    def test_reconnecting(self, snap_compare, size: tuple[int, int]) -> None:
        """The last figures stay, dimmed, under `lxc: reconnecting in 4 s (...)`."""
        items = [*demo_ticks(8, 20), GpuStreamInterrupted(HOST, "connection lost", 4)]
        assert snap_compare(pane_app(items, described), terminal_size=size)

    def test_tokens_per_joule(self, snap_compare) -> None:
        """With a throughput series the total shows tokens per joule and its sparkline."""
        ticks = demo_ticks(8, 60)
        series = [(t.taken_at, 4000.0 + 40 * (i % 15)) for i, t in enumerate(ticks)]
        assert snap_compare(pane_app(ticks, lambda p: p.set_throughput(series)),  # type: ignore[attr-defined]
                            terminal_size=(120, 40))


# ----- behaviour -----------------------------------------------------------------------------

def _text(pane: GpuPane, part: str) -> str:
    return str(pane.query_one(f".gpu-{part}").render())


async def test_ten_ticks_update_the_sparkline_and_the_total() -> None:
    ticks = demo_ticks(8, 10)
    app = pane_app([])
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(GpuPane)
        await pilot.pause()
        assert "waiting" in _text(pane, "header")
        seen_totals = []
        for tick in ticks:
            pane.feed(tick)
            await pilot.pause()
            seen_totals.append(_text(pane, "total"))
        assert pane.compact
        assert len(pane.history.series(("lxc", 0))) == 10
        expected = pane.history.headline()
        assert expected in seen_totals[-1]
        assert len(set(seen_totals)) > 1, "the total line follows the ticks"
        rows = _text(pane, "rows").splitlines()
        assert len(rows) == 8
        spark = rows[0].split()[-1]
        assert len(spark) == 10 and set(spark) <= set("▁▂▃▄▅▆▇█")


async def test_a_downgraded_link_is_flagged_and_explained() -> None:
    ticks = downgraded(demo_ticks(8, 3), index=5)
    app = pane_app(ticks)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.query_one(GpuPane)
        rows = _text(pane, "rows").splitlines()
        gpu5 = next(r for r in rows if r.lstrip().startswith("5 "))
        assert "gen4x8<5x16" in gpu5
        assert "<" not in "".join(r for r in rows if not r.lstrip().startswith("5 "))
        assert "GPU 5 link at gen4x8" in _text(pane, "notes")


def test_an_idle_gpu_at_a_lower_generation_is_not_flagged() -> None:
    (s,) = parse_query_csv("2026/03/02 09:30:00.004, 0, X, U, 30, 600, 0, 0, 1, 2, 30, 200, 2617, 1, 5, 16, 16, 0x1")
    assert not pcie_downgraded(s)
    assert pcie_downgraded(replace(s, util_gpu_pct=80))
    assert pcie_downgraded(replace(s, pcie_width=8))


async def test_one_render_per_tick_however_many_gpus() -> None:
    app = pane_app([])
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(GpuPane)
        await pilot.pause()
        calls = []
        original = pane._redraw
        pane._redraw = lambda: (calls.append(1), original())[1]  # type: ignore[method-assign]
        for tick in demo_ticks(8, 3):
            pane.feed(tick)
        await pilot.pause()
        assert len(calls) == 1, "three ticks fed between two refreshes render once"


async def test_unavailable_then_samples_recover_and_interrupt_clears() -> None:
    app = pane_app([GpuSourceUnavailable("no nvidia-smi on lxc", host=HOST)])
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(GpuPane)
        await pilot.pause()
        assert _text(pane, "state") == "No GPU data: no nvidia-smi on lxc"
        ticks = demo_ticks(2, 2)
        pane.feed(ticks[0])
        pane.feed(GpuStreamInterrupted(HOST, "timeout", 8))
        await pilot.pause()
        assert "reconnecting in 8 s" in _text(pane, "state")
        pane.feed(GpuStreamInterrupted(HOST, "refused", 0.1))  # a DCGM scrape every 0.1 s: retried at once
        await pilot.pause()
        assert f"{HOST}: retrying (refused)" in _text(pane, "state")
        pane.feed(ticks[1])
        await pilot.pause()
        assert "reconnecting" not in _text(pane, "state")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_throughput_gives_tokens_per_joule_on_the_power_axis(size: tuple[int, int]) -> None:
    ticks = demo_ticks(8, 10)
    app = pane_app(ticks)
    async with app.run_test(size=size) as pilot:
        pane = app.query_one(GpuPane)
        await pilot.pause()
        assert "tok/J" not in _text(pane, "total")
        pane.set_throughput([(t.taken_at, 5000.0) for t in ticks])
        await pilot.pause()
        expected = pane.history.tokens_per_joule(pane.throughput or [])
        assert expected is not None
        span = ticks[-1].taken_at - ticks[0].taken_at
        # it says what it divides (a sweep point's tok/J divides its client's tokens over its main
        # run) at every width: the log's generated tokens over the GPUs' J, and over which span
        what = "log gen÷GPU J" if size[0] < 120 else "log gen tok ÷ GPU J"
        said = f"{number(expected)} tok/J ({what}, last {span:.0f} s)"
        assert said in _text(pane, "total")


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_no_tokens_per_joule_once_generation_stopped(size: tuple[int, int]) -> None:
    """A stopped (or idle) server: power still sampled, no batch line for a minute, or only
    zero throughput: no tok/J figure, whatever the past gave."""
    ticks = demo_ticks(8, 60)
    span = ticks[-1].taken_at - ticks[0].taken_at
    assert span > 45, span  # the capture's ticks cover more than the generating window
    app = pane_app(ticks)
    async with app.run_test(size=size) as pilot:
        pane = app.query_one(GpuPane)
        await pilot.pause()
        pane.set_throughput([(t.taken_at, 5000.0) for t in ticks])
        await pilot.pause()
        assert re.search(r"\d tok/J \(log", _text(pane, "total").splitlines()[0]), "generating now: the figure shows"
        early = [t for t in ticks if t.taken_at < ticks[-1].taken_at - 40]
        pane.set_throughput([(t.taken_at, 5000.0) for t in early])  # the log stopped a while ago
        await pilot.pause()
        head = _text(pane, "total").splitlines()[0]  # the figure; the full layout's spark below is history
        assert not re.search(r"\d tok/J \(log", head), head
        pane.set_throughput([(t.taken_at, 5000.0) for t in early] + [(ticks[-1].taken_at, 0.0)])
        await pilot.pause()
        head = _text(pane, "total").splitlines()[0]
        assert not re.search(r"\d tok/J \(log", head), "zero throughput is no generation"


async def test_history_stays_bounded() -> None:
    app = PaneApp(lambda: GpuPane(id="gpu", history_points=5))
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(GpuPane)
        for tick in demo_ticks(2, 12):
            pane.feed(tick)
        await pilot.pause()
        assert len(pane.history.series(("lxc", 0))) == 5


async def test_topology_fills_numa_for_sources_without_it() -> None:
    ticks = [GpuSamplesTaken(t.host, tuple(replace(s, numa_node=None) for s in t.samples), t.taken_at)
             for t in demo_ticks(8, 2)]
    app = pane_app(ticks)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(GpuPane)
        await pilot.pause()
        assert "numa: not reported" in _text(pane, "notes")
        pane.feed(parse_topology(DEMO_TOPO.read_text()))
        await pilot.pause()
        assert "numa" not in _text(pane, "notes")
        assert [s.numa_node for s in pane.samples] == [0, 0, 0, 0, 1, 1, 1, 1]


def test_samples_are_gpu_samples() -> None:
    assert all(isinstance(s, GpuSample) for t in demo_ticks(8, 2) for s in t.samples)


def _dimmed_rows(pane: GpuPane) -> dict[str, bool]:
    """Each row's label -> whether it is drawn dimmed (every character of it)."""
    from rich.text import Text

    rows = pane.query_one(".gpu-rows").content  # type: ignore[attr-defined]
    assert isinstance(rows, Text)
    out = {}
    for line in rows.split("\n"):
        dim = [span for span in line.spans if getattr(span.style, "dim", False)]
        out[line.plain.split()[0]] = any(s.start == 0 and s.end >= len(line.plain.rstrip()) for s in dim)
    return out


async def test_one_host_reconnecting_dims_only_its_rows_and_keeps_the_others_message() -> None:
    ticks = [*demo_ticks(2, 3, host="node1"), *demo_ticks(1, 3, host="node2")]
    app = pane_app(ticks)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(GpuPane)
        await pilot.pause()
        assert not any(_dimmed_rows(pane).values())
        pane.feed(GpuStreamInterrupted("node2", "timeout", 8))
        await pilot.pause()
        assert _text(pane, "state") == "node2: reconnecting in 8 s (timeout); node2's rows are stale"
        assert _dimmed_rows(pane) == {"node1:0": False, "node1:1": False, "node2:0": True}
        # the other host drops too: both messages, neither replaces the other
        pane.feed(GpuStreamInterrupted("node1", "connection reset", 4))
        await pilot.pause()
        assert _text(pane, "state").splitlines() == [
            "node1: reconnecting in 4 s (connection reset); node1's rows are stale",
            "node2: reconnecting in 8 s (timeout); node2's rows are stale"]
        assert all(_dimmed_rows(pane).values())
        # node2 is back: its message and its dimming go; node1's stay
        pane.feed(demo_ticks(1, 4, host="node2")[-1])
        await pilot.pause()
        assert _text(pane, "state") == "node1: reconnecting in 4 s (connection reset); node1's rows are stale"
        assert _dimmed_rows(pane) == {"node1:0": True, "node1:1": True, "node2:0": False}
