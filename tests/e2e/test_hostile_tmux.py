"""Hostile session text in the real terminal: cockpit in tmux with `set-clipboard on` (and
passthrough allowed), every tab visited, then every CLI text command run in a pane.

An OSC 0/2 that got through would change `#{pane_title}`, an OSC 52 would add a tmux paste
buffer, a CSI 2J or a DCS passthrough would blank the screen. None may happen; the
placeholders (␛]0;x␇ ...) are what the person sees instead.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from hostile import NAMES, VECTORS, check_text, hostile_session, shown, tally
from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.model.session import Task
from cockpit.store.toml_store import save_session

SHORT = " ".join(v for name, v in VECTORS.items() if name != "10k line")
OPTIONS = "set -g set-clipboard on\nset -g allow-passthrough on\n"
# tab key -> text that is on screen only when that tab is drawn
TABS = (("2", "Instructions"), ("3", "Evidence"), ("4", "sorted by"), ("5", "id  state"),
        ("6", "p1  —     pkg"), ("7", "Command"), ("8", "Timeline (newest first)"),
        ("9", "Topology"), ("0", "1. Goal"), ("1", "todo ·"))


def _session(tmp_path: Path) -> Path:
    session = hostile_session(SHORT)
    session.tasks.append(Task(id="t3", title=VECTORS["10k line"], status="blocked"))
    session.packages[0].host = None  # `drift` checks it on this machine
    path = tmp_path / "hostile.toml"
    save_session(session, path)
    return path


def _terminal_state(tmux) -> tuple[str, str]:  # noqa: ANN001
    return tmux.run("display-message", "-p", "-t", "t", "#{pane_title}"), tmux.run("list-buffers")


def _not_blanked(screen: str) -> bool:
    return sum(1 for line in screen.splitlines() if line.strip()) >= 10


def _unchanged(tmux, before: tuple[str, str], surface: str) -> None:  # noqa: ANN001
    title, buffers = _terminal_state(tmux)
    assert title == before[0], f"{surface}: the pane title changed to {title!r}"
    assert buffers == before[1], f"{surface}: a paste buffer appeared: {buffers!r}"
    for name in NAMES:  # the session holds every vector: none of them acted
        tally(name, "tmux title + buffers", 2)


def test_cockpit_shows_hostile_text_inert_on_every_tab(tmux, tmp_path):
    path = _session(tmp_path)
    tmux.options = OPTIONS
    tmux.start(f"cd {path.parent} && {cockpit_program()} {path.name}", width=160, height=45)
    before = _terminal_state(tmux)
    assert before[1] == "", "no paste buffer to begin with"
    screen = tmux.wait_for("todo ·")
    for key, marker in TABS:
        tmux.keys(key)
        screen = tmux.wait_until(lambda s, m=marker: m in s and _not_blanked(s), f"tab {key} ({marker})")
        _unchanged(tmux, before, f"tab {key}")
        lines = screen.splitlines()
        assert "cockpit" in lines[0], f"tab {key}: the header line is gone"
        for name in NAMES:  # placeholders of the first vectors: later ones may be cut at the edge
            check_text(screen, name, "tmux screen", visible=key != "9" and name in ("OSC 0", "OSC 52", "CSI 2J"))
    assert shown("bidi") in screen and "LLLLLLLLLL" in screen
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
    _unchanged(tmux, before, "after quitting")


def test_cli_text_outputs_leave_the_terminal_alone(tmux, tmp_path):
    path = _session(tmp_path)
    topo = tmp_path / "topo.txt"
    topo.write_text("\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV18\t0-31\t0\nGPU1\tNV18\t X \t0-31\t0\n"
                    f"\nLegend:\n\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks {SHORT}\n",
                    encoding="utf-8")
    program = cockpit_program()
    commands = [f"{program} timeline {path.name}", f"{program} diff {path.name} l1 l2",
                f"{program} export {path.name}", f"{program} export {path.name} --format json",
                f"{program} topo {shlex.quote(str(topo))}", f"{program} check {path.name}",
                f"{program} drift {path.name} --python {shlex.quote(sys.executable)}",
                f"{program} add task {path.name} {shlex.quote(SHORT)}"]
    tmux.options = OPTIONS + "set -g history-limit 50000\n"
    tmux.start(f"cd {path.parent} && clear && " + "; ".join(commands) + "; echo ALL-DONE", width=160, height=45)
    before = _terminal_state(tmux)
    tmux.wait_for("ALL-DONE", timeout=60)
    _unchanged(tmux, before, "CLI commands")
    history = tmux.run("capture-pane", "-p", "-t", "t", "-S", "-", "-J")
    for name in NAMES:
        if name != "10k line":
            check_text(history, name, "tmux CLI output")
    assert _not_blanked(tmux.screen())
