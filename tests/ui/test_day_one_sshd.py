"""Day one over real SSH: a campaign set up from an empty session through the Goal tab's
forms (a goal, a target, a host whose `ssh` is the loopback sshd's alias, tests/sshd_fixture.py)
and, without a restart and without the file touched by hand, the log pane shows the lines
written to that host's log. (The reconnect after a host key is accepted is
tests/ui/test_several_hosts.py::test_reconnect_after_the_host_key_is_accepted.)"""

from __future__ import annotations

import os
import tomllib

from sshd_fixture import ALIAS
from tui_support import fill, keys_for, make_app, screen_text, until

from cockpit.model.session import Session
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.forms.setup import GoalForm, HostForm, TargetForm
from cockpit.ui.widgets.chrome.host_deck import HostDeck
from cockpit.ui.widgets.session.setup_view import SetupList


def _append(path, line: str) -> None:  # noqa: ANN001
    with path.open("a", encoding="utf-8") as f:
        f.write(line + "\n")
    os.chmod(path, 0o644)  # the sshd's login user reads it


async def test_an_empty_session_gets_a_host_tailing_the_loopback_sshd_from_the_forms(sshd, tmp_path):
    path = tmp_path / "day-one.toml"
    save_session(Session(title="day one"), path)
    log = sshd.make_dir("logs") / "server.log"
    _append(log, "[2026-11-29 09:00:00] The server is fired up and ready to roll!")
    sources = sources_for_session(load_session(path), ssh_config=(sshd.ssh_config,))
    app = make_app(path, sources=sources)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "no targets yet" in screen_text(app) and not app.host_states

        # the goal tab: the goal row first, `e` edits it
        await pilot.press("2", "e")
        assert isinstance(app.screen, GoalForm)
        fill(app.screen, summary="GLM-5 at 1k tok/s", model="GLM-5-NVFP4")
        await pilot.press("ctrl+s")
        # `t` adds a target: metric and comparator keep their first choice, the value typed
        await pilot.press("t")
        assert isinstance(app.screen, TargetForm)
        fill(app.screen, value="1000")
        await pilot.press("ctrl+s")
        assert "Targets ○ total tok/s ≥1,000 tok/s: no data" in screen_text(app)

        # `H` adds a host, typed as a person does: name, the ssh alias, (no jump), the log path
        await pilot.press("H")
        assert isinstance(app.screen, HostForm)
        await pilot.press(*keys_for("loop"), "tab", *keys_for(ALIAS), "tab", "tab", *keys_for(str(log)))
        await pilot.press("ctrl+s")
        assert not isinstance(app.screen, HostForm), screen_text(app)
        assert app.screen.query_one(SetupList).selected_id() == "host:loop"

        # no restart: the app re-planned the host feeds, the host connects and its log tails
        await until(lambda: app.host_states.get("loop") == "connected", pilot, timeout=30)
        await pilot.press("1")
        deck = app.main_screen.query_one("#log-deck", HostDeck)
        await until(lambda: "loop" in deck.panes and any(
            "ready to roll" in t for t in deck.panes["loop"].buffer.tail_texts(50)), pilot, timeout=30)
        _append(log, "[2026-11-29 09:02:00] a line written after the host was added")
        await until(lambda: "a line written after the host was added" in screen_text(app), pilot, timeout=30)
        text = screen_text(app)
        assert "ready to roll" in text and "● loop" in text.splitlines()[0]

        await pilot.press("ctrl+s")
        await until(lambda: app.unsaved_edits == 0, pilot)

    saved = tomllib.loads(path.read_text(encoding="utf-8"))
    assert saved["goal"]["summary"] == "GLM-5 at 1k tok/s"
    assert saved["goal"]["targets"][0]["value"] == 1000.0
    assert saved["hosts"] == [{"name": "loop", "ssh": ALIAS, "log_path": str(log), "gpu_source": "none",
                               "gpu_interval_s": 1.0}]
