"""A day's keys in tmux at 80x24 and 200x50 (issue 39): the real `cockpit` process, a plain
`capture-pane` (no colours), keys typed as a person types them, stray ones included.

What is checked on the screen: the focused pane is marked (`▶`), `/` from the board opens
the log's search so the letters after it do not run as board commands, a key that does
nothing says so, `d` on the board asks first, `esc` takes a toast down, the Handoff tab
answers the next key and `W` writes the file; in the saved file: no task lost."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.store.toml_store import load_session

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "sessions" / "glm5-nvfp4.toml"


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_day_of_keys_with_stray_ones(tmux, tmp_path, size):  # noqa: F811
    path = tmp_path / "campaign.toml"
    shutil.copyfile(EXAMPLE, path)
    tasks = {t.id: (t.title, t.status) for t in load_session(path).tasks}
    width, height = size
    tmux.start(f"cd {path.parent} && {cockpit_program()} {path.name}", width=width, height=height)
    screen = tmux.wait_for("▶ todo")  # the board's first column has the keys, and says so
    assert screen.count("▶") == 1

    # `/` on the board: the log's search; the letters typed next are the pattern, not board keys
    tmux.keys("/")
    tmux.wait_for("Search the log")
    tmux.keys("u", "d", ">", "Enter")
    tmux.wait_for("▶ Server log")

    tmux.keys("z")  # nothing here takes z: it says so
    tmux.wait_for("does nothing in log")
    tmux.keys("Escape")  # and esc takes the message down
    tmux.wait_until(lambda s: "does nothing" not in s, "the message gone", timeout=10)

    # the Handoff tab answers the next key, and W writes the file
    tmux.keys("0")
    tmux.wait_for("1. Goal")  # the document, made off the UI thread
    tmux.keys("W")
    tmux.wait_for("Handoff written to")
    assert path.with_name("campaign.handoff.md").is_file()
    tmux.keys("1")
    tmux.wait_until(lambda s: "Server log" in s or "todo" in s, "the main tab")

    # back on the board, `d` asks before it deletes
    def on_board(screen: str) -> bool:
        return any(f"▶ {column}" in screen for column in ("todo", "doing", "done", "blocked"))

    def marked(screen: str) -> str:
        return next((line for line in screen.splitlines() if "▶" in line), "")

    for _ in range(4):  # w: the next pane, until the board has the keys
        before = tmux.screen()
        if on_board(before):
            break
        was = marked(before)
        tmux.keys("w")
        tmux.wait_until(lambda s, was=was: s.count("▶") == 1 and marked(s) != was, "the next pane marked", timeout=10)
    tmux.wait_until(on_board, "the board focused", timeout=10)
    tmux.keys("d")
    tmux.wait_for("Press d again")
    tmux.keys("Escape", "C-s")
    tmux.wait_for(" saved")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
    assert {t.id: (t.title, t.status) for t in load_session(path).tasks} == tasks  # no task lost
