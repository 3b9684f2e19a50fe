"""`?` filters as you type and scrolls with the list keys (j / k / g / G)."""

from __future__ import annotations

from tui_support import make_app, screen_text, until

from cockpit.ui.screens.help import HelpScreen


async def test_typing_in_the_keys_screen_keeps_only_the_rows_that_match(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await until(lambda: "tasks: Move right" in screen_text(app), pilot)
        await pilot.press(*"redo")
        await until(lambda: "tasks: Move right" not in screen_text(app), pilot)
        text = screen_text(app)
        assert "Redo the last undone edit" in text and "Write the session file now" not in text, text
        for _ in range(4):
            await pilot.press("backspace")
        await until(lambda: "tasks: Move right" in screen_text(app), pilot)


async def test_the_keys_screen_scrolls_with_j_k_g_and_shift_g(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        await pilot.pause()
        listing = screen.query_one("#help-list")
        assert listing.max_scroll_y > 10
        await pilot.press("down")  # from the filter line to the list
        await pilot.press("j", "j", "j")
        await pilot.pause()
        assert listing.scroll_y == 3
        await pilot.press("k")
        await pilot.pause()
        assert listing.scroll_y == 2
        await pilot.press("G")
        await pilot.pause()
        assert listing.scroll_y == listing.max_scroll_y
        await pilot.press("g")
        await pilot.pause()
        assert listing.scroll_y == 0
        await pilot.press("q")
        assert not isinstance(app.screen, HelpScreen)
