"""Keys typed in one burst with the key that opens a form (`e S` faster than the form opens)
go to the form or nowhere, never to the screen behind it: on the launch tab `S` restarts the
server, `X` stops it and `r` starts it; on the benchmarks tab `S` reverses the sort."""

from __future__ import annotations

import pytest
from textual import events

from tui_support import make_app

from cockpit.ui.screens.forms.records import BenchmarkForm, RecordForm
from cockpit.ui.screens.main.screen import MainScreen


async def _burst(app, pilot, *keys: str) -> None:  # noqa: ANN001
    """The keys as a terminal delivers a fast typist's burst: all queued before any is handled
    (`pilot.press` waits for the app to go idle after each key, which hides the race)."""
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))
    for _ in range(10):
        await pilot.pause(0.02)


@pytest.mark.parametrize("behind", ["S", "X", "r"])
async def test_a_key_right_after_e_on_a_profile_does_not_reach_the_launch_tab(session_path, behind):
    app = make_app(session_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("7")  # the launch tab, a profile selected
        profile = app.editor.session.launch[0]
        await _burst(app, pilot, "e", behind)
        stack = [type(screen) for screen in app.screen_stack]
        assert stack == [MainScreen, RecordForm], f"{behind!r} opened {stack[2:]} behind the form"
        assert not [n.message for n in app._notifications], "nothing started, stopped or asked"
        assert app.screen.query_one("#field-name").value == profile.name
        await pilot.press("escape")
        await pilot.pause()
        assert [type(screen) for screen in app.screen_stack] == [MainScreen]
        assert app.experiment.in_flight() is None


async def test_s_right_after_e_on_a_benchmark_does_not_reverse_the_sort_behind(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await pilot.press("4")  # the benchmarks tab
        table = app.main_screen.query_one("BenchTable")
        before = [str(key.value) for key in table.rows]
        await _burst(app, pilot, "e", "S")
        assert [type(screen) for screen in app.screen_stack] == [MainScreen, BenchmarkForm]
        await pilot.press("escape")
        await pilot.pause()
        assert [str(key.value) for key in table.rows] == before, "the sort behind the form was reversed"
