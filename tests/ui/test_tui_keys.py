"""One registry drives bindings, footer, palette and help; no tmux prefix is taken."""

from __future__ import annotations

from textual.binding import Binding

from tui_support import keys_for, make_app, palette_shows, screen_text, task, until

from cockpit.ui.keys.actions import ACTIONS, FORBIDDEN_KEYS, MODAL_SCOPES, PUSHED_SCOPES
from cockpit.ui.keys.commands import CockpitCommands, palette_actions
from cockpit.ui.log_app import LogApp
from cockpit.ui.screens.compare import CompareScreen
from cockpit.ui.screens.confirm_quit import ConfirmQuitScreen
from cockpit.ui.screens.confirm_run import ConfirmRunScreen, ConfirmStopScreen
from cockpit.ui.screens.failure_text import FailureTextScreen  # noqa: E402
from cockpit.ui.screens.file_detail import FileDetailScreen
from cockpit.ui.screens.findings import FindingsScreen
from cockpit.ui.screens.forms.base import FormScreen
from cockpit.ui.screens.help import HelpScreen
from cockpit.ui.screens.main.screen import MainScreen
from cockpit.ui.screens.search import SearchScreen
from cockpit.ui.widgets.fleet.pane import FleetPane
from cockpit.ui.widgets.log.pane import LogPane
from cockpit.ui.widgets.session.benchmarks_view import BenchmarksView
from cockpit.ui.widgets.session.discoveries_view import DiscoveriesView
from cockpit.ui.widgets.session.profiles_view import ProfilesView
from cockpit.ui.widgets.session.records_view import FilesTable, PackagesTable
from cockpit.ui.widgets.session.restorable import RestorableOptionList, RestorableTable
from cockpit.ui.widgets.session.setup_view import SetupView
from cockpit.ui.widgets.session.task_board import TaskBoard
from cockpit.ui.widgets.session.text_views import HandoffView

BOUND_ON = {
    "screen": MainScreen, "goal": SetupView, "tasks": TaskBoard, "discoveries": DiscoveriesView, "benchmarks": BenchmarksView,
    "launch": ProfilesView, "packages": PackagesTable, "files": FilesTable, "log": LogPane, "handoff": HandoffView,
    "fleet": FleetPane, "form": FormScreen, "quit": ConfirmQuitScreen, "help": HelpScreen, "list": RestorableOptionList,
    "logapp": LogApp, "confirm": ConfirmRunScreen, "stop": ConfirmStopScreen, "compare": CompareScreen,
    "detail": FileDetailScreen, "search": SearchScreen, "findings": FindingsScreen,
    "failure": FailureTextScreen,
}


def test_every_registry_action_is_bound_where_its_scope_lives():
    for spec in ACTIONS:
        for where in (BOUND_ON[spec.scope], RestorableTable) if spec.scope == "list" else (BOUND_ON[spec.scope],):
            bindings = [b for b in where.BINDINGS if isinstance(b, Binding)]
            assert any(b.id == spec.id and b.action == spec.action for b in bindings), (spec.id, where)


def test_ids_are_unique_and_no_key_collides_within_a_scope():
    assert len({spec.id for spec in ACTIONS}) == len(ACTIONS)
    for scope in BOUND_ON:
        keys = [key for spec in ACTIONS if spec.scope == scope for key in spec.keys.split(",")]
        assert len(keys) == len(set(keys)), scope


def test_no_binding_uses_a_tmux_prefix():
    for spec in ACTIONS:
        assert not FORBIDDEN_KEYS & set(spec.keys.split(",")), spec.id


async def test_every_registry_action_is_in_the_palette(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        provider = CockpitCommands(app.screen)
        titles = [hit.text async for hit in provider.discover()]
        # (a pushed screen's commands are offered on that screen: tests/ui/test_bench_chart.py)
        listed = [spec for spec in ACTIONS if spec.scope not in MODAL_SCOPES | PUSHED_SCOPES | {"logapp"}]
        # a pane's action the screen binds too (same area and key) is listed once, as the screen's
        screen_wide = {(spec.area, spec.keys) for spec in listed if spec.scope == "screen"}
        expected = [spec.title for spec in listed if spec.scope == "screen" or (spec.area, spec.keys) not in screen_wide]
        assert titles == expected
        assert "log: Search log (any pane)" in titles and "log: Search" not in titles
        assert all(":" in title for title in titles), "area: Verb"
        found = [hit.text async for hit in provider.search("tasks move right")]
        assert "tasks: Move right" in found


async def test_a_palette_command_acts_where_its_key_would(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        await app.screen.run_registry_action("tasks.move-right")
        await pilot.pause()
        assert task(app, "t1").status.value == "doing"
        assert app.screen.query_one("#tabs").current == "main"


async def test_the_palette_opens_and_runs_an_action_from_the_keyboard(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.press(*keys_for("view: show goal"))
        await palette_shows(app, pilot, "view: show goal")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one("#tabs").current == "goal"


async def test_help_lists_the_live_bindings(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await until(lambda: "Here" in screen_text(app), pilot)
        text = screen_text(app)
        assert "Here" in text and "tasks: Move right" in text
        from rich.console import Console

        console = Console(width=100, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        console.print(app.screen._everything())
        everything = console.export_text()
        assert "Cycle status" in everything and "Copy command" in everything
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_a_keymap_override_rebinds_by_id(session_path):
    app = make_app(session_path, keymap={"tasks.move-right": "m"})
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        assert task(app, "t1").status.value == "doing"
        assert app.bound_key_displays()["tasks.move-right"] == "m"


async def test_the_footer_shows_save_and_help_at_80_columns(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "^s Save" in footer and "? Keys" in footer and "q Quit" in footer


def test_palette_actions_exclude_only_dialog_scopes():
    assert {spec.scope for spec in palette_actions()} == set(BOUND_ON) - MODAL_SCOPES - {"logapp"}


async def test_the_keymap_file_rebinds_and_reports_what_it_skipped(session_path, tmp_path):
    import os

    path = tmp_path / "config" / "cockpit" / "keymap.toml"  # XDG_CONFIG_HOME of this test
    assert os.environ["XDG_CONFIG_HOME"] == str(tmp_path / "config")
    path.parent.mkdir(parents=True)
    path.write_text('"tasks.move-right" = "m"\n"tasks.nope" = "x"\n', encoding="utf-8")
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        assert task(app, "t1").status.value == "doing"
        assert app.keymap_problems == [f"{path}: no action 'tasks.nope' (the ids are listed by ? in cockpit)"]
