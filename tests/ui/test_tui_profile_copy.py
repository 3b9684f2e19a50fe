"""The Launch tab's `n`: the new-profile form opens pre-filled as a copy of the selected
profile (command, host, env, python); a person changes one flag and saves, and the session
gains a new profile with that one change (the source untouched, no seal copied). The same
action is in the footer and the palette (one registry)."""

from __future__ import annotations

from textual.widgets import Input, TextArea

from tui_support import make_app, screen_text, until

from cockpit.model.bench.profile_diff import diff_lines, diff_profiles
from cockpit.model.session import LaunchProfile, Session
from cockpit.store.toml_store import save_session
from cockpit.ui.keys.commands import palette_actions
from cockpit.ui.screens.forms.records import RecordForm

BASE = "python -m sglang.launch_server --model-path m --tp 8 --cuda-graph-max-bs 64 --mem-fraction-static 0.80"


async def test_n_opens_the_form_as_a_copy_and_saving_adds_one_changed_profile(tmp_path):
    path = tmp_path / "s.toml"
    save_session(Session(launch=[
        LaunchProfile(id="l1", name="base", command=BASE, env={"NCCL_P2P_LEVEL": "SYS"}, python="/opt/v/bin/python",
                      confirmed="a-persons-seal"),
        LaunchProfile(id="l2", name="other", command=BASE + " --enable-torch-compile")]), path)
    app = make_app(path)
    async with app.run_test(size=(140, 44)) as pilot:
        await pilot.press("7")
        await until(lambda: "New copy" in screen_text(app), pilot)  # the footer names the key
        await pilot.press("n")
        await until(lambda: isinstance(app.screen, RecordForm), pilot)
        form = app.screen
        assert form.title_text == "New launch profile: a copy of l1"
        command = form.query_one("#field-command", TextArea)
        assert command.text == BASE
        assert form.query_one("#field-name", Input).value == "base (copy)"
        assert form.query_one("#field-python", Input).value == "/opt/v/bin/python"
        assert form.query_one("#field-env", TextArea).text == "NCCL_P2P_LEVEL=SYS"
        command.text = BASE.replace("--cuda-graph-max-bs 64", "--cuda-graph-max-bs 128")
        await pilot.press("ctrl+s")
        await until(lambda: len(app.editor.session.launch) == 3, pilot)
    l1, _, l3 = app.editor.session.launch
    assert l1.command == BASE and l1.confirmed == "a-persons-seal"
    assert (l3.name, l3.env, l3.python, l3.confirmed) == ("base (copy)", l1.env, l1.python, None)
    changes = [text for kind, text in diff_lines(diff_profiles(l1, l3)) if kind not in ("heading", "note")]
    assert changes == ["~ --cuda-graph-max-bs: 64 -> 128"]
    assert any(spec.id == "launch.new-copy" and spec.title == "launch: New copy" for spec in palette_actions())
