"""Words typed in the last-action form survive the loop's automatic steps; the banner shows both."""

from __future__ import annotations

from tui_support import make_app, screen_text, until

from cockpit.live.experiment.launch_lifecycle import LaunchOutcome, apply_outcome
from cockpit.store.toml_store import load_session
from cockpit.ui.screens.forms.records import LastActionForm


async def test_a_crash_after_the_person_wrote_next_and_fallback_keeps_both_and_the_banner_shows_all(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        await pilot.press("L")
        form = app.screen
        assert isinstance(form, LastActionForm)
        form.query_one("#field-text").value = "Pinned NCCL to node 0"
        form.query_one("#field-next_step").value = "rerun c=128 on l2"
        form.query_one("#field-fallback").value = "tp8 baseline l1"
        await pilot.press("ctrl+s")
        await until(lambda: "rerun c=128 on l2" in screen_text(app), pilot)
        crash = LaunchOutcome(kind="crashed", profile_id="l2", profile_name="ep8", host="lxc", elapsed_s=30.0,
                              phase="loading", log_path="/tmp/l2.log", error_label="CUDA out of memory")
        app.controller.apply(lambda editor: apply_outcome(editor, crash))  # as the experiment loop records it
        app.save()
        saved = load_session(session_path).last_action
        assert (saved.next_step, saved.fallback) == ("rerun c=128 on l2", "tp8 baseline l1")
        await until(lambda: "crashed while" in screen_text(app), pilot)
        text = screen_text(app)
        assert "Pinned NCCL to node 0" in text and "next: rerun c=128 on l2" in text
        assert "fallback: tp8 baseline l1" in text and "since: l2 (ep8) on lxc: crashed while" in text
        await pilot.press("8")
        await pilot.pause()
        text = screen_text(app)
        assert "Since then (automatic)" in text and "fix profile l2 (see /tmp/l2.log)" in text
        assert "Earlier actions" in text and "Benchmarked c=128 with cuda graphs up to bs 128" in text, text
        await pilot.press("u", "u")  # the crash's two edits (status, activity), then the form's
        await pilot.press("u")
        assert app.editor.session.last_action.text == "Benchmarked c=128 with cuda graphs up to bs 128"
