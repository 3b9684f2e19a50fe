"""The real `cockpit` process in tmux: move a task, save, quit, reopen, and see it there.

Runs on a copy of the example session with XDG dirs in tmp_path, on a private tmux
socket so nothing else is disturbed. Asserts on `capture-pane -p`: what a person sees.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.store.toml_store import load_session

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "sessions" / "glm5-nvfp4.toml"


def _command(path: Path) -> str:
    return f"cd {path.parent} && {cockpit_program()} {path.name}"


def _column_of(screen: str, task_title_start: str) -> int:
    line = next(line for line in screen.splitlines() if task_title_start in line)
    return line.index(task_title_start) // 30  # four columns of 30 cells at 120 wide


def test_move_save_quit_reopen_in_tmux(tmux, tmp_path):
    path = tmp_path / "campaign.toml"
    shutil.copyfile(EXAMPLE, path)
    first = next(t for t in load_session(path).tasks if t.status.value == "todo")
    title = f"{first.id} {first.title.split()[0]}"

    tmux.start(_command(path))
    screen = tmux.wait_for("Where you left off")
    assert "todo ·" in screen and "^s Save" in screen
    assert _column_of(screen, title) == 0

    tmux.keys(">")  # the selected (first todo) task -> doing
    screen = tmux.wait_for("unsaved 1")
    assert _column_of(screen, title) == 1
    tmux.keys("C-s")
    tmux.wait_for(" saved")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")

    saved = next(t for t in load_session(path).tasks if t.id == first.id)
    assert saved.status.value == "doing"
    assert load_session(path).ui.focused_pane == "tasks.doing"

    tmux.kill()
    tmux.start(_command(path))
    screen = tmux.wait_for("Where you left off")
    assert _column_of(screen, title) == 1, "reopened with the task where it was put"
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")


def test_small_terminal_collapses_panes_to_tabs(tmux, tmp_path):
    path = tmp_path / "campaign.toml"
    shutil.copyfile(EXAMPLE, path)
    tmux.start(_command(path), width=80, height=24)
    screen = tmux.wait_for("w: next pane")
    lines = screen.splitlines()
    assert len(lines) <= 24 and "? Keys" in lines[-1]
    assert "Server log" not in screen
    tmux.keys("w")
    screen = tmux.wait_for("Server log")
    assert "todo ·" not in screen
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")


def test_a_broken_session_exits_1_with_the_position(tmux, tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('schema_version = 1\ntitle = "x"\n[[tasks]]\nid = "t1"\n')
    tmux.start(_command(path), width=120, height=10)
    screen = tmux.wait_for("COCKPIT-EXIT=1")
    assert f"{path.name}:3:1" in screen or "broken.toml:" in screen
    assert path.read_text() == 'schema_version = 1\ntitle = "x"\n[[tasks]]\nid = "t1"\n'


if os.environ.get("COCKPIT_E2E_KEEP"):  # pragma: no cover - debugging aid
    print("keeping tmux sockets for inspection")


def test_a_profile_added_by_a_script_is_diffed_in_the_open_cockpit(tmux, tmp_path):
    """A shell adds a launch profile while cockpit is open; the person diffs it against the
    working one with d in the Launch tab, then quits without anything to save."""
    import subprocess
    import sys

    path = tmp_path / "campaign.toml"
    shutil.copyfile(EXAMPLE, path)
    tmux.start(_command(path))
    tmux.wait_for("Where you left off")
    done = subprocess.run(
        [sys.executable, "-m", "cockpit", "add", "profile", str(path), "trtllm + eagle3", "--command",
         "python -m sglang.launch_server --model-path lukealonso/GLM-5-NVFP4 --tp 8 "
         "--moe-runner-backend flashinfer_trtllm --speculative-algorithm EAGLE3"],
        capture_output=True, text=True, cwd=REPO, env={**os.environ}, timeout=60)
    assert done.stdout == "l3\n", done.stderr
    tmux.keys("7")
    tmux.wait_for("l3 trtllm + eagle3")  # the open cockpit picked the outside change up
    tmux.keys("d", "Down", "Down")
    screen = tmux.wait_for("+ --speculative-algorithm EAGLE3")
    assert "◆ l1 flashinfer_cutlass" in screen and "→ l3 trtllm + eagle3" in screen
    assert "~ --moe-runner-backend: flashinfer_cutlass ->" in screen  # (the new value wraps)
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")


def test_a_new_session_is_announced_as_the_tui_opens_not_after_it_exits(tmux, tmp_path):
    path = tmp_path / "new.toml"
    tmux.start(_command(path))
    tmux.wait_for("new.toml does not exist: create it? [y/N]")  # asked at the terminal first
    tmux.keys("y", "Enter")
    # said inside the opened TUI (its first frame may land a moment after the toast)
    tmux.wait_until(lambda s: "Created new.toml" in s and "no targets yet" in s, "the toast over the TUI")
    tmux.keys("q")
    after = tmux.wait_for("COCKPIT-EXIT=0")
    assert "created" not in after.lower(), "nothing left to surface on the shell after the TUI's screen goes"
    assert load_session(path).title == "new"
