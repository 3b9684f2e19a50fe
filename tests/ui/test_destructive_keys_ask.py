"""Keys that lose a loaded server ask first and say what is lost: `X` (stop) and `S` (restart,
which stops whatever runs on the host, another profile too). The server is the STAND-IN
(cockpit/sandbox/sglang_server.py) started for real; its process group is checked directly."""

from __future__ import annotations

import sys
from pathlib import Path

from standin.procs import free_port, group_members, standin_command

from tui_support import make_app, until

from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session
from cockpit.store.toml_store import save_session
from cockpit.ui.screens.confirm_run import ConfirmRunScreen, ConfirmStopScreen


def _campaign(tmp_path: Path, runs: Path) -> Path:
    port = free_port()
    extra = ("--standin-load-s", "0.2", "--standin-capture-s", "0.2")
    command = standin_command(sys.executable, port, *extra)
    session = Session(title="keys", hosts=[Host(name="h1", run_dir=str(runs), log_path=str(tmp_path / "server.log"))],
                      launch=[LaunchProfile(id="l2", name="big one", host="h1", status=ProfileStatus.WORKING,
                                            command=command),
                              LaunchProfile(id="l3", name="other", host="h1", command=command + " --tp 2")])
    path = tmp_path / "keys.toml"
    save_session(session, path)
    return path


async def _started(app, pilot, runs: Path) -> int:
    await pilot.press("7")
    app.main_screen.query_one("#profile-list").focus()
    await pilot.press("r")
    await until(lambda: type(app.screen) is ConfirmRunScreen, pilot, timeout=20)
    await pilot.press("y")
    await until(lambda: app.experiment.profile_states.get("l2", "").startswith("ready"), pilot, timeout=60)
    return int(next(runs.glob("*/h1.pid")).read_text())


async def _asked(app, pilot) -> str:
    await until(lambda: isinstance(app.screen, ConfirmStopScreen), pilot, timeout=20)
    return f"{app.screen.title_text}\n{app.screen.what}"


async def test_x_asks_then_n_leaves_it_running_and_y_stops_it(tmp_path: Path, runs: Path) -> None:
    app = make_app(_campaign(tmp_path, runs))
    async with app.run_test(size=(140, 40)) as pilot:
        pgid = await _started(app, pilot, runs)
        await pilot.press("X")
        question = await _asked(app, pilot)
        assert "Stop l2 on host h1?" in question
        assert f"the server (pid {pgid}, up " in question and "loading it again takes minutes" in question
        await pilot.press("n")
        await pilot.pause(1.0)
        assert group_members(pgid), "n: the server keeps running"
        assert app.experiment.profile_states.get("l2", "").startswith("ready")
        await pilot.press("X")
        await _asked(app, pilot)
        await pilot.press("y")
        await until(lambda: not group_members(pgid), pilot, timeout=30)


async def test_s_on_another_profile_asks_before_it_stops_the_running_one(tmp_path: Path, runs: Path) -> None:
    app = make_app(_campaign(tmp_path, runs))
    async with app.run_test(size=(140, 40)) as pilot:
        pgid = await _started(app, pilot, runs)
        await pilot.press("down")
        await until(lambda: app.main_screen.query_one("#profile-list").highlighted == 1, pilot)
        await pilot.press("S")
        question = await _asked(app, pilot)
        assert "Restart on host h1: stop l2 and start l3?" in question
        assert "l3 loads in its place, which takes minutes" in question
        await pilot.press("escape")
        await pilot.pause(1.0)
        assert group_members(pgid), "not asked away: l2 keeps running"
        assert not isinstance(app.screen, ConfirmRunScreen)
        await pilot.press("X")  # tidy up: stop it (asked, yes)
        await _asked(app, pilot)
        await pilot.press("y")
        await until(lambda: not group_members(pgid), pilot, timeout=30)


def test_the_question_says_how_long_it_has_been_up() -> None:
    from datetime import UTC, datetime

    from cockpit.sources.server.results import ServerStatus
    from cockpit.ui.stop_words import stop_question

    status = ServerStatus(host="h1", running=True, pid=4242, profile_id="l2", started="2026-11-29T07:17:00+0000")
    title, lost = stop_question("h1", status, now=datetime(2026, 11, 29, 9, 30, tzinfo=UTC))
    assert title == "Stop l2 on host h1?"
    assert lost.startswith("the server (pid 4242, up 2h13m) stops; loading it again takes minutes")
