"""Keys typed in one burst after a tab switch reach the new tab (issue 23: no keystroke lands
where focus was). Textual's `focus()` is deferred, so "2" then "e" sent together used to hand
the "e" to the task board being left: the Goal form never opened (a tmux walk under load saw
it). The keys are posted as one burst, as a fast typist or a paste delivers them."""

from __future__ import annotations

from textual import events

from tui_support import make_app, until

from cockpit.model.session import Session
from cockpit.store.toml_store import save_session
from cockpit.ui.screens.forms.records import TaskForm
from cockpit.ui.screens.forms.setup import GoalForm


def _burst(app, *keys: str) -> None:  # noqa: ANN001
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def test_a_key_sent_with_the_tab_switch_acts_on_the_new_tab(tmp_path):
    path = tmp_path / "s.toml"
    save_session(Session(title="burst"), path)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        _burst(app, "2", "e")  # Goal tab, then its edit key, in one go
        await until(lambda: isinstance(app.screen, GoalForm), pilot, timeout=10)


async def test_a_key_sent_with_the_switch_back_to_main_acts_on_the_board(tmp_path):
    path = tmp_path / "s.toml"
    save_session(Session(title="burst"), path)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2")
        await pilot.pause()
        _burst(app, "1", "a")  # back to Main, where `a` adds a task on the focused board
        await until(lambda: isinstance(app.screen, TaskForm), pilot, timeout=10)
