"""A server started and a sweep run from the TUI watch the panes' own feeds: the host's log
is tailed once and its GPUs read once, through the live hub (control/live_hub.py), while the log
pane and the GPU pane go on showing them. The launch watcher follows the start to ready
from the log pane's tail (control/launch_watch.py), the sweep's points from the
same tail and the GPU pane's feed.

Counted at the source: every `LogFeed.stream` (a tail) and `DcgmFeed.stream` (the GPU
feed) opened is counted by its description; and by the hub's own counters (`opened`: feeds
run per key, `subscribed`: who listened to each). The session's host is on this machine with a
dcgm-exporter (tests/metrics_server.py, a recorded page: 612.5 W + 592.5 W) and the
STAND-IN server (cockpit/sandbox/), so the points' power can only have come from the pane's
feed, and their log peaks from the pane's log pipeline.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from standin.procs import free_port, standin_command

from metrics_server import MetricsServer
from sweep_support import make_bench_python
from tui_support import make_app, screen_text, until

from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.sources.log.feed import LogFeed
from cockpit.sources.metrics.scrape import DcgmFeed
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.confirm_run import ConfirmRunScreen, ConfirmStopScreen


def _count_streams(monkeypatch, opened: Counter) -> None:  # noqa: ANN001
    for cls, kind in ((LogFeed, "tail"), (DcgmFeed, "gpu")):
        real = cls.stream

        def counting(self, *args, _real=real, _kind=kind, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            opened[_kind] += 1
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(cls, "stream", counting)


async def _yes(app, pilot) -> None:  # noqa: ANN001
    await until(lambda: type(app.screen) is ConfirmRunScreen, pilot, timeout=20)
    await pilot.press("y")


async def test_a_start_and_a_sweep_from_the_tui_open_no_second_tail_or_gpu_feed(tmp_path: Path, runs: Path, monkeypatch) -> None:
    opened: Counter[str] = Counter()
    _count_streams(monkeypatch, opened)
    port = free_port()
    with MetricsServer("dcgm-exporter-a.txt") as dcgm:
        host = Host(name="box", run_dir=str(runs), log_path=str(tmp_path / "server.log"), gpu_source="dcgm",
                    dcgm_url=dcgm.url, gpu_interval_s=0.05)
        session = Session(title="one feed", hosts=[host], launch=[LaunchProfile(
            id="l1", name="known good", host="box", status=ProfileStatus.WORKING, python=make_bench_python(tmp_path),
            command=standin_command(sys.executable, port, "--standin-load-s", "0.2", "--standin-capture-s", "0.2"))],
            sweeps=[Sweep(id="s1", name="short", input_len=16, output_len=200, prompts=4, concurrencies=[1, 2])])
        path = tmp_path / "one.toml"
        save_session(session, path)
        app = make_app(path, sources=sources_for_session(load_session(path)))
        async with app.run_test(size=(140, 40)) as pilot:
            await until(lambda: opened["tail"] == 1 and opened["gpu"] == 1, pilot, timeout=20)  # the panes' feeds
            await pilot.press("7")
            app.main_screen.query_one("#profile-list").focus()
            await pilot.press("r")
            await _yes(app, pilot)
            await until(lambda: app.experiment.profile_states.get("l1", "").startswith("ready"), pilot, timeout=60)
            # followed to ready from the log pane's tail: one subscriber to log@box, nothing opened for it
            assert app.hub.subscribed["log@box"] == 1
            assert (opened["tail"], opened["gpu"]) == (1, 1)
            assert not [key for key in app.hub.opened if not key.endswith("@box")]
            assert "ready" in app.controller.session.last_action.text
            await pilot.press("B")
            await _yes(app, pilot)
            await until(lambda: app.experiment._runner is None and len(app.controller.session.benchmarks) == 2,
                        pilot, timeout=120)
            assert "2 of 2 points recorded" in app.controller.session.last_action.text
            # the same one tail and one GPU feed as before the sweep: none opened beside the panes'
            assert (opened["tail"], opened["gpu"]) == (1, 1)
            assert app.hub.opened["log@box"] == 1 and app.hub.opened["gpu@box"] == 1
            assert app.hub.subscribed["log@box"] == 2 and app.hub.subscribed["gpu@box"] == 1  # start, sweep
            assert all(n == 1 for n in app.hub.opened.values()), app.hub.opened  # no feed run twice, no launch read
            benches = app.controller.session.benchmarks
            assert all(b.power_mean_w == 1205.0 for b in benches)  # the GPU pane's dcgm feed
            assert all(b.peak_running is not None for b in benches)  # the log pane's pipeline
            await pilot.press("1")
            assert "1205" in screen_text(app) or "1.2 kW" in screen_text(app)  # the GPU pane shows that feed too
            await pilot.press("7")
            app.main_screen.query_one("#profile-list").focus()
            await pilot.press("X")
            await until(lambda: isinstance(app.screen, ConfirmStopScreen), pilot, timeout=20)
            await pilot.press("y")
            await until(lambda: "box" not in app.experiment.servers, pilot, timeout=30)
