"""A received session's `log_command` runs only once a person has seen and confirmed it:
opening the file in the TUI runs nothing (the log pane says it waits; ctrl+l shows the
host and the exact command and asks), and an assistant reading the live log over MCP
never starts it. The command here would leave a marker file if it ever ran."""

from __future__ import annotations

import asyncio
from pathlib import Path

from mcp import Client

from tui_support import make_app, until

from cockpit.assistant.live_state import LiveState
from cockpit.assistant.mcp_server import build_server
from cockpit.model.session import Host, Session
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.confirm_run import ConfirmRunScreen
from cockpit.ui.widgets.log.pane import LogPane


def _session(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "ran.marker"
    path = tmp_path / "received.toml"
    command = f"touch {marker}; echo the server is fired up; sleep 30"
    save_session(Session(title="received", hosts=[Host(name="box", log_command=command)]), path)
    return path, marker


async def test_the_tui_runs_a_log_command_only_after_the_person_confirms_it(tmp_path: Path) -> None:
    path, marker = _session(tmp_path)
    app = make_app(path, sources=sources_for_session(load_session(path)))
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.main_screen.query_one("#log", LogPane)
        await until(lambda: "not confirmed" in pane.state_text, pilot)
        await asyncio.sleep(0.5)
        assert not marker.exists(), "ran on open"
        await pilot.press("ctrl+l")
        await until(lambda: isinstance(app.screen, ConfirmRunScreen), pilot)
        shown = app.screen.what
        assert "host:    box, on this machine" in shown and f"touch {marker}; echo the server" in shown
        await pilot.press("n")  # not now: still nothing runs
        await pilot.pause(0.3)
        assert not marker.exists() and load_session(path).hosts[0].log_confirmed is None
        await pilot.press("ctrl+l")
        await until(lambda: isinstance(app.screen, ConfirmRunScreen), pilot)
        await pilot.press("y")
        await until(marker.exists, pilot, timeout=10)
        await until(lambda: "not confirmed" not in pane.state_text, pilot)
    assert load_session(path).hosts[0].log_confirmed.startswith("hmac1:")  # saved: asked once


async def test_an_assistant_reading_the_live_log_never_starts_it(tmp_path: Path) -> None:
    path, marker = _session(tmp_path)
    async with Client(build_server(path, live=LiveState(first_wait_s=1.0))) as c:
        for _ in range(3):
            text = (await c.read_resource("cockpit://session/live/log")).contents[0].text  # type: ignore[union-attr]
            await asyncio.sleep(0.3)
    assert "log_command not confirmed: confirm in the TUI" in text
    assert not marker.exists()


async def test_a_copied_confirmation_or_a_bare_fingerprint_is_not_one(tmp_path: Path) -> None:
    import os

    from cockpit.model.launch.confirm import log_fingerprint, seal

    path, marker = _session(tmp_path)
    session = load_session(path)
    host = session.hosts[0]
    for value in (log_fingerprint(host), seal(os.urandom(32), "log", log_fingerprint(host))):
        session.hosts[0] = host.model_copy(update={"log_confirmed": value})
        save_session(session, path)
        async with Client(build_server(path, live=LiveState(first_wait_s=0.5))) as c:
            text = (await c.read_resource("cockpit://session/live/log")).contents[0].text  # type: ignore[union-attr]
        assert "not confirmed" in text and not marker.exists()
