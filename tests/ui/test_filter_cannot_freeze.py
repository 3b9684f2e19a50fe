"""A saved log filter cannot freeze the TUI (issue 34): the issue's three patterns, each
saved in `ui.log` over a log with the long lines that held `re` for seconds to minutes,
open with the filter applied and `q` ends the app at once. The app runs in a child process
with a time limit, so a freeze fails the test instead of hanging the suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.model.log_view import LogViewState
from cockpit.model.session import Host, Session, UiState
from cockpit.store.toml_store import save_session

OPEN_FILTER_QUIT = r"""
import asyncio, json, sys, time
from pathlib import Path
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session
from cockpit.ui.app import CockpitApp
from cockpit.ui.widgets.log.pane import LogPane

async def main():
    path = Path(sys.argv[1])
    session = load_session(path)
    app = CockpitApp(session, path, sources=sources_for_session(session), watch_interval_s=None)
    shown = {}
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.main_screen.query_one("#log", LogPane)
        for _ in range(1500):
            if pane.buffer.total >= 4:
                break
            await pilot.pause(0.02)
        await pilot.pause()
        shown = {"total": pane.buffer.total, "rows": [r[:40] for r in pane.buffer.tail_texts(10)],
                 "title": str(pane.border_title)}
        started = time.monotonic()
        await pilot.press("q")
        for _ in range(500):
            if not app.is_running:
                break
            await pilot.pause(0.01)
        shown["quit_s"] = time.monotonic() - started
        shown["running"] = app.is_running
    print(json.dumps(shown))

asyncio.run(main())
"""

# (pattern, the long line `re` spent its time on, the line that matches)
CASES = [
    ("(A|B)*C", "AB" * 50_000, "AB" * 50_000 + "C matches"),
    ("A.*A.*B", "A" * 4_000, "A" * 4_000 + "B matches"),
    ("A.*B", "A" * 100_000, "x" + "A" * 99_998 + "B matches"),
]


@pytest.mark.parametrize(("pattern", "slow", "hit"), CASES, ids=[case[0] for case in CASES])
def test_a_saved_filter_over_long_lines_opens_filtered_and_quits_at_once(tmp_path: Path, pattern: str,
                                                                           slow: str, hit: str) -> None:
    log = tmp_path / "server.log"
    log.write_text(f"{slow}\n[2026-11-29 09:00:00] a short line\n{hit}\n{slow}\n")
    path = tmp_path / "s.toml"
    save_session(Session(title="x", hosts=[Host(name="here", log_path=str(log))],
                         ui=UiState(log=LogViewState(filter=pattern))), path)
    done = subprocess.run([sys.executable, "-c", OPEN_FILTER_QUIT, str(path)], capture_output=True, timeout=60,
                          cwd=Path(__file__).parent)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    shown = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert shown["total"] == 4, shown
    assert [r[:len(hit[:40])] for r in shown["rows"]] == [hit[:40]], "only the matching line is shown"
    assert f"filter: {pattern}" in shown["title"]
    assert not shown["running"] and shown["quit_s"] < 2.0, shown


async def test_a_typed_regex_the_linear_engine_refuses_is_not_set_and_says_why() -> None:
    from test_log_pane import PaneApp, decode_lines, until
    from test_log_pane_keys import feed_text

    from cockpit.ui.widgets.log.pane import LogPane

    app = PaneApp()
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(LogPane)
        feed_text(pane, decode_lines(50))
        await until(pilot, lambda: pane.buffer.rows == 50)
        await pilot.press("backslash", *"queue-req", "enter")
        await until(pilot, lambda: pane.view_state.filter == "queue-req")
        await pilot.press("backslash", "ctrl+u", *"(?!other)queue", "enter")
        await pilot.pause()
        assert pane.view_state.filter == "queue-req", "the refused pattern is not set; the old one stays"
        said = [n.message for n in app._notifications]
        assert any(m.startswith("Not set: (?!other)queue: not matched as a regex: invalid perl operator: (?!")
                   and "linear time" in m for m in said), said
        await pilot.press("slash", *r"(\w)\1", "enter")
        await pilot.pause()
        assert pane.view_state.search is None


async def test_a_search_matching_every_character_of_long_lines_draws_at_once() -> None:
    import time

    from rich.style import Style
    from test_log_pane import PaneApp, until
    from test_log_pane_keys import feed_text

    from cockpit.ui.widgets.log.pane import LogPane
    from cockpit.ui.widgets.log.view import MAX_HIGHLIGHTS

    app = PaneApp()
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(LogPane)
        feed_text(pane, ["x" * 100_000 for _ in range(20)])
        await until(pilot, lambda: pane.buffer.rows == 20)
        await pilot.press("slash", ".", "enter")  # every character a match: 100,000 a line
        await pilot.pause()
        started = time.perf_counter()
        strips = [pane.view._line_strip(row, Style())[0] for row in range(20)]
        assert time.perf_counter() - started < 1.0  # every match of every row: ~2 s a row
        assert all(len(list(strip)) == MAX_HIGHLIGHTS + 1 for strip in strips)  # 300 marked, the rest plain
        assert pane.keys.match_count()[1] == 20  # the search still finds every line
