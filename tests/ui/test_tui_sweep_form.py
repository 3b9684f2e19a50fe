"""A sweep set up and edited in the app (issue 23, item 1): from the Launch tab's key shown
in its footer and from the palette, every dataset with its own fields; the Launch footer
shows its own keys at 120 columns and its empty list says how to add a profile."""

from __future__ import annotations

from tui_campaign import build_session
from tui_support import keys_for, make_app, palette_shows, screen_text, until

from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.forms.sweep_form import SweepForm


def _footer(app) -> str:  # noqa: ANN001
    return screen_text(app).splitlines()[-1]


async def test_b_on_the_launch_tab_sets_up_a_shared_prefix_sweep_and_ctrl_b_edits_it(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("7")
        footer = _footer(app)
        for key in ("a Add", "e Edit", "b New sweep", "X Stop server", "S Restart server"):
            assert key in footer, footer
        await pilot.press("b")
        form = app.screen
        assert isinstance(form, SweepForm)
        await pilot.press(*keys_for("prefix heavy"))
        form.query_one("#field-dataset").value = "generated-shared-prefix"
        form.query_one("#field-concurrencies").value = "1, 8, 32"
        form.query_one("#field-gsp_num_groups").value = "16"
        form.query_one("#field-gsp_system_prompt_len").value = "4096"
        form.query_one("#field-input_len").value = "300"  # left as the model's: random's field, not saved apart
        form.query_one("#field-extra_args").value = "--dataset-name sharegpt"
        await pilot.press("ctrl+s")
        assert "extra_args gives --dataset-name (set `dataset` instead)" in screen_text(app)
        form.query_one("#field-extra_args").value = "--seed 7"
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, SweepForm), pilot)
        sweep = app.editor.session.sweeps[-1]
        assert (sweep.name, sweep.dataset.value, sweep.concurrencies) == ("prefix heavy", "generated-shared-prefix",
                                                                         [1, 8, 32])
        assert (sweep.gsp_num_groups, sweep.gsp_system_prompt_len, sweep.extra_args) == (16, 4096, ["--seed", "7"])
        await until(lambda: f"Sweep {sweep.id} added" in screen_text(app), pilot)
        await pilot.press("ctrl+s")  # the session saved: the sweep is in the file
        await until(lambda: any(s.name == "prefix heavy" for s in load_session(session_path).sweeps), pilot)

        await pilot.press("E")
        form = app.screen
        assert isinstance(form, SweepForm) and form.title_text == f"Edit sweep {sweep.id}"
        assert form.query_one("#field-gsp_num_groups").value == "16"
        form.query_one("#field-dataset").value = "mooncake"
        form.query_one("#field-dataset_path").value = "/traces/conv.jsonl"
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, SweepForm), pilot)
        edited = app.editor.session.sweeps[-1]
        assert (edited.dataset.value, edited.dataset_path, edited.gsp_num_groups) == (
            "mooncake", "/traces/conv.jsonl", None), "the old dataset's fields go with it"


async def test_the_palette_opens_the_sweep_form(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.press(*keys_for("launch: new sweep"))
        await palette_shows(app, pilot, "launch: new sweep")
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, SweepForm), pilot)


async def test_the_empty_launch_list_says_how_to_add_a_profile(tmp_path):
    full = build_session()
    session = full.model_copy(update={"launch": [], "benchmarks": [
        b.model_copy(update={"profile": None}) for b in full.benchmarks]})
    path = tmp_path / "c.toml"
    save_session(session, path)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("7")
        assert "No launch profiles recorded. Press a to add one" in screen_text(app)
