"""Every seal covers what will run (issue 34, item 1): the command with its interpreter, the
profile it comes from, the host's ssh target, jump and port, and the env. Per path — run,
sweep, tune, a tune resumed after its runner was killed, one that finds the trial's server
still up (a restart), an assistant's MCP edit, a writer's own `running` trial row, a changed
host `ssh` — with no terminal (stdin is /dev/null) and no --yes: nothing runs (a MARKER file a
hostile command would create never appears), and the command says why in one line."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from search_support import cleanup, seal_search, search_session
from standin.procs import free_port, kill_groups_left, standin_command

from sweep_support import StandinServer, make_bench_python, pid_alive

from cockpit.control.search.consent import search_fingerprint
from cockpit.control.search.loop import derive_trial
from cockpit.control.transaction import edit
from cockpit.live.experiment.sweep_plan import sweep_fingerprint
from cockpit.model.launch.confirm import launch_stamp
from cockpit.model.search.search import SearchTrial, SpaceValue, TrialStatus
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.sources.server.confirm_key import confirmation, is_confirmed
from cockpit.store.toml_store import load_session, save_session

REPO = Path(__file__).resolve().parents[2]


def cockpit(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True, cwd=REPO,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def hostile(marker: Path, then: str = "sleep 60") -> str:
    """What an assistant or a writer would put in: a shell that leaves MARKER, then goes on."""
    return f"sh -c {shlex.quote(f'touch {shlex.quote(str(marker))}; {then}')}"


async def mcp_edit(path: Path, **fields: str) -> None:
    """The assistant's edit_launch_profile through the real MCP server (`cockpit mcp`)."""
    async with Client(StdioServerParameters(command=sys.executable, args=["-m", "cockpit", "mcp", str(path)],
                                            env=dict(os.environ))) as c:
        done = await c.call_tool("edit_launch_profile", fields)
    assert not done.is_error, done.content


def seal_launch(path: Path, ident: str) -> None:
    """As `cockpit run --yes` leaves it: the profile sealed with this user's key."""
    def change(e):  # noqa: ANN001, ANN202
        p = next(p for p in e.session.launch if p.id == ident)
        host = next((h for h in e.session.hosts if h.name == p.host), None)
        e.edit_record("launch", ident, confirmed=confirmation("launch", launch_stamp(p, host)))
    edit(path, change, "person")


def search_sealed(path: Path) -> bool:
    session = load_session(path)
    search = session.searches[0]
    return is_confirmed("search", search_fingerprint(session, search, list(search.hosts)), search.confirmed)


@pytest.fixture
def folder(tmp_path: Path):
    yield tmp_path
    cleanup(tmp_path)
    kill_groups_left(tmp_path)


# ----- cockpit run --------------------------------------------------------------------------------
@pytest.fixture
def camp(tmp_path: Path):
    runs = tmp_path / "runs"
    path = tmp_path / "camp.toml"
    save_session(Session(hosts=[Host(name="box", run_dir=str(runs))],
                         launch=[LaunchProfile(id="p1", name="mine", host="box",
                                               command=standin_command(sys.executable, free_port()))]), path)
    seal_launch(path, "p1")
    yield path, runs
    kill_groups_left(runs)


async def test_run_of_a_profile_an_assistant_edited_asks_again(camp) -> None:
    path, runs = camp
    marker = path.parent / "MARKER"
    await mcp_edit(path, profile="p1", command=hostile(marker))
    done = cockpit("run", str(path), "p1")
    assert done.returncode == 1 and not marker.exists()
    assert done.stderr.splitlines()[0].endswith("not started: this command needs confirmation (it has not been "
                                                "confirmed by a person at a terminal); it would run")
    assert f"touch {marker}" in done.stderr  # the command it would run is shown, interpreter first
    assert not list(runs.glob("*/*.pid"))


def test_run_on_a_host_whose_ssh_target_changed_asks_again(camp) -> None:
    path, runs = camp
    session = load_session(path)
    session.hosts[0].ssh = "root@127.0.0.1:22422"  # was this machine: now another user, address and port
    save_session(session, path)
    done = cockpit("run", str(path), "p1")
    assert done.returncode == 1 and "needs confirmation" in done.stderr
    assert "box (root@127.0.0.1:22422)" in done.stderr  # where it would run is shown
    assert not list(runs.glob("*/*.pid"))


def test_run_after_the_jump_host_changed_asks_again(camp) -> None:
    path, _ = camp
    session = load_session(path)
    session.hosts[0].jump = "bastion.example"
    save_session(session, path)
    done = cockpit("run", str(path), "p1")
    assert done.returncode == 1 and "needs confirmation" in done.stderr


# ----- cockpit sweep --------------------------------------------------------------------------------
async def test_sweep_after_an_assistant_put_another_interpreter_in_the_command_runs_nothing(tmp_path: Path) -> None:
    srv = StandinServer(tok_s=3000)
    try:
        marker = tmp_path / "MARKER"
        evil = tmp_path / "evil" / "python3"
        evil.parent.mkdir()
        evil.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(marker))}\nexit 0\n")
        evil.chmod(0o755)
        path = tmp_path / "s.toml"
        host = Host(name="local", run_dir=str(tmp_path / "runs"))
        profile = LaunchProfile(id="l1", name="base", host="local", python=make_bench_python(tmp_path),
                                command=f"python -m sglang.launch_server --model-path m --port {srv.port}")
        sweep = Sweep(id="s1", name="ramp", input_len=16, output_len=24, concurrencies=[1], prompts_per_concurrency=2)
        sweep.confirmed = confirmation("sweep", sweep_fingerprint(sweep, profile, host, srv.port))  # the person's yes
        save_session(Session(hosts=[host], launch=[profile], sweeps=[sweep]), path)
        await mcp_edit(path, profile="l1", command=f"{evil} -m sglang.launch_server --model-path m --port {srv.port}")
        res = cockpit("sweep", str(path), "s1")
    finally:
        srv.close()
    assert res.returncode == 3, res.stdout + res.stderr
    assert not marker.exists()  # neither the module probe nor a point ran it
    assert res.stderr.strip() == ("cockpit sweep: not run: these commands were never confirmed; check them and run "
                                  "again with --yes")
    assert f"{evil} -u -m sglang.benchmark.serving" in res.stdout  # the confirmation names what would run
    assert load_session(path).benchmarks == []


def test_sweep_confirmation_names_the_module_the_confirmed_interpreter_has(tmp_path: Path) -> None:
    """The interpreter is the one the person confirmed launching there: asked which bench module
    it has before the question, so the commands shown are the ones that run."""
    srv = StandinServer(tok_s=3000)
    try:
        wrapper = Path(make_bench_python(tmp_path, modules=("sglang.bench_serving",)))
        python = tmp_path / "venv" / "bin" / "python3"  # the name a launch command gives its interpreter
        python.parent.mkdir(parents=True)
        python.symlink_to(wrapper)
        path = tmp_path / "s.toml"
        save_session(Session(
            hosts=[Host(name="local", run_dir=str(tmp_path / "runs"))],
            launch=[LaunchProfile(id="l1", name="base", host="local",
                                  command=f"{python} -m sglang.launch_server --model-path m --port {srv.port}")],
            sweeps=[Sweep(id="s1", name="ramp", input_len=16, output_len=24, concurrencies=[1, 2],
                          prompts_per_concurrency=2)]), path)
        seal_launch(path, "l1")
        res = cockpit("sweep", str(path), "s1")
    finally:
        srv.close()
    assert res.returncode == 3, res.stdout + res.stderr
    assert res.stdout.count(f"{python} -u -m sglang.bench_serving ") == 2
    assert "sglang.benchmark.serving" not in res.stdout
    assert f"(the client: {python} -m sglang.bench_serving (the module {python} on local has))" in res.stdout
    assert load_session(path).benchmarks == []


# ----- cockpit tune --------------------------------------------------------------------------------
PARAMS: dict[str, SpaceValue] = {"--cuda-graph-max-bs": 16, "--moe-runner-backend": "triton"}


def running_trial(path: Path) -> str:
    """Trial 0 left `running` with its derived profile, as a runner killed with -9 leaves it."""
    trial = edit(path, lambda e: derive_trial(e, "q1", 0, PARAMS, "box"), "search")
    assert trial.profile is not None
    return trial.profile


def test_tune_of_a_search_whose_host_ssh_changed_asks_again(folder: Path) -> None:
    path, _ = search_session(folder)
    seal_search(path)
    assert search_sealed(path)
    session = load_session(path)
    session.hosts[0].ssh = "root@127.0.0.1:22422"
    save_session(session, path)
    done = cockpit("tune", str(path), "q1")
    assert done.returncode == 3
    assert done.stderr.strip() == ("cockpit tune: not run: this search was never confirmed; check it and run "
                                   "again with --yes")
    assert load_session(path).searches[0].trial == []


def killed_runner(path: Path, folder: Path) -> tuple[str, int]:
    """A real `cockpit tune --yes` killed with -9 mid-trial: its trial left `running`, its
    server left up (its own process group). The trial's profile and the server's pid."""
    _first_trial_gets_ready(path)
    proc = subprocess.Popen([sys.executable, "-m", "cockpit", "tune", str(path), "q1", "--yes"], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            pids = list((folder / "runs").glob("*/box.pid"))
            if pids and pids[0].read_text().strip().isdigit() and any(
                    b.sweep_run == "q1-t0" for b in _loaded(path).benchmarks):
                break
            time.sleep(0.05)
        else:
            raise TimeoutError("no trial got a point")
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(10)
    (trial,) = [t for t in load_session(path).searches[0].trial if t.status is TrialStatus.RUNNING]
    assert trial.profile is not None
    return trial.profile, int(next((folder / "runs").glob("*/box.pid")).read_text())


def _first_trial_gets_ready(path: Path) -> None:
    """Seeds vary between runs: fix one (the search's `seed`, as a person would) whose first
    configuration is not the stand-in's crashing graph batch of 256, so trial 0 gets a point."""
    from cockpit.control.search.study import propose

    session = load_session(path)
    search = session.searches[0]
    seed = next(s for s in range(100) if (first := propose(search, seed=s)) and first["--cuda-graph-max-bs"] != 256)
    session.searches = [search.model_copy(update={"seed": seed})]
    save_session(session, path)


def _loaded(path: Path) -> Session:
    try:
        return load_session(path)
    except Exception:  # noqa: BLE001 -- mid-write: read again
        return Session()


@pytest.mark.parametrize("killed", [False, True], ids=["resume", "restart"])
async def test_tune_resuming_a_trial_whose_profile_an_assistant_edited_runs_nothing(folder: Path,
                                                                                    killed: bool) -> None:
    """`resume`: the trial row a killed runner leaves, its server gone; `restart`: a real runner
    killed with -9 mid-sweep, its server still up (resuming would stop and restart it)."""
    path, _ = search_session(folder)
    seal_search(path)
    left = None
    if killed:
        derived, left = killed_runner(path, folder)
    else:
        derived = running_trial(path)
    marker = folder / "MARKER"
    command = next(p for p in load_session(path).launch if p.id == derived).command
    await mcp_edit(path, profile=derived, command=hostile(marker, then=f"exec {command}"))
    done = cockpit("tune", str(path), "q1")
    assert done.returncode == 3, done.stdout + done.stderr
    assert not marker.exists()
    assert done.stderr.strip() == (f"cockpit tune: not run: trial 0's profile {derived} is not the base plus the "
                                   "space's flags; check it and run again with --yes")
    assert f"trial 0 on box resumes profile {derived}, which is not the base plus the space's flags" in done.stdout
    assert f"touch {marker}" in done.stdout
    trial = load_session(path).searches[0].trial_of(0)
    assert trial.status is TrialStatus.RUNNING  # left for a person to decide, not recorded as anything
    if left is not None:
        assert "note: took over the search's lock from pid " in done.stdout  # the killed runner's
        assert pid_alive(left)  # nothing stopped or restarted


def test_tune_does_not_resume_a_running_trial_a_writer_added_with_its_own_profile(folder: Path) -> None:
    path, _ = search_session(folder)
    seal_search(path)
    marker = folder / "MARKER"

    def plant(e):  # noqa: ANN001, ANN202 -- any writer: `cockpit add`, an editor, the assistant
        ident = e.add_record("launch", name="mine", host="box", command=hostile(marker))
        e.apply("trial", lambda s: s.searches[0].trial.append(SearchTrial(number=0, params=PARAMS, profile=ident,
                                                                          host="box")), kind="search.trial")
        return ident
    ident = edit(path, plant, "assistant")
    assert search_sealed(path)  # the search itself is still what the person confirmed
    done = cockpit("tune", str(path), "q1")
    assert done.returncode == 3 and not marker.exists()
    assert done.stderr.strip() == (f"cockpit tune: not run: trial 0's profile {ident} is not the base plus the "
                                   "space's flags; check it and run again with --yes")
    assert "its command is not the base's with the trial's flags" in done.stdout


def test_a_trial_with_params_outside_the_space_is_not_the_base_plus_its_flags(folder: Path) -> None:
    from cockpit.model.search.space import apply_params, not_derived

    path, _ = search_session(folder)
    session = load_session(path)
    search, base = session.searches[0], session.launch[0]
    odd = {**PARAMS, "--enable-hostile": True}
    command, env = apply_params(base, odd)
    profile = base.model_copy(update={"id": "l9", "command": command, "env": env})
    assert not_derived(search, base, odd, "box", profile) == "--enable-hostile is not a dimension of the space"
    command, env = apply_params(base, PARAMS)
    same = base.model_copy(update={"id": "l9", "command": command, "env": env})
    assert not_derived(search, base, PARAMS, "box", same) is None
    assert not_derived(search, base, PARAMS, "box", same.model_copy(update={"python": "/x/python"})) == \
        "its python is not the base's"
    assert not_derived(search, base, {**PARAMS, "--cuda-graph-max-bs": 17}, "box", same) == \
        "--cuda-graph-max-bs 17 is not a value of the space"


def test_a_profile_the_search_reuses_is_the_one_the_seal_covers(folder: Path) -> None:
    """The sandbox's own profiles: written `0.80` where the trial says `0.8`, on the session's
    host named `local`. The search reuses them as this configuration (loop._same_profile), so
    the seal covers them; a changed flag or another host still is not covered."""
    from cockpit.model.search.space import apply_params, not_derived

    path, _ = search_session(folder)
    session = load_session(path)
    search, base = session.searches[0], session.launch[0]
    command, env = apply_params(base, PARAMS)
    written = command.replace("--cuda-graph-max-bs 16", "--cuda-graph-max-bs 16.0")
    assert written != command
    same = base.model_copy(update={"id": "l9", "command": written, "env": env})
    assert not_derived(search, base, PARAMS, "box", same) is None
    other = base.model_copy(update={"id": "l9", "command": command.replace("triton", "flashinfer_trtllm"), "env": env})
    assert not_derived(search, base, PARAMS, "box", other) == "its command is not the base's with the trial's flags"
    local = same.model_copy(update={"host": "local"})
    assert not_derived(search, base, PARAMS, "local", local, local_host=True) is None
    assert not_derived(search, base, PARAMS, "local", local) == "it runs on local, not on the trial's host local"
    assert not_derived(search, base, PARAMS, "local", same.model_copy(update={"host": None}), local_host=True) == \
        "it runs on local, not on the trial's host local"


async def test_tune_after_an_assistant_edited_the_base_profile_asks_again(folder: Path) -> None:
    path, _ = search_session(folder)
    seal_search(path)
    marker = folder / "MARKER"
    base = load_session(path).launch[0]
    await mcp_edit(path, profile="l1", command=hostile(marker, then=f"exec {base.command}"))
    done = cockpit("tune", str(path), "q1")
    assert done.returncode == 3 and not marker.exists()
    assert done.stderr.strip() == ("cockpit tune: not run: this search was never confirmed; check it and run "
                                   "again with --yes")
    assert f"base command: sh -c 'touch {marker}; exec " in done.stdout
    assert load_session(path).searches[0].trial == []


async def test_the_runner_itself_runs_nothing_the_seal_does_not_cover(folder: Path) -> None:
    """Whoever drives the loop (the TUI, a script), the runner checks the seal against the
    session as it is at each trial: a search edited after its seal starts no server."""
    from cockpit.control.search.loop import SearchLoop
    from cockpit.control.search.server_trials import SEARCH, ServerTrialRunner
    from cockpit.control.transaction import SessionFile
    from cockpit.sources.transport.ssh_pool import SshPool

    path, _ = search_session(folder)
    seal_search(path)
    session = load_session(path)
    session.launch[0].command += " --enable-hostile"  # after the person's yes
    save_session(session, path)
    async with SshPool() as pool:
        loop = SearchLoop(SessionFile(path, actor=SEARCH), str(path), "q1", ServerTrialRunner(pool), ["box"])
        await loop.run()
    assert loop.refused == ["search q1 changed since a person confirmed it (space, base profile, sweep or hosts); "
                            "cockpit tune shows it and asks"]
    assert not list((folder / "runs").glob("*/*.pid"))  # no server started
    (trial,) = load_session(path).searches[0].trial
    assert trial.status is TrialStatus.RUNNING  # not recorded as anything: the next start asks


def test_the_question_names_the_running_server_a_search_will_stop(folder: Path) -> None:
    """A runner killed with -9 left its trial's server up; the search then changed (its budget),
    so the next `cockpit tune` asks, and its question names the server the first trial stops."""
    path, _ = search_session(folder)
    seal_search(path)
    _, left = killed_runner(path, folder)
    session = load_session(path)
    session.searches = [session.searches[0].model_copy(update={"trials": 4})]  # the seal no longer covers it
    save_session(session, path)
    done = cockpit("tune", str(path), "q1")
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"  it stops the server running on box: pid {left}, profile " in done.stdout, done.stdout
    assert pid_alive(left)  # asked, not stopped
