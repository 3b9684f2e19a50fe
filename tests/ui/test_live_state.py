"""Live panes tell the truth about their data: the GPU pane keeps drawing new ticks after a
form came and went, and every live pane shows how old its data is, with a "stale" mark
when the source has gone quiet (GPU) or lost its connection (log)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import replace

from textual.widgets import Static
from tui_support import fill, make_app, until

from cockpit.sources.gpu_events import GpuSamplesTaken
from cockpit.ui.screens.forms import BenchmarkForm
from cockpit.ui.sources import LiveSources
from cockpit.ui.widgets.gpu_pane import GpuPane
from test_gpu_panes import demo_ticks


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
    content = app.main_screen.query_one(GpuPane).query_one(f".gpu-{part}", Static).content
    return str(getattr(content, "plain", content))


async def test_gpu_rows_keep_updating_after_benchmarks_are_added_through_the_form(session_path):
    # The pane's redraw was queued on whichever screen was on top: a tick that came while
    # the form was open could be queued on the form, dropped with it, and the pane never
    # drew again (its last drawing was the one made while hidden: no util column).
    # A race: before the fix each round froze the pane about half the time.
    app = make_app(session_path, sources=LiveSources(gpu=BusyGpuFeed(lambda: isinstance(app.screen, BenchmarkForm))))
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
            await until(lambda: gpu_text(app, "rows") != before, pilot, timeout=3)
            assert "util" in gpu_text(app, "header").split()
    assert [b.label for b in app.editor.session.benchmarks[-ROUNDS:]] == [f"c={n + 1}" for n in range(ROUNDS)]
