"""Alerts and toasts (issue 23, item 5): one toast per event, a burst as one, none over an
open form or any dialog the person must answer (held until it closes); a reconnect a person asks for is not "host dropped"."""

from __future__ import annotations

import pytest
from textual.widgets._toast import Toast

from sshd_fixture import ALIAS
from tui_support import make_app, screen_text, until

from cockpit.model.session import Host, Session
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.forms.base import FormScreen

FAILURES = [f"point c={c}: the client exited 1" for c in (1, 2, 4, 8, 16, 32)]


def _toasts(app) -> list[str]:  # noqa: ANN001
    return [str(t.render()) for t in app.screen.query(Toast)]


async def test_a_burst_over_an_open_form_waits_and_comes_as_one_toast(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("L")
        assert isinstance(app.screen, FormScreen)
        for text in FAILURES:  # a failed sweep's six messages while the person types
            app.notify(text, severity="error")
        await pilot.pause(0.5)
        assert not any(text in screen_text(app) for text in FAILURES), "nothing covers the form"
        await pilot.press("escape")
        await until(lambda: len(_toasts(app)) == 1, pilot)
        await pilot.pause(0.3)
        (toast,) = _toasts(app)
        assert all(text in toast for text in FAILURES)


def _confirm_run():  # noqa: ANN202
    from cockpit.ui.screens.confirm_run import ConfirmRunScreen

    return ConfirmRunScreen("Start profile l1?", "python -m sglang.launch_server --port 30000")


def _confirm_quit():  # noqa: ANN202
    from cockpit.ui.screens.confirm_quit import ConfirmQuitScreen

    return ConfirmQuitScreen(unsaved=2)


def _prompt():  # noqa: ANN202
    from cockpit.ui.screens.prompt import PromptScreen

    return PromptScreen("Title of this campaign?", "day one")


@pytest.mark.parametrize("dialog", [_confirm_run, _confirm_quit, _prompt], ids=["confirm-run", "confirm-quit", "prompt"])
async def test_a_burst_over_any_dialog_the_person_must_answer_waits_until_it_closes(session_path, dialog):
    """Not forms alone: a confirm's buttons and command were hidden under a sweep's toasts."""
    app = make_app(session_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        screen = dialog()
        app.push_screen(screen)
        await until(lambda: app.screen is screen, pilot)
        for text in FAILURES[:3]:
            app.notify(text, severity="error")
        await pilot.pause(0.5)
        assert not _toasts(app) and not any(text in screen_text(app) for text in FAILURES), "nothing covers it"
        screen.dismiss(None)
        await until(lambda: len(_toasts(app)) == 1, pilot)
        await pilot.pause(0.3)
        (toast,) = _toasts(app)
        assert all(text in toast for text in FAILURES[:3])


async def test_a_view_that_only_shows_lets_the_toast_through(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert type(app.screen).__name__ == "HelpScreen"
        app.notify("Sweep s1 failed at c=8", severity="error")
        await until(lambda: "Sweep s1 failed at c=8" in screen_text(app), pilot)


async def test_the_same_words_again_are_not_a_second_toast_and_a_burst_is_one(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        app.notify("Host lxc: connected")
        app.notify("Host lxc: connected")
        app.notify("Sweep s1 failed at c=8")
        await until(lambda: "Sweep s1 failed at c=8" in screen_text(app), pilot)
        await pilot.pause(0.3)
        assert len(_toasts(app)) == 1
        assert screen_text(app).count("Host lxc: connected") == 1 and "Sweep s1 failed at c=8" in screen_text(app)


async def test_a_reconnect_the_person_asks_for_is_not_host_dropped(sshd, tmp_path):
    log = sshd.make_dir("logs") / "server.log"
    log.write_text("[2026-11-29 09:00:00] ready\n")
    path = tmp_path / "c.toml"
    save_session(Session(title="keys", hosts=[Host(name="loop", ssh=ALIAS, log_path=str(log))]), path)
    app = make_app(path, sources=sources_for_session(load_session(path), ssh_config=(sshd.ssh_config,)))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await until(lambda: app.host_states.get("loop") == "connected", pilot, timeout=30)
        states: list[str] = []
        observe = app.alerts.observe_host
        app.alerts.observe_host = lambda host, state: (states.append(state), observe(host, state))[1]
        await pilot.press("1", "R")
        await until(lambda: states[-1:] == ["connected"], pilot, timeout=30)
        assert any(s.split()[0] in ("disconnected", "reconnecting") for s in states) or "connecting" in states
        await pilot.pause(0.5)
        assert not [a for a in app.alerts.unseen if a.kind == "host"]
        assert "dropped" not in screen_text(app)


async def test_a_toast_up_when_a_dialog_opens_goes_down_and_comes_back_after(session_path):
    """"Started l1" was still up when `B` opened the sweep's confirm, over its last lines."""
    app = make_app(session_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        app.notify("Started l1 on box (this machine)", timeout=30)
        await until(lambda: len(_toasts(app)) == 1, pilot)
        screen = _confirm_run()
        app.push_screen(screen)
        await until(lambda: app.screen is screen, pilot)
        await pilot.pause(0.3)
        assert not _toasts(app) and "Started l1" not in screen_text(app)
        screen.dismiss(None)
        await until(lambda: "Started l1 on box" in screen_text(app), pilot)
        assert len(_toasts(app)) == 1


async def test_a_toast_brought_back_after_a_dialog_keeps_only_the_time_it_had_left(session_path):
    """Held by one dialog after another, a toast came back each time with its whole timeout and
    gathered every later one (at 80x24 it covered the compare table at the walk's end)."""
    app = make_app(session_path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        app.notify("Started l1 on box (this machine)", timeout=3)
        await until(lambda: len(_toasts(app)) == 1, pilot)
        await pilot.pause(1.5)  # seen for half its time
        app.notify("sweep s1 (walk) on l1: 2 of 2 points recorded", timeout=20)
        await until(lambda: len(app._notifications) == 2, pilot)
        screen = _confirm_run()
        app.push_screen(screen)
        await until(lambda: app.screen is screen, pilot)
        await pilot.pause(0.3)
        assert not list(app._notifications)
        screen.dismiss(None)
        await until(lambda: len(app._notifications) == 2, pilot)
        shown, later = list(app._notifications)  # each alone: not one toast living as long as the longest
        assert shown.message.startswith("Started l1") and later.message.startswith("sweep s1")
        assert shown.time_left <= 1.6, "back for what it had left, not its whole 3 s again"
        await until(lambda: len(app._notifications) == 1, pilot, timeout=3)
