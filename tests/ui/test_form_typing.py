"""Forms take what a person types as they mean it: a pre-filled field is selected when focus
arrives, so typing replaces the old value (it used to land at its start: `did0<old did>`),
and the long value still shows from its start; a dialog acts on its first item at once; a
save that changes nothing writes nothing."""

from __future__ import annotations

from tui_support import make_app, screen_text, task

from cockpit.ui.screens.forms.records import LastActionForm, LinkForm
from cockpit.ui.screens.forms.setup import GoalForm


async def test_typing_into_a_prefilled_last_action_replaces_it_field_by_field(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        old = app.editor.session.last_action
        assert old is not None and old.text
        await pilot.press("L")
        form = app.screen
        assert isinstance(form, LastActionForm)
        await pilot.pause()
        assert old.text[:30] in screen_text(app), "the old value shows from its start"
        await pilot.press(*"did it", "tab", *"then this")
        await pilot.pause()
        assert form.query_one("#field-text").value == "did it"
        assert form.query_one("#field-next_step").value == "then this"
        await pilot.press("ctrl+s")
        await pilot.pause()
        saved = app.editor.session.last_action
        assert (saved.text, saved.next_step) == ("did it", "then this")


async def test_typing_into_the_goal_summary_replaces_it(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        old = app.editor.session.goal.summary
        assert old
        await pilot.press("2", "e")
        form = app.screen
        assert isinstance(form, GoalForm)
        await pilot.pause()
        assert old[:30] in screen_text(app)
        await pilot.press(*"faster")
        await pilot.pause()
        assert form.query_one("#field-summary").text == "faster"


async def test_the_link_dialog_ticks_its_first_item_with_space_alone(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        first = app.editor.session.discoveries[0].id
        assert task(app, "t1").discoveries == []
        await pilot.press("c")
        assert isinstance(app.screen, LinkForm)
        await pilot.pause()
        await pilot.press("space", "ctrl+s")
        await pilot.pause()
        assert task(app, "t1").discoveries == [first]


async def test_saving_a_dialog_unchanged_journals_nothing_and_adds_no_undo_step(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        journal, steps = len(app.editor.session.journal), len(app.editor.history)
        await pilot.press("c")  # link dialog
        assert isinstance(app.screen, LinkForm)
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("L")  # last action
        assert isinstance(app.screen, LastActionForm)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, (LinkForm, LastActionForm))
        assert (len(app.editor.session.journal), len(app.editor.history)) == (journal, steps)


async def test_saving_a_record_unchanged_journals_nothing(session_path):
    from cockpit.ui.screens.forms.records import RecordForm

    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        journal, steps = len(app.editor.session.journal), len(app.editor.history)
        for tab in ("6", "5", "7"):  # a package, a patched file (its state), a profile (its env)
            await pilot.press(tab, "e")
            assert isinstance(app.screen, RecordForm), tab
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert not isinstance(app.screen, RecordForm)
        assert (len(app.editor.session.journal), len(app.editor.history)) == (journal, steps)
