"""Drive the real `cockpit` process in tmux as a person would: keys in, screen text out.

Each test gets a private tmux socket, so nothing else is disturbed, and XDG dirs in
tmp_path. `.ci/run` installs tmux; without it these tests fail rather than skip.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from waits import PATIENCE_S, patience


class Tmux:
    def __init__(self, tmp_path: Path) -> None:
        self.socket = f"cockpit-e2e-{uuid.uuid4().hex[:8]}"
        self.conf = tmp_path / "tmux.conf"
        self.conf.write_text("set -g status off\n")
        self.env = {"XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
                    "COLORTERM": "truecolor"}
        self.options = ""  # more tmux.conf lines (e.g. `set -g set-clipboard on`)

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", str(self.conf), *args],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args[:2])} failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def start(self, command: str, width: int = 120, height: int = 40) -> None:
        env = [part for key, value in self.env.items() for part in ("-e", f"{key}={value}")]
        # Without a default size the first frame can be drawn at tmux's 80x24 default.
        self.conf.write_text(f"set -g status off\nset -g default-size {width}x{height}\n{self.options}")
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
        deadline = time.monotonic() + patience(timeout)
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not on screen:\n{screen}")
            time.sleep(0.1)

    def wait_until(self, check, what: str, timeout: float = 30.0) -> str:
        """Poll the screen until `check(screen)` holds."""
        deadline = time.monotonic() + patience(timeout)
        while True:
            screen = self.screen()
            if check(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} not on screen:\n{screen}")
            time.sleep(0.2)

    def kill(self) -> None:
        """Stop the server and wait until it is gone: a new session started on the same
        socket while the old server is still exiting fails ("server exited unexpectedly")."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline and subprocess.run(
                ["tmux", "-L", self.socket, "has-session"], capture_output=True).returncode == 0:
            time.sleep(0.05)




def cockpit_program() -> str:
    cockpit = Path(sys.executable).with_name("cockpit")
    return str(cockpit) if cockpit.exists() else f"{sys.executable} -m cockpit"


@pytest.fixture
def tmux(tmp_path):
    assert shutil.which("tmux"), "tmux is missing: `bash .ci/bootstrap --test` installs it"
    session = Tmux(tmp_path)
    yield session
    session.kill()
