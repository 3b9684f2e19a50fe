"""An assistant writes through `cockpit mcp` while a person has the same session open in
the TUI: the change shows on the board within the watcher's poll and is undoable there."""

from __future__ import annotations

from mcp import Client

from tui_support import make_app, screen_text, status, until

from cockpit.assistant.mcp_server import build_server
from cockpit.model.enums import TaskStatus
from cockpit.store.toml_store import load_session


async def test_a_tool_call_shows_on_the_open_board_and_u_undoes_it(session_path):
    app = make_app(session_path, watch_interval_s=0.1)
    async with app.run_test(size=(160, 40)) as pilot, Client(build_server(session_path)) as assistant:
        await pilot.pause()
        assert status(app, "t1") is TaskStatus.TODO
        moved = await assistant.call_tool("move_task", {"task_id": "t1", "to": "blocked"})
        assert not moved.is_error
        await until(lambda: status(app, "t1") is TaskStatus.BLOCKED, pilot)
        await pilot.press("u")
        assert status(app, "t1") is TaskStatus.TODO, "undone in the TUI"
        added = await assistant.call_tool("add_task", {"title": "Bench EP=8 at c=64", "status": "doing"})
        assert not added.is_error
        await until(lambda: status(app, "t6") is TaskStatus.DOING, pilot)
        await pilot.pause()
        assert "Bench EP=8 at c=64" in screen_text(app), "the board shows the assistant's task"
        await pilot.press("u")
        assert status(app, "t6") is None
        await pilot.pause()
        assert "Bench EP=8 at c=64" not in screen_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
    saved = load_session(session_path)
    assert {t.id: t.status for t in saved.tasks}["t1"] is TaskStatus.TODO
    assert "Bench EP=8 at c=64" not in {t.title for t in saved.tasks}
