"""The campaign's loop in tmux, as a person runs it: open the session, Launch tab, `r` on
the profile, read the exact command and confirm, wait for ready, `W` for the sweep and
confirm, watch the points land, the Benchmarks tab shows them, `X` stops the server, quit;
the saved file holds the runs and nothing of the server's process group is left.

STAND-INS (labelled): the server is cockpit/sandbox/sglang_server.py (real-format log lines
and HTTP endpoints, no model, no GPU) and the bench client cockpit/sandbox/bench_serving.py,
reached through the real `python -m sglang.bench_serving` argv (tests/sweep_support.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from standin.procs import free_port, group_members, kill_group, standin_command

from sweep_support import make_bench_python
from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session


def test_launch_ready_sweep_record_stop_in_tmux(tmux, tmp_path: Path):
    runs = tmp_path / "runs"
    port = free_port()
    session = Session(
        title="loop in tmux",
        hosts=[Host(name="box", run_dir=str(runs), log_path=str(tmp_path / "server.log"))],
        launch=[LaunchProfile(id="l1", name="tp1 stand-in", host="box", status=ProfileStatus.WORKING,
                              command=standin_command(sys.executable, port, "--standin-load-s", "0.5",
                                                      "--standin-capture-s", "0.5"),
                              python=make_bench_python(tmp_path / "py"))],
        sweeps=[Sweep(id="s1", name="smoke", input_len=16, output_len=8, prompts=4, concurrencies=[1, 2, 4, 8])],
    )
    path = tmp_path / "loop.toml"
    save_session(session, path)
    try:
        tmux.start(f"{cockpit_program()} {path}", width=140, height=40)
        tmux.wait_for("loop in tmux")
        tmux.keys("7")
        tmux.wait_for("tp1 stand-in")
        tmux.wait_for("r Start")  # the profile list has the focus: its keys are in the footer
        tmux.keys("r")
        screen = tmux.wait_for("Not run before")
        assert f"--port {port}" in screen  # the exact command is shown before anything runs
        tmux.keys("y")
        tmux.wait_for("▶ ready", timeout=60)
        tmux.keys("B")
        screen = tmux.wait_for("Run sweep s1 (smoke)")
        assert "--max-concurrency 4" in screen, screen  # (the rest scroll in the dialog)
        tmux.keys("y")
        screen = tmux.wait_for("4 of 4 points recorded", timeout=180)
        tmux.keys("4")
        screen = tmux.wait_for("s1")
        pgid = int(next(runs.glob("*/*.pid")).read_text())
        assert group_members(pgid)
        tmux.keys("7")
        tmux.wait_for("r Start")
        tmux.keys("X")
        tmux.wait_for("Stop l1 on host box?")  # asked first: what is lost, then y
        tmux.wait_for("loading it again takes minutes")
        tmux.keys("y")
        tmux.wait_for("stopped pid", timeout=30)
        assert not group_members(pgid)
        tmux.keys("C-s")
        tmux.wait_for(" saved")
        tmux.keys("q")
        tmux.wait_for("COCKPIT-EXIT=0")
    finally:
        for pid_file in runs.glob("*/*.pid"):
            if pid_file.read_text().strip().isdigit():
                kill_group(int(pid_file.read_text()))
    saved = load_session(path)
    assert sorted(b.concurrency for b in saved.benchmarks) == [1, 2, 4, 8]
    assert all(b.sweep == "s1" and b.profile == "l1" and b.command for b in saved.benchmarks)
    assert "4 of 4 points recorded" in saved.last_action.text
