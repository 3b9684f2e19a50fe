"""Day one in tmux, as a new user does it: a new session, its goal, a target and a host
through the forms (no file edited by hand), saved; reopened, the host tails a local log."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

LOG = [
    "[2026-11-29 09:00:00] server_args=ServerArgs(model_path='/models/GLM-5-NVFP4', tp_size=8)",
    "[2026-11-29 09:01:00] The server is fired up and ready to roll!",
]


def _command(path: Path) -> str:
    return f"cd {path.parent} && {cockpit_program()} {path.name}"


def test_a_new_campaign_is_set_up_from_the_forms_and_its_host_tails_a_local_log(tmux, tmp_path):
    path = tmp_path / "new.toml"
    log = tmp_path / "server.log"
    log.write_text("".join(line + "\n" for line in LOG), encoding="utf-8")

    tmux.start(_command(path))
    tmux.wait_for("no targets yet: T adds one")

    tmux.keys("T")  # the target form: metric, comparator, then the value
    tmux.wait_for("New target")
    tmux.keys("Tab", "Tab", "1000", "Enter")
    tmux.wait_for("Targets ○ total tok/s >=1000: no data")

    tmux.keys("2", "e")  # the goal: the summary (a text area), then the model (a line)
    tmux.wait_for("Summary")
    tmux.keys("GLM-5 at 1k tok/s", "Tab", "GLM-5-NVFP4", "Enter")
    tmux.wait_for("Goal GLM-5 at 1k tok/s")

    tmux.keys("H")  # a host on this machine: name, then three tabs to the log path
    tmux.wait_for("New host")
    tmux.keys("here", "Tab", "Tab", "Tab", str(log), "Enter")
    screen = tmux.wait_for("here  this machine")
    assert "here  this machine · log /tmp" in screen or "here  this machine · log" in screen
    tmux.keys("C-s")
    tmux.wait_for(" saved")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")

    saved = tomllib.loads(path.read_text(encoding="utf-8"))
    assert saved["goal"]["summary"] == "GLM-5 at 1k tok/s" and saved["goal"]["model"] == "GLM-5-NVFP4"
    assert saved["goal"]["targets"] == [{"id": "g1", "metric": "total_tok_s", "comparator": ">=", "value": 1000.0}]
    assert saved["hosts"] == [{"name": "here", "log_path": str(log), "gpu_source": "none", "gpu_interval_s": 1.0}]

    tmux.kill()
    tmux.start(_command(path))
    tmux.wait_for("Goal GLM-5 at 1k tok/s")  # reopened where it was left: the Goal tab
    tmux.keys("1")
    screen = tmux.wait_for("ready to roll")
    assert f"tail {log}" in screen or str(log) in screen
    with log.open("a", encoding="utf-8") as f:
        f.write("[2026-11-29 09:02:00] a line written after the open\n")
    tmux.wait_for("a line written after the open")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
