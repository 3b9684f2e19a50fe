"""The real `cockpit` process in tmux: move a task, save, quit, reopen, and see it there.

Runs on a copy of the example session with XDG dirs in tmp_path, on a private tmux
socket so nothing else is disturbed. Asserts on `capture-pane -p`: what a person sees.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from cockpit.store.toml_store import load_session

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "sessions" / "glm5-nvfp4.toml"

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    def __init__(self, tmp_path: Path) -> None:
        self.socket = f"cockpit-e2e-{uuid.uuid4().hex[:8]}"
        self.conf = tmp_path / "tmux.conf"
        self.conf.write_text("set -g status off\n")
        self.env = {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                    "COLORTERM": "truecolor"}

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, "-f", str(self.conf), *args],
                              check=True, capture_output=True, text=True).stdout

    def start(self, command: str, width: int = 120, height: int = 40) -> None:
        env = [part for key, value in self.env.items() for part in ("-e", f"{key}={value}")]
        # Without a default size the first frame can be drawn at tmux's 80x24 default.
        self.conf.write_text(f"set -g status off\nset -g default-size {width}x{height}\n")
        # The shell keeps the pane open after cockpit exits, so the exit status can be read.
        # The short sleep lets tmux settle the pane size before cockpit asks for it: a resize
        # that lands before Textual installs its SIGWINCH handler is otherwise lost.
        self.run("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), *env,
                 f"sleep 0.5; {command}; echo COCKPIT-EXIT=$?; sleep 60")

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "t")

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.run("send-keys", "-t", "t", key)
            time.sleep(0.15)

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not on screen:\n{screen}")
            time.sleep(0.1)

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def tmux(tmp_path):
    session = Tmux(tmp_path)
    yield session
    session.kill()


def _command(path: Path) -> str:
    cockpit = Path(sys.executable).with_name("cockpit")
    program = str(cockpit) if cockpit.exists() else f"{sys.executable} -m cockpit"
    return f"cd {path.parent} && {program} {path.name}"


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
