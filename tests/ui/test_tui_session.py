"""Saving, quitting, reopening exactly, autosave, and outside changes to the file."""

from __future__ import annotations

from tui_support import make_app, screen_text, task, until

from cockpit.model.edit.edits import SessionEditor
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.confirm_quit import ConfirmQuitScreen
from cockpit.ui.widgets.session.task_board import TaskBoard


async def _arrange_view(pilot) -> None:  # noqa: ANN001
    """Move everything the ui table remembers away from its default."""
    await pilot.press("l", "greater_than_sign")  # t3 doing -> done; the done column keeps focus
    await pilot.press("4", "s", "s", "S", "down")  # benchmarks sorted by profile, descending
    await pilot.press("3", "down", "down")  # d3
    await pilot.press("ctrl+t")  # next theme
    await pilot.press("1", "w", "f")  # log pane focused, paused


async def test_save_quit_reopen_shows_the_same_screen(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await _arrange_view(pilot)
        await pilot.press("ctrl+s")
        app.clear_notifications()
        await pilot.pause()
        before_text, before_svg = screen_text(app), app.export_screenshot()
        ui_before = app.current_ui()
        await pilot.press("q")
        await until(lambda: not app.is_running, pilot)
    saved = load_session(session_path).ui
    assert saved == ui_before
    assert (saved.theme, saved.active_tab, saved.focused_pane) == ("cockpit-light", "main", "log")
    assert saved.selection["tasks.done"] == "t3" and saved.selection["discoveries"] == "d3"
    assert saved.selection["benchmarks.sort"] == "profile:desc" and saved.log.follow is False

    again = make_app(session_path)
    async with again.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert again.current_ui() == ui_before
        assert screen_text(again) == before_text
        assert again.export_screenshot() == before_svg


async def test_reopen_restores_scroll_offsets_and_the_other_tabs(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for index in range(30):
            app.controller.apply(lambda ed, index=index: ed.add_task(f"extra task {index}"))
        await pilot.press("end")
        await pilot.press("3", "end", "4", "end", "2")
        await pilot.press("ctrl+s")
        ui_before = app.current_ui()
        assert ui_before.scroll.get("tasks.todo", 0) > 0
        await pilot.press("q")
    again = make_app(session_path)
    async with again.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("1")
        await pilot.press("2")
        assert again.current_ui() == ui_before


async def test_quitting_with_unsaved_edits_asks_first(session_path):
    original = session_path.read_bytes()
    app = make_app(session_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o")  # autosave off
        await pilot.press("d", "d")  # (a second d deletes)
        assert "unsaved 1" in screen_text(app)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuitScreen)
        await pilot.press("escape")
        assert app.is_running and not isinstance(app.screen, ConfirmQuitScreen)
        await pilot.press("q", "d")
        await until(lambda: not app.is_running, pilot)
    assert session_path.read_bytes() == original, "discarding leaves the file as it was"


async def test_save_and_quit_from_the_question(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o", "d", "d", "q", "s")
        await until(lambda: not app.is_running, pilot)
    assert "t1" not in {t.id for t in load_session(session_path).tasks}
    assert load_session(session_path).journal[-1].kind == "task.deleted", "every edit is journaled"


async def test_autosave_writes_shortly_after_an_edit(session_path):
    session = load_session(session_path)
    save_session(session.model_copy(update={"ui": session.ui.model_copy(update={"autosave_delay_s": 1.5})}),
                 session_path)
    app = make_app(session_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("greater_than_sign")
        assert app.unsaved_edits == 1
        await until(lambda: app.unsaved_edits == 0, pilot)
        assert task(app, "t1").status.value == "doing"
        assert next(t for t in load_session(session_path).tasks if t.id == "t1").status.value == "doing"
        assert "saved" in screen_text(app)


def _outside_add(path, title: str) -> None:
    """What `cockpit add task` does from a shell."""
    editor = SessionEditor(load_session(path))
    editor.add_task(title)
    save_session(editor.session, path)


async def test_an_outside_change_is_picked_up_when_there_are_no_local_edits(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        _outside_add(session_path, "added from a shell")
        await app.saving.check_disk()
        await pilot.pause()
        assert task(app, "t6").title == "added from a shell"
        assert "added from a shell" in screen_text(app)
        assert app.unsaved_edits == 0
        await pilot.press("u")
        assert task(app, "t6") is None, "taking the outside change can be undone"


async def test_an_outside_change_is_merged_with_unsaved_local_edits(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o", "greater_than_sign")  # autosave off, t1 -> doing
        _outside_add(session_path, "added from a shell")
        await app.saving.check_disk()
        await pilot.pause()
        assert task(app, "t6").title == "added from a shell" and task(app, "t1").status.value == "doing"
        assert app.unsaved_edits == 1, "the local edit is still unsaved"
        assert "merged 1 outside change" in screen_text(app)
        await pilot.press("ctrl+s")
        on_disk = {t.id: t for t in load_session(session_path).tasks}
        assert on_disk["t6"].title == "added from a shell" and on_disk["t1"].status.value == "doing"


async def test_the_watcher_polls_the_file(session_path):
    app = make_app(session_path, watch_interval_s=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        _outside_add(session_path, "added from a shell")
        await until(lambda: task(app, "t6") is not None, pilot)
        assert app.screen.query_one(TaskBoard).selected_task_id == "t1"


async def test_a_key_before_the_saved_view_is_restored_is_not_undone(session_path):
    """The saved focus is put back just after the first frame; a person who pressed `w`
    or a tab key in between keeps what they chose (it used to look like a lost key)."""
    app = make_app(session_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.main_screen
        app._restored, app._early_keys = False, False  # as just after the first frame
        await pilot.press("w")  # board -> log
        assert app._early_keys
        focused = screen.focused
        app._restore_view()
        await pilot.pause()
        assert screen.focused is focused, "the saved focus did not take the key back"
        assert app._restored


async def test_the_app_freezes_its_objects_out_of_the_gc_and_gives_them_back(session_path):
    """Built, the app's objects leave the collector's walks (no 30 ms full collections
    while a log pours in); on exit they are handed back, so nothing stays pinned."""
    import gc

    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: gc.get_freeze_count() > 10_000, pilot)
    assert gc.get_freeze_count() == 0
