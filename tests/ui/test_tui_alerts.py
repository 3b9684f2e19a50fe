"""Alerts in the header while another tab is shown; `!` jumps to the cause; a stale feed
is marked and raises one."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from tui_support import FROZEN, make_app, screen_text, until

from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.gpu.sample import GpuSample
from cockpit.sources.feeds import LiveSources
from cockpit.sources.log.feed import LogFeed
from cockpit.ui.widgets.gpu.pane import GpuPane

START = [
    "[2026-11-29 09:00:00] server_args=ServerArgs(model_path='/models/GLM-5-NVFP4', tp_size=8)",
    "[2026-11-29 09:00:05 TP0] Load weight begin. avail mem=90.00 GB",
    "[2026-11-29 09:01:00] The server is fired up and ready to roll!",
    "[2026-11-29 09:01:05 TP0] Decode batch, #running-req: 1, #token: 100, token usage: 0.01, "
    "gen throughput (token/s): 12.00, #queue-req: 0,",
]
CRASH = [
    "[2026-11-29 09:02:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2100, in run_scheduler_process',
    "    scheduler.event_loop_overlap()",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
]


def _write(path: Path, lines: list[str]) -> None:
    with path.open("a", encoding="utf-8", newline="\n") as f:
        f.write("".join(line + "\n" for line in lines))


async def test_a_crash_in_the_followed_log_raises_an_alert_while_another_tab_is_shown(session_path, tmp_path):
    log = tmp_path / "server.log"
    _write(log, START)
    sources = LiveSources(log=LogFeed.local(str(log), lines=1000, max_delay_s=0.02))
    app = make_app(session_path, sources=sources)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: app.main_screen.query_one("#log").metrics.run_state == "ready", pilot, 15)
        await pilot.press("4")  # Benchmarks: the log is out of sight
        assert "⚠" not in screen_text(app)
        _write(log, CRASH)
        await until(lambda: bool(app.alerts.unseen), pilot, 15)
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "⚠ server crashed (run 1): cuda_oom · torch.OutOfMemoryError" in header, header
        assert app.main_screen.active_tab == "benchmarks", "the alert does not move you"
        await pilot.press("exclamation_mark")
        assert app.main_screen.active_tab == "main"
        assert app.main_screen.main_pane == "log" and app.main_screen.query_one("#log").has_focus_within
        assert "⚠" not in screen_text(app).splitlines()[0], "seen: gone from the header"


async def test_a_crash_alert_names_its_label_not_the_raw_log_prefix(session_path, tmp_path):
    log = tmp_path / "server.log"
    _write(log, START)
    sources = LiveSources(log=LogFeed.local(str(log), lines=1000, max_delay_s=0.02))
    app = make_app(session_path, sources=sources)
    async with app.run_test(size=(160, 40)) as pilot:
        await until(lambda: app.main_screen.query_one("#log").metrics.run_state == "ready", pilot, 15)
        await pilot.press("4")
        _write(log, ["[2026-11-29 09:02:00] Received sigquit from a child process. It usually means the child failed."])
        await until(lambda: bool(app.alerts.unseen), pilot, 15)
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "⚠ server crashed (run 1): child_failed · Received sigquit from a child" in header, header
        assert "[2026-11-29" not in header, header


class StoppingGpuFeed:
    """Two samples a second apart, then silence (the stream stays open, as a hung link does)."""

    description = "fake nvidia-smi on gpu1"
    interval_s = 1.0

    async def stream(self):  # noqa: ANN201
        sample = GpuSample(index=0, name="H200", power_w=300.0, power_limit_w=700.0, util_gpu_pct=90.0)
        yield GpuSamplesTaken(None, (sample,), FROZEN.timestamp())
        await asyncio.Event().wait()


async def test_a_gpu_feed_that_stops_is_marked_stale_and_raises_an_alert(session_path):
    now = [FROZEN]
    app = make_app(session_path, sources=LiveSources(gpu=StoppingGpuFeed()), clock=lambda: now[0])
    async with app.run_test(size=(120, 40)) as pilot:
        gpu = app.main_screen.query_one(GpuPane)
        await until(lambda: gpu.age.last_at is not None, pilot)
        app.main_screen.tick()
        assert "updated just now" in str(gpu.border_subtitle)
        assert not app.alerts.unseen
        now[0] = FROZEN + timedelta(seconds=30)
        app.main_screen.tick()
        await pilot.pause()
        assert "stale · 30 s" in str(gpu.border_subtitle)
        assert gpu.has_class("-stale-data")
        assert "⚠ GPU feed stale" in screen_text(app).splitlines()[0]


async def test_a_host_that_drops_raises_an_alert_and_the_bell_setting_is_saved(session_path):
    from cockpit.store.toml_store import load_session

    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        rang: list[bool] = []
        app.bell = lambda: rang.append(True)  # type: ignore[method-assign]
        await pilot.press("ctrl+g")
        app.feeds.set_host_state("lxc", "connected")
        app.feeds.set_host_state("lxc", "reconnecting in 8 s")
        await pilot.pause()
        assert "⚠ host lxc dropped: reconnecting in 8 s" in screen_text(app).splitlines()[0]
        assert rang == [True]
        await pilot.press("ctrl+s")
    assert load_session(session_path).ui.alert_bell is True


