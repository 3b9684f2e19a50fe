"""Quitting with a sweep in flight, as a person would: `q` asks first and says what is lost
(the point in flight), `n` stays and the sweep goes on, `y` quits; on reopen the app says the
sweep run was cut short, and `ctrl+e` runs only the points that have no record of that run.

The server is the STAND-IN (cockpit/sandbox/sglang_server.py) started from the Launch tab; the
bench client the STAND-IN bench_serving (tests/sweep_support.py), made to idle 30 s before
its main run (as the real one's imports) so that the first point is in flight when `q` comes."""

from __future__ import annotations

import sys
from pathlib import Path

from standin.procs import free_port, standin_command

from sweep_support import make_bench_python
from tui_support import make_app, screen_text, until

from cockpit.live.experiment.sweep_runs import sweep_runs
from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.confirm_quit_sweep import ConfirmQuitSweepScreen
from cockpit.ui.screens.confirm_run import ConfirmRunScreen
from cockpit.ui.screens.forms.records import RecordForm


def _campaign(tmp_path: Path, runs: Path) -> Path:
    port = free_port()
    extra = ("--standin-load-s", "0.2", "--standin-capture-s", "0.2")
    python = make_bench_python(tmp_path / "py")
    session = Session(title="loop", hosts=[Host(name="box", run_dir=str(runs), log_path=str(tmp_path / "server.log"))],
                      launch=[LaunchProfile(id="l1", name="known good", host="box", status=ProfileStatus.WORKING,
                                            command=standin_command(sys.executable, port, *extra), python=python)],
                      sweeps=[Sweep(id="s1", name="short", input_len=16, output_len=8, prompts=4, concurrencies=[1, 2],
                                    extra_args=["--standin-idle-s", "30"])])
    path = tmp_path / "loop.toml"
    save_session(session, path)
    return path


async def _yes(app, pilot, kind=ConfirmRunScreen) -> str:
    await until(lambda: type(app.screen) is kind, pilot, timeout=20)
    shown = screen_text(app)
    await pilot.press("y")
    return shown


async def test_quit_mid_sweep_asks_then_reopen_says_cut_short_and_ctrl_e_runs_the_points_left(tmp_path, runs):
    path = _campaign(tmp_path, runs)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("7")
        app.main_screen.query_one("#profile-list").focus()
        await pilot.press("r")
        await _yes(app, pilot)
        await until(lambda: app.experiment.profile_states.get("l1", "").startswith("ready"), pilot, timeout=60)
        await pilot.press("B")
        await _yes(app, pilot)
        await until(lambda: app.experiment._runner is not None and app.experiment._runner.current is not None,
                    pilot, timeout=20)
        app.main_screen.query_one("#profile-list").focus()
        await pilot.press("q")
        await until(lambda: isinstance(app.screen, ConfirmQuitSweepScreen), pilot)
        shown = screen_text(app)
        assert "Quit while a sweep runs?" in shown and "point 1 of 2 (c=1)" in shown and "is lost" in shown
        assert "--resume" in shown
        await pilot.press("n")  # stay: nothing stops
        await until(lambda: not isinstance(app.screen, ConfirmQuitSweepScreen), pilot)
        assert app.experiment._runner is not None and app.is_running
        await pilot.press("q")
        await _yes(app, pilot, ConfirmQuitSweepScreen)
        await until(lambda: not app.is_running, pilot, timeout=10)
    saved = load_session(path)
    assert saved.benchmarks == []  # the point in flight was lost, as the question said
    (run,) = sweep_runs(saved)
    assert run.cut_short and run.missing == (1, 2)

    # reopen: said at once; ctrl+e resumes that run (its extra idle dropped first: asked again)
    saved.sweeps[0].extra_args = []
    save_session(saved, path)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await until(lambda: any("was cut short" in n.message for n in app._notifications), pilot, timeout=10)
        (said,) = [n.message for n in app._notifications if "was cut short" in n.message]
        assert (f"run {run.run_id} was cut short: 0 of 2 points recorded (no record: c=1,2; unless another cockpit "
                "still runs it)") in said
        assert "ctrl+e resumes it" in said
        await pilot.press("ctrl+e")
        await _yes(app, pilot)
        await until(lambda: app.experiment._runner is None and len(app.controller.session.benchmarks) == 2,
                    pilot, timeout=60)
    benches = load_session(path).benchmarks
    assert [(b.concurrency, b.sweep_run) for b in benches] == [(1, run.run_id), (2, run.run_id)]
    assert not [r for r in sweep_runs(load_session(path)) if r.cut_short]


async def test_the_launch_form_shows_the_bench_interpreter(tmp_path, runs):
    path = _campaign(tmp_path, runs)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("7")
        app.main_screen.query_one("#profile-list").focus()
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, RecordForm), pilot)
        app.screen.query_one("#field-python").focus()  # as tab would reach it: scrolled into view
        await pilot.pause(0.2)
        shown = screen_text(app)
        # the field shows its value from the start (selected, so typing replaces it)
        field = app.screen.query_one("#field-python")
        assert "Bench python" in shown and field.value.endswith("python-standin")  # type: ignore[attr-defined]
        assert f"Bench python  {field.value[:30]}" in shown  # type: ignore[attr-defined]
