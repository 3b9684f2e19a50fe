"""A person's next step and fallback survive the loop, in tmux: typed in the last-action
form, then a start that crashes, a start that comes up, a sweep; the banner shows their
words and the latest automatic step beside them; the file and its .bak keep every word.

STAND-INS (labelled): the server is cockpit/sandbox/sglang_server.py, the bench client
cockpit/sandbox/bench_serving.py (as in test_experiment_tmux.py).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from standin.procs import free_port, kill_group, standin_command

from sweep_support import make_bench_python
from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session

DID, NEXT, FALLBACK = "pinned NCCL to node 0", "rerun c=8 on l2", "go back to l1 baseline"


def test_typed_next_step_and_fallback_survive_crash_start_and_sweep(tmux, tmp_path: Path):
    runs = tmp_path / "runs"
    port = free_port()
    python = make_bench_python(tmp_path / "py")
    host = Host(name="box", run_dir=str(runs), log_path=str(tmp_path / "server.log"))
    session = Session(
        title="words in tmux", hosts=[host],
        launch=[LaunchProfile(id="l1", name="crashes", host="box", python=python,
                              command=standin_command(sys.executable, port, "--standin-crash", "load")),
                LaunchProfile(id="l2", name="comes up", host="box", status=ProfileStatus.WORKING, python=python,
                              command=standin_command(sys.executable, port, "--standin-load-s", "0.3",
                                                      "--standin-capture-s", "0.3"))],
        sweeps=[Sweep(id="s1", name="smoke", input_len=16, output_len=8, prompts=2, concurrencies=[1, 2])],
    )
    path = tmp_path / "words.toml"
    save_session(session, path)
    try:
        tmux.start(f"{cockpit_program()} {path}", width=200, height=45)
        tmux.wait_for("words in tmux")
        tmux.keys("L")
        # The form's placeholder, not "Last action": the tab bar says that before the form is up
        # (under load the keys then went to the main screen and nothing was typed).
        tmux.wait_for("what you just did")
        time.sleep(0.5)  # the form's first field takes focus just after it is drawn
        tmux.keys(DID, "Tab", NEXT, "Tab", FALLBACK, "C-s")
        tmux.wait_for(f"next: {NEXT}")
        tmux.keys("7")
        tmux.wait_for("r Start")
        tmux.keys("r")
        tmux.wait_for("Not run before")
        tmux.keys("y")
        tmux.wait_for("since: l1 (crashes) on box: crashed", timeout=60)
        tmux.keys("down", "r")
        tmux.wait_for("Not run before")
        tmux.keys("y")
        tmux.wait_for("▶ ready", timeout=60)
        tmux.keys("B")
        tmux.wait_for("Run sweep s1 (smoke)")
        tmux.keys("y")
        screen = tmux.wait_for("since: sweep s1", timeout=180)
        assert f"next: {NEXT}" in screen and f"fallback: {FALLBACK}" in screen and DID in screen, screen
        tmux.keys("C-s")
        tmux.wait_for(" saved")
    finally:
        for pid_file in runs.glob("*/*.pid"):
            if pid_file.read_text().strip().isdigit():
                kill_group(int(pid_file.read_text()))
    last = load_session(path).last_action
    assert (last.text, last.next_step, last.fallback) == (DID, NEXT, FALLBACK)
    assert "2 of 2 points recorded" in last.activity.text
    bak = path.with_name(path.name + ".bak").read_text()
    assert NEXT in bak and FALLBACK in bak
