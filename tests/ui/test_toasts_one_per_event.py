"""Alerts and toasts (issue 23, item 5): one toast per event, a burst as one, none over an
open form (held until it closes); a reconnect a person asks for is not "host dropped"."""

from __future__ import annotations

from textual.widgets._toast import Toast

from sshd_fixture import ALIAS
from tui_support import make_app, screen_text, until

from cockpit.model.session import Host, Session
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.forms.form_base import FormScreen

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
