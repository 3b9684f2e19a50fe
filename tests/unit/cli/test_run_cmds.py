"""`cockpit run` / `cockpit stop` as a person runs them from a shell, on this machine, with the
STAND-IN sglang server (cockpit/sandbox/sglang_server.py). stdin is not a terminal here, so an
unconfirmed command needs --yes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from standin.procs import free_port, group_members, http_get, kill_group, standin_command

from cockpit.model.enums import ProfileStatus
from cockpit.model.launch.confirm import launch_stamp
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.sources.server.confirm_key import is_confirmed
from cockpit.store.toml_store import load_session, save_session

REPO = Path(__file__).resolve().parents[3]


def cockpit(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True, cwd=REPO,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture
def camp(tmp_path: Path):
    """A session with a working and a candidate profile on host `box` (no ssh: this machine)."""
    runs = tmp_path / "runs"
    path = tmp_path / "camp.toml"
    ports = free_port(), free_port()
    save_session(Session(
        hosts=[Host(name="box", run_dir=str(runs))],
        sweeps=[Sweep(id="s1", name="chat 1k/1k")],
        launch=[LaunchProfile(id="p1", name="baseline", host="box", status=ProfileStatus.WORKING,
                              command=standin_command(sys.executable, ports[0])),
                LaunchProfile(id="p2", name="fp8 kv", host="box", env={"HF_TOKEN": "hf_topsecret123"},
                              command=standin_command(sys.executable, ports[1], "--standin-crash"))]), path)
    yield path, runs, ports
    for pid_file in runs.glob("*/*.pid"):
        text = pid_file.read_text().strip()
        if text.isdigit():
            kill_group(int(text))


def test_unconfirmed_command_without_a_terminal_is_refused_and_printed(camp):
    path, runs, _ = camp
    before = path.read_text()
    done = cockpit("run", str(path), "fp8 kv")
    assert done.returncode == 1
    assert "not been confirmed" in done.stderr and "--yes" in done.stderr
    assert "sglang_server.py" in done.stderr and "--standin-crash" in done.stderr  # the command it would run
    assert "HF_TOKEN='[REDACTED]'" in done.stderr and "hf_topsecret123" not in done.stderr + done.stdout
    assert path.read_text() == before and not list(runs.glob("*/*.pid"))  # nothing ran, nothing stored


def test_run_ready_records_confirmation_and_next_step_then_stop(camp):
    path, runs, ports = camp
    done = cockpit("run", str(path), "p1", "--wait-ready", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("starting p1 (baseline) on box (this machine)")
    assert any(line.startswith("  loading weights (") for line in lines)
    assert any(line.startswith("  capturing CUDA graphs (") for line in lines)
    assert lines[-1].startswith("p1 (baseline) on box: ready in ")
    assert http_get(ports[0])[0] == 200
    session = load_session(path)
    p1 = next(p for p in session.launch if p.id == "p1")
    assert p1.confirmed and is_confirmed("launch", launch_stamp(p1, session.hosts[0]), p1.confirmed)  # this user's seal
    assert session.last_action.next_step.startswith("run sweep s1 (chat 1k/1k): cockpit sweep")

    refused = cockpit("run", str(path), "p1")  # confirmed now: no --yes needed, but it already runs
    assert refused.returncode == 1 and "already runs" in refused.stderr and "cockpit stop" in refused.stderr

    pgid = int(next(runs.glob("*/box.pid")).read_text())
    stopped = cockpit("stop", str(path))
    assert stopped.returncode == 0 and f"box: stopped pid {pgid} (SIGTERM)" in stopped.stdout
    assert group_members(pgid) == []
    assert load_session(path).journal[-1].text == f"server stopped on box (pid {pgid})"

    again = cockpit("run", str(path), "p1", "--wait-ready")  # confirmed before: runs without asking
    assert again.returncode == 0, again.stderr
    assert cockpit("stop", str(path), "box").returncode == 0


def test_a_changed_command_asks_again(camp):
    path, _, _ = camp
    assert cockpit("run", str(path), "p1", "--yes").returncode == 0
    assert cockpit("stop", str(path), "box").returncode == 0
    session = load_session(path)
    session.launch[0].command += " --mem-fraction-static 0.8"
    save_session(session, path)
    done = cockpit("run", str(path), "p1")
    assert done.returncode == 1 and "--mem-fraction-static 0.8" in done.stderr and "not been confirmed" in done.stderr


def test_crash_exits_2_marks_broken_and_offers_the_working_profile(camp):
    path, _, _ = camp
    done = cockpit("run", str(path), "p2", "--wait-ready", "--yes")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "crashed while capturing CUDA graphs: cuda_oom" in done.stdout
    session = load_session(path)
    p2 = next(p for p in session.launch if p.id == "p2")
    assert p2.status is ProfileStatus.BROKEN and "cuda_oom" in p2.broken_reason
    assert session.last_action.fallback.startswith("start the working profile p1 (baseline)")


def test_not_ready_in_time_exits_2_and_leaves_it_running(camp):
    path, runs, _ = camp
    session = load_session(path)
    session.launch[0].command += " --standin-load-s 60"
    save_session(session, path)
    done = cockpit("run", str(path), "p1", "--wait-ready", "--yes", "--timeout", "1")
    assert done.returncode == 2 and "not ready after" in done.stdout and "left running" in done.stdout
    pgid = int(next(runs.glob("*/box.pid")).read_text())
    assert group_members(pgid)
    assert cockpit("stop", str(path), "box").returncode == 0 and group_members(pgid) == []


def test_unknown_profile_and_host_and_nothing_to_stop(camp):
    path, _, _ = camp
    done = cockpit("run", str(path), "p9", "--yes")
    assert done.returncode == 1 and "no launch profile 'p9'" in done.stderr and "p1 (baseline)" in done.stderr
    done = cockpit("stop", str(path), "nohost")
    assert done.returncode == 1 and "no host 'nohost'" in done.stderr
    done = cockpit("stop", str(path))
    assert done.returncode == 0 and "box: no server of this session" in done.stdout


def test_an_unknown_host_lists_local_once_where_the_session_names_a_host_so(tmp_path: Path):
    """The sandbox's session names its host `local`, which is also this machine's name: a person
    who types a wrong host reads each host once."""
    path = tmp_path / "s.toml"
    save_session(Session(hosts=[Host(name="local", run_dir=str(tmp_path / "runs")), Host(name="box")]), path)
    done = cockpit("stop", str(path), "l1")
    assert done.returncode == 1 and "no host 'l1' (hosts: local, box)" in done.stderr, done.stderr



def test_options_may_come_before_the_host(camp):
    """`cockpit stop S --grace 1 HOST`: options anywhere, as people type them."""
    path, _runs, _ = camp
    done = cockpit("stop", str(path), "--grace", "1", "box")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "box: no server of this session"
