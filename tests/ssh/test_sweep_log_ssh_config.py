"""`cockpit sweep --ssh-config` reads the server's log through the same SSH config as its other
links (issue 34, item 5): the host's `ssh` is an alias only the fixture's config resolves, so a
log feed built without it reached nothing and the points' `peak_running` / `peak_queued`
vanished without a note. Against the real loopback sshd; the peaks recorded are the log's."""

from __future__ import annotations

import os
import re
from pathlib import Path

from sshd_fixture import ALIAS
from sweep_support import StandinServer, make_bench_python

from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session

_BATCH = re.compile(r"#running-req: (\d+), .*#queue-req: (\d+)")


def test_sweep_log_peaks_come_through_the_clis_ssh_config(tmp_path: Path, sshd) -> None:
    remote = sshd.make_dir("sweep-log")
    runs = remote / "runs"
    runs.mkdir()
    os.chmod(runs, 0o777)  # the login user writes the client's output files there
    log = remote / "server.log"
    srv = StandinServer(tok_s=400, log_path=log)  # decode lines every 4 tokens, as the server logs them
    try:
        os.chmod(log, 0o644)
        python = make_bench_python(remote, python="/usr/bin/python3", script=sshd.standin("bench_serving.py"))
        path = tmp_path / "s.toml"
        save_session(Session(
            hosts=[Host(name="gpu1", ssh=ALIAS, run_dir=str(runs), log_path=str(log))],
            launch=[LaunchProfile(id="l1", name="base", host="gpu1", python=python,
                                  command=f"python -m sglang.launch_server --port {srv.port}")],
            sweeps=[Sweep(id="s1", name="short", input_len=16, output_len=48, concurrencies=[4],
                          prompts_per_concurrency=3)]), path)
        done = sshd.cockpit("sweep", str(path), "s1", "--yes", timeout=180)
    finally:
        srv.close()
    assert done.returncode == 0, done.stdout + done.stderr
    (bench,) = load_session(path).benchmarks
    batches = [(int(m[1]), int(m[2])) for m in map(_BATCH.search, log.read_text().splitlines()) if m]
    assert batches, "the stand-in logged no batch"
    # one point: every batch line of the log is its own (nothing ran before it but /health)
    assert bench.peak_running == max(r for r, _ in batches) >= 2
    assert bench.peak_queued == max(q for _, q in batches)
    assert "peak running" in done.stdout


def test_a_log_the_sweep_cannot_reach_is_said_in_the_points_notes(tmp_path: Path) -> None:
    """No silent loss: a log on a host name that does not resolve leaves the point without
    peaks, and its notes say why."""
    import subprocess
    import sys

    srv = StandinServer(tok_s=3000)
    try:
        path = tmp_path / "s.toml"
        save_session(Session(
            hosts=[Host(name="local", run_dir=str(tmp_path / "runs"), log_path="no-such-host.invalid:/var/log/s.log")],
            launch=[LaunchProfile(id="l1", name="base", host="local", python=make_bench_python(tmp_path),
                                  command=f"python -m sglang.launch_server --port {srv.port}")],
            sweeps=[Sweep(id="s1", name="short", input_len=16, output_len=24, concurrencies=[2],
                          prompts_per_concurrency=2)]), path)
        done = subprocess.run([sys.executable, "-m", "cockpit", "sweep", str(path), "s1", "--yes"], text=True,
                              capture_output=True, timeout=120, stdin=subprocess.DEVNULL,
                              cwd=Path(__file__).resolve().parents[2])
    finally:
        srv.close()
    assert done.returncode == 0, done.stdout + done.stderr
    (bench,) = load_session(path).benchmarks
    assert bench.peak_running is None
    assert "no log peaks: the server's log: no-such-host.invalid: " in bench.notes
