"""Only a person confirms: what an assistant (over MCP), `cockpit add` or an editor writes
into the session never counts as a confirmation, so `cockpit run` / `cockpit sweep` with no
terminal and no --yes start nothing. A confirmation is a seal with this user's own key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from standin.procs import free_port, kill_group, standin_command

from sweep_support import StandinServer, make_bench_python

from cockpit.live.experiment.sweep_plan import sweep_fingerprint
from cockpit.model.launch.confirm import fingerprint, launch_stamp
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session

REPO = Path(__file__).resolve().parents[2]


def cockpit(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True, cwd=REPO,
                          timeout=120, stdin=subprocess.DEVNULL, env=env)


@pytest.fixture
def camp(tmp_path: Path):
    runs = tmp_path / "runs"
    path = tmp_path / "camp.toml"
    save_session(Session(hosts=[Host(name="box", run_dir=str(runs))]), path)
    yield path, runs
    for pid_file in runs.glob("*/*.pid"):
        text = pid_file.read_text().strip()
        if text.isdigit():
            kill_group(int(text))


async def test_an_mcp_client_cannot_confirm_its_own_launch(camp) -> None:
    path, runs = camp
    command = standin_command(sys.executable, free_port())
    computed = fingerprint(LaunchProfile(id="p1", name="mine", host="box", command=command))
    async with Client(StdioServerParameters(command=sys.executable, args=["-m", "cockpit", "mcp", str(path)],
                                            env=dict(os.environ))) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        added = await c.call_tool("add_launch_profile", {"profile": {
            "name": "mine", "host": "box", "command": command, "confirmed": computed}})
    assert not added.is_error, added.content
    assert "confirmed" not in str(tools["add_launch_profile"].input_schema)  # not offered to an assistant
    assert load_session(path).launch[0].confirmed is None  # and dropped when sent anyway

    # Even a computed fingerprint written into the file (an editor, an older cockpit) is no confirmation.
    session = load_session(path)
    session.launch[0].confirmed = fingerprint(session.launch[0])
    save_session(session, path)
    done = cockpit("run", str(path), "mine")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "needs confirmation" in done.stderr and "--yes" in done.stderr
    assert not list(runs.glob("*/*.pid")) and not list(runs.glob("*/*.info"))  # nothing started


def test_a_seal_copied_from_another_users_session_does_not_verify(camp, tmp_path: Path) -> None:
    from cockpit.model.launch.confirm import seal

    path, runs = camp
    session = load_session(path)
    session.launch.append(LaunchProfile(id="p1", name="mine", host="box",
                                        command=standin_command(sys.executable, free_port())))
    session.launch[0].confirmed = seal(os.urandom(32), "launch", fingerprint(session.launch[0]))
    save_session(session, path)
    done = cockpit("run", str(path), "p1")
    assert done.returncode == 1 and "needs confirmation" in done.stderr
    assert not list(runs.glob("*/*.pid"))


def test_yes_typed_on_the_command_line_seals_it_with_this_users_key(camp, own_confirm_key: Path) -> None:
    from cockpit.sources.server.confirm_key import is_confirmed

    path, runs = camp
    session = load_session(path)
    session.launch.append(LaunchProfile(id="p1", name="mine", host="box",
                                        command=standin_command(sys.executable, free_port())))
    save_session(session, path)
    done = cockpit("run", str(path), "p1", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    profile = load_session(path).launch[0]
    assert profile.confirmed and profile.confirmed.startswith("hmac1:")
    assert is_confirmed("launch", launch_stamp(profile, load_session(path).hosts[0]), profile.confirmed)
    assert own_confirm_key.stat().st_mode & 0o777 == 0o600
    assert own_confirm_key.parent.stat().st_mode & 0o777 == 0o700
    # another user (another key) reading the same file: not confirmed for them
    other = dict(os.environ, XDG_STATE_HOME=str(path.parent / "other-user-state"))
    cockpit("stop", str(path))
    again = cockpit("run", str(path), "p1", env=other)
    assert again.returncode == 1 and "needs confirmation" in again.stderr


def test_a_sweep_stamp_anyone_can_compute_is_no_confirmation(tmp_path: Path) -> None:
    srv = StandinServer(tok_s=3000)
    try:
        path = tmp_path / "s.toml"
        profile = LaunchProfile(id="l1", name="base", host="local", python=make_bench_python(tmp_path),
                                command=f"python -m sglang.launch_server --model-path m --port {srv.port}")
        sweep = Sweep(id="s1", name="ramp", input_len=16, output_len=24, concurrencies=[1],
                      prompts_per_concurrency=2)
        sweep.confirmed = sweep_fingerprint(sweep, profile)  # what an assistant or editor could write
        save_session(Session(hosts=[Host(name="local", run_dir=str(tmp_path / "runs"))],
                             launch=[profile], sweeps=[sweep]), path)
        res = cockpit("sweep", str(path), "s1")
    finally:
        srv.close()
    assert res.returncode == 3, res.stdout + res.stderr
    assert "never confirmed" in res.stderr and "--yes" in res.stderr
    assert load_session(path).benchmarks == [] and not (tmp_path / "runs").exists()
