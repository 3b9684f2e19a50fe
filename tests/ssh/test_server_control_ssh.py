"""Server control over SSH: the real loopback sshd (tests/sshd_fixture.py), cockpit's SshPool,
and the STAND-IN sglang server (cockpit/sandbox/sglang_server.py, run by the login user's
/usr/bin/python3: real-format log lines and HTTP endpoints, no model, no GPU).

The server must outlive cockpit and the link: the pool is closed and sshd itself killed and
restarted before cockpit finds the server again by its PID file.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import threading
import uuid
from pathlib import Path

import pytest
from standin.procs import all_cmdlines, free_port, group_members, http_get, kill_groups_left, standin_command

from sshd_fixture import TEST_USER

from cockpit.control.launch_watch import follow_launch
from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session
from cockpit.sources.server.control import ServerControl
from cockpit.sources.server.places import plan_launch
from cockpit.sources.server.results import AlreadyRunning
from cockpit.sources.transport.ssh_pool import SshPool
from cockpit.store.toml_store import load_session, save_session

PY = "/usr/bin/python3"  # the login user's interpreter (cockpit's venv is not theirs)


@pytest.fixture
def remote_runs(sshd):
    """A fresh session stem; every server group the test left in the login user's run folder is killed."""
    stem = f"camp-{uuid.uuid4().hex[:8]}"
    d = Path(pwd.getpwnam(TEST_USER).pw_dir) / ".cockpit" / "runs" / stem
    yield stem, d
    kill_groups_left(d, "*.pid")


def _session(*profiles: LaunchProfile) -> Session:
    return Session(hosts=[Host(name="gpu1", ssh="cockpit-loop")], launch=list(profiles))


def _profile(pid: str, command: str, **kw) -> LaunchProfile:
    return LaunchProfile(id=pid, name=f"profile {pid}", host="gpu1", command=command, **kw)


def _standin(sshd, port: int, *extra: str) -> str:
    """The stand-in's command, from the fixture's copy: the login user may not read the checkout."""
    return standin_command(PY, port, *extra, script=sshd.standin())


def _pool() -> SshPool:
    return SshPool(agent_path=None)


async def test_launch_ready_survives_the_link_and_cockpit_then_reattach_and_stop(sshd, remote_runs, tmp_path):
    stem, run_dir = remote_runs
    port = free_port()
    profile = _profile("p1", _standin(sshd, port))
    session, path = _session(profile), tmp_path / f"{stem}.toml"
    kw = {"ssh_config": (sshd.ssh_config,)}
    async with _pool() as pool:
        control = ServerControl(pool)
        plan = plan_launch(session, path, "p1", **kw)
        started = await control.start(plan)
        outcome = await follow_launch(control, plan, started, timeout_s=60, poll_s=0.1)
    assert outcome.kind == "ready", outcome
    assert started.log_path.startswith(f"~/.cockpit/runs/{stem}/p1-")
    pgid = started.status.pid
    assert Path(f"/proc/{pgid}").owner() == TEST_USER

    sshd.kill_all()  # the link drops hard (every session's sshd), then comes back
    sshd.start()
    assert (await asyncio.to_thread(http_get, port, "/health"))[0] == 200
    async with _pool() as pool:  # cockpit opened again
        control = ServerControl(pool)
        place = plan_launch(session, path, "p1", **kw).place
        status = await control.status(place)
        assert status.running and status.pid == pgid and status.attached_to(profile)
        stopped = await control.stop(place, grace_s=5)
        assert stopped.clean and stopped.signals == ("TERM",)
        assert not (await control.status(place)).running
    assert group_members(pgid) == []


async def test_second_start_refused_over_ssh(sshd, remote_runs, tmp_path):
    stem, _ = remote_runs
    session, path = _session(_profile("p1", _standin(sshd, free_port()))), tmp_path / f"{stem}.toml"
    async with _pool() as pool:
        control = ServerControl(pool)
        plan = plan_launch(session, path, "p1", ssh_config=(sshd.ssh_config,))
        first = await control.start(plan)
        with pytest.raises(AlreadyRunning) as refused:
            await control.start(plan, session_label="s.toml")
        assert refused.value.status.pid == first.status.pid and "cockpit stop s.toml gpu1" in str(refused.value)
        assert (await control.stop(plan.place, grace_s=5)).clean


async def test_secret_env_over_ssh_is_in_no_command_line_and_no_file(sshd, remote_runs, tmp_path):
    stem, run_dir = remote_runs
    secret = "hf_SeCrEt" + os.urandom(6).hex()
    session = _session(_profile("p1", _standin(sshd, free_port()), env={"HF_TOKEN": secret}))
    seen: list[bytes] = []
    done = threading.Event()

    def watch() -> None:  # every command line on the machine (sshd's, the shell's, the server's)
        while not done.is_set():
            seen.extend(cmd for cmd in all_cmdlines().values() if secret.encode() in cmd)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        async with _pool() as pool:
            control = ServerControl(pool)
            plan = plan_launch(session, tmp_path / f"{stem}.toml", "p1", ssh_config=(sshd.ssh_config,))
            started = await control.start(plan)
            outcome = await follow_launch(control, plan, started, timeout_s=60, poll_s=0.1)
    finally:
        done.set()
        watcher.join()
    assert outcome.kind == "ready" and seen == []
    environ = Path(f"/proc/{started.status.pid}/environ")
    assert f"HF_TOKEN={secret}".encode() in environ.read_bytes().split(b"\0")  # it did arrive
    assert environ.stat().st_mode & 0o077 == 0
    files = [f for f in run_dir.rglob("*") if f.is_file()]
    assert files and all(secret.encode() not in f.read_bytes() for f in files)
    assert all(f.stat().st_mode & 0o077 == 0 for f in files)


async def test_hostile_profile_fields_over_ssh_run_nothing(sshd, remote_runs, tmp_path):
    stem, _ = remote_runs
    home = Path(pwd.getpwnam(TEST_USER).pw_dir)  # remote commands start here
    canary = f"canary-{uuid.uuid4().hex[:6]}"
    name = f"; touch {canary} $(touch {canary}) `touch {canary}` ' \" \n touch {canary}"
    port = free_port()
    command = _standin(sshd, port) + " --served-model-name " + __import__("shlex").quote(name)
    session = _session(_profile("p1", command, env={"V": f"$(touch {canary})'\"`touch {canary}`"}))
    async with _pool() as pool:
        control = ServerControl(pool)
        plan = plan_launch(session, tmp_path / f"{stem}.toml", "p1", ssh_config=(sshd.ssh_config,))
        started = await control.start(plan)
        outcome = await follow_launch(control, plan, started, timeout_s=60, poll_s=0.1)
        assert outcome.kind == "ready", outcome
        models = json.loads((await asyncio.to_thread(http_get, port, "/v1/models"))[1])
        assert models["data"][0]["id"] == name
        assert (await control.stop(plan.place, grace_s=5)).clean
    assert not (home / canary).exists() and not (tmp_path / canary).exists()


def test_cli_crash_over_ssh_marks_broken_and_offers_the_working_profile(sshd, remote_runs, tmp_path):
    stem, _ = remote_runs
    path = tmp_path / f"{stem}.toml"
    save_session(_session(
        _profile("p1", _standin(sshd, free_port()), status=ProfileStatus.WORKING),
        _profile("p2", _standin(sshd, free_port(), "--standin-crash", "load"))), path)
    done = sshd.cockpit("run", str(path), "p2", "--wait-ready", "--yes", "--timeout", "60")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "loading weights" in done.stdout and "crashed while loading weights: cuda_oom, exit status 1" in done.stdout
    assert "| torch.OutOfMemoryError: CUDA out of memory" in done.stdout
    session = load_session(path)
    p2 = next(p for p in session.launch if p.id == "p2")
    assert p2.status is ProfileStatus.BROKEN and p2.broken_reason.startswith("cuda_oom while loading weights")
    assert "p1" in session.last_action.fallback and "crashed" in session.last_action.text

    again = sshd.cockpit("stop", str(path), "gpu1")  # it exited by itself: nothing to stop
    assert again.returncode == 0 and "had already ended" in again.stdout, again.stdout + again.stderr
