"""The experiment loop driven from the TUI as a person would: Launch tab, `r` starts the
selected profile (asked first: a command never run), the Launch list and the status line
follow it to ready, `W` runs the sweep (asked first too), a benchmark per point lands on
the Benchmarks tab, `X` stops it and nothing of its process group is left; a crash turns
the profile broken and `ctrl+f` starts the working one.

The server is the STAND-IN (cockpit/sandbox/sglang_server.py: real-format log lines and
HTTP endpoints, no model, no GPU) and the bench client the STAND-IN bench_serving run
through the real argv (tests/sweep_support.py); processes, ports and files are real.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from standin.procs import free_port, group_members, server_pid, standin_command

from sweep_support import make_bench_python
from tui_support import make_app, screen_text, until

from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.sources.feeds import LiveSources
from cockpit.sources.log.feed import LogFeed
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.confirm_run import ConfirmRunScreen, ConfirmStopScreen
from cockpit.ui.widgets.log.metrics_strip import LogMetricsStrip


def _campaign(tmp_path: Path, runs: Path, *, crash: bool = False, more: tuple[str, ...] = ()) -> tuple[Path, int]:
    port = free_port()
    extra = ("--standin-load-s", "0.2", "--standin-capture-s", "0.2", *more)
    profiles = [LaunchProfile(id="l1", name="known good", host="box", status=ProfileStatus.WORKING,
                              command=standin_command(sys.executable, port, *extra),
                              python=make_bench_python(tmp_path / "py"))]
    if crash:
        profiles.append(LaunchProfile(id="l2", name="too big", host="box",
                                      command=standin_command(sys.executable, port, *extra, "--standin-crash", "capture")))
    session = Session(title="loop", hosts=[Host(name="box", run_dir=str(runs), log_path=str(tmp_path / "server.log"))],
                      launch=profiles,
                      sweeps=[Sweep(id="s1", name="short", input_len=16, output_len=8, prompts=4,
                                    concurrencies=[1, 2],
                                    # as newer clients do: without the pause, a loaded CPU can read
                                    # /metrics at the main-run line after its few requests ended
                                    extra_args=["--standin-main-pause-s", "1"])])
    path = tmp_path / "loop.toml"
    save_session(session, path)
    return path, port


async def _confirm(app, pilot) -> str:
    await until(lambda: type(app.screen) is ConfirmRunScreen, pilot, timeout=20)
    await until(lambda: "Not run before" in screen_text(app), pilot, timeout=5)  # drawn, not only pushed
    shown = screen_text(app)
    await pilot.press("y")
    return shown


async def _start_l1_until_ready(app, pilot) -> None:
    """On the Launch tab, `r` on the first profile, `y` at the dialog, then wait for ready."""
    await pilot.press("7")
    app.main_screen.query_one("#profile-list").focus()
    await pilot.press("r")
    await _confirm(app, pilot)
    await until(lambda: app.experiment.profile_states.get("l1", "").startswith("ready"), pilot, timeout=60)


async def test_start_confirmed_ready_sweep_recorded_then_stop_leaves_nothing(tmp_path, runs):
    path, port = _campaign(tmp_path, runs)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("7")
        app.main_screen.query_one("#profile-list").focus()
        await pilot.press("r")
        shown = await _confirm(app, pilot)
        assert "--port" in shown and str(port) in shown  # the exact command, before it runs
        await until(lambda: app.experiment.profile_states.get("l1", "").startswith("ready"), pilot, timeout=60)
        assert "▶ ready" in screen_text(app)  # the Launch list says so
        assert "ready" in app.controller.session.last_action.text
        assert "sweep s1" in (app.controller.session.last_action.next_step or "")

        await pilot.press("B")
        shown = await _confirm(app, pilot)
        assert "sglang.bench_serving" in shown and "--max-concurrency 2" in shown
        await until(lambda: app.experiment._runner is None and len(app.controller.session.benchmarks) == 2
                    and "2 of 2 points" in app.controller.session.last_action.text, pilot, timeout=120)
        benches = app.controller.session.benchmarks
        assert [(b.sweep, b.concurrency, b.profile) for b in benches] == [("s1", 1, "l1"), ("s1", 2, "l1")]
        assert all(b.total_tok_s and b.total_tok_s > 0 for b in benches)
        assert all(b.peak_running is not None for b in benches)  # seen in the followed log
        assert all(b.server_ttft_p99_ms is not None and b.server_itl_p50_ms is not None
                   for b in benches)  # the server's /metrics read at each point's start and end
        # each record was written as it came (the file holds them): the header says saved, not
        # the "unsaved 3" it showed between a record's edit and its write
        await pilot.pause()
        assert app.controller.unsaved_edits == 0 and len(load_session(path).benchmarks) == 2
        assert "unsaved" not in screen_text(app) and "saved" in screen_text(app)

        pgid = int(next(runs.glob("*/*.pid")).read_text())
        assert group_members(pgid)
        await pilot.press("7")
        app.main_screen.query_one("#profile-list").focus()
        await pilot.press("X")
        await until(lambda: isinstance(app.screen, ConfirmStopScreen), pilot, timeout=20)  # asked first
        await pilot.press("y")
        await until(lambda: not group_members(pgid), pilot, timeout=30)
        await until(lambda: "l1" not in app.experiment.profile_states, pilot)
    saved = load_session(path)
    assert len(saved.benchmarks) == 2  # recorded points are saved, not just shown
    assert saved.launch[0].confirmed and saved.sweeps[0].confirmed


async def test_a_crash_breaks_the_profile_and_ctrl_f_starts_the_working_one(tmp_path, runs):
    path, _port = _campaign(tmp_path, runs, crash=True)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("7")
        app.main_screen.query_one("#profile-list").focus()
        await pilot.press("down")  # l2, the one that crashes
        await until(lambda: app.main_screen.query_one("#profile-list").highlighted == 1, pilot)
        await pilot.press("r")
        await _confirm(app, pilot)
        await until(lambda: app.experiment.profile_states.get("l2") == "crashed", pilot, timeout=60)
        l2 = next(p for p in app.controller.session.launch if p.id == "l2")
        assert l2.status is ProfileStatus.BROKEN and "oom" in (l2.broken_reason or "").lower()
        assert "l1" in (app.controller.session.last_action.fallback or "")
        assert app.experiment.fallback_id == "l1"
        await pilot.press("ctrl+f")
        await _confirm(app, pilot)
        await until(lambda: app.experiment.profile_states.get("l1", "").startswith("ready"), pilot, timeout=60)


async def test_a_crash_after_ready_says_crashed_beside_the_persons_words(tmp_path, runs):
    path, _port = _campaign(tmp_path, runs)
    # the followed log, as `cockpit` follows the host's (a fixed feed here: any host's server)
    app = make_app(path, sources=LiveSources(log=LogFeed.local(str(tmp_path / "server.log"), lines=0,
                                                               max_delay_s=0.02)))
    async with app.run_test(size=(140, 40)) as pilot:
        app.controller.apply(lambda e: e.set_last_action("tuned prefill", next_step="sweep l1", fallback="go back"))
        await _start_l1_until_ready(app, pilot)
        os.kill(server_pid(runs), signal.SIGUSR1)  # the stand-in dies as under load (OOM traceback, exit 1)
        await until(lambda: app.experiment.profile_states.get("l1") == "crashed", pilot, timeout=30)
        assert "crashed" in screen_text(app)  # the Launch list no longer says ready
        last = app.controller.session.last_action
        assert "l1 (known good) on box: crashed after ready (exit 1)" in last.activity.text
        assert (last.text, last.next_step, last.fallback) == ("tuned prefill", "sweep l1", "go back")


async def test_no_sweep_runs_when_cancelled_at_the_question(tmp_path, runs):
    path, _port = _campaign(tmp_path, runs)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("7")
        app.main_screen.query_one("#profile-list").focus()
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, ConfirmRunScreen), pilot, timeout=20)
        await pilot.press("escape")
        await pilot.pause(0.5)
        assert not list(runs.glob("*/*.pid"))  # nothing started
        assert app.controller.session.launch[0].confirmed is None


async def test_a_restart_with_another_profile_leaves_one_server_marked_on_the_host(tmp_path, runs):
    path, _port = _campaign(tmp_path, runs, crash=False)
    session = load_session(path)
    second = session.launch[0].model_copy(update={"id": "l2", "name": "second", "status": ProfileStatus.CANDIDATE})
    save_session(session.model_copy(update={"launch": [*session.launch, second]}), path)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await _start_l1_until_ready(app, pilot)
        await pilot.press("down", "S")  # restart with l2: l1's server is stopped first (asked)
        await until(lambda: isinstance(app.screen, ConfirmStopScreen), pilot, timeout=20)
        await pilot.press("y")
        await _confirm(app, pilot)  # l2's command: never run before
        await until(lambda: app.experiment.profile_states.get("l2", "").startswith("ready"), pilot, timeout=60)
        assert "l1" not in app.experiment.profile_states
        assert screen_text(app).count("▶ ready") == 1


async def test_after_a_stop_the_log_header_says_stopped_at_once(tmp_path, runs):
    """A server killed on stop writes no last line (SIGTERM ignored, SIGKILL after the grace):
    the log's run still read `ready`; it reads `stopped` as soon as the stop is done."""
    path, _port = _campaign(tmp_path, runs, more=("--standin-ignore-term",))
    app = make_app(path, sources=LiveSources(log=LogFeed.local(str(tmp_path / "server.log"), lines=0,
                                                               max_delay_s=0.02)))
    async with app.run_test(size=(140, 40)) as pilot:
        await _start_l1_until_ready(app, pilot)
        strip = app.main_screen.query_one("#log").query_one(LogMetricsStrip)
        await until(lambda: str(strip.render()).startswith("run 1 ready"), pilot, timeout=30)
        pgid = int(next(runs.glob("*/*.pid")).read_text())
        await pilot.press("X")
        await until(lambda: isinstance(app.screen, ConfirmStopScreen), pilot, timeout=20)
        await pilot.press("y")
        await until(lambda: not group_members(pgid) and "l1" not in app.experiment.profile_states, pilot, timeout=40)
        await pilot.pause(0.3)
        assert str(strip.render()).startswith("run 1 stopped"), str(strip.render())
