"""The text tabs (Handoff, Last action) take a list's keys: `j` / `k` a line, `g` / `G` the
ends, as every list and table does; `G` on the Handoff used to say it does nothing."""

from __future__ import annotations

from tui_support import make_app, screen_text, until

from cockpit.ui.widgets.session.text_views import HandoffView, LastActionView


async def test_handoff_and_last_action_scroll_with_the_list_keys(example_path):
    app = make_app(example_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("0")
        view = app.main_screen.query_one(HandoffView)
        await until(lambda: view.shown_whole and view.max_scroll_y > 100, pilot)
        assert app.focused is view
        await pilot.press("G")
        await until(lambda: view.scroll_y == view.max_scroll_y, pilot)
        await pilot.press("g")
        await until(lambda: view.scroll_y == 0, pilot)
        await pilot.press("j", "j")
        await until(lambda: view.scroll_y == 2, pilot)
        await pilot.press("k")
        await until(lambda: view.scroll_y == 1, pilot)
        # the Last action tab fits 80x24 here: the keys are taken all the same, nothing said
        await pilot.press("8")
        assert app.focused is app.main_screen.query_one(LastActionView)
        await pilot.press("G", "g", "j", "k")
        await pilot.pause(0.2)
        assert "does nothing" not in screen_text(app)
