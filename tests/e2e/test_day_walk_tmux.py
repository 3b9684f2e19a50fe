"""A campaign's day in tmux at 80x24 and at 200x50, typed as a person does it, stray keys
included (issue 39): day one's toast stays off the footer and leaves nothing after a
restart; the Benchmarks table tells the two profiles' rows apart; a stray key says it does
nothing; the Search view shows each trial's changed flags and says what each launch count
is; the sweep form shows the chosen dataset's fields and its keys; `v` in Packages records
the host's versions or says why it cannot; the findings view and the header count the same;
the log strip's figures carry their units and say what they cover; a search in the log left
at its 3rd match; a new task, a stray `u` that undoes it and the redo that brings its words
back; every footer's keys are whole; quit, reopen, and no toast is left over the status line
or the footer, the log at the same match. Then the saved file holds what was typed.

The session is tests/day_session.py's (the example campaign after a day: two profiles swept
on one workload, a finished search). Nothing here is a stand-in: the real `cockpit` process.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from day_session import day_session

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.store.toml_store import load_session, save_session

FOOTER_END = "▏^p palette"
TOAST_WORDS = ("Created", "empty campaign", "file's name")
"""Day one's toast, and the pieces of it a fragment would leave (a toast's bar `▌` is no
test: a horizontal scrollbar draws the same glyph)."""


def _footer_whole(screen: str) -> None:
    """The footer (the last line) ends with the palette key and no key's words are cut: each
    shown key is one of the screen's bindings, whole."""
    footer = screen.rstrip("\n").splitlines()[-1]
    assert footer.rstrip().endswith(FOOTER_END), footer
    assert "? Keys" in footer or "esc" in footer, footer


def _flat(screen: str) -> str:
    return re.sub(r"[\s│┃]+", " ", screen)  # a wrapped cell or caption reads on, past its border


def _until(tmux, *texts: str) -> str:  # noqa: ANN001
    """The screen once every text is on it (a view is drawn in more than one frame)."""
    return tmux.wait_until(lambda s: all(t in _flat(s) for t in texts), " and ".join(texts))


def _with_a_log(path: Path) -> None:
    """The local host's server log: decode lines with six `needle` lines among them (the
    tmux walk's own: the snapshot tests keep day_session's file without one)."""
    log = path.with_name("server.log")
    lines = []
    for i in range(300):
        s = i * 2
        lines.append(f"[2026-11-29 08:{s // 60 % 60:02d}:{s % 60:02d} TP0] Decode batch. #running-req: {10 + i % 7}, "
                     f"#token: {5000 + 40 * i}, token usage: {0.1 + (i % 10) / 20:.2f}, "
                     f"gen throughput (token/s): {800 + 37.13 * (i % 13):.2f}, #queue-req: {i % 4}")
    for k in range(6):
        lines[40 + 45 * k] = f"[2026-11-29 08:00:00 TP0] needle number {k + 1}"
    log.write_text("\n".join(lines) + "\n")
    session = load_session(path)
    session.hosts[0].log_path = str(log)
    save_session(session, path)


def _row(screen: str, ident: str) -> str:
    return next(line for line in screen.splitlines() if re.match(rf"[│┃ ]*{ident} ", line))


def _day_one_then_restart(tmux, folder: Path, width: int, height: int) -> None:  # noqa: ANN001
    """Day one: a new campaign's toast sits above the footer (never over it), goes within
    seconds; the restart shows no fragment of it."""
    fresh = folder / "fresh.toml"
    program = f"cd {folder} && {cockpit_program()} {fresh.name}"
    tmux.start(program, width=width, height=height)
    tmux.wait_for("create it? [y/N]")
    tmux.keys("y", "Enter")
    screen = tmux.wait_for("an empty campaign")
    bottom = screen.rstrip("\n").splitlines()[-2:]
    assert not any(word in line for line in bottom for word in TOAST_WORDS), bottom  # the footer stays whole
    # within its few seconds and with no key pressed (it stood until the next key: a repaint lost)
    tmux.wait_until(lambda s: not any(word in s for word in TOAST_WORDS), "the toast gone", timeout=10)
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
    tmux.kill()
    tmux.start(program, width=width, height=height)
    screen = _until(tmux, "todo ·", FOOTER_END)
    assert not any(word in screen for word in TOAST_WORDS), screen  # not a fragment of it
    _footer_whole(screen)
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
    tmux.kill()


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
def test_a_day_with_stray_keys(tmux, tmp_path: Path, size: tuple[int, int]):
    width, height = size
    _day_one_then_restart(tmux, tmp_path, width, height)
    path = day_session(tmp_path)
    _with_a_log(path)
    before = load_session(path)
    program = f"{cockpit_program()} {path}"
    tmux.start(program, width=width, height=height)
    screen = tmux.wait_for("Targets")
    _footer_whole(screen)

    # Benchmarks: the same workload on two profiles, told apart by the profile column
    tmux.keys("4")
    screen = _until(tmux, " prof ", "b7 ", FOOTER_END)
    assert " l1 " in _row(screen, "b5") and " l2 " in _row(screen, "b7"), screen
    assert "3,310" in _row(screen, "b7"), screen  # one formatter: thousands separated, no stray decimals
    _footer_whole(screen)

    # a stray key says so, and changes nothing
    tmux.keys("z")
    tmux.wait_for("'z' does nothing")

    # the Search view: changed flags per trial, and what each count is
    tmux.keys("Q")
    # each trial's changed flags (wrapped at 80 columns), the plot's axes named
    _until(tmux, "4 of 4 launches ended (3 trials + 1 repeat)", "--cuda-graph-max-bs 256 --moe-runner-backend triton",
           "ok, again #2", "Pareto front", "↑ output tok/J", FOOTER_END)
    tmux.keys("v")  # the plot's other axis
    _until(tmux, "↑ TTFT p99 ms")
    tmux.keys("Escape")
    tmux.wait_for(" prof ")

    # the sweep form from the Launch tab: the chosen dataset's fields only, its keys' hint shown
    tmux.keys("7")
    tmux.wait_for("New sweep")  # the footer's key
    tmux.keys("b")
    screen = _until(tmux, "Concurrencies", "ctrl+s: save")
    assert "GSP groups" not in screen and "Trace rounds" not in screen, screen
    tmux.keys("Escape")
    tmux.wait_until(lambda s: "Concurrencies" not in s, "the form closed")

    # Packages: `v` records what the host runs now, or says why it cannot
    tmux.keys("6")
    tmux.wait_for("Record versions")
    tmux.keys("v")
    screen = tmux.wait_until(lambda s: "Recorded the versions" in s or "Nothing recorded:" in s,
                             "v's answer", timeout=30)
    recorded = "Recorded the versions" in screen

    # the findings view and the header count the same findings
    tmux.keys("D")
    screen = tmux.wait_for(" open")
    listed = int(re.search(r"Findings · (\d+) open", screen).group(1))
    tmux.keys("Escape")
    screen = tmux.wait_for("Targets")
    header = re.search(r"◆ (\d+) finding", screen)
    assert (int(header.group(1)) if header else 0) == listed, screen

    # stray keys on the board
    tmux.keys("1", "j", "z")  # a step down the board, then a key bound nowhere there
    tmux.wait_for("'z' does nothing in")
    tmux.wait_until(lambda s: "does nothing" not in s, "the stray key's toast gone", timeout=10)

    # a new task, then a burst with a stray `u` that undoes it: redo brings the words back
    words = "Profile decode at c=64 with nsys"
    tmux.keys("a")
    tmux.wait_for("New task in")
    tmux.keys(words, "Enter")
    tmux.wait_until(lambda s: "Profile decode" in s and "New task in" not in s, "the new task on the board")
    tmux.keys("u")
    tmux.wait_until(lambda s: "Profile decode" not in s, "the stray u's undo")
    tmux.keys("C-r")
    tmux.wait_for("Profile decode")

    # the log: the strip's figures carry their units and say what they cover; a search left at
    # its 3rd match of 6
    tmux.keys("/")
    tmux.wait_for("Search the log")
    tmux.keys("needle", "Enter")
    tmux.wait_for("of 6")
    tmux.keys("N", "N", "N")
    screen = _until(tmux, "3 of 6", "needle number 3")
    if height >= 50:  # the strip has the room at 200x50 (at 80x24 the log pane is its lines)
        strip = _flat(screen)
        assert re.search(r"gen tok/s \d[\d.,]*k? ↑\d[\d.,]*k? ", strip), screen  # a unit, no 1245.69
        assert "↑ peak of the lines read · bars: 15 min of log time" in strip, screen
        assert re.search(r"kv \d+% ↑\d+%", strip), screen

    # save and quit
    tmux.keys("C-s")
    tmux.wait_for(" saved")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
    tmux.kill()

    saved = load_session(path)
    # the stray keys changed nothing: every task where it was, every record kept
    assert [(t.id, t.status) for t in saved.tasks if t.title != words] == [(t.id, t.status) for t in before.tasks]
    assert [t.title for t in saved.tasks if t.title == words] == [words]  # the person's words, redone
    assert saved.ui.log.search == "needle" and "needle number 3" in (saved.ui.log.match_line or "")
    assert [b.id for b in saved.benchmarks] == [b.id for b in before.benchmarks]
    assert {b.id: b.profile for b in saved.benchmarks}["b7"] == "l2"
    assert saved.searches[0].trial[3].repeat_of == 2
    if recorded:  # the versions the host runs now, with when they were read
        assert any(p.captured is not None for p in saved.packages), saved.packages

    # reopen: the view comes back whole, header to footer, with what the file holds, and the
    # log at the same match
    tmux.start(program, width=width, height=height)
    screen = _until(tmux, "Targets", FOOTER_END)
    assert "cockpit" in screen.splitlines()[0], screen
    _footer_whole(screen)
    _until(tmux, "3 of 6", "needle number 3")
    tmux.keys("4")
    screen = _until(tmux, " prof ", "b7 ", FOOTER_END)
    assert " l2 " in _row(screen, "b7"), screen
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
