"""`cockpit --demo` as a newcomer meets it, in tmux at 80x24 and at 120x40.

The demo runs through the real code paths (the tail follows a replayed log file, the
nvidia-smi parser reads recorded CSV). The test waits until decode metrics and eight GPU
rows are on screen, moves a task, saves, quits, then reopens the saved working copy
with plain `cockpit PATH` and finds the task where it was put.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)
from waits import PATIENCE_S

from cockpit.store.toml_store import load_session

# "│0 ███▋░░  59%  357/600W" (compact) or "│0 RTX PRO 6000 … 59%   357/600 W" (wide);
# the focused pane's border is heavy ("┃0 …"), as at 80x24 where the GPU pane has focus
GPU_ROW = re.compile(r"[│┃]([0-7]) [^│┃]*?\d+%\s+\d{2,3}/600 ?W")


def _gpu_rows(screen: str) -> set[str]:
    return {m.group(1) for m in GPU_ROW.finditer(screen)}


def _decode_metrics(screen: str) -> bool:
    match = re.search(r"gen(?: tok/s)? ([\d.,]+k?) ↑", screen)
    return bool(match) and match.group(1) not in ("0", "-") and "Decode batch" in screen


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_demo_shows_live_panes_then_keeps_a_moved_task(tmux, tmp_path, size):
    width, height = size
    state = Path(tmux.env["XDG_STATE_HOME"])
    copy = state / "cockpit" / "demo" / "glm5-nvfp4.toml"
    tmux.start(f"{cockpit_program()} --demo", width=width, height=height)
    screen = tmux.wait_for("DEMO")

    if width >= 120:  # every pane at once
        screen = tmux.wait_until(lambda s: _decode_metrics(s) and len(_gpu_rows(s)) == 8 and "Server metrics" in s,
                                 "decode metrics, eight GPU rows and the server metrics", timeout=40)
    else:  # 80x24: panes are tabs; `w` walks board -> log -> GPUs -> server metrics
        tmux.keys("w")
        tmux.wait_until(_decode_metrics, "decode metrics", timeout=40)
        tmux.keys("w")
        screen = tmux.wait_until(lambda s: len(_gpu_rows(s)) == 8, "eight GPU rows", timeout=30)
        assert "W of 4800 W" in screen
        tmux.keys("w")  # the replayed /metrics through the real parser: window percentiles
        tmux.wait_until(lambda s: re.search(r"TTFT +[\d.]+ m?s +[\d.]+ m?s", s) is not None, "TTFT percentiles", timeout=30)
        tmux.keys("w")
        tmux.wait_for("todo ·")

    first = next(t for t in load_session(copy).tasks if t.status.value == "todo")
    tmux.keys(">")  # the selected (first todo) task -> doing
    tmux.wait_for("unsaved 1")
    tmux.keys("C-s")
    tmux.wait_for(" saved")
    tmux.keys("q")
    screen = tmux.wait_for("COCKPIT-EXIT=0")
    assert "your demo session stays at" in screen.replace("\n", "")
    scratch = re.search(r"removed (/\S+);", screen.replace("\n", ""))
    assert scratch and not Path(scratch.group(1)).exists(), "quitting removes what the demo wrote"
    assert next(t for t in load_session(copy).tasks if t.id == first.id).status.value == "doing"

    tmux.kill()
    tmux.start(f"{cockpit_program()} {copy}", width=width, height=height)
    screen = tmux.wait_for("doing ·")
    assert first.id in screen and "DEMO" not in screen
    band = width // 4  # the board's four columns share the width

    def column(text: str) -> int:
        line = next(line for line in screen.splitlines() if text in line)
        return line.index(text) // band

    assert column(f"{first.id} ") == column("doing ·") == 1, "reopened with the task where it was put"
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
    assert next(t for t in load_session(copy).tasks if t.id == first.id).status.value == "doing"


def test_demo_again_reopens_the_kept_copy_and_fresh_starts_a_new_one(tmux):
    from cockpit.demo.build import DEMO_SESSION, data_dir

    copy = Path(tmux.env["XDG_STATE_HOME"]) / "cockpit" / "demo" / DEMO_SESSION
    copy.parent.mkdir(parents=True)
    shipped = (data_dir() / DEMO_SESSION).read_text(encoding="utf-8")
    copy.write_text(shipped.replace('title = "', 'title = "KEPT ', 1), encoding="utf-8")  # last demo's edit

    tmux.start(f"{cockpit_program()} --demo")
    tmux.wait_for("KEPT")
    tmux.keys("q")
    screen = tmux.wait_for("COCKPIT-EXIT=0").replace("\n", "")
    assert f"reopening your demo copy {copy}" in screen
    assert "cockpit --demo reopens it" in screen
    tmux.kill()

    tmux.start(f"{cockpit_program()} --demo --fresh")
    screen = tmux.wait_for("DEMO")
    assert "KEPT" not in screen
    tmux.keys("q")
    screen = tmux.wait_for("COCKPIT-EXIT=0").replace("\n", "")
    assert "the previous one is kept as" in screen
    assert load_session(copy).title == load_session(data_dir() / DEMO_SESSION).title
    assert load_session(copy.with_suffix(".prev.toml")).title.startswith("KEPT ")


def _demo_pid(tmux) -> int:
    """cockpit's pid: the child of the pane's shell that runs it."""
    import subprocess

    shell = tmux.run("list-panes", "-t", "t", "-F", "#{pane_pid}").strip()
    found = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True).stdout.split()
    for pid in found:
        if "cockpit" in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
            return int(pid)
    raise AssertionError(f"no cockpit under the pane's shell {shell}: {found}")


@pytest.mark.parametrize("how", ["SIGTERM", "hangup"])
def test_demo_removes_its_temporary_folder_on_sigterm_and_on_hangup(tmux, tmp_path, how):
    """As after `q`: the replayed log's folder goes when cockpit is told to end (SIGTERM) and
    when its terminal goes away (tmux's server killed: the pane's SIGHUP, the tty gone)."""
    import os
    import signal
    import time

    scratch_root = tmp_path / "tmp"
    scratch_root.mkdir()
    tmux.env["TMPDIR"] = str(scratch_root)
    tmux.start(f"{cockpit_program()} --demo", width=120, height=40)
    tmux.wait_until(_decode_metrics, "decode metrics (the demo's log writer at work)", timeout=40)
    folders = list(scratch_root.glob("cockpit-demo-*"))
    assert len(folders) == 1 and (folders[0] / "sglang-server.log").stat().st_size > 0
    pid = _demo_pid(tmux)
    if how == "SIGTERM":
        os.kill(pid, signal.SIGTERM)
        tmux.wait_for("COCKPIT-EXIT=0", timeout=20)
    else:
        tmux.kill()  # the pane's pty closes: SIGHUP, and every write to the terminal fails
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline and (Path(f"/proc/{pid}").exists() or folders[0].exists()):
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists(), "cockpit ended"
    assert not folders[0].exists(), f"{how}: the demo's temporary folder is left behind"
