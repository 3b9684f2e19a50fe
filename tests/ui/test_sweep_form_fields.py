"""The sweep form at 80x24 (issue 39 item 5): only the chosen dataset's own fields are
shown, and choosing another dataset shows its fields instead."""

from __future__ import annotations

from tui_support import make_app, screen_text, until

from cockpit.model.bench.sweep_dataset import fields_of
from cockpit.ui.screens.forms.sweep_form import SweepForm


async def test_only_the_chosen_datasets_fields_are_shown(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("7", "b")
        await until(lambda: isinstance(app.screen, SweepForm), pilot)
        form = app.screen
        dataset = str(form.query_one("#field-dataset").value)
        assert fields_of(dataset) == ()  # random: none of its own
        await pilot.pause()
        text = screen_text(app)
        assert "Concurrencies" in text
        for label in ("GSP groups", "Trace rounds", "Dataset path", "Context len"):
            assert label not in text
        form.query_one("#field-dataset").value = "generated-shared-prefix"
        await until(lambda: "GSP groups" in screen_text(app), pilot)
        text = screen_text(app)
        assert "Trace rounds" not in text and "Dataset path" not in text
        assert not form.query_one("#field-mooncake_num_rounds").parent.display
        # taller than 24 rows now: the keys reach the last field and the form scrolls to it
        last = form.query_one("#field-extra_args")
        for _ in range(30):
            if app.focused is last:
                break
            await pilot.press("tab")
        assert app.focused is last
        await until(lambda: "Extra args" in screen_text(app), pilot, timeout=3)
        shown = screen_text(app)
        assert "Extra args" in shown and "ctrl+s: save" in shown, shown
