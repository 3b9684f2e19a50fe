"""Server control on this machine (a host without `ssh`), with the STAND-IN sglang server
(cockpit/sandbox/sglang_server.py: real-format log lines and HTTP endpoints, no model, no GPU).

The processes, /proc and the HTTP port are real; what is checked is what a person sees: the
server answers on its port, the profile turns broken on a crash, nothing is left after a stop,
a hostile field runs nothing, a secret is in no command line and no file.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import threading
from pathlib import Path

import pytest
from standin.procs import all_cmdlines, free_port, group_members, http_get, standin_command

from cockpit.control.launch_watch import follow_launch
from cockpit.live.experiment.launch_lifecycle import apply_outcome
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session
from cockpit.sources.server.control import ServerControl
from cockpit.sources.server.places import plan_launch
from cockpit.sources.server.results import AlreadyRunning


def _session(runs: Path, *profiles: LaunchProfile, log_path: str | None = None) -> Session:
    return Session(hosts=[Host(name="box", run_dir=str(runs), log_path=log_path)], launch=list(profiles))


def _profile(pid: str, command: str, **kw) -> LaunchProfile:
    return LaunchProfile(id=pid, name=f"profile {pid}", host="box", command=command, **kw)


async def _launch(session: Session, path: Path, ref: str, timeout_s: float = 60):
    control = ServerControl()
    plan = plan_launch(session, path, ref)
    started = await control.start(plan)
    outcome = await follow_launch(control, plan, started, timeout_s=timeout_s, poll_s=0.1)
    return control, plan, started, outcome


async def test_launch_until_ready_then_stop_leaves_nothing(runs, tmp_path):
    port = free_port()
    session = _session(runs, _profile("p1", standin_command(sys.executable, port)))
    control, plan, started, outcome = await _launch(session, tmp_path / "camp.toml", "p1")
    assert outcome.kind == "ready", outcome
    assert outcome.phase == "ready" and outcome.elapsed_s > 0
    assert (await asyncio.to_thread(http_get, port, "/health"))[0] == 200
    pgid = started.status.pid
    members = group_members(pgid)
    assert pgid in members and len(members) >= 3  # the leader sh, the server, its "scheduler" child
    log = Path(started.log_path).read_text()
    assert str(runs / "camp") in started.log_path and "The server is fired up" in log

    stopped = await control.stop(plan.place, grace_s=5)
    assert stopped.pid == pgid and stopped.signals == ("TERM",) and stopped.clean
    assert group_members(pgid) == []
    assert not (await control.status(plan.place)).running


async def test_stop_escalates_to_sigkill_when_term_is_ignored(runs, tmp_path):
    port = free_port()
    session = _session(runs, _profile("p1", standin_command(sys.executable, port, "--standin-ignore-term")))
    control, plan, started, outcome = await _launch(session, tmp_path / "s.toml", "p1")
    assert outcome.kind == "ready"
    stopped = await control.stop(plan.place, grace_s=0.5)
    assert stopped.signals == ("TERM", "KILL") and stopped.clean
    assert group_members(started.status.pid) == []


async def test_crash_marks_profile_broken_and_offers_the_working_profile(runs, tmp_path):
    session = _session(runs, _profile("p1", standin_command(sys.executable, free_port()), status=ProfileStatus.WORKING),
                       _profile("p2", standin_command(sys.executable, free_port(), "--standin-crash", "capture")))
    _, _, started, outcome = await _launch(session, tmp_path / "s.toml", "p2")
    assert outcome.kind == "crashed"
    assert outcome.error_label == "cuda_oom" and outcome.exit_code == 1 and outcome.phase == "capturing"
    assert outcome.tail[-1].startswith("torch.OutOfMemoryError: CUDA out of memory")
    assert not outcome.still_running and group_members(started.status.pid) == []

    editor = SessionEditor(session)
    apply_outcome(editor, outcome, session_label="s.toml")
    p2 = next(p for p in editor.session.launch if p.id == "p2")
    assert p2.status is ProfileStatus.BROKEN and p2.broken_reason.startswith("cuda_oom while capturing CUDA graphs")
    last = editor.session.last_action
    assert "crashed while capturing CUDA graphs: cuda_oom" in last.text
    assert last.fallback is not None and "p1" in last.fallback and "cockpit run s.toml p1" in last.fallback


async def test_a_command_that_cannot_run_is_a_crash_with_its_exit_status(runs, tmp_path):
    session = _session(runs, _profile("p1", "/nonexistent/python -m sglang.launch_server"))
    _, _, _, outcome = await _launch(session, tmp_path / "s.toml", "p1")
    assert outcome.kind == "crashed" and outcome.exit_code == 127 and outcome.error_label == "exit 127"
    assert any("nonexistent" in line for line in outcome.tail)


async def test_not_ready_in_time_is_a_timeout_and_the_server_keeps_running(runs, tmp_path):
    session = _session(runs, _profile("p1", standin_command(sys.executable, free_port(), "--standin-load-s", "30")))
    control, plan, started, outcome = await _launch(session, tmp_path / "s.toml", "p1", timeout_s=1.0)
    assert outcome.kind == "timeout" and outcome.still_running and outcome.phase == "loading"
    assert (await control.status(plan.place)).running
    assert (await control.stop(plan.place, grace_s=2)).clean


async def test_second_start_is_refused_and_reattach_finds_the_running_server(runs, tmp_path):
    port = free_port()
    profile = _profile("p1", standin_command(sys.executable, port))
    session = _session(runs, profile)
    path = tmp_path / "s.toml"
    control, plan, started, outcome = await _launch(session, path, "p1")
    assert outcome.kind == "ready"
    with pytest.raises(AlreadyRunning) as refused:
        await ServerControl().start(plan_launch(session, path, "p1"), session_label="s.toml")
    assert "cockpit stop s.toml box" in str(refused.value) and refused.value.status.pid == started.status.pid

    # cockpit closed and opened again: a new ServerControl finds it by the PID file
    status = await ServerControl().status(plan_launch(session, path, "p1").place)
    assert status.running and status.pid == started.status.pid and status.log_path == started.log_path
    assert status.attached_to(profile)
    changed = profile.model_copy(update={"command": profile.command + " --mem-fraction-static 0.8"})
    assert not status.attached_to(changed)  # another command: not this profile's server as it is now


async def test_hostile_profile_fields_run_nothing(runs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a `touch canary` that ran would create it here
    canary = "canary"
    hostile = [f"; touch {canary}", f"$(touch {canary})", f"`touch {canary}`", f"' ; touch {canary} '",
               f'" ; touch {canary} "', f"a\ntouch {canary}", f"&& touch {canary} #"]
    port = free_port()
    name = "\n".join(hostile)
    # the served model name (one argv item, quoted in the command) comes back on /v1/models as is
    command = standin_command(sys.executable, port) + " --served-model-name " + _shell_quote(name) \
        + " --extra " + _shell_quote(hostile[0])
    env = {f"V{i}": value for i, value in enumerate(hostile)}
    session = _session(runs, _profile("p1", command, env=env), log_path=str(tmp_path / f"log;$(touch {canary})"))
    path = tmp_path / f"s;`touch {canary}`.toml"
    _, _, started, outcome = await _launch(session, path, "p1")
    assert outcome.kind == "ready", outcome
    models = json.loads((await asyncio.to_thread(http_get, port, "/v1/models"))[1])
    assert models["data"][0]["id"] == name
    environ = Path(f"/proc/{started.status.pid}/environ").read_bytes()
    assert f"V1=$(touch {canary})".encode() in environ.split(b"\0")
    assert Path(started.log_path).name == f"log;$(touch {canary})" and Path(started.log_path).is_file()
    assert not (tmp_path / canary).exists()


async def test_info_file_holds_no_raw_escape_and_the_log_path_is_found_again(runs, tmp_path):
    osc = "\x1b]0;PWNED\x07\x1b]52;c;SGVsbG8=\x07"
    port = free_port()
    command = standin_command(sys.executable, port) + " --served-model-name " + _shell_quote(f"m{osc}\nforged=1")
    log = tmp_path / f"log{osc}.txt"
    session = _session(runs, _profile("p1", command), log_path=str(log))
    control, plan, started, outcome = await _launch(session, tmp_path / "camp.toml", "p1")
    assert outcome.kind == "ready", outcome
    info = Path(plan.place.info_file).read_bytes()
    assert b"\x1b" not in info and b"\x07" not in info and b"\nforged=1" not in info
    text = info.decode()
    assert "m␛]0;PWNED␇␛]52;c;SGVsbG8=␇␊forged=1" in text, "the command is there, in its inert form"
    assert f"log={tmp_path}/log␛]0;PWNED␇" in text
    status = await control.status(plan.place)
    assert status.log_path == str(log) and status.profile_id == "p1", "the exact path is read back"
    await control.stop(plan.place, grace_s=5)


def _shell_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


async def test_secret_env_is_in_no_command_line_and_no_file(runs, tmp_path):
    secret = "hf_SeCrEt" + os.urandom(6).hex()
    port = free_port()
    session = _session(runs, _profile("p1", standin_command(sys.executable, port), env={"HF_TOKEN": secret}))
    seen: list[int] = []
    done = threading.Event()

    def watch() -> None:  # every command line on the machine, for as long as the start runs
        while not done.is_set():
            seen.extend(pid for pid, cmd in all_cmdlines().items() if secret.encode() in cmd)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        control, plan, started, outcome = await _launch(session, tmp_path / "s.toml", "p1")
    finally:
        done.set()
        watcher.join()
    assert outcome.kind == "ready"
    assert seen == []
    assert [pid for pid, cmd in all_cmdlines().items() if secret.encode() in cmd] == []
    # the server has it (so it did arrive), in an environ only its owner can read
    leader_env = Path(f"/proc/{started.status.pid}/environ")
    assert f"HF_TOKEN={secret}".encode() in leader_env.read_bytes().split(b"\0")
    assert stat.S_IMODE(leader_env.stat().st_mode) & 0o077 == 0
    for f in [*runs.rglob("*"), *tmp_path.rglob("*")]:
        if f.is_file():
            assert secret.encode() not in f.read_bytes(), f
    for f in runs.rglob("*"):  # cockpit's run files: its owner's alone
        assert stat.S_IMODE(f.stat().st_mode) & 0o077 == 0, f


async def test_gpu_memory_of_another_process_is_warned_and_no_nvidia_smi_cannot_check(runs, tmp_path, monkeypatch):
    tools = tmp_path / "bin"
    tools.mkdir()
    fake = tools / "nvidia-smi"  # STAND-IN nvidia-smi: one compute app holding memory
    fake.write_text("#!/bin/sh\necho '4242, /usr/bin/python3, 70123'\n")
    fake.chmod(0o755)
    session = _session(runs, _profile("p1", standin_command(sys.executable, free_port())))
    control = ServerControl()
    place = plan_launch(session, tmp_path / "s.toml", "p1").place
    monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
    check = await control.gpu_check(place)
    assert check.checked and check.warning == "GPUs already hold memory of another process: pid 4242 /usr/bin/python3 (70123 MiB)"
    fake.write_text("#!/bin/sh\nexit 0\n")  # nothing on the GPUs
    assert (await control.gpu_check(place)).warning is None
    fake.unlink()
    check = await control.gpu_check(place)
    assert not check.checked and check.warning.startswith("cannot check")


async def test_restart_replaces_the_server_and_leaves_nothing_of_the_old_one(runs, tmp_path):
    port = free_port()
    session = _session(runs, _profile("p1", standin_command(sys.executable, port)))
    control, plan, first, outcome = await _launch(session, tmp_path / "s.toml", "p1")
    assert outcome.kind == "ready"
    again = plan_launch(session, tmp_path / "s.toml", "p1")
    second = await control.restart(again, grace_s=5)
    assert second.status.pid != first.status.pid and group_members(first.status.pid) == []
    assert (await follow_launch(control, again, second, timeout_s=60, poll_s=0.1)).kind == "ready"
    assert (await asyncio.to_thread(http_get, port, "/health"))[0] == 200
    assert (await control.stop(plan.place, grace_s=5)).clean


async def test_a_link_planted_at_the_exit_file_is_not_written_through(runs, tmp_path):
    # Someone who can write the run folder plants <host>.exit -> a file of yours while the
    # server runs; when it ends, its exit status must not land in that file (as `>` would).
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    session = _session(runs, _profile("p1", f"{sys.executable} -c 'import time; time.sleep(1.5)'"))
    path = tmp_path / "s.toml"
    control = ServerControl()
    plan = plan_launch(session, path, "p1")
    await control.start(plan)
    exit_file = Path(plan.place.exit_file)
    exit_file.unlink(missing_ok=True)
    exit_file.symlink_to(victim)
    for _ in range(100):  # the server ends by itself after 1.5 s
        if not (await control.status(plan.place)).running:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.3)
    assert victim.read_text() == "keep me\n"
    assert exit_file.is_symlink(), "the planted link is left as it was, not replaced by a write through it"
