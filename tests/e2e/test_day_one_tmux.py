"""Day one in tmux at 80x24, as a new user does it: a new session, its goal, a target and a
host through the forms (no file edited by hand); the host tails its log at once, without a
restart (the app re-plans the host feeds after every change); saved, quit, the file holds it.
The host is on this machine (its log_path a local file): the SSH flavour of the same flow is
tests/ui/test_day_one_sshd.py."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

LOG = [
    "[2026-11-29 09:00:00] server_args=ServerArgs(model_path='/models/GLM-5-NVFP4', tp_size=8)",
    "[2026-11-29 09:01:00] The server is fired up and ready to roll!",
]
CAPTURES = "COCKPIT_DAY_ONE_CAPTURES"
"""A folder for text captures of the Goal tab and the last screen (for the issue's
closing note), if set."""


def _capture(screen: str, name: str) -> None:
    if os.environ.get(CAPTURES):
        Path(os.environ[CAPTURES], name).write_text(screen, encoding="utf-8")


def _command(path: Path) -> str:
    return f"cd {path.parent} && {cockpit_program()} {path.name}"


def test_a_new_campaign_is_set_up_from_the_forms_and_its_host_tails_at_once(tmux, tmp_path):
    path = tmp_path / "new.toml"
    log = tmp_path / "server.log"  # not there yet: the server has not started

    tmux.start(_command(path), width=80, height=24)
    tmux.wait_for("new.toml does not exist: create it? [y/N]")  # a new session is an explicit step
    tmux.keys("y", "Enter")
    tmux.wait_for("no targets yet: T adds one")

    tmux.keys("T")  # the target form: metric, comparator, then the value
    tmux.wait_for("New target")
    tmux.keys("Tab", "Tab", "1000", "Enter")
    tmux.wait_for("total tok/s ≥1,000 tok/s: no data")

    tmux.keys("2", "e")  # the goal: the summary (a text area), then the model (a line)
    tmux.wait_for("Summary")
    tmux.keys("GLM-5 at 1k tok/s", "Tab", "GLM-5-NVFP4", "Enter")
    tmux.wait_for("Goal GLM-5 at 1k tok/s")

    tmux.keys("H")  # a host on this machine: name, then three tabs to the log path
    tmux.wait_for("New host")
    tmux.keys("here", "Tab", "Tab", "Tab", str(log), "Enter")
    tmux.wait_for("here  this machi")  # the "Created new.toml" toast may cover the rest of the row
    # connected at once, no restart: the header says it waits for the log file
    screen = tmux.wait_for("here no log file yet")
    _capture(screen, "goal-tab.txt")
    assert "Hosts changed: connecting here" in screen or "● here" in screen.splitlines()[0]

    tmux.keys("1", "w")  # the main tab, its log pane (at 80x24 one pane at a time)
    tmux.wait_for("Server log · follow")
    # the server starts and writes its log
    log.write_text("".join(line + "\n" for line in LOG), encoding="utf-8")
    screen = tmux.wait_for("ready to roll")
    # the pane's source line names the file (cut at 80 columns when pytest's folder is long);
    # the focused pane has a heavy border
    assert any(line.strip("│┃ ").startswith(f"tail {str(log)[:40]}") for line in screen.splitlines()), screen
    header = tmux.wait_until(lambda s: "no log file yet" not in s.splitlines()[0], "the header's host state")
    assert "● here" in header.splitlines()[0]
    with log.open("a", encoding="utf-8") as f:
        f.write("[2026-11-29 09:02:00] a line written after the open\n")
    screen = tmux.wait_for("a line written after the open")

    tmux.keys("C-s")
    screen = tmux.wait_for(" saved")
    if os.environ.get(CAPTURES):  # once the toasts are gone
        _capture(tmux.wait_until(lambda s: "Saved new.toml" not in s and "Created new.toml" not in s, "no toasts"),
                 "final.txt")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")

    saved = tomllib.loads(path.read_text(encoding="utf-8"))
    assert saved["goal"]["summary"] == "GLM-5 at 1k tok/s" and saved["goal"]["model"] == "GLM-5-NVFP4"
    assert saved["goal"]["targets"] == [{"id": "g1", "metric": "total_tok_s", "comparator": ">=", "value": 1000.0}]
    assert saved["hosts"] == [{"name": "here", "log_path": str(log), "gpu_source": "none", "gpu_interval_s": 1.0}]
    assert saved["ui"]["active_tab"] == "main"
