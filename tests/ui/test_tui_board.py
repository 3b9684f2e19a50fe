"""Keyboard flows on the task board: move, reorder, add, edit, delete, link, undo, redo."""

from __future__ import annotations

from tui_support import column_ids, keys_for, make_app, screen_text, status, task

from cockpit.model.enums import TaskStatus
from cockpit.ui.screens.forms.records import LinkForm, TaskForm
from cockpit.ui.widgets.session.task_board import TaskBoard


async def test_a_task_moves_through_all_four_columns_and_back(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        board = app.screen.query_one(TaskBoard)
        assert board.selected_task_id == "t1"
        seen = []
        for _ in range(3):
            await pilot.press("greater_than_sign")
            seen.append(status(app, "t1"))
            assert board.selected_task_id == "t1", "the selection follows the task"
        assert seen == [TaskStatus.DOING, TaskStatus.DONE, TaskStatus.BLOCKED]
        await pilot.press("greater_than_sign")  # already last: refused, nothing changes
        assert status(app, "t1") is TaskStatus.BLOCKED
        for _ in range(3):
            await pilot.press("shift+left")
        assert status(app, "t1") is TaskStatus.TODO
        assert column_ids(app, TaskStatus.TODO) == ["t2", "t1"], "a moved task lands at the column's end"


async def test_a_task_is_reordered_within_its_column(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("J")
        assert column_ids(app, TaskStatus.TODO) == ["t2", "t1"]
        assert app.screen.query_one(TaskBoard).selected_task_id == "t1"
        await pilot.press("K")
        assert column_ids(app, TaskStatus.TODO) == ["t1", "t2"]


async def test_navigation_moves_between_and_within_columns(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        board = app.screen.query_one(TaskBoard)
        await pilot.press("j")
        assert board.selected_task_id == "t2"
        await pilot.press("l")
        assert board.selected_task_id == "t3"
        await pilot.press("right", "right")
        assert board.selected_task_id == "t5"
        await pilot.press("h", "h", "h")
        assert board.selected_task_id == "t2", "each column keeps its own selection"
        await pilot.press("k")
        assert board.selected_task_id == "t1"


async def test_a_task_is_added_in_the_selected_column(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("l", "a")
        assert isinstance(app.screen, TaskForm)
        await pilot.press(*keys_for("Profile decode"))
        await pilot.press("enter")
        new = task(app, "t6")
        assert new is not None and new.title == "Profile decode" and new.status is TaskStatus.DOING
        assert app.screen.query_one(TaskBoard).selected_task_id == "t6"
        assert app.editor.session.journal[-1].kind == "task.added"


async def test_an_empty_title_is_refused_under_the_field(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("a", "enter")
        assert isinstance(app.screen, TaskForm), "the form stays open"
        assert "a task needs a title" in screen_text(app)
        await pilot.press("escape")
        assert len(app.editor.session.tasks) == 5


async def test_a_task_is_edited_in_a_form(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("e")
        form = app.screen
        assert isinstance(form, TaskForm)
        form.query_one("#field-title").value = ""
        await pilot.press(*keys_for("Try EP=8"), "tab")
        await pilot.press(*keys_for("notes here"), "ctrl+s")
        edited = task(app, "t1")
        assert (edited.title, edited.notes) == ("Try EP=8", "notes here")


async def test_delete_then_undo_then_redo(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("d")  # the first `d` asks, on the screen
        assert task(app, "t1") is not None
        assert "Press d again" in " ".join(str(n.message) for n in app._notifications)
        await pilot.press("d")
        assert task(app, "t1") is None
        await pilot.press("u")
        assert task(app, "t1") is not None
        await pilot.press("ctrl+r")
        assert task(app, "t1") is None
        await pilot.press("ctrl+z")
        assert task(app, "t1") is not None


async def test_more_than_a_hundred_edits_undo_and_redo(session_path):
    """120 edits, all undone and redone; the last few through the keys, the rest through
    the same app methods the keys call (120 key presses each way make a slow test)."""
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        titles = [t.title for t in app.editor.session.tasks]
        for step in range(115):
            app.controller.apply(lambda ed, step=step: ed.edit_task("t1", title=f"step {step}"))
        for step in range(115, 120):
            await pilot.press("J" if step % 2 else "K")  # t1 starts at the top: down first
        assert len(app.editor.history) == 120
        await pilot.press("u", "u", "u", "u", "u")
        for _ in range(115):
            app.main_screen.action_undo()
        assert [t.title for t in app.editor.session.tasks] == titles
        assert not app.editor.history.can_undo
        for _ in range(115):
            app.main_screen.action_redo()
        await pilot.press("ctrl+r", "ctrl+r", "ctrl+r", "ctrl+r", "ctrl+r")
        assert len(app.editor.history) == 120
        assert task(app, "t1").title == "step 114"


async def test_a_task_is_linked_to_discoveries(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert isinstance(app.screen, LinkForm)
        await pilot.press("down", "space", "ctrl+s")  # d2
        t1 = task(app, "t1")
        assert t1.discoveries == ["d2"]
        d2 = next(d for d in app.editor.session.discoveries if d.id == "d2")
        assert "t1" in d2.tasks
        assert "→ d2" in screen_text(app)
        await pilot.press("u")
        assert task(app, "t1").discoveries == []


async def test_a_big_board_fills_in_after_the_first_frame_and_the_saved_selection_holds(tmp_path):
    """The first frame shows what a screen can (FIRST_FRAME_TASKS a column); the rest follow
    right after, before the saved view is put back, so a selection deep in a column holds."""
    from cockpit.model.session import Session, Task, UiState
    from cockpit.store.toml_store import save_session
    from cockpit.ui.screens.main.session_render import FIRST_FRAME_TASKS

    path = tmp_path / "big.toml"
    count = FIRST_FRAME_TASKS * 3
    save_session(Session(tasks=[Task(id=f"t{i}", title=f"task {i}", order=i) for i in range(1, count + 1)],
                         ui=UiState(selection={"tasks": "todo", "tasks.todo": f"t{count - 5}"})), path)
    app = make_app(path)
    seen_at_first_frame: list[int] = []
    restore = app._restore_view

    def check_then_restore() -> None:
        seen_at_first_frame.append(app.main_screen.query_one(TaskBoard).list_for(TaskStatus.TODO).option_count)
        restore()

    app._restore_view = check_then_restore
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        board = app.main_screen.query_one(TaskBoard)
        assert seen_at_first_frame == [FIRST_FRAME_TASKS]
        assert board.list_for(TaskStatus.TODO).option_count == count and not board.partial
        assert board.selected_task_id == f"t{count - 5}"
