"""Keys land where a person expects (issue 39 item 1): the focused pane says so in a plain
capture, a key that does nothing says so, `/` searches the log from any pane, `d` on the
board needs a second press, and a stray `u` in a burst never loses a person's text."""

from __future__ import annotations

import pytest

from tui_support import keys_for, make_app, screen_text, task, until

from cockpit.ui.screens.forms.records import TaskForm
from cockpit.ui.screens.prompt import PromptScreen
from cockpit.ui.theme.themes import load_themes, shipped_theme_dir
from cockpit.ui.widgets.chrome.focus_mark import MARK


def _toasts(app) -> str:  # noqa: ANN001
    return " ".join(str(n.message) for n in app._notifications)


def _titled_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if MARK.strip() in line]


SHIPPED = sorted(t.name for t in load_themes([shipped_theme_dir()])[0])


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", *SHIPPED])
async def test_the_focused_pane_is_marked_in_a_plain_capture_in_every_theme(session_path, theme):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.theme = theme
        await pilot.pause()
        text = screen_text(app)
        # the board's first column has the keys: its title has the marker, its border is heavy
        assert f"{MARK}todo" in text and "┏" in text
        assert "Server log" in text and f"{MARK}Server log" not in text
        await pilot.press("w")  # the log takes the focus: the marker moves with it
        await until(lambda: f"{MARK}Server log" in screen_text(app), pilot)
        text = screen_text(app)
        assert f"{MARK}todo" not in text
        assert len(_titled_lines(text)) == 1  # one pane, one marker
        await pilot.press("w")
        await until(lambda: f"{MARK}GPUs" in screen_text(app), pilot)
        await pilot.press("3")  # a list in another tab: its border says it has the keys
        await until(lambda: MARK.strip() in screen_text(app) and "┏" in screen_text(app), pilot)


async def test_a_key_that_does_nothing_here_says_so(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("z")  # nothing on the board takes z
        await until(lambda: "does nothing" in _toasts(app), pilot)
        assert "'z' does nothing in tasks.todo" in _toasts(app)


async def test_slash_on_the_board_opens_the_log_search(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        titles = {t.id: t.title for t in app.editor.session.tasks}
        await pilot.press("slash")
        await until(lambda: isinstance(app.screen, PromptScreen), pilot)
        await pilot.press(*keys_for("ud>a"), "enter")  # board keys, typed as the pattern
        await until(lambda: not isinstance(app.screen, PromptScreen), pilot)
        assert app.main_screen.focused_key() == "log"
        assert {t.id: t.title for t in app.editor.session.tasks} == titles  # nothing ran on the board
        assert app.main_screen.shown_pane("log").view_state.search == "ud>a"


async def test_slash_from_every_tab_and_its_focused_pane_searches_the_log(example_path):
    """On every tab `/` where the focus is reaches the log's search (no pane takes it for
    itself); from the Benchmarks table and the Handoff text, pressed, it asks for the log's
    pattern and what is typed goes there, not to the pane."""
    from cockpit.ui.keys.actions import TABS
    from cockpit.ui.widgets.log.pane import LogPane

    app = make_app(example_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.main_screen
        await until(lambda: all(screen.query(f"#{tab}") for tab, *_ in TABS), pilot)
        for tab, *_ in TABS:  # no focusable pane on any tab takes `/` for itself, but the log
            top = screen.query_one(f"#{tab}")
            panes = [w for w in (top, *top.query("*")) if w.can_focus]
            takers = [w for w in panes if w._bindings.key_to_bindings.get("slash") and not isinstance(w, LogPane)]
            assert panes and not takers, (tab, takers)
        before = app.editor.session.model_dump()
        for key in ("4", "0"):  # a table that takes letters; the handoff's text
            await pilot.press(key)
            await pilot.press("slash")
            await until(lambda: isinstance(app.screen, PromptScreen), pilot)
            await pilot.press(*keys_for(f"dx{key}"), "enter")  # board and table keys, typed as the pattern
            await until(lambda: not isinstance(app.screen, PromptScreen), pilot)
            assert screen.active_tab == "main" and screen.focused_key() == "log", key
            assert screen.shown_pane("log").view_state.search == f"dx{key}", key
        assert app.editor.session.model_dump() == before  # nothing typed ran as a pane's command


async def test_d_on_the_board_needs_a_second_press(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        assert task(app, "t1") is not None
        assert "Press d again" in _toasts(app)
        await pilot.press("j", "d")  # another task: asked again, not deleted
        assert task(app, "t1") is not None and task(app, "t2") is not None
        await pilot.press("d")
        assert task(app, "t2") is None and task(app, "t1") is not None


async def test_a_stray_u_in_a_burst_is_redone_and_the_text_is_back(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, TaskForm), pilot)
        words = "Profile decode at c=64 with nsys"
        await pilot.press(*keys_for(words), "enter")
        await until(lambda: task(app, "t6") is not None, pilot)
        # a burst meant for somewhere else: `u` undoes the new task, `>` then moves another
        await pilot.press("u", "k", "greater_than_sign")
        assert task(app, "t6") is None
        later = {t.id: t.status for t in app.editor.session.tasks}
        assert app.editor.session.journal[-1].kind == "task.moved"
        await pilot.press("ctrl+r")  # redo, after a later edit: the person's text is back
        assert task(app, "t6") is not None and task(app, "t6").title == words
        assert {t.id: t.status for t in app.editor.session.tasks if t.id != "t6"} == later  # the move stays
        await until(lambda: "Profile decode" in screen_text(app), pilot)
