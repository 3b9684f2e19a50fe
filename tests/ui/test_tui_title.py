"""The campaign title set in the app (issue 23, item 6): `N` on the Goal tab (in its footer)
and the palette's "goal: Edit title"; the header and the file take it, an unchanged one writes nothing."""

from __future__ import annotations

from tui_support import keys_for, make_app, palette_shows, screen_text, until

from cockpit.ui.screens.prompt import PromptScreen


async def test_n_on_the_goal_tab_sets_the_title_and_the_palette_reaches_it(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        assert "N Edit title" in screen_text(app).splitlines()[-1]
        await pilot.press("N")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one("#answer").value = "GLM-5 day two"
        await pilot.press("enter")
        await until(lambda: app.editor.session.title == "GLM-5 day two", pilot)
        assert "GLM-5 day two" in screen_text(app).splitlines()[0]
        journal = len(app.editor.session.journal)
        await pilot.press("ctrl+p", *keys_for("goal: edit title"))
        await palette_shows(app, pilot, "goal: edit title")
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, PromptScreen), pilot)
        await pilot.press("enter")  # unchanged: nothing journaled
        await pilot.pause(0.2)
        assert len(app.editor.session.journal) == journal
