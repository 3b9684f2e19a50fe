"""A file the TUI holds, hand-edited into one that does not load (`high = inf`): the next
ctrl+s says so (file:line: why) before anything is written over it, never crashes the app,
and the unsaved edit stays in memory; a second ctrl+s saves over it, kept as .bak."""

from __future__ import annotations

from tui_support import make_app, screen_text, task, until

from cockpit.store.toml_store import load_session

INF_SEARCH = """
[[searches]]
id = "q1"
name = "hand-written"
profile = "l1"
sweep = "s1"
space = { "--mem-fraction-static" = { low = 0.8, high = inf, step = 0.02 } }
"""


def _messages(app) -> list[str]:  # noqa: ANN001
    return [n.message for n in app._notifications]  # the toasts' text, whole (the screen wraps it)


async def test_ctrl_s_over_a_hand_edited_inf_says_where_first_and_keeps_the_edit(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o", "greater_than_sign")  # autosave off; t1 -> doing, unsaved
        assert app.unsaved_edits == 1
        broken = session_path.read_text() + INF_SEARCH
        session_path.write_text(broken)
        line = broken.splitlines().index(INF_SEARCH.strip().splitlines()[-1]) + 1

        await pilot.press("ctrl+s")
        await until(lambda: any("does not load" in m for m in _messages(app)), pilot)
        said = next(m for m in _messages(app) if "does not load" in m)
        assert f"{session_path}:{line}:" in said and "high = inf is not a finite number" in said
        assert "1 unsaved edit stays here, in memory" in said
        assert app.is_running and session_path.read_text() == broken, "nothing written over it yet"
        assert app.unsaved_edits == 1 and task(app, "t1").status.value == "doing"
        assert "does not load" in screen_text(app)

        await pilot.press("ctrl+s")  # seen: now an explicit save writes over it, kept as .bak
        await until(lambda: app.unsaved_edits == 0, pilot)
        assert app.is_running
    assert session_path.with_name(session_path.name + ".bak").read_text() == broken
    assert next(t for t in load_session(session_path).tasks if t.id == "t1").status.value == "doing"


async def test_the_watcher_names_the_line_before_any_save(session_path):
    app = make_app(session_path, watch_interval_s=0.05)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o", "greater_than_sign")
        broken = session_path.read_text() + INF_SEARCH
        session_path.write_text(broken)
        await until(lambda: any("does not load" in m for m in _messages(app)), pilot)
        said = next(m for m in _messages(app) if "does not load" in m)
        assert app.disk_conflict
        assert f"{session_path}:" in said and "is not a finite number" in said
        assert session_path.read_text() == broken and app.unsaved_edits == 1
