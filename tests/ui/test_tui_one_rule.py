"""Keys and mouse by one rule: j / k / g / G / Enter in every list, a click selects and a
double click opens, tab labels and pane switchers click, the palette holds only cockpit's
own way of changing theme and quitting, and ctrl+t says the theme it switched to."""

from __future__ import annotations

from tui_support import keys_for, make_app, screen_text, until

from cockpit.ui.screens.bench_detail import BenchDetailScreen
from cockpit.ui.screens.forms.records import BenchmarkForm, DiscoveryForm, RecordForm, TaskForm
from cockpit.ui.widgets.session.benchmarks_view import BenchTable
from cockpit.ui.widgets.session.discoveries_view import DiscoveryList
from cockpit.ui.widgets.session.profiles_view import ProfileList
from cockpit.ui.widgets.session.task_board import TaskList


def row_of(lst, ident: str) -> tuple[int, int]:  # noqa: ANN001
    """The click offset (in the widget, border included) of the line that names `ident`."""
    top = lst.content_region.y - lst.region.y
    left = lst.content_region.x - lst.region.x
    y = next(y for y in range(lst.content_region.height)
             if f"{ident} " in "".join(seg.text for seg in lst.render_line(y)))
    return left + 3, top + y


async def test_j_k_g_G_and_enter_in_the_discoveries_list(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        lst = app.screen.query_one(DiscoveryList)
        assert lst.selected_id() == "d1"
        await pilot.press("j")
        assert lst.selected_id() == "d2"
        assert "NCCL over PCIe P2P" in screen_text(app), "the detail follows"
        await pilot.press("k")
        assert lst.selected_id() == "d1"
        await pilot.press("G")
        assert lst.selected_id() == "d3"
        await pilot.press("g")
        assert lst.selected_id() == "d1"
        await pilot.press("enter")
        assert isinstance(app.screen, DiscoveryForm)


async def test_j_k_and_enter_in_the_launch_list(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("7")
        lst = app.screen.query_one(ProfileList)
        assert lst.selected_id() == "l1"
        await pilot.press("j")
        assert lst.selected_id() == "l2"
        await pilot.press("k")
        assert lst.selected_id() == "l1"
        await pilot.press("enter")
        assert isinstance(app.screen, RecordForm) and app.screen.title_text == "Edit launch profile l1"


async def test_j_k_g_G_in_the_benchmarks_table(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        table = app.screen.query_one(BenchTable)
        assert table.selected_id() == "b1"
        await pilot.press("j")
        assert table.selected_id() == "b2"
        await pilot.press("G")
        assert table.selected_id() == "b3"
        await pilot.press("g")
        assert table.selected_id() == "b1"


async def test_a_click_selects_a_task_and_a_double_click_opens_it(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        todo = app.screen.query_one("#tasks-todo", TaskList)
        assert todo.selected_id() == "t1"
        at = row_of(todo, "t2")
        await pilot.click(todo, offset=at)
        await pilot.pause()
        assert todo.selected_id() == "t2"
        assert not isinstance(app.screen, TaskForm), "a single click only selects"
        await pilot.click(todo, offset=at)  # again: still only selected
        await pilot.pause()
        assert not isinstance(app.screen, TaskForm)
        await pilot.click(todo, offset=at, times=2)
        await until(lambda: isinstance(app.screen, TaskForm), pilot)
        assert app.screen.task_.id == "t2"


async def test_a_click_selects_a_discovery_and_a_double_click_opens_it(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        lst = app.screen.query_one(DiscoveryList)
        at = row_of(lst, "d2")
        await pilot.click(lst, offset=at)
        await pilot.pause()
        assert lst.selected_id() == "d2" and not isinstance(app.screen, DiscoveryForm)
        await pilot.click(lst, offset=at, times=2)
        await until(lambda: isinstance(app.screen, DiscoveryForm), pilot)
        assert app.screen.disc.id == "d2"


async def test_a_double_click_on_a_benchmark_row_opens_its_record_and_e_there_edits_it(session_path):
    """As Enter does (issue 23: Enter shows the record read-only, `e` edits it)."""
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        table = app.screen.query_one(BenchTable)
        await pilot.click(table, offset=(2, 2))  # under the header: the second row
        await pilot.pause()
        assert table.selected_id() == "b2" and not isinstance(app.screen, BenchmarkForm)
        await pilot.click(table, offset=(2, 2))  # a second single click on the cursor row: still no form
        await pilot.pause()
        assert not isinstance(app.screen, BenchmarkForm)
        await pilot.click(table, offset=(2, 2), times=2)
        await until(lambda: isinstance(app.screen, BenchDetailScreen), pilot)
        assert app.screen.bench.id == "b2"
        await pilot.press("e")
        await until(lambda: isinstance(app.screen, BenchmarkForm), pilot)
        assert app.screen.bench.id == "b2"


async def test_a_click_on_a_tab_label_switches_to_it(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one("#tabbar")
        line = screen_text(app).splitlines()[bar.region.y]
        await pilot.click(bar, offset=(line.index("Bench") + 1, 0))
        await pilot.pause()
        assert app.screen.active_tab == "benchmarks"
        await pilot.click(bar, offset=(line.index("2 Goal"), 0))  # the number is part of the label
        await pilot.pause()
        assert app.screen.active_tab == "goal"
        await pilot.click(bar, offset=(line.index("Topo") + 2, 0))
        await pilot.pause()
        assert app.screen.active_tab == "topology"


async def test_a_click_on_the_pane_switcher_shows_that_pane(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(80, 24)) as pilot:  # narrow: one pane at a time
        await pilot.pause()
        bar = app.screen.query_one("#pane-bar")
        assert app.screen.main_pane == "board"
        line = screen_text(app).splitlines()[bar.region.y]
        await pilot.click(bar, offset=(line.index("Log"), 0))
        await pilot.pause()
        assert app.screen.main_pane == "log"
        await pilot.click(bar, offset=(line.index("GPUs"), 0))
        await pilot.pause()
        assert app.screen.main_pane == "gpu"


async def test_the_palette_has_no_textual_theme_picker_or_quit(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Theme" not in titles and "Quit" not in titles and "Keys" not in titles
        assert "Screenshot" in titles, "the rest of Textual's commands stay"
        await pilot.press("ctrl+p")
        await pilot.press(*keys_for("theme"))
        await until(lambda: "Next theme" in screen_text(app), pilot)
        await pilot.pause(0.3)
        text = screen_text(app)
        assert "view: Next theme" in text and "Change the current theme" not in text
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await pilot.press(*keys_for("quit"))
        await until(lambda: "session: Quit" in screen_text(app), pilot)
        await pilot.pause(0.3)
        assert "Quit the application as soon as possible" not in screen_text(app)


async def test_ctrl_t_says_which_theme_is_now_on(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:  # toasts drawn
        await pilot.pause()
        before = app.theme
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert app.theme != before
        assert f"Theme: {app.theme}" in [n.message for n in app._notifications]
        await until(lambda: f"Theme: {app.theme}" in screen_text(app), pilot)
