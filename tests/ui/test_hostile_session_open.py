"""A received session cannot freeze or crash the TUI as it opens: a saved log filter that
would backtrack for hours in `re`, an unknown tab. The open runs in a child process with a
time limit, so a freeze fails the test instead of hanging the suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tui_support import make_app, until

from cockpit.model.log_view import LogViewState
from cockpit.model.session import Host, Session, UiState
from cockpit.store.toml_store import save_session

OPEN_AND_SHOW = r"""
import asyncio, json, sys
from pathlib import Path
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session
from cockpit.ui.app import CockpitApp
from cockpit.ui.widgets.log.pane import LogPane

async def main():
    path = Path(sys.argv[1])
    session = load_session(path)
    app = CockpitApp(session, path, sources=sources_for_session(session), watch_interval_s=None)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.main_screen.query_one("#log", LogPane)
        for _ in range(500):
            if pane.buffer.total >= 3:
                break
            await pilot.pause(0.02)
        await pilot.pause()
        print(json.dumps({"total": pane.buffer.total, "rows": pane.buffer.tail_texts(10),
                          "title": str(pane.border_title)}))

asyncio.run(main())
"""


def test_a_saved_filter_that_backtracks_without_bound_opens_at_once(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("A" * 34 + "\n" + "[2026-11-29 09:00:00] AAAB matches\n" + "A" * 34 + "C\n")
    path = tmp_path / "s.toml"
    save_session(Session(title="x", hosts=[Host(name="here", log_path=str(log))],
                         ui=UiState(log=LogViewState(filter="(A+)+B"))), path)
    done = subprocess.run([sys.executable, "-c", OPEN_AND_SHOW, str(path)], capture_output=True, timeout=60,
                          cwd=Path(__file__).parent)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    shown = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert shown["total"] == 3, shown
    assert [r for r in shown["rows"] if "AAAB" in r] and not [r for r in shown["rows"] if r.startswith("AAAA")], \
        "the filter still filters: only the line with a B"
    assert "filter: (A+)+B" in shown["title"]


def _bad_ui(**fields: object) -> UiState:
    return UiState().model_copy(update=fields)  # not validated: as a newer TUI's file, or a bug's


async def test_an_unknown_tab_or_pane_opens_on_the_main_tab(tmp_path: Path) -> None:
    from cockpit.ui.widgets.session.task_board import TaskBoard

    path = tmp_path / "s.toml"
    save_session(Session(title="x"), path)
    app = make_app(path)
    app.editor.session = app.editor.session.model_copy(
        update={"ui": _bad_ui(active_tab="foo", focused_pane="tasks.nosuch")})
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: app.main_screen.active_tab == "main", pilot)
        await pilot.pause()
        assert app.main_screen.active_tab == "main"
        assert app.main_screen.query_one(TaskBoard) is not None
        assert app.is_running


@pytest.mark.parametrize("tab", ["foo", "Main", ""])
def test_check_refuses_an_unknown_tab(tmp_path: Path, tab: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f'schema_version = 1\ntitle = "x"\n\n[ui]\nactive_tab = "{tab}"\n')
    done = subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, timeout=60)
    assert done.returncode == 1
    assert f"{path}:5:1: ui.active_tab: unknown tab {tab!r}; the tabs are main, goal".encode() in done.stderr
