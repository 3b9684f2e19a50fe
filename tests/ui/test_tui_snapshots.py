"""Snapshots of every tab at 120x40 (80x24 and 200x50: test_day_snapshots.py), the main screen at 200x50 and in each theme.

Each runs on a copy of the example session (sessions/glm5-nvfp4.toml) with the clock frozen
and XDG dirs in tmp_path. The docstring says what a reviewer should see.
"""

from __future__ import annotations

import pytest

from tui_support import make_app

from cockpit.ui.keys.actions import TABS

SIZES = [(80, 24), (120, 40)]
TAB_SIZES = [(120, 40)]  # 80x24 and 200x50: test_day_snapshots.py, on a session after a day


def _show(key: str, *more: str):  # noqa: ANN202
    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        await pilot.press(key, *more)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", TAB_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("tab", [tab for tab, *_ in TABS])
def test_each_tab(snap_compare, example_path, tab, size):
    """The tab named in the test id is active and readable: header, banner, targets strip,
    tab bar and footer around it; nothing essential cut at 80x24 (panes collapse to one)."""
    key = next(k for t, _l, _s, k in TABS if t == tab)
    assert snap_compare(make_app(example_path), terminal_size=size, run_before=_show(key))


def test_main_screen_at_200x50(snap_compare, example_path):
    """Board with all four columns above the log and GPU panes side by side."""
    assert snap_compare(make_app(example_path), terminal_size=(200, 50))


@pytest.mark.parametrize("theme", ["cockpit-light", "cockpit-contrast"])
def test_main_screen_in_each_other_theme(snap_compare, example_path, theme):
    """The same main screen drawn with the theme's roles (column titles, targets, review flags)."""
    assert snap_compare(make_app(example_path, theme=theme), terminal_size=(120, 40))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_log_pane_when_narrow(snap_compare, example_path, size):
    """At 80x24 `w` switches the main tab to the log pane; at 120x40 it focuses it."""
    assert snap_compare(make_app(example_path), terminal_size=size, run_before=_show("w"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_launch_profile_diff(snap_compare, example_path, size):
    """Launch tab: l1 marked ◆ (the diff base), l2 highlighted; the detail reads ◆ l1 / → l2 with
    the best tok/s of each, the changed MoE backend in the warning colour, "2 option(s) the same"."""
    assert snap_compare(make_app(example_path), terminal_size=size, run_before=_show("7", "d", "down"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_keys_screen(snap_compare, example_path, size):
    """`?` lists the keys live at the board, then every action by area."""
    assert snap_compare(make_app(example_path), terminal_size=size, run_before=_show("question_mark"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_discovery_form_with_an_error(snap_compare, example_path, size):
    """Editing a discovery with an unknown benchmark id: the message sits under that field."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        await pilot.press("3", "e")
        await pilot.pause()
        pilot.app.screen.query_one("#field-benchmarks").value = "b1 b99"
        await pilot.press("ctrl+s")
        await pilot.pause()

    assert snap_compare(make_app(example_path), terminal_size=size, run_before=run_before)


def test_the_quit_question(snap_compare, example_path):
    """Quitting with an unsaved edit (autosave off) asks: save, quit without saving, cancel."""
    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        await pilot.press("ctrl+o", "greater_than_sign")
        await pilot.pause()
        # The toasts of those keys time out; whether one is still up would depend on speed.
        pilot.app.clear_notifications()
        await pilot.press("q")
        await pilot.pause()

    assert snap_compare(make_app(example_path), terminal_size=(80, 24), run_before=run_before)
