"""Stale state (issue 39 item 3): what another writer starts and stops shows in the Launch
list and the status line within about a second, and an automatic "next" that is done is
gone. The server is the STAND-IN (tests/standin/sglang_server.py) started for real; the
other writer is a second ExperimentService on the file, as a search's trial or `cockpit
stop` is."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from standin.procs import free_port, group_members, standin_command

from tui_support import make_app, screen_text, until

from cockpit.control.experiment import ExperimentService
from cockpit.control.transaction import SessionFile
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.enums import ProfileStatus
from cockpit.model.session import AUTO, Host, LaunchProfile, Session, Sweep
from cockpit.store.toml_store import save_session
from cockpit.ui.screens.confirm_run import ConfirmRunScreen
from cockpit.ui.widgets.chrome.run_status import RunStatus


def _campaign(tmp_path: Path, runs: Path) -> Path:
    command = standin_command(sys.executable, free_port(), "--standin-load-s", "0.2", "--standin-capture-s", "0.2")
    session = Session(title="states", hosts=[Host(name="h1", run_dir=str(runs), log_path=str(tmp_path / "server.log"))],
                      launch=[LaunchProfile(id="l2", name="big one", host="h1", status=ProfileStatus.WORKING,
                                            command=command)])
    path = tmp_path / "states.toml"
    save_session(session, path)
    return path


def _status_line(app) -> str:  # noqa: ANN001
    return str(app.main_screen.query_one(RunStatus).render())


async def test_a_server_another_writer_stops_leaves_the_launch_list_and_status_line(tmp_path: Path,
                                                                                   runs: Path) -> None:
    path = _campaign(tmp_path, runs)
    app = make_app(path)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("7")
        app.main_screen.query_one("#profile-list").focus()
        await pilot.press("r")
        await until(lambda: type(app.screen) is ConfirmRunScreen, pilot, timeout=20)
        await pilot.press("y")
        await until(lambda: app.experiment.profile_states.get("l2", "").startswith("ready"), pilot, timeout=60)
        pgid = int(next(runs.glob("*/h1.pid")).read_text())
        await until(lambda: "l2 ready" in _status_line(app), pilot)
        # another writer (a search's trial, `cockpit stop`) stops it
        other = ExperimentService(path, SessionFile(path))
        await other.stop(["h1"], grace_s=5, note=False)
        await other.close(pool=True)
        assert not group_members(pgid)
        stopped = time.monotonic()
        await until(lambda: "l2" not in app.experiment.profile_states, pilot, timeout=10)
        await until(lambda: "ready" not in _status_line(app), pilot, timeout=5)
        took = time.monotonic() - stopped
        assert took < 3.0, f"{took:.1f} s after the stop"  # 1 s recheck, slack for a loaded machine
        assert "ready" not in screen_text(app)


def test_a_sweep_that_ran_retires_the_automatic_next_that_proposed_it() -> None:
    """"run sweep s1 … --profile l2" (what a start's "ready" suggests) goes once s1 ran on l2,
    whoever ran it; a person's own next step stays."""
    from types import SimpleNamespace

    from cockpit.live.experiment.sweep_runs import run_ended

    base = Session(launch=[LaunchProfile(id="l2", name="x", command="python -m sglang.launch_server")],
                   sweeps=[Sweep(id="s1", name="random 1k/1k", input_len=1024, output_len=1024, concurrencies=[1])])
    plan = SimpleNamespace(sweep=base.sweeps[0], run_id="r1", profile=base.launch[0], points=[1])
    outcome = SimpleNamespace(status="done", recorded=["b1"])
    editor = SessionEditor(base)
    editor.record_activity("started l2 ready", next_step="run sweep s1 (random 1k/1k): cockpit sweep S s1 --profile l2")
    assert editor.session.last_action is not None and editor.session.last_action.by == AUTO
    run_ended(editor, plan, outcome)
    assert editor.session.last_action.next_step is None  # nothing left that is done
    # a person's last action: their words stay, the activity's suggestion goes
    editor.set_last_action("launched l2 by hand", next_step="run sweep s1 --profile l2 myself")
    editor.record_activity("started l2 ready", next_step="run sweep s1 (random 1k/1k): cockpit sweep S s1 --profile l2")
    run_ended(editor, plan, outcome)
    last = editor.session.last_action
    assert last.next_step == "run sweep s1 --profile l2 myself"
    assert last.activity is not None and last.activity.next_step is None
    # a sweep on another profile leaves the suggestion for l2
    editor.record_activity("started l2 ready", next_step="run sweep s1 (random 1k/1k): cockpit sweep S s1 --profile l2")
    run_ended(editor, SimpleNamespace(**{**vars(plan), "profile": LaunchProfile(id="l3", name="y", command="z")}),
              outcome)
    assert editor.session.last_action.activity.next_step.endswith("--profile l2")
