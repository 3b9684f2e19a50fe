"""Live panes tell the truth about their data: the GPU pane keeps drawing new ticks after a
form came and went, and every live pane shows how old its data is, with a "stale" mark
when the source has gone quiet (GPU) or lost its connection (log)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace
from datetime import timedelta

from test_gpu_panes import DEMO_TOPO, demo_ticks

from tui_support import FROZEN, fill, make_app, screen_text, until

from cockpit.control.log_pipeline import LogPipeline
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.gpu.nvsmi_topo import parse_topology
from cockpit.sources.feeds import LiveSources
from cockpit.sources.log.batch import LogBatch
from cockpit.ui.app import CockpitApp
from cockpit.ui.screens.forms.records import BenchmarkForm
from cockpit.ui.widgets.gpu.pane import GpuPane
from cockpit.ui.widgets.gpu.topology_pane import TopologyPane
from cockpit.ui.widgets.log.pane import LogPane


class BusyGpuFeed:
    """The demo's 8 GPUs, utilisation counting up so that every tick draws different rows;
    a tick every few milliseconds while `busy()` (a form is open: many ticks land on its
    way out), else every 0.1 s (keys stay quick)."""

    description = "fake: 8 GPUs"

    def __init__(self, busy) -> None:  # noqa: ANN001
        self.busy = busy

    async def stream(self):  # noqa: ANN201
        ticks = demo_ticks(8, 10)
        for n in itertools.count():
            tick = ticks[n % len(ticks)]
            samples = tuple(replace(s, util_gpu_pct=n % 100) for s in tick.samples)
            yield GpuSamplesTaken(tick.host, samples, tick.taken_at + n)
            await asyncio.sleep(0.001 if self.busy() else 0.1)


ROUNDS = 5


def gpu_text(app, part: str) -> str:  # noqa: ANN001
    """What the GPU pane's `.gpu-<part>` line(s) show now."""
    content = app.main_screen.query_one(GpuPane).query_one(f".gpu-{part}").content  # Static or StripLines
    return str(getattr(content, "plain", content))


async def test_gpu_rows_keep_updating_after_benchmarks_are_added_through_the_form(session_path):
    # The pane's redraw was queued on whichever screen was on top: a tick that came while
    # the form was open could be queued on the form, dropped with it, and the pane never
    # drew again (its last drawing was the one made while hidden: no util column).
    # A race: before the fix each round froze the pane about half the time.
    app: CockpitApp = make_app(session_path, sources=LiveSources(
        gpu=BusyGpuFeed(lambda: isinstance(app.screen, BenchmarkForm))))
    async with app.run_test(size=(160, 50)) as pilot:
        await until(lambda: "%" in gpu_text(app, "rows"), pilot)
        for n in range(ROUNDS):
            await pilot.press("4", "a")
            form = app.screen
            assert isinstance(form, BenchmarkForm)
            fill(form, label=f"c={n + 1}", concurrency=str(n + 1), total_tok_s="900")
            await pilot.pause(0.05)  # ticks come while the form is open
            await pilot.press("ctrl+s")
            assert app.screen is app.main_screen
            await pilot.press("1")
            await pilot.pause()
            before = gpu_text(app, "rows")
            await until(lambda: gpu_text(app, "rows") != before, pilot, timeout=3)  # noqa: B023 - awaited here
            assert "util" in gpu_text(app, "header").split()
    assert [b.label for b in app.editor.session.benchmarks[-ROUNDS:]] == [f"c={n + 1}" for n in range(ROUNDS)]


# ----- the age of each live pane's data ---------------------------------------------------------

class Clock:
    """The app's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = FROZEN

    def __call__(self):  # noqa: ANN204
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class QueueFeed:
    """Items when the test puts them; `interval_s` as a sampled source states it."""

    def __init__(self, description: str, interval_s: float | None = None) -> None:
        self.description = description
        self.queue: asyncio.Queue = asyncio.Queue()
        if interval_s is not None:
            self.interval_s = interval_s

    async def stream(self):  # noqa: ANN201
        while True:
            yield await self.queue.get()


def log_batch(*lines: str, **kw) -> LogBatch:  # noqa: ANN003
    """A batch as `LogFeed.stream()` yields it (for a LogPipeline)."""
    return LogBatch(data="".join(line + "\n" for line in lines).encode(), **kw)


LINE = "[2026-11-29 09:30:00] The server is fired up and ready to roll!"


def subtitle(pane) -> str:  # noqa: ANN001
    return str(pane.border_subtitle or "")


async def test_gpu_figures_go_stale_after_five_quiet_intervals_and_fresh_ones_clear_it(session_path):
    clock, gpu = Clock(), QueueFeed("nvidia-smi on lxc every 1 s", interval_s=1.0)
    app = make_app(session_path, clock=clock, sources=LiveSources(gpu=gpu))
    ticks = demo_ticks(8, 3)
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.main_screen.query_one(GpuPane)
        gpu.queue.put_nowait(ticks[0])
        await until(lambda: "updated just now" in screen_text(app), pilot)
        clock.advance(4)  # four quiet intervals: old, not stale
        await until(lambda: "updated 4 s ago" in screen_text(app), pilot)
        assert not pane.has_class("-stale-data")
        clock.advance(21)
        await until(lambda: "stale · 25 s" in screen_text(app), pilot)
        assert pane.has_class("-stale-data")
        gpu.queue.put_nowait(ticks[1])
        await until(lambda: "updated just now" in screen_text(app), pilot)
        assert not pane.has_class("-stale-data")


async def test_a_quiet_log_is_only_aged_a_dropped_one_is_stale(session_path):
    clock, log = Clock(), QueueFeed("tail gpu1:/var/log/sglang.log")
    app = make_app(session_path, clock=clock, sources=LiveSources(log=LogPipeline(log)))
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.main_screen.query_one(LogPane)
        log.queue.put_nowait(log_batch(LINE, connected=True))
        # the first read is what the file held at open: when cockpit read it, not when it was written
        await until(lambda: "1 lines · read just now" in screen_text(app), pilot)
        clock.advance(150)
        await until(lambda: "read 2 min ago" in screen_text(app), pilot)
        assert not pane.has_class("-stale-data"), "a quiet log is not stale"
        log.queue.put_nowait(log_batch(connected=False, state="gpu1: connection reset; reconnecting in 8 s"))
        await until(lambda: "stale · 2 min" in screen_text(app), pilot)
        assert pane.has_class("-stale-data")
        log.queue.put_nowait(log_batch(LINE, connected=True, state="tail gpu1:/var/log/sglang.log"))
        await until(lambda: "2 lines · last line just now" in screen_text(app), pilot)
        assert not pane.has_class("-stale-data")


async def test_a_log_whose_feed_stopped_is_stale(session_path):
    class OneBatch:
        description = "run docker logs -f sglang"

        async def stream(self):  # noqa: ANN202
            yield log_batch(LINE)

    app = make_app(session_path, sources=LiveSources(log=LogPipeline(OneBatch())))
    async with app.run_test(size=(160, 50)) as pilot:
        pane = app.main_screen.query_one(LogPane)
        await until(lambda: "1 lines · stale · 0 s" in screen_text(app), pilot)
        assert pane.has_class("-stale-data")


async def test_the_topology_says_when_it_was_read_and_is_never_stale(session_path):
    clock, topo = Clock(), QueueFeed("nvidia-smi topo -m on lxc")
    app = make_app(session_path, clock=clock, sources=LiveSources(topology=topo))
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("9")
        pane = app.main_screen.query_one(TopologyPane)
        topo.queue.put_nowait(parse_topology(DEMO_TOPO.read_text()))
        await until(lambda: "read just now" in screen_text(app), pilot)
        clock.advance(3 * 3600)
        await until(lambda: "read 3 h ago" in screen_text(app), pilot)
        assert not pane.has_class("-stale-data")


async def test_a_slower_source_may_be_quiet_longer(session_path):
    clock, gpu = Clock(), QueueFeed("nvidia-smi on lxc every 10 s", interval_s=10.0)
    app = make_app(session_path, clock=clock, sources=LiveSources(gpu=gpu))
    async with app.run_test(size=(160, 50)) as pilot:
        gpu.queue.put_nowait(demo_ticks(8, 1)[0])
        await until(lambda: "updated just now" in screen_text(app), pilot)
        clock.advance(25)
        await until(lambda: "updated 25 s ago" in screen_text(app), pilot)
        clock.advance(30)  # five intervals of 10 s
        await until(lambda: "stale · 55 s" in screen_text(app), pilot)


async def test_cockpit_log_marks_a_log_whose_source_stopped():
    from cockpit.ui.log_app import LogApp

    class Failing:
        description = "tail gpu1:/var/log/sglang.log"

        async def stream(self):  # noqa: ANN202
            yield log_batch(LINE)
            raise ConnectionError("gpu1: host key changed")

    app = LogApp(LogPipeline(Failing()), clock=lambda: 0.0)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        await until(lambda: subtitle(pane) == "1 lines · stale · 0 s", pilot)  # (a toast covers the border)
        assert pane.has_class("-stale-data")
