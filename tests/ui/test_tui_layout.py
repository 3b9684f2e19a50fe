"""The main screen at the sizes people use: nothing essential cut at 80x24, every tab and
the `?` hint at 60x16, the board no taller than its tasks; the Files detail view."""

from __future__ import annotations

from tui_support import make_app, screen_text

from cockpit.ui.screens.file_detail import FileDetailScreen
from cockpit.ui.screens.forms.base import FormScreen
from cockpit.ui.widgets.session.task_board import TaskBoard


async def test_at_80x24_every_host_the_banner_fallback_and_the_judged_column_show(example_path):
    app = make_app(example_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.feeds.set_host_state("proxmox", "connected")  # the green dot says it
        app.feeds.set_host_state("lxc", "reconnecting in 8 s")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert "● local  ● proxmox  ● lxc reconnecting in 8 s" in lines[0], lines[0]
        assert any(line.startswith(" fallback If it crashed") for line in lines[1:4]), lines[1:4]
        await pilot.press("4")
        header = next(line for line in screen_text(app).splitlines() if line.startswith(" id  best"))
        assert "total tok/s" in header and "tok/s/str" in header, "g1 and g2 are judged by these"


async def test_at_60x16_every_tab_and_the_help_hint_stay_reachable(example_path):
    app = make_app(example_path)
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.pause()
        bar = next(line for line in screen_text(app).splitlines() if line.startswith("1 Main"))
        keys = [word for word in bar.split() if len(word) == 1 and word != "?"]
        assert keys == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"], "every tab by its key"
        assert bar.split()[:4] == ["1", "Main", "2", "Goal"], "the first tabs keep their names"
        assert bar.split()[-3:] == ["9", "0", "?"] and len(bar) <= 60  # the last tabs by key alone
        await pilot.press("0")
        assert "0 Handoff" in screen_text(app)


async def test_the_board_takes_the_rows_its_tasks_need_and_the_log_the_rest(example_path, tmp_path):
    from cockpit.model.session import Session
    from cockpit.store.toml_store import save_session

    app = make_app(example_path)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        board = app.main_screen.query_one(TaskBoard)
        assert board.size.height == 13, "7 done tasks over 10 rows, the title and the border"
        assert app.main_screen.query_one("#log").size.height > 25
    empty = tmp_path / "empty.toml"
    save_session(Session(), empty)
    app = make_app(empty)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        assert app.main_screen.query_one(TaskBoard).size.height == 5


async def test_enter_on_a_file_shows_what_changed_and_e_edits_it(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("5", "down", "enter")
        assert isinstance(app.screen, FileDetailScreen)
        text = screen_text(app)
        assert "sglang/srt/distributed/parallel_state.py" in text and "disable custom allreduce" in text
        assert "state  problematic" in text and "lines  212" in text
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, FormScreen) and "Edit patched file f2" in screen_text(app)
        await pilot.press("escape", "5", "enter", "escape")
        assert not isinstance(app.screen, (FileDetailScreen, FormScreen))
